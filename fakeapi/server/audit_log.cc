// The audit log. See audit_log.h.
#include "fakeapi/server/audit_log.h"

#include "fakeapi/client/json.h"

#include <cstdio>
#include <utility>

namespace fakeapi {

using json = kube::Json;

kube::Status AuditLog::Open(const std::string& path) {
  std::lock_guard lock(mu_);
  out_.open(path, std::ios::out | std::ios::trunc);
  if (!out_) return kube::Status::BadRequest("cannot write the audit log " + path);
  return kube::Status::Ok();
}

std::string AuditLog::Line(const AuditEntry& e, std::uint64_t id) {
  char audit_id[40];
  std::snprintf(audit_id, sizeof audit_id, "00000000-0000-4000-8000-%012llu",
                static_cast<unsigned long long>(id % 1'000'000'000'000ULL));
  json ref = json::object();
  ref["resource"] = e.resource;
  if (!e.ns.empty()) ref["namespace"] = e.ns;
  if (!e.name.empty()) ref["name"] = e.name;
  ref["apiGroup"] = e.api_group;
  ref["apiVersion"] = e.api_version;
  if (!e.subresource.empty()) ref["subresource"] = e.subresource;
  json line = {{"kind", "Event"},
               {"apiVersion", "audit.k8s.io/v1"},
               {"level", "Metadata"},
               {"auditID", audit_id},
               {"stage", "ResponseComplete"},
               {"requestURI", e.request_uri},
               {"verb", e.verb},
               {"user", {{"username", e.user}, {"groups", json::array({"system:authenticated"})}}},
               {"sourceIPs", json::array({"127.0.0.1"})},
               {"userAgent", e.user_agent},
               {"objectRef", ref},
               {"responseStatus", {{"metadata", json::object()}, {"code", e.code}}},
               {"requestReceivedTimestamp", kube::FormatMicroTime(e.received)},
               {"stageTimestamp", kube::FormatMicroTime(e.completed)}};
  return line.dump();
}

void AuditLog::Write(const AuditEntry& entry) {
  std::lock_guard lock(mu_);
  if (!out_.is_open()) return;
  out_ << Line(entry, next_id_++) << '\n';
}

bool AuditLog::good() const {
  std::lock_guard lock(mu_);
  return out_.is_open() && out_.good();
}

void AuditLog::Flush() {
  std::lock_guard lock(mu_);
  if (out_.is_open()) out_.flush();
}

std::string RequestUri(const kube::ResourceType& type, std::string_view ns, std::string_view name,
                       std::string_view subresource, bool watch) {
  std::string uri = type.group.empty() ? "/api/" + type.version : "/apis/" + type.group + "/" + type.version;
  if (type.namespaced && !ns.empty()) uri += "/namespaces/" + std::string(ns);
  uri += "/" + type.plural;
  if (!name.empty()) uri += "/" + std::string(name);
  if (!subresource.empty()) uri += "/" + std::string(subresource);
  if (watch) uri += "?watch=true";
  return uri;
}

std::string IdentityOfActor(std::string_view actor) {
  if (actor.starts_with("kubelet/")) return "system:node:" + std::string(actor.substr(8));
  if (actor == "scheduler" || actor.starts_with("scheduler")) return "system:kube-scheduler";
  if (actor == "dgl-operator") return "system:serviceaccount:dgl-operator:dgl-operator";
  if (actor.starts_with("node-lifecycle")) return "system:serviceaccount:kube-system:node-controller";
  if (actor == "node-heartbeat") return "system:node:heartbeat";
  return "system:serviceaccount:kube-system:" + std::string(actor);
}

AuditingClient::AuditingClient(kube::Client& inner, const kube::Registry& registry, AuditLog& log, std::string user)
    : inner_(inner), registry_(registry), log_(log), user_(std::move(user)) {}

void AuditingClient::Log(const char* verb, const std::string& resource, const std::string& ns, const std::string& name,
                         const char* subresource, const kube::Status& status, bool watch) {
  const kube::ResourceType* type = registry_.Find(resource);
  AuditEntry e;
  e.verb = verb;
  e.user = user_;
  e.user_agent = "dglsim/" + user_;
  e.resource = type ? type->plural : resource;
  if (type) {
    e.api_group = type->group;
    e.api_version = type->version;
    e.request_uri = RequestUri(*type, type->namespaced ? ns : "", name, subresource, watch);
  }
  e.subresource = subresource;
  if (!type || type->namespaced) e.ns = ns;
  e.name = name;
  e.code = status.ok() ? (std::string_view(verb) == "create" ? 201 : 200) : status.code();
  e.received = e.completed = log_.clock() ? log_.clock()->Now() : 0;
  log_.Write(e);
}

namespace {
// A namespaced object's namespace as a write names it (the object's own, else `ns`, else default).
std::string NamespaceFor(const kube::Json& object, const std::string& ns) {
  const std::string& own = kube::NamespaceOf(object);
  if (!own.empty()) return own;
  return ns.empty() ? "default" : ns;
}
}  // namespace

kube::Result<kube::ObjectPtr> AuditingClient::Create(const std::string& resource, kube::Json object, const std::string& ns) {
  const std::string where = NamespaceFor(object, ns);
  std::string name = kube::NameOf(object);
  const bool binding = resource == "pods/binding";
  auto result = inner_.Create(resource, std::move(object), ns);
  if (name.empty() && result.ok() && *result) name = kube::NameOf(**result);
  Log("create", binding ? "pods" : resource, where, name, binding ? "binding" : "", result.status());
  return result;
}

kube::Result<kube::ObjectPtr> AuditingClient::Get(const std::string& resource, const std::string& ns, const std::string& name) {
  auto result = inner_.Get(resource, ns, name);
  Log("get", resource, ns, name, "", result.status());
  return result;
}

kube::Result<kube::ListResult> AuditingClient::List(const std::string& resource, const kube::ListOptions& options) {
  auto result = inner_.List(resource, options);
  Log("list", resource, options.namespace_, "", "", result.status());
  return result;
}

kube::Result<kube::ObjectPtr> AuditingClient::Update(const std::string& resource, kube::Json object) {
  const std::string ns = kube::NamespaceOf(object), name = kube::NameOf(object);
  auto result = inner_.Update(resource, std::move(object));
  Log("update", resource, ns, name, "", result.status());
  return result;
}

kube::Result<kube::ObjectPtr> AuditingClient::UpdateStatus(const std::string& resource, kube::Json object) {
  const std::string ns = kube::NamespaceOf(object), name = kube::NameOf(object);
  auto result = inner_.UpdateStatus(resource, std::move(object));
  Log("update", resource, ns, name, "status", result.status());
  return result;
}

kube::Result<kube::ObjectPtr> AuditingClient::Patch(const std::string& resource, const std::string& ns,
                                                    const std::string& name, const kube::Json& patch,
                                                    kube::PatchType type, const std::string& subresource) {
  auto result = inner_.Patch(resource, ns, name, patch, type, subresource);
  Log("patch", resource, ns, name, subresource.c_str(), result.status());
  return result;
}

kube::Result<kube::ObjectPtr> AuditingClient::Delete(const std::string& resource, const std::string& ns,
                                                     const std::string& name, const kube::DeleteOptions& options) {
  auto result = inner_.Delete(resource, ns, name, options);
  Log("delete", resource, ns, name, "", result.status());
  return result;
}

kube::Result<kube::WatchPtr> AuditingClient::Watch(const std::string& resource, const kube::WatchOptions& options) {
  auto result = inner_.Watch(resource, options);
  Log("watch", resource, options.namespace_, "", "", result.status(), true);
  return result;
}

}  // namespace fakeapi
