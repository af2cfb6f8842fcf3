// What `dglsim sweep` and `dglsim chaos` share to run as shards and merge them (the slices
// themselves: sim/harness/shards.h).
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/shards.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace dglsim_cli {

// `--shard I/N`, or `--shard N` with I from JOB_COMPLETION_INDEX (which Kubernetes sets in every pod
// of an Indexed Job). nullopt with the reason, a line starting "--shard TEXT: ", in *why.
std::optional<harness::Shard> ShardFromFlag(const std::string& text, std::string* why);

// The slice file of shard `shard` of batch `name` in `dir`: DIR/NAME.<marker>I-of-N.json.
std::string SliceFileName(const std::string& dir, const std::string& name, const std::string& marker,
                          const harness::Shard& shard);

// The slice files that `args` name: files as given, and in each directory its files whose name holds
// `marker` (".shard-") and ends in .json, sorted. A directory without any is said on stderr.
std::vector<std::string> SliceFiles(const std::vector<std::string>& args, const std::string& marker);

// Each file parsed as JSON (a file that cannot be read or is not JSON: a problem, and null in its place).
std::vector<kube::Json> ReadSlices(const std::vector<std::string>& files, std::vector<std::string>* problems);

}  // namespace dglsim_cli
