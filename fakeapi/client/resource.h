// A ResourceType describes one kind the API serves (group, version, kind, plural, scope, whether it
// has a status subresource, the metadata kube-apiserver keeps for it). The Registry resolves the names clients use ("pods", "po",
// "dgljobs.kubeflow.org", a kind) to a type. Any kind can be registered, custom resources included.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kube {

struct ResourceType {
  std::string group;     // "" for core
  std::string version;   // "v1", "v1alpha1"
  std::string kind;      // "Pod"
  std::string plural;    // "pods"
  std::string singular;  // "pod"
  bool namespaced = true;
  bool has_status = true;  // a /status subresource; updates of the object ignore status
  // metadata.generation, bumped on spec changes: custom resources have it, the core kinds served
  // here do not (pods only from Kubernetes 1.33; the server reports 1.32).
  bool has_generation = false;
  // A delete that removes the object at once answers with the object (pods, services, service
  // accounts, PVCs: their registries set ReturnDeletedObject) rather than a Status (every other kind).
  bool returns_deleted_object = false;
  std::vector<std::string> short_names;

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "pods" for core, "dgljobs.kubeflow.org" otherwise: a name that is unique across groups.
  std::string QualifiedName() const { return group.empty() ? plural : plural + "." + group; }
};

class Registry {
 public:
  // The kinds the project and the controllers and tools around it need: core v1 (pods, nodes,
  // namespaces, services, configmaps, events, serviceaccounts, persistentvolumeclaims), rbac v1
  // roles, rolebindings, clusterroles and clusterrolebindings, coordination.k8s.io v1 leases (leader
  // election), scheduling.x-k8s.io podgroups and kubeflow.org dgljobs.
  static Registry WithBuiltins();

  void Add(ResourceType type);
  // Resolves a plural, a qualified plural ("dgljobs.kubeflow.org"), a singular, a short name or a
  // kind (case-insensitive for kinds). nullptr when unknown.
  const ResourceType* Find(std::string_view name) const;
  const ResourceType* FindByKind(std::string_view api_version, std::string_view kind) const;
  const std::vector<std::shared_ptr<const ResourceType>>& All() const { return types_; }

 private:
  std::vector<std::shared_ptr<const ResourceType>> types_;
  std::map<std::string, const ResourceType*, std::less<>> by_name_;
};

}  // namespace kube
