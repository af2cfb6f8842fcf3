// Helpers of the visual report tests (trace export, HTML page): RunRecords built by hand, for the
// sizes and names no small simulated run has (a thousand nodes, markup in names, overlapping
// containers).
#pragma once

#include "sim/harness/run/runner.h"

#include <string>

namespace harness::testing {

inline constexpr Micros kSec = kube::kSecond;

// `nodes` nodes "node-0".. with 8 GPUs; `jobs` jobs "job-0".. in namespace default, submitted a
// minute apart, each Partitioning -> Training -> Succeeded; `pods_per_job` pods per job (a
// launcher, then workers with one GPU), spread round-robin over the nodes, each running 30 min
// with one container "main" and a "training" stage.
inline RunRecord SyntheticRecord(int nodes, int jobs, int pods_per_job) {
  RunRecord r;
  r.scenario = "synthetic";
  r.description = "a record built by hand";
  r.seed = 7;
  r.trace_hash = "0123456789abcdef";
  r.nodes = nodes;
  for (int n = 0; n < nodes; ++n) {
    r.node_list.push_back({"node-" + std::to_string(n), 8});
    r.gpus += 8;
  }
  int next_node = 0;
  for (int j = 0; j < jobs; ++j) {
    JobKey key{"default", "job-" + std::to_string(j)};
    JobRecord& job = r.jobs[key];
    job.key = key;
    job.partition_mode = "DGL-API";
    r.job_order.push_back(key);
    Micros t0 = j * 60 * kSec;
    job.submitted = t0;
    job.phases = {{"Pending", t0}, {"Partitioning", t0 + 5 * kSec}, {"Training", t0 + 65 * kSec},
                  {"Succeeded", t0 + 1900 * kSec}};
    job.phase = "Succeeded";
    job.completed = t0 + 1900 * kSec;
    job.pods_created = pods_per_job;
    for (int p = 0; p < pods_per_job; ++p) {
      std::string uid = "uid-" + std::to_string(j) + "-" + std::to_string(p);
      PodRecord& pod = r.Pod(uid);
      pod.ns = "default";
      pod.name = key.name + (p == 0 ? "-launcher" : "-worker-" + std::to_string(p - 1));
      pod.job = key;
      pod.role = p == 0 ? "launcher" : "worker";
      pod.gpus = p == 0 ? 0 : 1;
      pod.node = "node-" + std::to_string(next_node++ % nodes);
      pod.created = t0 + 60 * kSec;
      pod.bound = t0 + 61 * kSec;
      pod.started = t0 + 70 * kSec;
      pod.finished = pod.released = t0 + 1870 * kSec;
      pod.phase = "Succeeded";
      pod.containers.push_back({.name = "main", .started = *pod.started, .finished = pod.finished});
      pod.stages.push_back({"training", t0 + 80 * kSec, t0 + 1860 * kSec});
      job.gpu_seconds += static_cast<double>(pod.gpus) * 1800;
      r.gpu_seconds += static_cast<double>(pod.gpus) * 1800;
    }
  }
  r.end = (jobs + 32) * 60 * kSec;
  // GPUs in use: every job's workers from +70 s to +1870 s.
  std::map<Micros, std::int64_t> delta;
  for (int j = 0; j < jobs; ++j) {
    delta[j * 60 * kSec + 70 * kSec] += pods_per_job - 1;
    delta[j * 60 * kSec + 1870 * kSec] -= pods_per_job - 1;
  }
  r.gpus_in_use.push_back({0, 0});
  std::int64_t level = 0;
  for (const auto& [at, d] : delta) {
    level += d;
    r.gpus_in_use.push_back({at, level});
  }
  return r;
}

}  // namespace harness::testing
