// The registry of served kinds and the name resolution kubectl users expect ("po", "pods",
// "pod", "Pod", "dgljobs.kubeflow.org").
#include "fakeapi/client/resource.h"

#include <algorithm>
#include <cctype>

namespace kube {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

ResourceType Type(std::string group, std::string version, std::string kind, std::string plural, std::string singular,
                  bool namespaced, bool has_status, std::vector<std::string> short_names) {
  ResourceType t;
  t.group = std::move(group);
  t.version = std::move(version);
  t.kind = std::move(kind);
  t.plural = std::move(plural);
  t.singular = std::move(singular);
  t.namespaced = namespaced;
  t.has_status = has_status;
  t.short_names = std::move(short_names);
  // Custom resources (a group outside *.k8s.io and the core) get generation, as CRDs do.
  const std::string& g = t.group;
  const bool builtin =
      g.empty() || (g.size() > 7 && g.compare(g.size() - 7, 7, ".k8s.io") == 0 && g.find("x-k8s.io") == std::string::npos);
  t.has_generation = !builtin;
  t.returns_deleted_object =
      t.group.empty() && (t.plural == "pods" || t.plural == "services" || t.plural == "serviceaccounts" ||
                          t.plural == "persistentvolumeclaims" || t.plural == "namespaces");
  return t;
}

}  // namespace

Registry Registry::WithBuiltins() {
  constexpr bool kNamespaced = true, kCluster = false, kStatus = true, kNoStatus = false;
  Registry r;
  r.Add(Type("", "v1", "Pod", "pods", "pod", kNamespaced, kStatus, {"po"}));
  r.Add(Type("", "v1", "Node", "nodes", "node", kCluster, kStatus, {"no"}));
  r.Add(Type("", "v1", "Namespace", "namespaces", "namespace", kCluster, kStatus, {"ns"}));
  r.Add(Type("", "v1", "Service", "services", "service", kNamespaced, kStatus, {"svc"}));
  r.Add(Type("", "v1", "ConfigMap", "configmaps", "configmap", kNamespaced, kNoStatus, {"cm"}));
  r.Add(Type("", "v1", "Event", "events", "event", kNamespaced, kNoStatus, {"ev"}));
  r.Add(Type("", "v1", "ServiceAccount", "serviceaccounts", "serviceaccount", kNamespaced, kNoStatus, {"sa"}));
  r.Add(Type("", "v1", "PersistentVolumeClaim", "persistentvolumeclaims", "persistentvolumeclaim", kNamespaced,
             kStatus, {"pvc"}));
  r.Add(Type("rbac.authorization.k8s.io", "v1", "Role", "roles", "role", kNamespaced, kNoStatus, {}));
  r.Add(Type("rbac.authorization.k8s.io", "v1", "RoleBinding", "rolebindings", "rolebinding", kNamespaced, kNoStatus,
             {}));
  r.Add(Type("rbac.authorization.k8s.io", "v1", "ClusterRole", "clusterroles", "clusterrole", kCluster, kNoStatus, {}));
  r.Add(Type("rbac.authorization.k8s.io", "v1", "ClusterRoleBinding", "clusterrolebindings", "clusterrolebinding",
             kCluster, kNoStatus, {}));
  r.Add(Type("coordination.k8s.io", "v1", "Lease", "leases", "lease", kNamespaced, kNoStatus, {}));
  r.Add(Type("scheduling.x-k8s.io", "v1alpha1", "PodGroup", "podgroups", "podgroup", kNamespaced, kStatus, {"pg"}));
  r.Add(Type("kubeflow.org", "v1alpha1", "DGLJob", "dgljobs", "dgljob", kNamespaced, kStatus, {"dgl"}));
  return r;
}

void Registry::Add(ResourceType type) {
  // Registering the same group/plural again (a CRD re-applied) replaces the old definition.
  auto same = std::find_if(types_.begin(), types_.end(), [&](const auto& t) {
    return t->group == type.group && t->plural == type.plural;
  });
  auto ptr = std::make_shared<const ResourceType>(std::move(type));
  if (same != types_.end()) {
    *same = ptr;
  } else {
    types_.push_back(ptr);
  }
  // Rebuild the index in passes, so a plural always beats another type's singular, short name or
  // kind, and among equals the type registered first (core before custom) wins, as in kubectl.
  by_name_.clear();
  auto index = [&](const std::string& key, const ResourceType* t) {
    if (!key.empty()) by_name_.emplace(Lower(key), t);
  };
  for (const auto& t : types_) index(t->QualifiedName(), t.get());
  for (const auto& t : types_) {
    if (!t->group.empty()) index(t->plural + "." + t->version + "." + t->group, t.get());
  }
  for (const auto& t : types_) index(t->plural, t.get());
  for (const auto& t : types_) index(t->singular, t.get());
  for (const auto& t : types_) {
    for (const std::string& s : t->short_names) index(s, t.get());
  }
  for (const auto& t : types_) index(t->kind, t.get());
  // "DGLJob.kubeflow.org": the form Invalid errors name a kind by.
  for (const auto& t : types_) {
    if (!t->group.empty()) index(t->kind + "." + t->group, t.get());
  }
}

const ResourceType* Registry::Find(std::string_view name) const {
  auto it = by_name_.find(Lower(name));
  return it == by_name_.end() ? nullptr : it->second;
}

const ResourceType* Registry::FindByKind(std::string_view api_version, std::string_view kind) const {
  for (const auto& t : types_) {
    if (t->ApiVersion() == api_version && t->kind == kind) return t.get();
  }
  // Kinds are CamelCase by convention, but a hand-written manifest may not be.
  const std::string lower_kind = Lower(kind);
  for (const auto& t : types_) {
    if (t->ApiVersion() == api_version && Lower(t->kind) == lower_kind) return t.get();
  }
  return nullptr;
}

}  // namespace kube
