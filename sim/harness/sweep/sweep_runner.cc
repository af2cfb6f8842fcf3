#include "sim/harness/sweep/sweep_runner.h"

#include "sim/harness/run/runner.h"
#include "sim/harness/sweep/metrics.h"
#include "sim/harness/sweep/point_document.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace harness::sweep {

using nlohmann::json;

std::optional<Shard> ParseShard(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  Shard shard;
  auto parse = [](std::string_view s, std::size_t* out) {
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), *out);
    return ec == std::errc() && end == s.data() + s.size() && !s.empty();
  };
  if (!parse(std::string_view(text).substr(0, slash), &shard.index) || !parse(std::string_view(text).substr(slash + 1), &shard.count))
    return std::nullopt;
  if (shard.count == 0 || shard.index >= shard.count) return std::nullopt;
  return shard;
}

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
  if (runs.empty()) return rows;
  std::size_t jobs = options.jobs > 0 ? options.jobs : std::max(1u, std::thread::hardware_concurrency());
  jobs = std::min(jobs, runs.size());
  std::atomic<std::size_t> next{0};
  std::mutex done_mutex;
  std::size_t done = 0;
  auto work = [&] {
    for (std::size_t i = next++; i < runs.size(); i = next++) {
      rows[i] = RunOne(spec, runs[i]);
      std::lock_guard<std::mutex> lock(done_mutex);
      ++done;
      if (options.on_finished) {
        try {
          options.on_finished(done, runs.size());
        } catch (const std::exception&) {
          // Progress is a courtesy; a failing callback must not lose the rows.
        }
      }
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t t = 1; t < jobs; ++t) {
    try {
      threads.emplace_back(work);
    } catch (const std::system_error&) {
      break;  // this thread and the others take its share
    }
  }
  work();
  for (auto& t : threads) t.join();
  return rows;
}

}  // namespace harness::sweep
