// Writes: create, update (PUT) and the four patch types, server-side apply among them, each with
// dryRun and field ownership (field_manager.h). See http_server.h for the semantics and their
// departures from kube-apiserver.
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/event_conversion.h"
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
  // kube-apiserver's words: a strategic merge patch of a custom resource is refused naming the
  // types it takes; a type no kind takes is its generic 415.
  if (type == "application/strategic-merge-patch+json")
    return wire::MakeStatus(415, "UnsupportedMediaType",
                            "the body of the request was in an unknown format - accepted media types include: "
                            "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml");
  return kube::Status::UnsupportedMediaType("415: Unsupported Media Type");
}

// A create's or update's JSON body that does not parse, in kube-apiserver's words: "the object
// provided is unrecognized (must be of type ConfigMap): couldn't get version/kind; json parse
// error: unexpected end of JSON input ({"metadata": )" (the body summarized to 30 bytes). Go's
// decoder's own text is kept for a truncated body; other syntax errors keep nlohmann's.
kube::Status ObjectDecodeError(const Target& t, const httplib::Request& req, const kube::Status& status) {
  const std::string type = wire::MediaParams(req.get_header_value("Content-Type"))[""];
  if (status.code() != 400 || req.body.empty() || !(type.empty() || type == "application/json") || !t.resource) return status;
  std::string why;
  try {
    const json parsed = json::parse(req.body);  // g++ keeps warn_unused_result through a (void) cast
    if (!parsed.is_discarded()) return status;
  } catch (const json::parse_error& e) {
    const std::string what = e.what();
    why = what.find("unexpected end of input") != std::string::npos ? "unexpected end of JSON input" : what;
  }
  const std::string summary = req.body.size() > 30 ? req.body.substr(0, 30) + " ..." : req.body;
  return kube::Status::BadRequest("the object provided is unrecognized (must be of type " + t.resource->kind +
                                  "): couldn't get version/kind; json parse error: " + why + " (" + summary + ")");
}

bool IsCorePod(const Target& t) { return t.type && t.type->group.empty() && t.type->plural == "pods"; }

// kube-apiserver's defaulting of a pod as it decodes the body (SetDefaults_PodSpec, _Container,
// ...), before field ownership is recorded: the writer owns these fields. Pods the simulation's
// in-process controllers write get the store's lighter defaults (store.h), for speed.
void DefaultPodAsDecoded(json& pod) {
  if (!pod.is_object()) return;  // refused by the store
  json& spec = pod["spec"];
  if (!spec.is_object()) return;
  if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
  if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
  if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
  if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
  if (!spec.contains("securityContext")) spec["securityContext"] = json::object();
  if (!spec.contains("enableServiceLinks")) spec["enableServiceLinks"] = true;
  for (const char* list : {"initContainers", "containers"}) {
    auto it = spec.find(list);
    if (it == spec.end() || !it->is_array()) continue;
    for (json& c : *it) {
      if (!c.is_object()) continue;
      if (!c.contains("terminationMessagePath")) c["terminationMessagePath"] = "/dev/termination-log";
      if (!c.contains("terminationMessagePolicy")) c["terminationMessagePolicy"] = "File";
      if (!c.contains("resources")) c["resources"] = json::object();
      if (!c.contains("imagePullPolicy")) {
        const std::string image = kube::JsonString(c, {"image"});
        const auto slash = image.rfind('/');
        const std::string last = slash == std::string::npos ? image : image.substr(slash + 1);
        const bool latest = last.find(':') == std::string::npos || last.ends_with(":latest");
        c["imagePullPolicy"] = latest && last.find('@') == std::string::npos ? "Always" : "IfNotPresent";
      }
      if (c["ports"].is_array())
        for (json& p : c["ports"])
          if (p.is_object() && !p.contains("protocol")) p["protocol"] = "TCP";
      if (c["ports"].is_null()) c.erase("ports");
    }
  }
}

// A status write changes only the status (and a built-in kind's labels and annotations): the
// object whose fields it owns is the stored one with those, not the body as sent.
void AsStatusWrite(const Target& t, const json& current, json& next) {
  if (t.subresource != "status" || !current.is_object() || !next.is_object()) return;
  json merged = current;
  if (const json* status = kube::JsonAt(next, {"status"})) merged["status"] = *status;
  else merged.erase("status");
  if (TakesStrategicMerge(*t.type))
    for (const char* member : {"labels", "annotations"}) {
      const json* value = kube::JsonAt(next, {"metadata", member});
      if (value && value->is_object() && !value->empty()) merged["metadata"][member] = *value;
      else merged["metadata"].erase(member);
    }
  for (const char* member : {"resourceVersion", "uid"})  // the write's preconditions, as sent
    if (const json* value = kube::JsonAt(next, {"metadata", member})) merged["metadata"][member] = *value;
    else merged["metadata"].erase(member);
  next = std::move(merged);
}

