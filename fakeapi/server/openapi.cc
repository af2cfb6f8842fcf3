// See openapi.h.
#include "fakeapi/server/openapi.h"

#include "fakeapi/server/wire.h"

#include <cstdio>
#include <functional>
#include <set>

namespace fakeapi {

using json = kube::Json;

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

json FieldValidationParameter(bool v3) {
  json p = {{"name", "fieldValidation"}, {"in", "query"}, {"description", "Ignore, Warn or Strict"}, {"uniqueItems", true}};
  if (v3) p["schema"] = {{"type", "string"}};
  else p["type"] = "string";
  return p;
}

json OperationObject(const ApiResource& r, const char* action, bool v3) {
  json gvk = {{"group", r.group}, {"version", r.version}, {"kind", r.kind}};
  return {{"x-kubernetes-group-version-kind", gvk}, {"x-kubernetes-action", action},
          {"operationId", std::string(action) + r.kind}, {"parameters", json::array({FieldValidationParameter(v3)})},
          {"responses", {{"200", {{"description", "OK"}}}}}};
}

// The operations of one resource: POST on the collection; PUT and PATCH on an object for kinds
// that are stored (reviews and bindings only take POST).
void AddPaths(json& paths, const ApiResource& r, bool v3) {
  const std::string prefix = r.group.empty() ? "/api/" + r.version : "/apis/" + r.group + "/" + r.version;
  const std::string collection = prefix + (r.namespaced ? "/namespaces/{namespace}/" : "/") + r.plural;
  paths[collection] = {{"post", OperationObject(r, "post", v3)}};
  if (r.serving == Serving::kStored || r.serving == Serving::kEventsView)
    paths[collection + "/{name}"] = {{"patch", OperationObject(r, "patch", v3)}, {"put", OperationObject(r, "put", v3)}};
}

json TaggedSchema(const ApiResource& r, json schema) {
  if (!schema.is_object()) schema = json::object();
  schema["x-kubernetes-group-version-kind"] = json::array({{{"group", r.group}, {"version", r.version}, {"kind", r.kind}}});
  return schema;
}

// An OpenAPI v3 schema as Swagger 2.0 has it: the keywords v2 lacks dropped, arrays given items.
json SchemaAsV2(const json& schema) {
  if (!schema.is_object()) return json::object();
  json out = json::object();
  for (auto it = schema.begin(); it != schema.end(); ++it) {
    const std::string& k = it.key();
    if (k == "nullable" || k == "anyOf" || k == "oneOf" || k == "allOf" || k == "not") continue;
    if (k == "properties" && it->is_object()) {
      json props = json::object();
      for (auto p = it->begin(); p != it->end(); ++p) props[p.key()] = SchemaAsV2(*p);
      out[k] = std::move(props);
    } else if ((k == "items" || k == "additionalProperties") && it->is_object()) {
      out[k] = SchemaAsV2(*it);
    } else {
      out[k] = *it;
    }
  }
  if (out.value("type", "") == "array" && !out.contains("items")) out["items"] = json::object();
  return out;
}

json PublishedSchema(const ApiResource& r, const OpenApiSchemas& schemas) {
  if (r.serving == Serving::kStored && r.stored) {
    auto it = schemas.find(r.stored->QualifiedName());
    if (it != schemas.end()) return it->second;
  }
  return {{"type", "object"},
          {"description", r.kind + " (" + r.ApiVersion() + "): the fake API server publishes no schema for this kind."},
          {"x-kubernetes-preserve-unknown-fields", true}};
}

}  // namespace

std::string DefinitionName(const ApiResource& r) {
  return (r.group.empty() ? std::string("io.k8s.api.core") : ReverseGroup(r.group)) + "." + r.version + "." + r.kind;
}

json OpenApiV3Document(const ApiCatalog& catalog, const OpenApiSchemas& schemas, const std::string& group,
                       const std::string& version, const std::string& git_version) {
  json paths = json::object();
  json published = json::object();
  for (const auto& r : catalog.All()) {
    if (r->group != group || r->version != version) continue;
    AddPaths(paths, *r, true);
    if (r->serving == Serving::kStored && r->stored && schemas.count(r->stored->QualifiedName()))
      published[DefinitionName(*r)] = TaggedSchema(*r, schemas.at(r->stored->QualifiedName()));
  }
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "fakeapi"}, {"version", git_version}}},
          {"paths", paths},
          {"components", {{"schemas", published}}}};
}

json OpenApiV3Root(const ApiCatalog& catalog, const OpenApiSchemas& schemas, const std::string& git_version) {
  json paths = json::object();
  std::set<std::pair<std::string, std::string>> seen;
  for (const auto& r : catalog.All()) {
    if (!seen.insert({r->group, r->version}).second) continue;
    std::string key = r->group.empty() ? "api/" + r->version : "apis/" + r->group + "/" + r->version;
    json doc = OpenApiV3Document(catalog, schemas, r->group, r->version, git_version);
    paths[key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + HashOf(doc)}};
  }
  return {{"paths", paths}};
}

json OpenApiV2Document(const ApiCatalog& catalog, const OpenApiSchemas& schemas, const std::string& git_version) {
  json paths = json::object();
  json definitions = json::object();
  for (const auto& r : catalog.All()) {
    AddPaths(paths, *r, false);
    definitions[DefinitionName(*r)] = TaggedSchema(*r, SchemaAsV2(PublishedSchema(*r, schemas)));
  }
  return {{"swagger", "2.0"},
          {"info", {{"title", "fakeapi"}, {"version", git_version}}},
          {"paths", paths},
          {"definitions", definitions}};
}

}  // namespace fakeapi
