// A sweep file (`apiVersion: dglsim/v1`, `kind: Sweep`, docs/sweeps.md) names a base scenario and
// the parameters to vary, each a list of values written into the scenario at field paths, and says
// which configurations to run (every combination, or listed points), with which seeds, and what
// "best" means (the objective). LoadSweepFile reads and checks it whole: the file's own fields,
// every path against the base scenario (a path that is not in the base is an error, never a silent
// no-op), and every point as the scenario loader would check a user's file (point_document.h). Each
// problem is one line `FILE:LINE:COL: field.path: message`; nothing runs unless there are none.
//
// Paths are field paths as the loader prints them (`cluster.nodes[0].count`,
// `jobs[0].inline.spec.dglReplicaSpecs.Worker.replicas`, `...limits[nvidia.com/gpu]`). A path may go
// through a job's `manifest: FILE` into the manifest (`jobs[0].manifest.spec.partitionMode`): the
// sweep then inlines that (one-document) manifest into the job entry, so each point's job is
// checked and admitted as the file's would be. A value `null` removes the field.
//
// Defaults: metadata.name = the file name without .yaml; points = every combination of the
// parameters' values (the first parameter varies slowest); seeds = the base scenario's seed (a
// count N means seeds 1..N, a list those seeds, either whatever the base's seed);
// objective = {goal: fastest}; lineBy = the partition mode each point's first job ran with.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/yaml_json.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace harness::sweep {

inline constexpr const char* kSweepKind = "Sweep";

// Where one parameter's value is written: a path into the scenario and, when `format` is set, the
// value as a string made from it ("--num-partitions={}" with 8 gives "--num-partitions=8").
struct SweepTarget {
  std::string path;       // canonical field path into the (manifest-inlined) base scenario
  std::string format;     // "" = the value as it is
  std::string field_path; // where the target is written in the sweep file
};

// One value of a parameter: what the tables and plots call it, where it sits on a numeric axis,
// and what it writes into the scenario.
struct SweepValue {
  std::string label;            // "8", "SSP", "p4d.24xlarge"
  std::optional<double> x;      // the number plotted, when the value (or its `value:`) is one
  std::vector<std::pair<SweepTarget, kube::Json>> writes;  // in order
  std::string field_path;       // "parameters[1].values[2]"
};

struct SweepParameter {
  std::string name;
  std::vector<SweepValue> values;
  bool numeric = false;  // every value has an x: plotted on a numeric axis
  std::string field_path;
};

// One configuration: a value index per parameter (-1: the parameter is left as in the base).
struct SweepPoint {
  std::vector<int> values;
  std::string field_path;  // where the point is written ("parameters" for a grid point)
};

enum class Goal { kFastest, kCheapest };

// What the recommendation optimises, and the limits a point must keep to be eligible.
struct Objective {
  Goal goal = Goal::kFastest;
  std::optional<double> deadline_seconds;  // makespan at most this (cheapest within a deadline)
  std::optional<double> budget;            // cost at most this (fastest within a budget)
  std::optional<int> queueing_percentile;  // fleet sizing: this percentile (50, 90, 95, 99) of queueing delay ...
  std::optional<double> queueing_under_seconds;  // ... at most this
};

// The figures `plots:` may ask charts of, each drawn against every parameter (sweeps.md).
inline constexpr const char* kPlotFigures[] = {"makespan", "cost", "busyCost", "epochTime", "gpuUtilization",
                                              "trainingGpuUtilization", "queueing"};

struct SweepSpec {
  std::string file;      // as given
  std::string name;
  std::string description;
  std::string base_as_written;  // `base:` as the file has it (the outputs name it so)
  std::string base_file; // resolved against the sweep file's folder
  std::string base_dir;  // the base scenario's folder (its relative paths resolve there)
  kube::Json base;   // the base scenario document, manifests named by paths inlined, expect removed
  std::vector<SweepParameter> parameters;
  std::vector<SweepPoint> points;
  std::vector<std::uint64_t> seeds;  // never empty after loading
  Objective objective;
  std::string line_by;  // a parameter's name, or "" = the partition mode
  // `plots:` (kPlotFigures), in the file's order; empty: makespan and cost, plus queueing and GPU
  // utilisation when points run several jobs.
  std::vector<std::string> plots;
  // The scenario text of each point for its first seed, as checked (point_document.h).
  std::vector<std::string> point_texts;
  // "workers=8 mode=SSP" for point i.
  std::string PointLabel(std::size_t i) const;
  // The value label of parameter p at point i ("base" when the point leaves it as in the base).
  std::string ValueLabel(std::size_t i, std::size_t p) const;
  std::optional<double> ValueX(std::size_t i, std::size_t p) const;
};

struct SweepLoad {
  std::optional<SweepSpec> spec;       // set exactly when there are no problems
  std::vector<std::string> problems;   // FILE:LINE:COL: field.path: message
  std::vector<std::string> warnings;   // the base scenario's warnings
  bool ok() const { return problems.empty() && spec.has_value(); }
};

// Reads and checks a sweep file, its base scenario and every point. Never throws.
SweepLoad LoadSweepFile(const std::string& path);
// The same for text; `file` names it in messages and `base_dir` resolves `base:`.
SweepLoad LoadSweepString(std::string_view text, const std::string& file, const std::string& base_dir);

// The objective as the reports spell it: "cheapest within 2h", "fastest within a budget of 40".
std::string Describe(const Objective& objective);

}  // namespace harness::sweep
