// Writes: create, update (PUT) and the four patch types, server-side apply among them, each with
// dryRun and field ownership (field_manager.h). See http_server.h for the semantics and their
// departures from kube-apiserver.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/json_bounds.h"
#include "fakeapi/server/json_patch.h"
#include "fakeapi/server/merge_patch.h"
#include "fakeapi/server/strategic_merge.h"
#include "fakeapi/server/wire.h"

namespace fakeapi {

using json = kube::Json;

namespace {

// metadata.<field> as a string ("" when absent or null); BadRequest when it is something else, as
// kube-apiserver's decoder refuses a number where ObjectMeta has a string.
kube::Status MetadataString(const json& meta, const char* field, std::string* out) {
  out->clear();
  auto it = meta.find(field);
  if (it == meta.end() || it->is_null()) return kube::Status::Ok();
  if (!it->is_string())
    return kube::Status::BadRequest(std::string("the body of the request could not be decoded: metadata.") + field +
                                    " must be a string, not " + it->dump());
  *out = it->get<std::string>();
  return kube::Status::Ok();
}

// The URL names the object; a body that names another one is refused, as kube-apiserver does.
kube::Status CheckIdentity(json& obj, const Target& t) {
  if (!obj.is_object()) return kube::Status::BadRequest("the object must be a JSON object");
  json& meta = obj["metadata"];
  if (!meta.is_object()) meta = json::object();
  std::string name;
  if (kube::Status s = MetadataString(meta, "name", &name); !s.ok()) return s;
  if (name.empty()) meta["name"] = t.name;
  else if (name != t.name)
    return kube::Status::BadRequest("the name of the object (" + name + ") does not match the name on the URL (" + t.name + ")");
  if (t.resource->namespaced) {
    std::string ns;
    if (kube::Status s = MetadataString(meta, "namespace", &ns); !s.ok()) return s;
    if (ns.empty()) meta["namespace"] = t.ns;
    else if (ns != t.ns)
      return kube::Status::BadRequest("the namespace of the object (" + ns + ") does not match the namespace on the URL (" + t.ns + ")");
  }
  return kube::Status::Ok();
}

enum class PatchKind { kMerge, kStrategic, kJsonPatch, kApply };

kube::Result<PatchKind> PatchKindOf(const httplib::Request& req, const Target& t) {
  const std::string type = wire::MediaParams(req.get_header_value("Content-Type"))[""];
  if (type == "application/merge-patch+json") return PatchKind::kMerge;
  if (type == "application/json-patch+json") return PatchKind::kJsonPatch;
  if (type == "application/apply-patch+yaml") return PatchKind::kApply;
  // Custom resources take no strategic merge patches, as kube-apiserver answers them.
  if (type == "application/strategic-merge-patch+json" && TakesStrategicMerge(*t.type)) return PatchKind::kStrategic;
  return kube::Status::UnsupportedMediaType(
      "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, "
      "application/merge-patch+json, application/apply-patch+yaml" +
      std::string(TakesStrategicMerge(*t.type) ? ", application/strategic-merge-patch+json" : ""));
}

// What a patch other than apply makes of the object (in the form the client sees it).
kube::Status Patched(PatchKind kind, const json& patch, json& next) {
  if (kind == PatchKind::kJsonPatch) return ApplyJsonPatch(next, patch);
  if (kind == PatchKind::kStrategic) ApplyStrategicPatch(next, patch);
  else ApplyMergePatch(next, patch);
  if (!next.is_object()) return kube::Status::BadRequest("the patched object is not a JSON object");
  return kube::Status::Ok();
}

// Identity is the URL's whatever a patch says: name, namespace, uid and creation time stay. A
// resourceVersion the patch sets is a precondition.
void KeepIdentity(const json& current, json& next) {
  json& meta = next["metadata"];
  if (!meta.is_object()) meta = json::object();
  for (const char* field : {"name", "namespace", "uid", "creationTimestamp"}) {
    const json* was = kube::JsonAt(current, {"metadata", field});
    if (was) meta[field] = *was;
    else meta.erase(field);
  }
  if (!meta.contains("resourceVersion")) meta["resourceVersion"] = kube::ResourceVersionOf(current);
}

// What etcd would refuse (json_bounds.h): an object whose JSON passes kMaxObjectBytes, answered as
// kube-apiserver passes on an error that is not an API status: 500, etcd's message, no reason. A
// dry run never reaches etcd, so kube-apiserver answers it as if the object fitted.
kube::Status FitsInEtcd(const json& obj, const WriteOptions& write) {
  if (write.dry_run || obj.dump().size() <= kMaxObjectBytes) return kube::Status::Ok();
  return kube::Status::FromJson({{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                                 {"message", "etcdserver: request is too large"}, {"code", 500}});
}

// An update of the object, or of its status with the managedFields RecordUpdate or Apply gave
// `next` (the store keeps nothing else of a status write's object).
kube::Result<kube::ObjectPtr> StoreUpdate(Store& store, const std::string& resource, const Target& t, json next,
                                          WriteOptions write) {
  if (t.subresource != "status") return store.Update(resource, std::move(next), write);
  json managed;
  if (const json* fields = kube::JsonAt(next, {"metadata", "managedFields"}); fields && fields->is_array()) {
    managed = *fields;
    write.managed_fields = &managed;
  }
  return store.UpdateStatus(resource, std::move(next), write);
}

}  // namespace

void HttpServer::Impl::Create(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto write = WriteParamsOf(req, "CreateOptions", false);
  if (!write.ok()) return SendStatus(res, write.status());
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("the object to create must be a JSON object"));
  json obj = Absorb(t, std::move(body.value()));
  // kube-apiserver defaults a namespace's kubernetes.io/metadata.name label as it decodes the body,
  // before field ownership is recorded: the creator owns the label.
  if (t.type && t.type->plural == "namespaces" && obj["metadata"].is_object() && obj["metadata"].contains("name"))
    obj["metadata"]["labels"]["kubernetes.io/metadata.name"] = obj["metadata"]["name"];
  // A custom resource with a status subresource is created without the status its body carries, as
  // kube-apiserver's status strategy drops it (the status is written through /status).
  if (t.type && t.type->has_status && !TakesStrategicMerge(*t.type)) obj.erase("status");
  Run([&] {
    if (t.resource->serving == Serving::kStored) RecordUpdate(nullptr, obj, FieldWriteFor(t, write->field_manager));
    if (kube::Status s = FitsInEtcd(obj, write->store); !s.ok()) return SendStatus(res, s);
    auto created = store.Create(t.type->QualifiedName(), std::move(obj), t.ns, write->store);
    if (!created.ok()) return SendStatus(res, Qualify(created.status(), t));
    SendJson(res, 201, Present(t, **created));
  });
}

void HttpServer::Impl::Update(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto write = WriteParamsOf(req, "UpdateOptions", false);
  if (!write.ok()) return SendStatus(res, write.status());
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, body.status());
  if (kube::Status s = CheckIdentity(body.value(), t); !s.ok()) return SendStatus(res, s);
  json next = Absorb(t, std::move(body.value()));
  const std::string resource = t.type->QualifiedName();
  Run([&] {
    auto current = store.Get(resource, t.ns, t.name);
    if (!current.ok()) return SendStatus(res, Qualify(current.status(), t));
    if (t.resource->serving == Serving::kStored) RecordUpdate(&**current, next, FieldWriteFor(t, write->field_manager));
    if (kube::Status s = FitsInEtcd(next, write->store); !s.ok()) return SendStatus(res, s);
    auto updated = StoreUpdate(store, resource, t, std::move(next), write->store);
    if (!updated.ok()) return SendStatus(res, Qualify(updated.status(), t));
    SendJson(res, 200, Present(t, **updated));
  });
}

