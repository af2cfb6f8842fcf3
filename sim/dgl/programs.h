// The programs that run inside simulated DGL containers: the original operator's `dglrun` and
// `dglkerun` scripts (shared/reference/original-operator.md, section 3), in every role the operator
// gives them through DGL_OPERATOR_PHASE_ENV and DGL_OPERATOR_PARTITION_MODE (operator/controller/builders.cc):
//
//   Partitioner (DGL-API = SSP, ParMETIS = SMP)  phase 1/5: download the dataset from the shared
//       storage, partition it (dgl.distributed.partition_graph's steps, or pm_dglpart with one rank
//       per CPU of the container's limit), save the partitions; phase 2/5: deliver them to the
//       launcher's node (the launcher found through the ConfigMap's leadfile and the API).
//   DistPartitioner (DistParMETIS = MSP, an init container of the launcher, after the workers are
//       ready)  every worker downloads its slice, ParMETIS runs with one rank per worker (inside the
//       worker containers, so the memory is theirs), and each partition is shuffled to its owner.
//   Launcher (no phase env)  phase 3/5: dispatch part i to worker i (skipped for MSP, whose parts are
//       in place); 4/5: revise the hostfile; 5/5: start the DGL servers, which load their partition,
//       then train for --num-epochs epochs. A worker that fails or disappears ends it with "Task
//       failed" and exit 1, as tools/launch.py does.
//   Launcher_Workload (Skip)  the launcher alone downloads, loads and trains locally.
//   Workers  (`sleep 365d` as the operator sets it, or dglrun on a worker pod) sleep and hold the
//       memory of what the launcher runs in them (servers, ParMETIS ranks) through the
//       environment's exec hub, the simulator's stand-in for `kubectl exec`.
//   dglkerun  the same roles for DGL-KE: dglke_partition (METIS without constraints), the whole
//       dataset copied to every worker, dglke_dist_train.
//
// Every stage is reported with ProgramContext::RecordStage ("download", "partition", "dispatch",
// "load", "training") and logged in lines resembling the real scripts' output. Durations, memory
// and bytes come from sim/dgl/models.h with the environment's calibration. A container annotated
// with `dglsim.io/duration` runs the generic program instead (an explicit override in a scenario).
#pragma once

#include "sim/cluster/program.h"
#include "sim/dgl/dataset.h"

#include <memory>

namespace sim::dglmodels {

// Program names in the registry.
inline constexpr const char* kDglRunProgram = "dglrun";
inline constexpr const char* kDglWorkerProgram = "dgl-worker";

std::unique_ptr<ContainerProgram> MakeDglRunProgram(std::shared_ptr<const DglEnvironment> env);
// `sleep` for DGL worker pods that also registers the container with the exec hub.
std::unique_ptr<ContainerProgram> MakeDglWorkerProgram(std::shared_ptr<const DglEnvironment> env);

// Registers both programs and the command globs that select them: dglrun / dglkerun as the
// command, by path or inside a shell string; sleep (the operator's worker command).
void RegisterDglPrograms(ProgramRegistry& registry, std::shared_ptr<const DglEnvironment> env);

}  // namespace sim::dglmodels