// A pod's status as kube-apiserver decodes a status write: a condition's unset times are null
// members (owned by the writer), and the QoS class stays what the create computed.
void PodStatusAsDecoded(const Target& t, const json& current, json& next) {
  const json* written = next.is_object() ? kube::JsonAt(next, {"status"}) : nullptr;
  if (!IsCorePod(t) || t.subresource != "status" || !written || !written->is_object()) return;
  json& status = next["status"];
  if (status["conditions"].is_array()) {
    for (json& c : status["conditions"])
      if (c.is_object())
        for (const char* time : {"lastProbeTime", "lastTransitionTime"})
          if (!c.contains(time)) c[time] = nullptr;
  } else {
    status.erase("conditions");
  }
  if (const json* qos = kube::JsonAt(current, {"status", "qosClass"}); qos && !status.contains("qosClass")) status["qosClass"] = *qos;
}

// A pod's update is decoded with the same defaults when the stored pod has them (it was created
// over HTTP); one the simulation wrote is updated as it is, or the defaults would read as changes
// to fields a pod may not change.
void DefaultPodUpdate(const Target& t, const json& current, json& next) {
  if (!IsCorePod(t) || !t.subresource.empty()) return;
  // spec.serviceAccount is written out as serviceAccountName's mirror (Present), not stored: a
  // client that sends back what it read changes nothing by it.
  if (json* spec = next.is_object() && next.contains("spec") ? &next["spec"] : nullptr; spec && spec->is_object()) {
    const json* account = kube::JsonAt(*spec, {"serviceAccount"});
    if (account && (!spec->contains("serviceAccountName") || (*spec)["serviceAccountName"] == *account) &&
        !kube::JsonAt(current, {"spec", "serviceAccount"}))
      spec->erase("serviceAccount");
  }
  if (kube::JsonAt(current, {"spec", "enableServiceLinks"})) DefaultPodAsDecoded(next);
}

// The pod's QoS class as kube-apiserver computes it at create: BestEffort without requests or
// limits, Guaranteed when every container limits cpu and memory to what it requests, else Burstable.
std::string PodQosClass(const json& pod) {
  bool any = false, guaranteed = true;
  for (const char* list : {"initContainers", "containers"})
    for (const json& c : kube::JsonArray(pod, {"spec", list})) {
      const json* requests = kube::JsonAt(c, {"resources", "requests"});
      const json* limits = kube::JsonAt(c, {"resources", "limits"});
      if ((requests && requests->is_object() && !requests->empty()) || (limits && limits->is_object() && !limits->empty())) any = true;
      for (const char* resource : {"cpu", "memory"}) {
        const json* limit = limits ? kube::JsonAt(*limits, {resource}) : nullptr;
        const json* request = requests ? kube::JsonAt(*requests, {resource}) : nullptr;
        if (!limit || (request && *request != *limit)) guaranteed = false;
      }
    }
  return !any ? "BestEffort" : guaranteed ? "Guaranteed" : "Burstable";
}

// What kube-apiserver's admission and create strategy add to a pod after field ownership is
// recorded (owned by nobody): the Priority admission's priority and preemptionPolicy (no
// PriorityClass named: 0), and the QoS class.
void AdmitPodCreate(json& pod) {
  if (!pod.is_object()) return;
  json& spec = pod["spec"];
  if (!spec.is_object()) return;
  if (!spec.contains("priorityClassName") && !spec.contains("priority")) spec["priority"] = 0;
  if (!spec.contains("preemptionPolicy")) spec["preemptionPolicy"] = "PreemptLowerPriority";
  if (!pod["status"].is_object()) pod["status"] = json::object();
  if (!pod["status"].contains("qosClass")) pod["status"]["qosClass"] = PodQosClass(pod);
}

