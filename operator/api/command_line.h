// Reading a container's command line the way dglrun's argparse does: flags given as "--flag V" or
// "--flag=V" in `command` and `args`, also inside shell strings such as
// `sh -c "dglrun --num-servers 2; ..."`. Defaulting reads numServers from the Launcher's command
// with it; validation reads --num-partitions.
#pragma once

#include "fakeapi/client/json.h"

#include <optional>
#include <string>
#include <string_view>

namespace dgl {

// The value of `flag` in a container's command and args. The last occurrence wins, as with
// argparse. nullopt when absent or when the container is not a JSON object.
std::optional<std::string> FindCommandFlag(const kube::Json& container, std::string_view flag);

// Whether a word of the container's command line is `program` or a path ending in "/program".
bool CommandRuns(const kube::Json& container, std::string_view program);

}  // namespace dgl
