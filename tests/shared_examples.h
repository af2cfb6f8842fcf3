// The original DGL Operator's six example manifests live beside the project, in
// ../shared/reference/dgl-operator-examples, and are never copied into it. Tests that read them
// begin with DGLSIM_REQUIRE_SHARED_EXAMPLES(): in a clone with nothing beside it they are reported
// skipped, not failed.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace testing_shared {

// The environment variable DGLSIM_SHARED_DIR, when set, stands in for the folder found at build time
// (so the skipping itself can be tried without moving folders).
inline std::string SharedDir() {
  const char* env = std::getenv("DGLSIM_SHARED_DIR");
  return env != nullptr ? std::string(env) : std::string(DGLSIM_SHARED_DIR);
}
inline std::string ExamplesDir() { return SharedDir() + "/reference/dgl-operator-examples/"; }
inline bool ExamplesPresent() { return std::filesystem::is_directory(ExamplesDir()); }

}  // namespace testing_shared

#define DGLSIM_REQUIRE_SHARED_EXAMPLES()                                                  \
  if (!::testing_shared::ExamplesPresent())                                              \
  GTEST_SKIP() << "the original example manifests (" << ::testing_shared::ExamplesDir() \
               << ") are not beside the clone"
