// The DGL operator's vocabulary: the labels it puts on what it creates, the replica types, the
// job phases and condition types it reports, and the names of the objects it creates for a job.
// The operator, the simulator, the harness and the reports all spell these through this header,
// never as literals of their own, so a renamed phase or label cannot leave a reader behind.
// The contract is docs/dgljob-api.md.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace dgl {

// Labels on every object created for a job (replica-index on pods only).
inline constexpr const char* kLabelJobName = "training.kubeflow.org/job-name";
inline constexpr const char* kLabelReplicaType = "training.kubeflow.org/replica-type";
inline constexpr const char* kLabelReplicaIndex = "training.kubeflow.org/replica-index";

// The pod annotation recording status.restartCount when the pod was created, so a restart can tell
// the pods it replaces from the pods it made (and a container program which run it belongs to).
inline constexpr const char* kAnnotationRestartEpoch = "training.kubeflow.org/restart-count";

// Keys of spec.dglReplicaSpecs. A Worker runs DGL servers, samplers and trainers in one pod; a
// tri-workload job runs them in pods of their own (Server, Sampler, Trainer), beside or instead of
// workers.
inline constexpr const char* kReplicaLauncher = "Launcher";
inline constexpr const char* kReplicaWorker = "Worker";
inline constexpr const char* kReplicaPartitioner = "Partitioner";
inline constexpr const char* kReplicaServer = "Server";
inline constexpr const char* kReplicaSampler = "Sampler";
inline constexpr const char* kReplicaTrainer = "Trainer";
// Values of the replica-type label: the replica type in lower case.
inline constexpr const char* kRoleLauncher = "launcher";
inline constexpr const char* kRoleWorker = "worker";
inline constexpr const char* kRolePartitioner = "partitioner";
inline constexpr const char* kRoleServer = "server";
inline constexpr const char* kRoleSampler = "sampler";
inline constexpr const char* kRoleTrainer = "trainer";

// The replica types whose pods are indexed (J-<role>-0 .. n-1), in the order the ConfigMap lists
// them: workers and servers hold the partitions (workers first), samplers and trainers do not.
struct IndexedReplica {
  const char* type;  // key of spec.dglReplicaSpecs
  const char* role;  // replica-type label
};
inline constexpr IndexedReplica kIndexedReplicas[] = {
    {kReplicaWorker, kRoleWorker}, {kReplicaServer, kRoleServer}, {kReplicaSampler, kRoleSampler},
    {kReplicaTrainer, kRoleTrainer}};

// status.phase of a DGLJob.
inline constexpr const char* kPhasePending = "Pending";
inline constexpr const char* kPhasePartitioning = "Partitioning";
inline constexpr const char* kPhasePartitioned = "Partitioned";
inline constexpr const char* kPhaseTraining = "Training";
inline constexpr const char* kPhaseRestarting = "Restarting";
inline constexpr const char* kPhaseSuspended = "Suspended";
inline constexpr const char* kPhaseSucceeded = "Succeeded";
inline constexpr const char* kPhaseFailed = "Failed";
// Every phase, in the order the API documentation lists them.
inline constexpr const char* kJobPhases[] = {kPhasePending,    kPhasePartitioning, kPhasePartitioned, kPhaseTraining,
                                             kPhaseRestarting, kPhaseSuspended,    kPhaseSucceeded,   kPhaseFailed};

// status.conditions[].type: Created, and one per phase but Pending (exactly the current phase's
// one is True).
inline constexpr const char* kConditionCreated = "Created";
inline constexpr const char* kPhaseConditions[] = {kPhasePartitioning, kPhasePartitioned, kPhaseTraining,
                                                   kPhaseRestarting,   kPhaseSuspended,   kPhaseSucceeded,
                                                   kPhaseFailed};
inline constexpr const char* kConditionTypes[] = {kConditionCreated, kPhasePartitioning, kPhasePartitioned,
                                                  kPhaseTraining,    kPhaseRestarting,   kPhaseSuspended,
                                                  kPhaseSucceeded,   kPhaseFailed};

