// See openapi.h.
#include "fakeapi/server/openapi.h"

#include "fakeapi/server/wire.h"

#include <cstdio>
#include <functional>
#include <set>

namespace fakeapi {

using nlohmann::json;

namespace {

std::string ReverseGroup(const std::string& group) {
  auto parts = wire::Split(group, '.');
  std::string out;
  for (auto it = parts.rbegin(); it != parts.rend(); ++it) out += (out.empty() ? "" : ".") + *it;
  return out;
}

std::string HashOf(const json& doc) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%016zX", std::hash<std::string>{}(wire::Dump(doc)));
  return buf;
}

json Operation(const json& gvk, const char* action) {
  const json field_validation = {{"name", "fieldValidation"}, {"in", "query"}, {"schema", {{"type", "string"}}},
                                 {"description", "Ignore, Warn or Strict"}};
  return {{"x-kubernetes-group-version-kind", gvk}, {"x-kubernetes-action", action},
          {"parameters", json::array({field_validation})}, {"responses", {{"200", {{"description", "OK"}}}}}};
}

}  // namespace

std::string DefinitionName(const kube::ResourceType& type) {
  return (type.group.empty() ? std::string("io.k8s.api.core") : ReverseGroup(type.group)) + "." + type.version + "." +
         type.kind;
}

json OpenApiV3Document(const kube::Registry& registry, const OpenApiSchemas& schemas, const std::string& group,
                       const std::string& version, const std::string& git_version) {
  json paths = json::object();
  json published = json::object();
  const std::string prefix = group.empty() ? "/api/" + version : "/apis/" + group + "/" + version;
  for (const auto& t : registry.All()) {
    if (t->group != group || t->version != version) continue;
    json gvk = {{"group", group}, {"version", version}, {"kind", t->kind}};
    std::string collection = prefix + (t->namespaced ? "/namespaces/{namespace}/" : "/") + t->plural;
    paths[collection + "/{name}"] = {{"patch", Operation(gvk, "patch")}, {"put", Operation(gvk, "put")}};
    paths[collection] = {{"post", Operation(gvk, "post")}};
    auto schema = schemas.find(t->QualifiedName());
    if (schema != schemas.end()) {
      json s = schema->second;
      if (s.is_object()) s["x-kubernetes-group-version-kind"] = json::array({gvk});
      published[DefinitionName(*t)] = s;
    }
  }
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "fakeapi"}, {"version", git_version}}},
          {"paths", paths},
          {"components", {{"schemas", published}}}};
}

json OpenApiV3Root(const kube::Registry& registry, const OpenApiSchemas& schemas, const std::string& git_version) {
  json paths = json::object();
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& t : registry.All()) {
    if (!seen.insert({t->group, t->version}).second) continue;
    std::string key = t->group.empty() ? "api/" + t->version : "apis/" + t->group + "/" + t->version;
    json doc = OpenApiV3Document(registry, schemas, t->group, t->version, git_version);
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + HashOf(doc)}};
  }
  return {{"paths", paths}};
}

}  // namespace fakeapi
