// How big a scenario may be. A run holds its whole cluster in memory (the API server's objects, an
// actor per node, the operator's caches, the run record), so each bound below is refused with a
// located message (exit 2) by the loader rather than found as an out-of-memory kill or a run that
// never ends. The figures measured for the bounds (one core, RelWithDebInfo) are in
// docs/limits.md; raise a bound only with a measurement that it stays within a few GB.
#pragma once

#include <cstdint>

namespace harness {

// Nodes of cluster.nodes, templates and manifests together (100,000 idle nodes: 1.7 GB, 23 s).
inline constexpr std::int64_t kMaxNodes = 100'000;
// DGLJobs submitted, listed under jobs or drawn by arrivals. Jobs arriving over time cost what is
// live (scenarios/scale/fleet-week-1m: 70,000 over six days); submitted at once, each holds its
// pods and objects from the start (10,000 one-pod jobs at once: 1.6 GB, 40 s; 100,000 would need
// about 16 GB).
inline constexpr std::int64_t kMaxJobs = 100'000;
// Pods of every job submitted, the replicas of every role added up (scenarios/scale/fleet-week-1m:
// about 990,000 pods of 70,000 DGLJobs on 70,000 nodes over a week; reports/performance.md).
inline constexpr std::int64_t kMaxPods = 1'500'000;
// Kubernetes' replicas are int32 (the CRD's format: int32): 2147483648 is refused by admission.
// GPUs of one node (the largest machines have 16): keeps the cluster's GPU count, summed over
// kMaxNodes nodes, far inside 64 bits.
inline constexpr std::int64_t kMaxNodeGpus = 1'024;
// A dataset's size: nodes and edges up to 2^40 (the largest public graphs have ~10^11 edges), and
// its features (nodes x featureDim x 4 bytes of float32) up to 1 PiB, so that every byte count and
// duration the workload models derive stays within 64 bits.
inline constexpr std::int64_t kMaxGraphNodes = std::int64_t{1} << 40;
inline constexpr std::int64_t kMaxGraphEdges = std::int64_t{1} << 40;
inline constexpr double kMaxFeatureBytes = 1125899906842624.0;  // 2^50

}  // namespace harness
