// The files a command writes (reports, traces, JUnit, calibration files): checked before any work
// starts, so that nothing is simulated or measured in vain, and written with every error seen, a
// full disk (/dev/full) included. The commands answer both with exit code 2 (docs/cli.md, exit codes).
#pragma once

#include <string>
#include <string_view>

namespace harness {

// Why `path` cannot be written ("it is a directory", "no such directory out/", "Permission
// denied"), or "" when it can as far as one can tell without writing it.
std::string CannotWrite(const std::string& path);

// Writes `text` to `path` (created or truncated) and closes it; false with the reason in *error
// ("No space left on device") when any step fails.
bool WriteOutputFile(const std::string& path, std::string_view text, std::string* error);

}  // namespace harness
