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
std::string WorkerServiceName(std::string_view job_name) { return RoleServiceName(job_name, kRoleWorker); }
std::string LauncherName(std::string_view job_name) { return std::string(job_name) + "-launcher"; }
std::string PartitionerName(std::string_view job_name) { return std::string(job_name) + "-partitioner"; }
std::string WorkerName(std::string_view job_name, std::int64_t index) {
  return ReplicaPodName(job_name, kRoleWorker, index);
}
std::string ReplicaRole(std::string_view replica_type) {
  std::string role(replica_type);
  for (char& c : role) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return role;
}
std::string ReplicaPodName(std::string_view job_name, std::string_view role, std::int64_t index) {
  return std::string(job_name) + "-" + std::string(role) + "-" + std::to_string(index);
}
std::string RoleServiceName(std::string_view job_name, std::string_view role) {
  return std::string(job_name) + "-" + std::string(role);
}

}  // namespace dgl