// kube-apiserver records the fields of the version an Event is written in (events.k8s.io/v1),
// whatever the version it is later read in: `served` is the body as written, `stored` its core v1
// form, which takes the managedFields.
void RecordEventsV1Create(const Target& t, json served, FieldWrite fields, json& stored) {
  static const kube::ResourceType kEventsV1 = [&] {
    kube::ResourceType type = *t.type;
    type.group = t.resource->group;
    type.version = t.resource->version;
    return type;
  }();
  fields.type = &kEventsV1;
  RecordUpdate(nullptr, served, fields);
  if (const json* managed = kube::JsonAt(served, {"metadata", "managedFields"}); managed && stored["metadata"].is_object())
    stored["metadata"]["managedFields"] = *managed;
}

// What kube-apiserver refuses in a create body before the kind's own validation: a resourceVersion
// (500 from its storage layer), and an events.k8s.io/v1 Event without eventTime (the core v1
// Events the fake stores it as do not need one).
kube::Status CheckCreate(const Target& t, const json& body) {
  if (!kube::JsonString(body, {"metadata", "resourceVersion"}).empty())
    return wire::MakeStatus(500, "", "resourceVersion should not be set on objects to be created");
  if (t.resource->serving == Serving::kEventsView) {
    const json* when = kube::JsonAt(body, {"eventTime"});
    if (!when || when->is_null())
      return kube::Status::Invalid("Event", kube::JsonString(body, {"metadata", "name"}),
                                   {{"FieldValueRequired", "eventTime", "Required value"}});
  }
  return kube::Status::Ok();
}

// The patch is not the JSON type its kind needs: Go's encoding/json error, as kube-apiserver passes
// it on.
std::string PatchDecodeError(PatchKind kind, const json& patch) {
  const char* got = patch.is_array() ? "array" : patch.is_object() ? "object" : patch.is_string() ? "string"
                    : patch.is_boolean()                          ? "bool"
                    : patch.is_number()                           ? "number"
                                                                  : "null";
  if (kind == PatchKind::kJsonPatch)
    return std::string("error decoding patch: json: cannot unmarshal ") + got + " into Go value of type []handlers.jsonPatchOp";
  if (kind == PatchKind::kApply) return "error decoding YAML: the applied configuration must be an object";
  return std::string("error decoding patch: json: cannot unmarshal ") + got + " into Go value of type map[string]interface {}";
}

// What a patch other than apply makes of the object (in the form the client sees it).
kube::Status Patched(PatchKind kind, const json& patch, json& next) {
  if (kind == PatchKind::kJsonPatch) {
    // kube-apiserver answers an operation that does not apply with a generic 422 that keeps none of
    // the library's text (NewGenericServerResponse with an empty resource: empty details).
    kube::Status s = ApplyJsonPatch(next, patch);
    if (s.code() != 422) return s;
    return kube::Status::FromJson({{"status", "Failure"}, {"code", 422}, {"reason", "Invalid"}, {"details", json::object()},
                                   {"message", "the server rejected our request due to an error in our request"}});
  }
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
  if (t.subresource != "status") {
    // A pod created over HTTP has a generation (Create); its spec changes bump it.
    write.track_generation = IsCorePod(t);
    return store.Update(resource, std::move(next), write);
  }
  json managed;
  if (const json* fields = kube::JsonAt(next, {"metadata", "managedFields"}); fields && fields->is_array()) {
    managed = *fields;
    write.managed_fields = &managed;
  }
  write.status_metadata = TakesStrategicMerge(*t.type);  // a built-in kind's status write keeps labels
  return store.UpdateStatus(resource, std::move(next), write);
}

}  // namespace