void HttpServer::Impl::Patch(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto kind = PatchKindOf(req, t);
  if (!kind.ok()) return SendStatus(res, kind.status());
  const bool apply = *kind == PatchKind::kApply;
  auto write = WriteParamsOf(req, "PatchOptions", apply);
  if (!write.ok()) return SendStatus(res, write.status());
  auto body = ParseBody(req, apply);
  if (!body.ok()) return SendStatus(res, body.status());
  const json& patch = *body;
  if (*kind == PatchKind::kJsonPatch ? !patch.is_array() : !patch.is_object())
    return SendStatus(res, kube::Status::BadRequest(*kind == PatchKind::kJsonPatch ? "a JSON patch must be a list of operations"
                                                                                   : "a patch must be a JSON object"));
  const std::string resource = t.type->QualifiedName();
  Run([&] {
    // Inside the executor: the field write's time is the clock's, which the simulation advances.
    const FieldWrite fields = FieldWriteFor(t, write->field_manager);
    auto current = store.Get(resource, t.ns, t.name);
    const bool absent = !current.ok() && current.status().IsNotFound();
    if (!current.ok() && !(apply && absent && t.subresource.empty())) return SendStatus(res, Qualify(current.status(), t));
    json next;
    if (apply) {
      json applied = patch;
      if (kube::Status s = CheckIdentity(applied, t); !s.ok()) return SendStatus(res, s);
      if (kube::JsonString(applied, {"apiVersion"}) != t.resource->ApiVersion() ||
          kube::JsonString(applied, {"kind"}) != t.resource->kind)
        return SendStatus(res, kube::Status::BadRequest("apiVersion and kind of the applied object must be " +
                                                        t.resource->ApiVersion() + ", " + t.resource->kind));
      auto merged = Apply(absent ? nullptr : &**current, Absorb(t, applied), write->force, fields);
      if (!merged.ok()) return SendStatus(res, merged.status());
      next = std::move(merged.value());
    } else {
      next = Present(t, **current);
      if (kube::Status s = Patched(*kind, patch, next); !s.ok()) return SendStatus(res, s);
      next = Absorb(t, std::move(next));
      if (t.resource->serving == Serving::kStored) RecordUpdate(&**current, next, fields);
    }
    // Escalation prevention judges what the patch makes of a Role or binding, as an update's body
    // (kube-apiserver's RBAC registries check the patched object): OK for every other kind.
    if (options.authorizer && CurrentUser() && t.subresource.empty())
      if (kube::Status s = options.authorizer->AdmitRbacWrite(*CurrentUser(), *t.type, next, t.ns, !absent); !s.ok())
        return SendStatus(res, s);
    if (kube::Status s = FitsInEtcd(next, write->store); !s.ok()) return SendStatus(res, s);
    if (absent) {
      auto created = store.Create(resource, std::move(next), t.ns, write->store);
      if (!created.ok()) return SendStatus(res, Qualify(created.status(), t));
      return SendJson(res, 201, Present(t, **created));
    }
    KeepIdentity(**current, next);
    auto patched = StoreUpdate(store, resource, t, std::move(next), write->store);
    if (!patched.ok()) return SendStatus(res, Qualify(patched.status(), t));
    SendJson(res, 200, Present(t, **patched));
  });
}

}  // namespace fakeapi
