#include "operator/api/vocabulary.h"

namespace dgl {

int PhaseProgress(std::string_view phase) {
  if (phase == kPhasePending) return 0;
  if (phase == kPhasePartitioning) return 1;
  if (phase == kPhasePartitioned) return 2;
  if (phase == kPhaseTraining) return 3;
  if (IsTerminalPhase(phase)) return 4;
  return -1;
}

bool IsTerminalPhase(std::string_view phase) { return phase == kPhaseSucceeded || phase == kPhaseFailed; }

std::string ConfigMapName(std::string_view job_name) { return std::string(job_name) + "-config"; }
std::string WorkerServiceName(std::string_view job_name) { return std::string(job_name) + "-worker"; }
std::string LauncherName(std::string_view job_name) { return std::string(job_name) + "-launcher"; }
std::string PartitionerName(std::string_view job_name) { return std::string(job_name) + "-partitioner"; }
std::string WorkerName(std::string_view job_name, std::int64_t index) {
  return std::string(job_name) + "-worker-" + std::to_string(index);
}

}  // namespace dgl
