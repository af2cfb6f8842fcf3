// See discovery.h.
#include "fakeapi/server/discovery.h"

#include "fakeapi/server/strategic_merge.h"
#include "fakeapi/server/wire.h"

#include <openssl/sha.h>

#include <algorithm>

namespace fakeapi {

using json = kube::Json;

namespace {

const std::vector<std::string>& StoredVerbs() {
  static const std::vector<std::string> kVerbs = {"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"};
  return kVerbs;
}

// kube-apiserver's order for a custom resource (apiextensions-apiserver lists them so).
const std::vector<std::string>& CustomResourceVerbs() {
  static const std::vector<std::string> kVerbs = {"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"};
  return kVerbs;
}

// kube-apiserver's storageVersionHash: the first 8 bytes of the SHA-256 of "group/version/kind" of
// the version the resource is stored as, in base64.
std::string StorageVersionHash(const kube::ResourceType& stored) {
  const std::string gvk = stored.group + "/" + stored.version + "/" + stored.kind;
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(gvk.data()), gvk.size(), digest);
  return wire::Base64(std::string_view(reinterpret_cast<const char*>(digest), 8));
}

ApiResource Virtual(std::string group, std::string kind, std::string plural, bool namespaced, Serving serving) {
  ApiResource r;
  r.group = std::move(group);
  r.version = "v1";
  r.kind = std::move(kind);
  r.plural = std::move(plural);
  r.singular = wire::Lower(r.kind);
  r.namespaced = namespaced;
  r.verbs = {"create"};
  r.serving = serving;
  return r;
}

}  // namespace

ApiCatalog::ApiCatalog(const kube::Registry& registry) {
  const kube::ResourceType* core_events = nullptr;
  const kube::ResourceType* pods = nullptr;
  for (const auto& t : registry.All()) {
    ApiResource r;
    r.group = t->group;
    r.version = t->version;
    r.kind = t->kind;
    r.plural = t->plural;
    r.singular = t->singular;
    r.namespaced = t->namespaced;
    r.verbs = TakesStrategicMerge(*t) ? StoredVerbs() : CustomResourceVerbs();
    // A namespace is deleted one at a time (its registry has no deletecollection).
    if (t->group.empty() && t->plural == "namespaces")
      r.verbs.erase(std::find(r.verbs.begin(), r.verbs.end(), "deletecollection"));
    if (t->group.empty() && (t->plural == "pods" || t->plural == "services")) r.categories = {"all"};
    r.short_names = t->short_names;
    if (t->has_status) r.subresources.push_back("status");
    if (t->group.empty() && t->plural == "pods") {
      r.subresources.insert(r.subresources.end(), {"binding", "eviction", "log"});
      pods = t.get();
    }
    if (t->group.empty() && t->plural == "serviceaccounts") r.subresources.push_back("token");
    if (t->group.empty() && t->plural == "events") core_events = t.get();
    r.stored = t.get();
    Add(std::move(r));
  }
  if (core_events) {
    ApiResource events;
    events.group = "events.k8s.io";
    events.version = "v1";
    events.kind = "Event";
    events.plural = "events";
    events.singular = "event";
    events.verbs = StoredVerbs();
    events.short_names = {"ev"};
    events.serving = Serving::kEventsView;
    events.stored = core_events;
    Add(std::move(events));
  }
  if (pods) {
    ApiResource bindings = Virtual("", "Binding", "bindings", true, Serving::kBinding);
    bindings.stored = pods;
    Add(std::move(bindings));
  }
  const std::string authz = "authorization.k8s.io";
  Add(Virtual(authz, "SelfSubjectAccessReview", "selfsubjectaccessreviews", false, Serving::kAccessReview));
  Add(Virtual(authz, "SelfSubjectRulesReview", "selfsubjectrulesreviews", false, Serving::kAccessReview));
  Add(Virtual(authz, "SubjectAccessReview", "subjectaccessreviews", false, Serving::kAccessReview));
  Add(Virtual(authz, "LocalSubjectAccessReview", "localsubjectaccessreviews", true, Serving::kAccessReview));
  for (const char* version : {"v1", "v1beta1"}) {  // v1 first: the group's preferred version
    ApiResource whoami =
        Virtual("authentication.k8s.io", "SelfSubjectReview", "selfsubjectreviews", false, Serving::kAccessReview);
    whoami.version = version;
    Add(std::move(whoami));
  }
}

