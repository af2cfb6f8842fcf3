// Defaulting of DGLJobs: what admission fills in before validation (the fake API server's
// defaulter, `dglsim validate`), and the defaults the typed accessors fall back on for a job that
// was never defaulted (a real cluster without the webhook). Tolerates any input; only absent (or
// null) fields are filled, fields of the wrong type are left for validation.
#pragma once

#include "fakeapi/client/json.h"

#include <cstdint>
#include <optional>

namespace dgl {

// Fills in every default of the contract (partitionMode, partitionerPlacement, slotsPerWorker,
// numServers, runPolicy, restartPolicy, the Partitioner spec where a partitioner runs, the
// partitioner's command). Idempotent.
// Launcher.replicas and Partitioner.replicas default to 1 (the only useful value); the indexed
// replica types (Worker, Server, Sampler, Trainer) have no default count.
void DefaultDGLJob(kube::Json& job);

// slotsPerWorker default: the first Worker container with a whole nvidia.com/gpu limit, else 1.
std::int64_t DefaultSlotsPerWorker(const kube::Json& job);
// numServers default: --num-servers of the first Launcher container that passes it, else 1.
std::int64_t DefaultNumServers(const kube::Json& job);
// The original operator's partitioner: the Worker template running the Launcher's command (dglrun
// reads its phase from the environment, so the same command line partitions); the Server template
// in a job without workers. With partitionerPlacement LauncherInit only the first container and the
// volumes are kept: the partitioner is an init container of the launcher's pod. nullopt without
// either template.
std::optional<kube::Json> DefaultPartitionerTemplate(const kube::Json& job);
// A Partitioner template that gives its container no command and no args (the usual one sets only
// resources: the partitioner needs far more memory than a worker) would run the image's default
// command. The partitioner runs the Launcher's command line instead, as in the original operator:
// copies the first Launcher container's command and args into `container` when it has neither.
// Returns whether it changed `container`.
bool DefaultPartitionerCommand(const kube::Json& job, kube::Json& container);

}  // namespace dgl
