// What the HTTP facade serves, and discovery as kubectl and client libraries read it: /version and
// the legacy discovery documents (/api, /apis, /apis/GROUP, /api/v1, /apis/GROUP/VERSION) listing
// every served resource with its verbs (a custom resource's in apiextensions-apiserver's order,
// namespaces without deletecollection), short names, categories, subresources and, for a stored
// resource, kube-apiserver's storageVersionHash (a digest of the group, version and kind it is
// stored as). Aggregated discovery is not
// served: kubectl falls back to these documents when /api and /apis answer plain application/json.
//
// Served are the store's kinds (as themselves), plus:
// - events.k8s.io/v1 events: a view of the core v1 events, converted both ways (event_conversion.h),
//   as kube-apiserver serves both versions from one storage;
// - core v1 bindings (and the pods/binding, pods/eviction subresources);
// - authorization.k8s.io/v1 SelfSubjectAccessReview, SelfSubjectRulesReview, SubjectAccessReview
//   and LocalSubjectAccessReview: create-only reviews that answer "allowed" (the fake authorizes
//   every request, as a cluster with the AlwaysAllow authorizer does);
// - authentication.k8s.io SelfSubjectReview (`kubectl auth whoami`), in v1 (kubectl 1.28 and later)
//   and v1beta1 (kubectl 1.27): it answers system:anonymous in system:unauthenticated, which is who
//   every request is, since the fake authenticates nobody.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/resource.h"

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace fakeapi {

// How a served resource is backed.
enum class Serving {
  kStored,       // a store kind, as it is stored
  kEventsView,   // events.k8s.io/v1 events over the core v1 events
  kBinding,      // core v1 bindings: create binds a pod
  kAccessReview, // authorization.k8s.io reviews: create answers allowed; SelfSubjectReview too
};

struct ApiResource {
  std::string group, version, kind, plural, singular;
  bool namespaced = true;
  std::vector<std::string> verbs;
  std::vector<std::string> short_names;
  std::vector<std::string> categories;    // "all" for pods and services, as kube-apiserver lists them
  std::vector<std::string> subresources;  // "status", "log", "binding", "eviction"
  Serving serving = Serving::kStored;
  const kube::ResourceType* stored = nullptr;  // the store kind behind it (nullptr: none)

  std::string ApiVersion() const { return group.empty() ? version : group + "/" + version; }
  // "events.events.k8s.io", "pods": the name errors use.
  std::string QualifiedName() const { return group.empty() ? plural : plural + "." + group; }
};

// Every served resource, in a fixed order (the store's kinds in registration order, then the
// others), with lookups by group, version and plural.
class ApiCatalog {
 public:
  explicit ApiCatalog(const kube::Registry& registry);

  const std::vector<std::shared_ptr<const ApiResource>>& All() const { return resources_; }
  const ApiResource* Find(const std::string& group, const std::string& version, const std::string& plural) const;
  // The served resource that presents a store kind as itself.
  const ApiResource* ForStored(const kube::ResourceType& type) const;

  std::vector<std::string> Groups() const;  // in order, core excluded
  std::vector<std::string> Versions(const std::string& group) const;
  bool ServesGroupVersion(const std::string& group, const std::string& version) const;

 private:
  void Add(ApiResource resource);
  std::vector<std::shared_ptr<const ApiResource>> resources_;
  std::map<std::tuple<std::string, std::string, std::string>, const ApiResource*> by_path_;
};

// The /version document. `git_version` is "v1.32.0-fakeapi" or the like: kubectl's dispatcher
// picks its client by the minor version.
kube::Json VersionInfo(const std::string& git_version);

// /apis, /apis/GROUP and /api/v1 or /apis/GROUP/VERSION.
kube::Json ApiGroupList(const ApiCatalog& catalog);
kube::Json ApiGroup(const ApiCatalog& catalog, const std::string& group);
kube::Json ApiResourceList(const ApiCatalog& catalog, const std::string& group, const std::string& version);

}  // namespace fakeapi
