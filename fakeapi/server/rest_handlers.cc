// The verbs of the Kubernetes REST protocol over the store: list, get, create, update (PUT), the
// four patch types and delete. See http_server.h for the semantics and their departures.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/merge_patch.h"
#include "fakeapi/server/strategic_merge.h"
#include "fakeapi/server/table.h"
#include "fakeapi/server/wire.h"

namespace fakeapi {

using nlohmann::json;
using wire::MediaParams;

namespace {

std::string Str(const json& obj, std::initializer_list<const char*> path) { return kube::JsonString(obj, path); }

// The URL names the object; a body that names another one is refused, as kube-apiserver does.
kube::Status CheckIdentity(json& obj, const Target& t) {
  if (!obj.is_object()) return kube::Status::BadRequest("the object must be a JSON object");
  json& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::string name = meta.value("name", "");
  if (name.empty()) meta["name"] = t.name;
  else if (name != t.name)
    return kube::Status::BadRequest("the name of the object (" + name + ") does not match the name on the URL (" + t.name + ")");
  if (t.type->namespaced) {
    std::string ns = meta.value("namespace", "");
    if (ns.empty()) meta["namespace"] = t.ns;
    else if (ns != t.ns)
      return kube::Status::BadRequest("the namespace of the object (" + ns + ") does not match the namespace on the URL (" + t.ns + ")");
  }
  return kube::Status::Ok();
}

}  // namespace

void HttpServer::Impl::List(const httplib::Request& req, httplib::Response& res, const Target& t) {
  kube::ListOptions opts;
  opts.namespace_ = t.ns;
  opts.label_selector = req.get_param_value("labelSelector");
  opts.field_selector = req.get_param_value("fieldSelector");
  const std::string table = TableVersion(req);
  const std::string include = req.get_param_value("includeObject");
  Run([&] {
    auto listed = store.List(t.type->QualifiedName(), opts);
    if (!listed.ok()) return SendStatus(res, listed.status());
    if (!table.empty()) return SendJson(res, 200, BuildTable(ConverterFor(*t.type), listed->items, listed->resource_version, table, include, Now()));
    json items = json::array();
    for (const auto& obj : listed->items) items.push_back(*obj);
    SendJson(res, 200, {{"kind", t.type->kind + "List"},
                        {"apiVersion", t.type->ApiVersion()},
                        {"metadata", {{"resourceVersion", listed->resource_version}}},
                        {"items", std::move(items)}});
  });
}

void HttpServer::Impl::GetOne(const httplib::Request& req, httplib::Response& res, const Target& t) {
  const std::string table = TableVersion(req);
  const std::string include = req.get_param_value("includeObject");
  Run([&] {
    auto got = store.Get(t.type->QualifiedName(), t.ns, t.name);
    if (!got.ok()) return SendStatus(res, Qualify(got.status(), *t.type));
    if (!table.empty())
      return SendJson(res, 200, BuildTable(ConverterFor(*t.type), {*got}, kube::ResourceVersionOf(**got), table, include, Now()));
    SendJson(res, 200, **got);
  });
}

void HttpServer::Impl::Create(const httplib::Request& req, httplib::Response& res, const Target& t) {
  if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("the object to create must be a JSON object"));
  Run([&] {
    auto created = store.Create(t.type->QualifiedName(), std::move(body.value()), t.ns);
    if (!created.ok()) return SendStatus(res, Qualify(created.status(), *t.type));
    SendJson(res, 201, **created);
  });
}

void HttpServer::Impl::Update(const httplib::Request& req, httplib::Response& res, const Target& t) {
  if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (kube::Status s = CheckIdentity(body.value(), t); !s.ok()) return SendStatus(res, s);
  Run([&] {
    auto updated = t.subresource == "status" ? store.UpdateStatus(t.type->QualifiedName(), std::move(body.value()))
                                             : store.Update(t.type->QualifiedName(), std::move(body.value()));
    if (!updated.ok()) return SendStatus(res, Qualify(updated.status(), *t.type));
    SendJson(res, 200, **updated);
  });
}

