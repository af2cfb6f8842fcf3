// What a sweep records of one run (one point and one seed): a row, as JSON, with every figure the
// tables, plots and recommendations read. Rows are computed from the loaded Scenario and its
// RunRecord only, so a point run alone (`dglsim sweep --scenario-of N`, then `dglsim run`) gives the
// same figures.
//
// Definitions (times in simulated seconds, from the scenario's start):
//   outcome        Succeeded (every job succeeded), Failed (a job failed or its submission was
//                  refused), Unfinished (a job was not done when the run stopped at `until`)
//   reason         why it did not succeed: the Failed condition's reason and message of the first
//                  failed job, with the words its first failed container ended with: its own
//                  termination reason (OOMKilled), else the last two lines of its termination
//                  message (the MPI error, when its pod template sets terminationMessagePolicy:
//                  FallbackToLogsOnError); a container that said no more than "Error" adds nothing
//   lostTo         the reason's kind: OOMKilled, MPI limit, DeadlineExceeded, failed, unfinished
//   span           RunSpanSeconds (report.h): from the first submission to the last job's
//                  completion (the run's end when a job never completed): how long the cluster is needed
//   makespan       the span when every job completed, else null
//   breakdown      per stage (kBreakdownStages), the mean over the jobs
//   gpuHours       GPU-hours held by pods (RunRecord::gpu_seconds)
//   providedGpuHours  the GPU-hours the cluster provides: its GPUs over the span, held or not (what
//                  "cheapest" compares when no node has a price); a pool node's GPUs count for the
//                  time it is paid for (below)
//   idleGpuHours   providedGpuHours less the GPU-hours held: paid for, unused
//   lostGpuHours   GPU-hours the jobs' pods held before each job's last restart: work thrown away
//   peakMemory     per role, the largest peak of any job
//   restarts       summed over the jobs
//   cost           the span times the cluster's price per hour (nodes' pricePerHour), plus each pool
//                  node's price for the time it is paid for: from its request (from the span's start
//                  for a pool's minimum nodes) to its removal or interruption, which may come after
//                  the span's end (a pool shrinks after the last job), or to the span's end; null
//                  when nothing is priced
//   nodeHours      node-hours paid for, counted as the cost is; peakNodes: the most nodes Ready at
//                  once; poolNodes: pool nodes requested; interruptions: spot nodes taken back
//   busyCost       what the nodes cost if each is paid for only while it holds a pod (an autoscaled
//                  cluster without scale-up delay or minimum billing): each priced node's price
//                  times the union of its pods' times from binding to release; null when no node
//                  has a price
//   queueing       per-job queueing delays: the time some pod of the job's first attempt waited
//                  between its creation and its binding (the union of those waits; an SMP job's
//                  partitioning between its partitioner's and its workers' waits does not count):
//                  p50, p90, p95, p99, max
//   gpuUtilization GPU-hours held / (the cluster's GPUs x span); null without GPUs
//   trainingGpuUtilization  GPU-hours held by a job's pods while that job was in its training stage
//                  (the union of its training intervals), summed over the jobs, / (the cluster's
//                  GPUs x span): the share of the GPU time paid for that trained; null without GPUs
//   epochSeconds   the time per epoch: a job's training stage / the epochs its launcher runs
//                  (dglrun's --num-epochs, else the training script's default; dglkerun: one run),
//                  the mean over the jobs that trained; epochs run again after a restart count in
//                  the stage, so a restarted training shows a longer epoch; null when no job trained
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/report/report.h"
#include "sim/harness/run/runner.h"

namespace harness::sweep {

// The percentiles rows carry for queueing delays (objective.queueing.percentile is one of them).
inline constexpr int kQueueingPercentiles[] = {50, 90, 95, 99};

// The row of one run; `point`, `seed` and `parameters` are filled by the caller.
kube::Json RowOf(const Scenario& scenario, const RunRecord& record);

// The kind of a failure reason, for "why the others lost".
std::string LostTo(const std::string& outcome, const std::string& reason);

}  // namespace harness::sweep
