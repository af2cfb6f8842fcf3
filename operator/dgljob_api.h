// The DGLJob API (kubeflow.org/v1alpha1): conversion of the original qihoo.net/v1alpha1
// manifests, defaulting and validation. The same rules serve admission in the fake API (and later
// the CRD's openAPIV3Schema), so they cannot drift. The contract is shared/design/dgljob-api.md.
#pragma once

#include "fakeapi/status.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace fakeapi {
class Store;
}

namespace dgl {

inline constexpr const char* kApiVersion = "kubeflow.org/v1alpha1";
inline constexpr const char* kLegacyApiVersion = "qihoo.net/v1alpha1";
inline constexpr const char* kKind = "DGLJob";
inline constexpr int kDglPort = 30050;

// Rewrites a qihoo.net/v1alpha1 DGLJob in place as kubeflow.org/v1alpha1 (apiVersion, top-level
// spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy). Returns one warning line per
// conversion made; empty when the object was already current.
std::vector<std::string> ConvertLegacy(nlohmann::json& job);

// Fills in every default of the contract (partitionMode, slotsPerWorker, numServers, runPolicy,
// restartPolicy, the Partitioner spec where a partitioner runs). Idempotent; tolerates any input.
void DefaultDGLJob(nlohmann::json& job);

// Every problem with a (defaulted) DGLJob, each with its field path. Never throws.
std::vector<fakeapi::StatusCause> ValidateDGLJob(const nlohmann::json& job);

// Registers defaulting and validation as admission for dgljobs in the store.
void RegisterDGLJobAdmission(fakeapi::Store& store);

}  // namespace dgl