void HttpServer::Impl::Patch(const httplib::Request& req, httplib::Response& res, const Target& t) {
  if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
  const std::string type = MediaParams(req.get_header_value("Content-Type"))[""];
  enum class Kind { kMerge, kStrategic, kJsonPatch, kApply } kind;
  if (type == "application/merge-patch+json") kind = Kind::kMerge;
  else if (type == "application/strategic-merge-patch+json") kind = Kind::kStrategic;
  else if (type == "application/json-patch+json") kind = Kind::kJsonPatch;
  else if (type == "application/apply-patch+yaml") kind = Kind::kApply;
  else
    return SendStatus(res, kube::Status::UnsupportedMediaType("the body of the request was in an unknown format - accepted media types "
                                                        "include: application/json-patch+json, application/merge-patch+json, "
                                                        "application/apply-patch+yaml, application/strategic-merge-patch+json"));
  auto body = ParseBody(req, kind == Kind::kApply);
  if (!body.ok()) return SendStatus(res, body.status());
  const json& patch = *body;
  if (kind == Kind::kJsonPatch ? !patch.is_array() : !patch.is_object())
    return SendStatus(res, kube::Status::BadRequest(kind == Kind::kJsonPatch ? "a JSON patch must be a list of operations"
                                                                       : "a patch must be a JSON object"));
  const std::string resource = t.type->QualifiedName();
  Run([&] {
    auto current = store.Get(resource, t.ns, t.name);
    if (!current.ok()) {
      if (kind == Kind::kApply && current.status().IsNotFound() && t.subresource.empty()) return ApplyCreate(res, t, patch);
      return SendStatus(res, Qualify(current.status(), *t.type));
    }
    json next;
    if (kind == Kind::kMerge) {
      auto patched = store.Patch(resource, t.ns, t.name, patch, kube::PatchType::kMerge, t.subresource);
      if (!patched.ok()) return SendStatus(res, Qualify(patched.status(), *t.type));
      return SendJson(res, 200, **patched);
    }
    next = **current;
    if (kind == Kind::kJsonPatch) {
      try {
        next = next.patch(patch);
      } catch (const json::exception& e) {
        return SendStatus(res, wire::MakeStatus(422, "Invalid", std::string("the JSON patch could not be applied: ") + e.what()));
      }
    } else if (kind == Kind::kStrategic || TakesStrategicMerge(*t.type)) {
      ApplyStrategicPatch(next, patch);
    } else {
      ApplyMergePatch(next, patch);
    }
    if (!next.is_object()) return SendStatus(res, kube::Status::BadRequest("the patched object is not a JSON object"));
    // Identity is the URL's whatever the patch says; a changed resourceVersion is a precondition.
    json merge = CreateMergePatch(**current, next);
    if (merge.contains("metadata") && merge["metadata"].is_object()) {
      merge["metadata"].erase("name");
      merge["metadata"].erase("namespace");
      merge["metadata"].erase("uid");
      merge["metadata"].erase("creationTimestamp");
      if (kind == Kind::kApply) merge["metadata"].erase("resourceVersion");
    }
    if (kind == Kind::kApply) {
      merge.erase("apiVersion");
      merge.erase("kind");
    }
    auto patched = store.Patch(resource, t.ns, t.name, merge, kube::PatchType::kMerge, t.subresource);
    if (!patched.ok()) return SendStatus(res, Qualify(patched.status(), *t.type));
    SendJson(res, 200, **patched);
  });
}

// Server-side apply of an object that does not exist yet: a create (201), if the applied
// configuration says what it is.
void HttpServer::Impl::ApplyCreate(httplib::Response& res, const Target& t, const json& applied) {
  json obj = applied;
  if (Str(obj, {"apiVersion"}) != t.type->ApiVersion() || Str(obj, {"kind"}) != t.type->kind)
    return SendStatus(res, kube::Status::BadRequest("apiVersion and kind of the applied object must be " + t.type->ApiVersion() +
                                              ", " + t.type->kind));
  if (kube::Status s = CheckIdentity(obj, t); !s.ok()) return SendStatus(res, s);
  auto created = store.Create(t.type->QualifiedName(), std::move(obj), t.ns);
  if (!created.ok()) return SendStatus(res, Qualify(created.status(), *t.type));
  SendJson(res, 201, **created);
}

void HttpServer::Impl::Delete(const httplib::Request& req, httplib::Response& res, const Target& t) {
  if (req.has_param("dryRun")) return SendStatus(res, kube::Status::BadRequest("dryRun is not supported by this server"));
  kube::DeleteOptions opts;
  json body = json::object();
  if (!req.body.empty()) {
    auto parsed = ParseBody(req, true);
    if (!parsed.ok()) return SendStatus(res, parsed.status());
    if (!parsed->is_object()) return SendStatus(res, kube::Status::BadRequest("DeleteOptions must be a JSON object"));
    body = *parsed;
  }
  std::string policy = req.has_param("propagationPolicy") ? req.get_param_value("propagationPolicy")
                                                          : Str(body, {"propagationPolicy"});
  if (const json* orphan = kube::JsonAt(body, {"orphanDependents"}); orphan && orphan->is_boolean() && policy.empty())
    policy = orphan->get<bool>() ? "Orphan" : "Background";
  if (policy == "Background") opts.propagation = kube::PropagationPolicy::kBackground;
  else if (policy == "Foreground") opts.propagation = kube::PropagationPolicy::kForeground;
  else if (policy == "Orphan") opts.propagation = kube::PropagationPolicy::kOrphan;
  else if (!policy.empty())
    return SendStatus(res, kube::Status::Invalid("DeleteOptions", "", {{"FieldValueNotSupported", "propagationPolicy",
                                                                  "Unsupported value: \"" + policy +
                                                                      "\": supported values: \"Foreground\", \"Background\", \"Orphan\""}}));
  if (req.has_param("gracePeriodSeconds")) {
    auto g = wire::ParseInt(req.get_param_value("gracePeriodSeconds"));
    if (!g) return SendStatus(res, kube::Status::BadRequest("gracePeriodSeconds must be an integer"));
    opts.grace_period_seconds = *g;
  } else if (const json* g = kube::JsonAt(body, {"gracePeriodSeconds"}); g && g->is_number_integer()) {
    opts.grace_period_seconds = g->get<std::int64_t>();
  }
  if (std::string uid = Str(body, {"preconditions", "uid"}); !uid.empty()) opts.precondition_uid = uid;
  if (std::string rv = Str(body, {"preconditions", "resourceVersion"}); !rv.empty()) opts.precondition_resource_version = rv;
  Run([&] {
    auto deleted = store.Delete(t.type->QualifiedName(), t.ns, t.name, opts);
    if (!deleted.ok()) return SendStatus(res, Qualify(deleted.status(), *t.type));
    SendJson(res, 200, **deleted);
  });
}



}  // namespace fakeapi
