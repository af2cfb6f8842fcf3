// Reads and deletes: list (at a resourceVersion, in pages, as objects, Tables or
// PartialObjectMetadata), get, delete (answered with the object or a Status as kube-apiserver
// answers for the kind) and deletecollection.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/event_conversion.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/table.h"
#include "fakeapi/server/wire.h"

namespace fakeapi {

using json = kube::Json;

namespace {

// The resource the store knows the target by (the view's storage for events.k8s.io events), with
// field selectors translated the same way.
std::string StoredName(const Target& t) { return t.type->QualifiedName(); }

std::string StoredFieldSelector(const Target& t, const std::string& selector) {
  return t.resource->serving == Serving::kEventsView ? EventsV1FieldSelectorToCore(selector) : selector;
}

// DeleteOptions from the query and the body, as kubectl and client libraries send them.
kube::Result<kube::DeleteOptions> DeleteOptionsOf(const httplib::Request& req, const json& body) {
  kube::DeleteOptions opts;
  std::string policy = req.has_param("propagationPolicy") ? req.get_param_value("propagationPolicy")
                                                          : kube::JsonString(body, {"propagationPolicy"});
  const json* orphan = kube::JsonAt(body, {"orphanDependents"});
  if (orphan && orphan->is_boolean() && !policy.empty())
    return kube::Status::Invalid("DeleteOptions.meta.k8s.io", "",
                                 {{"FieldValueInvalid", "propagationPolicy",
                                   "Invalid value: \"" + policy + "\": orphanDependents and deletionPropagation cannot be both set"}});
  if (orphan && orphan->is_boolean()) policy = orphan->get<bool>() ? "Orphan" : "Background";
  if (policy == "Background") opts.propagation = kube::PropagationPolicy::kBackground;
  else if (policy == "Foreground") opts.propagation = kube::PropagationPolicy::kForeground;
  else if (policy == "Orphan") opts.propagation = kube::PropagationPolicy::kOrphan;
  else if (!policy.empty())
    return kube::Status::Invalid("DeleteOptions.meta.k8s.io", "",
                                 {{"FieldValueNotSupported", "propagationPolicy",
                                   "Unsupported value: \"" + policy +
                                       "\": supported values: \"Foreground\", \"Background\", \"Orphan\", \"nil\""}});
  if (req.has_param("gracePeriodSeconds")) {
    auto g = wire::ParseInt(req.get_param_value("gracePeriodSeconds"));
    if (!g) return kube::Status::BadRequest("gracePeriodSeconds must be an integer");
    opts.grace_period_seconds = *g;
  } else if (const json* g = kube::JsonAt(body, {"gracePeriodSeconds"}); g && g->is_number_integer()) {
    opts.grace_period_seconds = g->get<std::int64_t>();
  }
  if (std::string uid = kube::JsonString(body, {"preconditions", "uid"}); !uid.empty()) opts.precondition_uid = uid;
  if (std::string rv = kube::JsonString(body, {"preconditions", "resourceVersion"}); !rv.empty())
    opts.precondition_resource_version = rv;
  return opts;
}

// The body of a DELETE (optional), and dryRun from the query or from the body's DeleteOptions.
kube::Status ReadDelete(const httplib::Request& req, kube::Result<json> parsed, json* body, WriteParams* write) {
  if (!req.body.empty()) {
    if (!parsed.ok()) return parsed.status();
    if (!parsed->is_object()) return kube::Status::BadRequest("DeleteOptions must be a JSON object");
    *body = *parsed;
  }
  auto params = WriteParamsOf(req, "DeleteOptions", false);
  if (!params.ok()) return params.status();
  *write = *params;
  if (const json* dry = kube::JsonAt(*body, {"dryRun"}); dry && dry->is_array())
    for (const json& v : *dry) {
      if (v != "All")
        return kube::Status::Invalid("DeleteOptions.meta.k8s.io", "",
                                     {{"FieldValueNotSupported", "dryRun", "Unsupported value: " + v.dump() + ": supported values: \"All\""}});
      write->store.dry_run = true;
    }
  return kube::Status::Ok();
}

}  // namespace

void HttpServer::Impl::List(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto opts = ListOptionsOf(req, t.ns);
  if (!opts.ok()) return SendStatus(res, opts.status());
  auto rep = NegotiateRepresentation(req.get_header_value("Accept"), true, false);
  if (!rep.ok()) return SendStatus(res, rep.status());
  kube::ListOptions options = *opts;
  options.field_selector = StoredFieldSelector(t, options.field_selector);
  // kube-apiserver 1.34 serves a list at resourceVersion 0 whole from its watch cache: no pages.
  if (options.resource_version == "0" && options.continue_.empty() && options.resource_version_match.empty()) options.limit = 0;
  const std::string include = req.get_param_value("includeObject");
  json body;
  kube::Status s = RunFresh([&] {
    auto listed = store.List(StoredName(t), options);
    if (!listed.ok()) return listed.status();
    body = RepresentList(t, *rep, *listed, include);
    return kube::Status::Ok();
  });
  if (!s.ok()) return SendStatus(res, Qualify(s, t));
  SendJson(res, 200, body, rep->content_type());
}

void HttpServer::Impl::GetOne(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto rep = NegotiateRepresentation(req.get_header_value("Accept"), false, false);
  if (!rep.ok()) return SendStatus(res, rep.status());
  const std::string include = req.get_param_value("includeObject");
  const std::string rv = req.get_param_value("resourceVersion");
  json body;
  kube::Status s = RunFresh([&]() -> kube::Status {
    // resourceVersion on a get: "" and "0" read the latest; N must not be newer than the store.
    auto wanted = ParseResourceVersion(rv);
    if (!wanted.ok()) return wanted.status();
    if (*wanted > store.CurrentResourceVersion())
      return kube::Status::TooLargeResourceVersion(*wanted, store.CurrentResourceVersion());
    auto got = store.Get(StoredName(t), t.ns, t.name);
    if (!got.ok()) return got.status();
    if (rep->form == Representation::Form::kTable)
      body = BuildTable(ConverterFor(*t.type), {*got}, kube::ResourceVersionOf(**got), rep->version, include, Now());
    else
      body = Represent(t, *rep, **got);
    return kube::Status::Ok();
  });
  if (!s.ok()) return SendStatus(res, Qualify(s, t));
  SendJson(res, 200, body, rep->content_type());
}

void HttpServer::Impl::Delete(const httplib::Request& req, httplib::Response& res, const Target& t) {
  json body = json::object();
  WriteParams write;
  if (kube::Status s = ReadDelete(req, req.body.empty() ? kube::Result<json>(json::object()) : ParseBody(req, true), &body, &write);
      !s.ok())
    return SendStatus(res, s);
  auto opts = DeleteOptionsOf(req, body);
  if (!opts.ok()) return SendStatus(res, opts.status());
  Run([&] {
    auto deleted = store.Delete(StoredName(t), t.ns, t.name, *opts, write.store);
    if (!deleted.ok()) return SendStatus(res, Qualify(deleted.status(), t));
    // Gone at once: kube-apiserver answers with the object only for the kinds whose registries
    // say ReturnDeletedObject, and with a Success Status for every other (ConfigMaps, custom
    // resources, ...). An object still held by finalizers or a grace period comes back as it is.
    const bool gone = write.store.dry_run ? !kube::JsonAt(**deleted, {"metadata", "deletionTimestamp"})
                                          : !store.Get(StoredName(t), t.ns, t.name).ok();
    if (!gone || t.type->returns_deleted_object) return SendJson(res, 200, Present(t, **deleted));
    json details = {{"name", t.name}, {"kind", t.resource->plural}, {"uid", kube::UidOf(**deleted)}};
    if (!t.resource->group.empty()) details["group"] = t.resource->group;
    SendJson(res, 200, {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", json::object()},
                        {"status", "Success"}, {"details", details}});
  });
}

void HttpServer::Impl::DeleteCollection(const httplib::Request& req, httplib::Response& res, const Target& t) {
  json body = json::object();
  WriteParams write;
  if (kube::Status s = ReadDelete(req, req.body.empty() ? kube::Result<json>(json::object()) : ParseBody(req, true), &body, &write);
      !s.ok())
    return SendStatus(res, s);
  auto opts = DeleteOptionsOf(req, body);
  if (!opts.ok()) return SendStatus(res, opts.status());
  auto list_opts = ListOptionsOf(req, t.ns);
  if (!list_opts.ok()) return SendStatus(res, list_opts.status());
  kube::ListOptions options = *list_opts;
  options.field_selector = StoredFieldSelector(t, options.field_selector);
  Run([&] {
    auto listed = store.List(StoredName(t), options);
    if (!listed.ok()) return SendStatus(res, listed.status());
    json items = json::array();
    for (const auto& obj : listed->items) {
      auto deleted = store.Delete(StoredName(t), kube::NamespaceOf(*obj), kube::NameOf(*obj), *opts, write.store);
      if (!deleted.ok() && !deleted.status().IsNotFound()) return SendStatus(res, Qualify(deleted.status(), t));
      items.push_back(ListItem(t, Present(t, *obj)));
    }
    SendJson(res, 200, {{"kind", t.resource->kind + "List"}, {"apiVersion", t.resource->ApiVersion()},
                        {"metadata", {{"resourceVersion", std::to_string(store.CurrentResourceVersion())}}},
                        {"items", std::move(items)}});
  });
}

}  // namespace fakeapi
