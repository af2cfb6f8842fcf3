#include "sim/harness/sweep/sweep_runner.h"

#include "sim/harness/parallel_runs.h"
#include "sim/harness/run/runner.h"
#include "sim/harness/sweep/metrics.h"
#include "sim/harness/sweep/point_document.h"

#include <exception>
#include <functional>

namespace harness::sweep {

using json = kube::Json;

std::size_t RunCount(const SweepSpec& spec) { return spec.points.size() * spec.seeds.size(); }

json RunOne(const SweepSpec& spec, std::size_t run) {
  const std::size_t point = run / spec.seeds.size();
  const std::uint64_t seed = spec.seeds[run % spec.seeds.size()];
  json row;
  try {
    ScenarioLoad load = LoadScenarioString(PointScenarioText(spec, point, seed), kPointFile, spec.base_dir);
    if (!load.ok()) {
      // Checked when the sweep was loaded; only a file changed since could get here.
      row = {{"outcome", "Error"}, {"reason", load.problems.empty() ? "does not load" : StripPointLocation(load.problems.front())}};
    } else {
      row = RowOf(*load.scenario, RunScenario(*load.scenario));
    }
  } catch (const std::exception& e) {
    row = {{"outcome", "Error"}, {"reason", std::string("internal error: ") + e.what()}};
  }
  if (row["outcome"] == "Error") row["lostTo"] = "error";
  row["run"] = run;
  row["point"] = point;
  row["seed"] = seed;
  json parameters = json::object();
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) parameters[spec.parameters[p].name] = spec.ValueLabel(point, p);
  row["parameters"] = parameters;
  return row;
}

std::vector<json> RunSweep(const SweepSpec& spec, const SweepRunOptions& options) {
  std::vector<std::size_t> runs;
  for (std::size_t r = 0; r < RunCount(spec); ++r)
    if (options.shard.Takes(r)) runs.push_back(r);
  std::vector<json> rows(runs.size());
  std::function<void(std::size_t, std::size_t)> finished;
  if (options.on_finished) finished = [&](std::size_t, std::size_t done) { options.on_finished(done, runs.size()); };
  RunInParallel(runs.size(), options.jobs, [&](std::size_t i) { rows[i] = RunOne(spec, runs[i]); }, finished);
  return rows;
}

}  // namespace harness::sweep