void HttpServer::Impl::Create(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto write = WriteParamsOf(req, "CreateOptions", false);
  if (!write.ok()) return SendStatus(res, write.status());
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, ObjectDecodeError(t, req, body.status()));
  if (!body->is_object()) return SendStatus(res, kube::Status::BadRequest("the object to create must be a JSON object"));
  if (kube::Status s = CheckCreate(t, *body); !s.ok()) return SendStatus(res, s);
  const bool events_view = t.resource->serving == Serving::kEventsView;
  json served = events_view ? *body : json();
  json obj = Absorb(t, std::move(body.value()));
  // kube-apiserver defaults a namespace's kubernetes.io/metadata.name label as it decodes the body,
  // before field ownership is recorded: the creator owns the label.
  if (t.type && t.type->plural == "namespaces" && obj["metadata"].is_object() && obj["metadata"].contains("name"))
    obj["metadata"]["labels"]["kubernetes.io/metadata.name"] = obj["metadata"]["name"];
  // A custom resource with a status subresource is created without the status its body carries, as
  // kube-apiserver's status strategy drops it (the status is written through /status).
  if (t.type && t.type->has_status && !TakesStrategicMerge(*t.type)) obj.erase("status");
  if (IsCorePod(t)) DefaultPodAsDecoded(obj);
  Run([&] {
    if (t.resource->serving == Serving::kStored) RecordUpdate(nullptr, obj, FieldWriteFor(t, write->field_manager));
    if (IsCorePod(t)) AdmitPodCreate(obj);
    if (events_view) RecordEventsV1Create(t, std::move(served), FieldWriteFor(t, write->field_manager), obj);
    WriteOptions store_write = write->store;
    store_write.track_generation = IsCorePod(t);  // kube-apiserver 1.34 gives pods a generation
    if (kube::Status s = FitsInEtcd(obj, store_write); !s.ok()) return SendStatus(res, s);
    auto created = store.Create(t.type->QualifiedName(), std::move(obj), t.ns, store_write);
    if (!created.ok()) return SendStatus(res, Qualify(created.status(), t));
    if (t.type->group.empty() && t.type->plural == "namespaces" && !write->store.dry_run) PublishRootCa(kube::NameOf(**created));
    SendJson(res, 201, Present(t, **created));
  });
}

void HttpServer::Impl::PublishRootCa(const std::string& ns) {
  const kube::ResourceType* configmaps = store.registry().Find("configmaps");
  if (!configmaps) return;
  json cm = {{"apiVersion", "v1"},
             {"kind", "ConfigMap"},
             {"metadata",
              {{"name", "kube-root-ca.crt"},
               {"namespace", ns},
               {"annotations",
                {{"kubernetes.io/description",
                  "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as "
                  "the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of "
                  "Kubernetes clusters."}}}}},
             {"data", {{"ca.crt", ""}}}};
  RecordUpdate(nullptr, cm, FieldWrite{configmaps, "kube-controller-manager", "", kube::FormatTime(Now() / kube::kSecond * kube::kSecond)});
  (void)store.Create("configmaps", std::move(cm), ns);  // already there, or the namespace gone: nothing to publish
}

void HttpServer::Impl::Update(const httplib::Request& req, httplib::Response& res, const Target& t) {
  auto write = WriteParamsOf(req, "UpdateOptions", false);
  if (!write.ok()) return SendStatus(res, write.status());
  auto body = ParseBody(req, true);
  if (!body.ok()) return SendStatus(res, ObjectDecodeError(t, req, body.status()));
  if (kube::Status s = CheckIdentity(body.value(), t); !s.ok()) return SendStatus(res, s);
  json next = Absorb(t, std::move(body.value()));
  const std::string resource = t.type->QualifiedName();
  Run([&] {
    auto current = store.Get(resource, t.ns, t.name);
    if (!current.ok()) return SendStatus(res, Qualify(current.status(), t));
    DefaultPodUpdate(t, **current, next);
    AsStatusWrite(t, **current, next);
    PodStatusAsDecoded(t, **current, next);
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
    return SendStatus(res, kube::Status::BadRequest(PatchDecodeError(*kind, patch)));
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
          kube::JsonString(applied, {"kind"}) != t.resource->kind) {
        // As kube-apiserver names a GroupVersionKind ("apps/v1, Kind=Deployment", "/, Kind=").
        const std::string api_version = kube::JsonString(applied, {"apiVersion"});
        const auto slash = api_version.find('/');
        const std::string gv = slash == std::string::npos ? "/" + api_version : api_version;
        return SendStatus(res, kube::Status::BadRequest("invalid object type: " + gv + ", Kind=" +
                                                        kube::JsonString(applied, {"kind"})));
      }
      auto merged = Apply(absent ? nullptr : &**current, Absorb(t, applied), write->force, fields);
      if (!merged.ok()) return SendStatus(res, merged.status());
      next = std::move(merged.value());
    } else {
      // The object as served, without the members Present adds only to what it writes out.
      next = t.resource->serving == Serving::kEventsView ? CoreEventToEventsV1(**current) : **current;
      if (kube::Status s = Patched(*kind, patch, next); !s.ok()) return SendStatus(res, s);
      next = Absorb(t, std::move(next));
      DefaultPodUpdate(t, **current, next);
      PodStatusAsDecoded(t, **current, next);
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
