// The scenario one chaos seed runs, in memory and as a file.
//
// SeedScenario is what `dglsim chaos` runs for seed N: the scenario with `seed: N`, named
// "<name>-seed-<N>" (and a description saying so), its own faults followed by the drawn ones (the drawn faults are added, never
// replace the scenario's), and its `expect:` list only with keep_expectations (the invariants are
// always checked).
//
// SeedScenarioFile writes that scenario as an ordinary scenario file: the original file as loaded
// (comments and key order are not kept; types are), with `seed`, `metadata.name`,
// `metadata.description`, every fault listed (the scenario's own, then the drawn ones) and
// `expect: [{invariants: all}]` (after the scenario's own expectations with keep_expectations; once,
// when they already hold it).
// Relative paths of the file (jobs[].manifest, cluster.nodes[].manifest, datasets[].edgeList,
// calibration) are rewritten relative to the folder the file goes to. `dglsim run` of that file
// runs what the chaos seed ran, to the same trace hash, and exits 1 exactly when the seed failed.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/scenario.h"

#include <cstdint>
#include <string>
#include <vector>

namespace harness::chaos {

Scenario SeedScenario(const Scenario& base, std::uint64_t seed, const std::vector<FaultSpec>& drawn,
                      bool keep_expectations);

// A fault as a scenario file's `faults[]` item (every field the loader reads back to the same spec).
kube::Json FaultToJson(const FaultSpec& fault);

// Exact duration text: FormatDuration when that is exact (whole milliseconds), else seconds with
// six decimals.
std::string ExactDuration(Micros d);

struct ScenarioFileText {
  std::string text;   // the YAML
  std::string error;  // why it could not be made ("" = it could): the scenario file is unreadable
};

// The file of `scenario` (a SeedScenario of `base`), to be written into `out_dir`; `comment` goes
// first, as YAML comment lines.
ScenarioFileText SeedScenarioFile(const Scenario& base, const Scenario& scenario, bool keep_expectations,
                                  const std::string& out_dir, const std::string& comment);

}  // namespace harness::chaos