// status.conditions[].reason, CamelCase. Created:
inline constexpr const char* kReasonJobCreated = "DGLJobCreated";
// Progress (the phase the pods show):
inline constexpr const char* kReasonPodsPending = "PodsPending";
inline constexpr const char* kReasonPartitionerRunning = "PartitionerRunning";
inline constexpr const char* kReasonPartitionerSucceeded = "PartitionerSucceeded";
inline constexpr const char* kReasonDistPartitionerRunning = "DistPartitionerRunning";
inline constexpr const char* kReasonPartitionsReady = "PartitionsReady";
inline constexpr const char* kReasonTrainingRunning = "TrainingRunning";
inline constexpr const char* kReasonLauncherRunning = "LauncherRunning";
inline constexpr const char* kReasonLauncherSucceeded = "LauncherSucceeded";
inline constexpr const char* kReasonJobSuspended = "JobSuspended";
inline constexpr const char* kReasonJobResumed = "JobResumed";
// Failures (Restarting while backoffLimit allows, else Failed):
inline constexpr const char* kReasonPartitionerFailed = "PartitionerFailed";
inline constexpr const char* kReasonPartitionerOOMKilled = "PartitionerOOMKilled";
inline constexpr const char* kReasonLauncherFailed = "LauncherFailed";
inline constexpr const char* kReasonLauncherLost = "LauncherLost";
inline constexpr const char* kReasonWorkerFailed = "WorkerFailed";
inline constexpr const char* kReasonWorkerLost = "WorkerLost";
inline constexpr const char* kReasonServerFailed = "ServerFailed";
inline constexpr const char* kReasonServerLost = "ServerLost";
// A lost sampler or trainer restarts only the training: the servers keep their partitions.
inline constexpr const char* kReasonSamplerFailed = "SamplerFailed";
inline constexpr const char* kReasonSamplerLost = "SamplerLost";
inline constexpr const char* kReasonTrainerFailed = "TrainerFailed";
inline constexpr const char* kReasonTrainerLost = "TrainerLost";
inline constexpr const char* kReasonDeadlineExceeded = "DeadlineExceeded";
inline constexpr const char* kReasonUnschedulable = "Unschedulable";
// Event reasons beyond the condition reasons (every phase change records its condition reason).
inline constexpr const char* kEventPodFailed = "PodFailed";
inline constexpr const char* kEventForceDeletedPod = "ForceDeletedPod";
// The API refused one of the operator's requests (403): its RBAC lacks a permission.
inline constexpr const char* kEventForbidden = "Forbidden";

// Keys of the ConfigMap J-config (the files the launcher, partitioner and workers read).
inline constexpr const char* kConfigIpconfig = "ipconfig";
inline constexpr const char* kConfigHostfile = "hostfile";
inline constexpr const char* kConfigPartfile = "partfile";
inline constexpr const char* kConfigLeadfile = "leadfile";
inline constexpr const char* kConfigKubexec = "kubexec.sh";
// Tri-workload jobs only: the trainer and sampler pods, in the hostfile's format.
inline constexpr const char* kConfigTrainerfile = "trainerfile";
inline constexpr const char* kConfigSamplerfile = "samplerfile";
inline constexpr const char* kConfigMapKeys[] = {kConfigIpconfig, kConfigHostfile,    kConfigPartfile,   kConfigLeadfile,
                                                 kConfigKubexec,  kConfigTrainerfile, kConfigSamplerfile};

// The environment dglrun reads its role from, and the roles it names.
inline constexpr const char* kEnvPhase = "DGL_OPERATOR_PHASE_ENV";
inline constexpr const char* kEnvPartitionMode = "DGL_OPERATOR_PARTITION_MODE";
inline constexpr const char* kPhaseEnvPartitioner = "Partitioner";
inline constexpr const char* kPhaseEnvDistPartitioner = "DistPartitioner";
inline constexpr const char* kPhaseEnvLauncherWorkload = "Launcher_Workload";
// Set to "LauncherInit" on a partitioner that runs as the launcher's init container: the partitions
// are already on the launcher's volume, so dglrun delivers nothing (phase 2/5).
inline constexpr const char* kEnvPartitionerPlacement = "DGL_OPERATOR_PARTITIONER_PLACEMENT";

// Where a phase stands in the forward progression of one run: Pending 0, Partitioning 1,
// Partitioned 2, Training 3, Succeeded and Failed 4; -1 for Restarting, Suspended and anything
// else (they step out of the progression). Within one run a job's phase never goes to a lower rank.
int PhaseProgress(std::string_view phase);
bool IsTerminalPhase(std::string_view phase);

// Objects created for job J.
std::string ConfigMapName(std::string_view job_name);      // J-config
std::string WorkerServiceName(std::string_view job_name);  // J-worker
std::string LauncherName(std::string_view job_name);       // J-launcher (pod, SA, Role, RoleBinding)
std::string PartitionerName(std::string_view job_name);    // J-partitioner
std::string WorkerName(std::string_view job_name, std::int64_t index);  // J-worker-<index>
// The replica-type label of a replica type: its name in lower case ("Server" -> "server").
std::string ReplicaRole(std::string_view replica_type);
// J-<role>-<index> for an indexed replica type's role label (worker, server, sampler, trainer).
std::string ReplicaPodName(std::string_view job_name, std::string_view role, std::int64_t index);
// The headless Service of the pods that serve DGL: J-worker (workers), J-server (servers).
std::string RoleServiceName(std::string_view job_name, std::string_view role);

}  // namespace dgl
