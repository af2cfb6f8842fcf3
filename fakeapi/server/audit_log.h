// An audit log in kube-apiserver's format: one audit.k8s.io/v1 Event per line (JSON), level
// Metadata, stage ResponseComplete, with verb, user, userAgent, objectRef, responseStatus.code,
// requestURI and requestReceivedTimestamp / stageTimestamp. `dglsim run --audit-log` and `dglsim
// serve --audit-log` write it, so that a simulated run and a real cluster's (kube-apiserver
// --audit-log-path with --audit-log-format=json) can be read by the same tools and imported back
// by `dglsim import`.
//
// Two sources of entries:
// - AuditingClient: a Client that forwards to another (the store) and logs every call under one
//   identity: what the simulation's actors do (the scheduler as system:kube-scheduler, a kubelet
//   as system:node:NAME, the operator as its service account, ...: IdentityOfActor).
// - HttpServer (http_server.h): every request it answers, under the identity
//   HttpServerOptions::audit_user gives (a fixed "system:admin" until the server authenticates).
// Times are the given clock's (simulated time in a simulation; its epoch is the API's). auditIDs are
// a counter formatted as a UUID, so a run's log is the same every time.
//
// Thread-safe: one mutex per log.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <fstream>
#include <mutex>
#include <string>
#include <string_view>

namespace fakeapi {

struct AuditEntry {
  std::string verb;         // get, list, watch, create, update, patch, delete, deletecollection
  std::string user;         // user.username
  std::string user_agent;
  std::string request_uri;  // the path and query, as kube-apiserver logs it
  std::string api_group, api_version, resource, subresource, ns, name;  // objectRef
  int code = 200;           // responseStatus.code
  kube::Micros received = 0, completed = 0;
};

class AuditLog {
 public:
  // `clock` gives the timestamps of entries logged through Log(verb, ...); it must outlive the log.
  explicit AuditLog(const kube::Clock* clock = nullptr) : clock_(clock) {}
  // Opens (truncates) `path`; an error names it.
  kube::Status Open(const std::string& path);
  void Write(const AuditEntry& entry);
  // The JSON line of an entry (without the newline); `id` makes its auditID.
  static std::string Line(const AuditEntry& entry, std::uint64_t id);
  // Whether every line so far reached the file (false after a write error, e.g. a full disk).
  bool good() const;
  void Flush();
  const kube::Clock* clock() const { return clock_; }
  // REQUIRES: no entry is being logged (set it before the log is used, as a Simulation does).
  void SetClock(const kube::Clock* clock) { clock_ = clock; }

 private:
  const kube::Clock* clock_;
  mutable std::mutex mu_;
  std::ofstream out_;
  std::uint64_t next_id_ = 1;
};

// The request URI of a call on `type` (e.g. /api/v1/namespaces/default/pods/p/status).
std::string RequestUri(const kube::ResourceType& type, std::string_view ns, std::string_view name,
                       std::string_view subresource, bool watch = false);

// The identity kube-apiserver would see for a simulation actor's name: "scheduler" ->
// system:kube-scheduler, "kubelet/N" -> system:node:N, "dgl-operator" ->
// system:serviceaccount:dgl-operator:dgl-operator, "node-lifecycle" -> the node controller's
// service account, anything else system:serviceaccount:kube-system:NAME.
std::string IdentityOfActor(std::string_view actor);

// Forwards every call to `inner` and logs it to `log` as `user` (log and inner must outlive it).
class AuditingClient : public kube::Client {
 public:
  AuditingClient(kube::Client& inner, const kube::Registry& registry, AuditLog& log, std::string user);

  kube::Result<kube::ObjectPtr> Create(const std::string& resource, kube::Json object, const std::string& ns) override;
  kube::Result<kube::ObjectPtr> Get(const std::string& resource, const std::string& ns, const std::string& name) override;
  kube::Result<kube::ListResult> List(const std::string& resource, const kube::ListOptions& options) override;
  kube::Result<kube::ObjectPtr> Update(const std::string& resource, kube::Json object) override;
  kube::Result<kube::ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object) override;
  kube::Result<kube::ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                      const kube::Json& patch, kube::PatchType type,
                                      const std::string& subresource) override;
  kube::Result<kube::ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                       const kube::DeleteOptions& options) override;
  kube::Result<kube::WatchPtr> Watch(const std::string& resource, const kube::WatchOptions& options) override;

 private:
  void Log(const char* verb, const std::string& resource, const std::string& ns, const std::string& name,
           const char* subresource, const kube::Status& status, bool watch = false);

  kube::Client& inner_;
  const kube::Registry& registry_;
  AuditLog& log_;
  std::string user_;
};

}  // namespace fakeapi