void ApiCatalog::Add(ApiResource resource) {
  auto shared = std::make_shared<const ApiResource>(std::move(resource));
  by_path_[{shared->group, shared->version, shared->plural}] = shared.get();
  resources_.push_back(std::move(shared));
}

const ApiResource* ApiCatalog::Find(const std::string& group, const std::string& version, const std::string& plural) const {
  auto it = by_path_.find({group, version, plural});
  return it == by_path_.end() ? nullptr : it->second;
}

const ApiResource* ApiCatalog::ForStored(const kube::ResourceType& type) const {
  return Find(type.group, type.version, type.plural);
}

std::vector<std::string> ApiCatalog::Groups() const {
  std::vector<std::string> out;
  for (const auto& r : resources_)
    if (!r->group.empty() && std::find(out.begin(), out.end(), r->group) == out.end()) out.push_back(r->group);
  return out;
}

std::vector<std::string> ApiCatalog::Versions(const std::string& group) const {
  std::vector<std::string> out;
  for (const auto& r : resources_)
    if (r->group == group && std::find(out.begin(), out.end(), r->version) == out.end()) out.push_back(r->version);
  return out;
}

bool ApiCatalog::ServesGroupVersion(const std::string& group, const std::string& version) const {
  const auto versions = Versions(group);
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

json VersionInfo(const std::string& git_version) {
  std::string major = "1", minor = "32";
  auto parts = wire::Split(git_version.size() > 1 && git_version[0] == 'v' ? git_version.substr(1) : git_version, '.');
  if (parts.size() >= 2) {
    major = parts[0];
    minor = parts[1];
  }
  return {{"major", major},         {"minor", minor},          {"gitVersion", git_version},
          {"gitCommit", "fakeapi"}, {"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"},
          {"goVersion", "go1.23"},  {"compiler", "gc"},        {"platform", "linux/amd64"}};
}

json ApiGroup(const ApiCatalog& catalog, const std::string& group) {
  json versions = json::array();
  for (const auto& v : catalog.Versions(group)) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"kind", "APIGroup"},
          {"apiVersion", "v1"},
          {"name", group},
          {"versions", versions},
          {"preferredVersion", versions.empty() ? json::object() : versions[0]}};
}

json ApiGroupList(const ApiCatalog& catalog) {
  json groups = json::array();
  for (const auto& g : catalog.Groups()) {
    json entry = ApiGroup(catalog, g);
    entry.erase("kind");
    entry.erase("apiVersion");
    groups.push_back(std::move(entry));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

json ApiResourceList(const ApiCatalog& catalog, const std::string& group, const std::string& version) {
  json resources = json::array();
  for (const auto& r : catalog.All()) {
    if (r->group != group || r->version != version) continue;
    json entry = {{"name", r->plural}, {"singularName", r->singular}, {"namespaced", r->namespaced},
                  {"kind", r->kind},   {"verbs", r->verbs}};
    if (!r->short_names.empty()) entry["shortNames"] = r->short_names;
    if (!r->categories.empty()) entry["categories"] = r->categories;
    if (r->stored && (r->serving == Serving::kStored || r->serving == Serving::kEventsView))
      entry["storageVersionHash"] = StorageVersionHash(*r->stored);
    resources.push_back(std::move(entry));
    for (const std::string& sub : r->subresources) {
      json verbs = sub == "status" ? json{"get", "patch", "update"} : sub == "log" ? json{"get"} : json{"create"};
      std::string kind = sub == "binding"    ? "Binding"
                         : sub == "eviction" ? "Eviction"
                         : sub == "token"    ? "TokenRequest"
                                             : r->kind;
      json entry_sub = {{"name", r->plural + "/" + sub}, {"singularName", ""}, {"namespaced", r->namespaced},
                        {"kind", kind}, {"verbs", verbs}};
      if (sub == "eviction" || sub == "token") {
        entry_sub["group"] = sub == "token" ? "authentication.k8s.io" : "policy";
        entry_sub["version"] = "v1";
      }
      resources.push_back(std::move(entry_sub));
    }
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

}  // namespace fakeapi
