// Fuzz target: a DGLJob manifest as `dglsim validate`, the scenario loader and admission read it.
// YAML documents (harness::LoadYamlString) go through harness::AdmitDGLJob: the original operator's
// qihoo.net/v1alpha1 converted (dgl::ConvertLegacy), defaulted (dgl::DefaultDGLJob) and validated
// (dgl::ValidateDGLJob). Properties, for any document:
//   - nothing throws (AdmitDGLJob reports an exception as an "internal error" problem: a defect);
//   - every problem is located in the file;
//   - defaulting is idempotent (its contract);
//   - a job validation accepts builds: the operator's builders (dgl::Build*) make its ConfigMap,
//     RBAC, Services, PodGroup and pods without throwing, and every pod's name is a DNS-1123 label
//     (the pods' hostnames), which is what validation's name budget promises.
#include "operator/controller/builders.h"
#include "sim/harness/config/manifest_check.h"
#include "sim/harness/config/yaml_json.h"
#include "tests/fuzz/fuzz_check.h"

#include <algorithm>
#include <string>

using dglsim_fuzz::Require;
using json = kube::Json;

namespace {

std::string Show(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

bool IsDns1123Label(const std::string& s) {
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  return !s.empty() && s.size() <= 63 && alnum(s.front()) && alnum(s.back()) &&
         std::all_of(s.begin(), s.end(), [&](char c) { return alnum(c) || c == '-'; });
}

void RequirePodName(const json& pod) {
  const std::string name = pod["metadata"]["name"];
  Require(IsDns1123Label(name), "a built pod's name is a DNS-1123 label", name);
}

// What the API server does to a job it accepts before the operator sees it: a name from
// generateName, the namespace of the request, a uid.
json AsStored(json job) {
  json& metadata = job["metadata"];
  if (!metadata.contains("name")) metadata["name"] = metadata.value("generateName", "") + "x7k2p";
  if (!metadata.contains("namespace")) metadata["namespace"] = "default";
  metadata["uid"] = "00000000-0000-4000-8000-000000000001";
  return job;
}

// Every object the operator builds for an accepted job; a few pods of each indexed type.
void BuildEverything(const json& defaulted) {
  if (!defaulted["metadata"].value("namespace", json("default")).is_string()) return;  // the store refuses it
  const json job = AsStored(defaulted);
  const dgl::BuildOptions options{.gang_scheduling = true, .gang_scheduler_name = "volcano"};
  dgl::PodAddresses addresses;
  addresses.partitioner_wanted = dgl::RunsPartitionerPod(job);
  addresses.launcher = "10.0.0.1";
  for (const dgl::IndexedReplica& r : dgl::kIndexedReplicas) {
    const std::int64_t n = dgl::GetIndexedPods(job, r.type);
    Require(n >= 0, "a job has no negative pod count", r.type);
    for (std::int64_t i = 0; i < std::min<std::int64_t>(n, 3); ++i) addresses.Role(r.role).ips[i] = "10.0.1." + std::to_string(i);
    if (n > 3) addresses.Role(r.role).without_ip.insert(n - 1);
    for (std::int64_t i : {std::int64_t{0}, n - 1})
      if (i >= 0 && i < n) RequirePodName(dgl::BuildReplicaPod(job, r.type, i, options, 0));
  }
  dgl::BuildConfigMap(job, addresses);
  for (const char* role : {"launcher", "partitioner"}) {
    dgl::BuildServiceAccount(job, role);
    dgl::BuildRole(job, role);
    dgl::BuildRoleBinding(job, role);
  }
  dgl::BuildRoleService(job, "worker");
  dgl::BuildRoleService(job, "server");
  dgl::BuildPodGroup(job, static_cast<std::int64_t>(dgl::JobPodNames(job, 1000).size()));
  RequirePodName(dgl::BuildLauncherPod(job, options, 0));
  RequirePodName(dgl::BuildLauncherPod(job, options, 1, /*partitions_ready=*/true));
  if (dgl::RunsPartitionerPod(job)) RequirePodName(dgl::BuildPartitionerPod(job, options, 0));
  for (const std::string& name : dgl::JobPodNames(job, 1000)) Require(IsDns1123Label(name), "JobPodNames are DNS-1123 labels", name);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const harness::YamlLimits limits{.max_values = 20'000, .max_depth = 200};
  harness::YamlLoad load = harness::LoadYamlString(dglsim_fuzz::Text(data, size), "job.yaml", limits);
  if (!load.ok()) return 0;
  for (const harness::YamlDocument& doc : load.documents) {
    harness::DGLJobAdmission admitted = harness::AdmitDGLJob(doc.value, "job.yaml", doc.positions, "");
    for (const std::string& problem : admitted.problems) {
      // AdmitDGLJob's words for an exception it caught ("... DGLJob: [json.exception.type_error...").
      Require(problem.find("internal error while checking the DGLJob: [") == std::string::npos, "the DGLJob API does not throw",
              problem);
      Require(problem.rfind("job.yaml:", 0) == 0, "every problem is located in the file", problem);
    }
    json twice = admitted.defaulted;
    dgl::DefaultDGLJob(twice);
    // The texts are compared: NaN (a document ".nan") is the one value not equal to itself.
    Require(Show(twice) == Show(admitted.defaulted), "defaulting is idempotent",
            Show(admitted.defaulted) + "\n--- defaulted again:\n" + Show(twice));
    if (admitted.problems.empty()) BuildEverything(admitted.defaulted);
  }
  return 0;
}
