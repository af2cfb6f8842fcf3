// See discovery.h.
#include "fakeapi/server/discovery.h"

#include "fakeapi/server/wire.h"

#include <algorithm>

namespace fakeapi {

using nlohmann::json;

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

std::vector<std::string> ServedGroups(const kube::Registry& registry) {
  std::vector<std::string> out;
  for (const auto& t : registry.All())
    if (!t->group.empty() && std::find(out.begin(), out.end(), t->group) == out.end()) out.push_back(t->group);
  return out;
}

std::vector<std::string> ServedVersions(const kube::Registry& registry, const std::string& group) {
  std::vector<std::string> out;
  for (const auto& t : registry.All())
    if (t->group == group && std::find(out.begin(), out.end(), t->version) == out.end()) out.push_back(t->version);
  return out;
}

bool ServesGroupVersion(const kube::Registry& registry, const std::string& group, const std::string& version) {
  for (const auto& t : registry.All())
    if (t->group == group && t->version == version) return true;
  return false;
}

json ApiGroup(const kube::Registry& registry, const std::string& group) {
  json versions = json::array();
  for (const auto& v : ServedVersions(registry, group)) versions.push_back({{"groupVersion", group + "/" + v}, {"version", v}});
  return {{"kind", "APIGroup"},
          {"apiVersion", "v1"},
          {"name", group},
          {"versions", versions},
          {"preferredVersion", versions.empty() ? json::object() : versions[0]}};
}

json ApiGroupList(const kube::Registry& registry) {
  json groups = json::array();
  for (const auto& g : ServedGroups(registry)) {
    json entry = ApiGroup(registry, g);
    entry.erase("kind");
    entry.erase("apiVersion");
    groups.push_back(std::move(entry));
  }
  return {{"kind", "APIGroupList"}, {"apiVersion", "v1"}, {"groups", groups}};
}

json ApiResourceList(const kube::Registry& registry, const std::string& group, const std::string& version) {
  static const json kVerbs = {"create", "delete", "get", "list", "patch", "update", "watch"};
  json resources = json::array();
  for (const auto& t : registry.All()) {
    if (t->group != group || t->version != version) continue;
    json r = {{"name", t->plural}, {"singularName", t->singular}, {"namespaced", t->namespaced},
              {"kind", t->kind},   {"verbs", kVerbs}};
    if (!t->short_names.empty()) r["shortNames"] = t->short_names;
    resources.push_back(std::move(r));
    if (t->has_status)
      resources.push_back({{"name", t->plural + "/status"}, {"singularName", ""}, {"namespaced", t->namespaced},
                           {"kind", t->kind}, {"verbs", {"get", "patch", "update"}}});
    if (t->group.empty() && t->plural == "pods")
      resources.push_back({{"name", "pods/log"}, {"singularName", ""}, {"namespaced", true}, {"kind", "Pod"},
                           {"verbs", {"get"}}});
  }
  return {{"kind", "APIResourceList"},
          {"apiVersion", "v1"},
          {"groupVersion", group.empty() ? version : group + "/" + version},
          {"resources", resources}};
}

}  // namespace fakeapi
