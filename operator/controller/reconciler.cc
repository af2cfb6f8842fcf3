#include "operator/controller/reconciler.h"

#include "operator/controller/pod_state.h"
#include "operator/controller/reconcile_pass.h"

#include <utility>

namespace dgl {

using kube::ObjectPtr;
using kube::Result;
using kube::Status;

// ---- ClientReader ---------------------------------------------------------------------------------

ObjectPtr ClientReader::Get(const std::string& resource, const std::string& ns, const std::string& name) {
  auto r = client_.Get(resource, ns, name);
  return r.ok() ? r.value() : nullptr;
}

std::vector<ObjectPtr> ClientReader::PodsOfJob(const std::string& ns, const std::string& job_name) {
  kube::ListOptions options;
  options.namespace_ = ns;
  options.label_selector = std::string(kLabelJobName) + "=" + job_name;
  auto r = client_.List("pods", options);
  return r.ok() ? r->items : std::vector<ObjectPtr>{};
}

// ---- Reconciler -------------------------------------------------------------------------------------

Reconciler::Reconciler(kube::Client& client, const kube::Clock& clock, ObjectReader& reader,
                       ReconcilerOptions options)
    : client_(client), clock_(clock), reader_(reader), options_(std::move(options)) {}

ObjectPtr Reconciler::ReadJob(const std::string& ns, const std::string& name, const std::string& key) {
  ObjectPtr cached = reader_.Get("dgljobs", ns, name);
  auto it = written_jobs_.find(key);
  if (it == written_jobs_.end()) return cached;
  if (cached == nullptr) {
    written_jobs_.erase(it);
    return nullptr;
  }
  // resourceVersions come from one counter (etcd's revision): the larger one is the newer object.
  const std::int64_t cached_rv = ParseIntOr(kube::ResourceVersionOf(*cached), -1);
  const std::int64_t written_rv = ParseIntOr(kube::ResourceVersionOf(*it->second), -1);
  if (kube::UidOf(*cached) != kube::UidOf(*it->second) || cached_rv >= written_rv) {
    written_jobs_.erase(it);
    return cached;
  }
  return it->second;
}

Result<ReconcileResult> Reconciler::Reconcile(const std::string& key) {
  auto slash = key.find('/');
  if (slash == std::string::npos) return Status::BadRequest("job key must be namespace/name: " + key);
  const std::string ns = key.substr(0, slash);
  const std::string name = key.substr(slash + 1);
  ObjectPtr job = ReadJob(ns, name, key);
  if (job == nullptr || Terminating(*job)) {
    // Gone or going: garbage collection removes what it owned.
    Forget(key);
    return ReconcileResult{};
  }
  ReconcilePass pass(*this, job);
  return pass.Run();
}

}  // namespace dgl
