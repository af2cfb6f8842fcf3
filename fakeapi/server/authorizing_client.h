// An AuthorizingClient is the API as one identity may use it: every call is authorized by an
// rbac::Authorizer for its user before it reaches the client behind (the Store, in process), as
// kube-apiserver's authorization filter does for every request; a refused call answers 403 with
// kube-apiserver's Forbidden Status and never reaches the store. Creates and updates of Roles,
// ClusterRoles and bindings also pass the escalation checks (rbac.h, AdmitRbacWrite), and so do
// their patches (the object the patch makes, judged as an update's).
//
// Calls map to RBAC verbs as kube-apiserver's RequestInfo does: Get get, List list, Watch watch,
// Create create (resource "pods/binding": create pods/binding), Update update, UpdateStatus update
// of the status subresource, Patch patch (of the subresource given), Delete delete. A List or Watch
// without a namespace of a namespaced kind is a request at the cluster scope.
//
// An allowed call costs a look at the bindings of the user and its groups (rbac.h's index), no
// write and no event: a run whose every call is allowed is the same run as without authorization.
// With no authorizer (nullptr) every call passes.
#pragma once

#include "fakeapi/client/client.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/server/rbac.h"

#include <functional>
#include <string>

namespace fakeapi {

class AuthorizingClient : public kube::Client {
 public:
  // `inner`, `registry` and `authorizer` must outlive this client.
  AuthorizingClient(kube::Client& inner, const kube::Registry& registry, const rbac::Authorizer* authorizer,
                    rbac::UserInfo user);

  const rbac::UserInfo& user() const { return user_; }
  void SetUser(rbac::UserInfo user) { user_ = std::move(user); }
  void SetAuthorizer(const rbac::Authorizer* authorizer) { authorizer_ = authorizer; }
  // Called with every refusal (a trace line, a counter); unset: nothing.
  void SetOnRefusal(std::function<void(const kube::Status&)> on_refusal) { on_refusal_ = std::move(on_refusal); }
  // Whether `user()` may do `verb` on resource[/subresource] `name` in `ns` (a check without a call:
  // `kubectl exec`'s create pods/exec).
  kube::Status Check(const std::string& verb, const std::string& resource, const std::string& subresource,
                     const std::string& ns, const std::string& name) const;

  kube::Result<kube::ObjectPtr> Create(const std::string& resource, kube::Json object,
                                       const std::string& ns = kube::kNoNamespace()) override;
  kube::Result<kube::ObjectPtr> Get(const std::string& resource, const std::string& ns,
                                    const std::string& name) override;
  kube::Result<kube::ListResult> List(const std::string& resource, const kube::ListOptions& options = {}) override;
  kube::Result<kube::ObjectPtr> Update(const std::string& resource, kube::Json object) override;
  kube::Result<kube::ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object) override;
  kube::Result<kube::ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                      const kube::Json& patch, kube::PatchType type = kube::PatchType::kMerge,
                                      const std::string& subresource = "") override;
  kube::Result<kube::ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                       const kube::DeleteOptions& options = {}) override;
  kube::Result<kube::WatchPtr> Watch(const std::string& resource, const kube::WatchOptions& options = {}) override;

 private:
  // OK or the refusal (reported to on_refusal_).
  kube::Status Authorize(std::string_view verb, const std::string& resource, std::string_view subresource,
                         std::string_view ns, std::string_view name, const kube::Json* written = nullptr) const;
  // Escalation prevention on a patch of a Role, ClusterRole or binding: the patched object, as an
  // update's (OK for other kinds, subresources and objects that do not exist).
  kube::Status AdmitPatch(const std::string& resource, const std::string& ns, const std::string& name,
                          const kube::Json& patch, const std::string& subresource) const;

  kube::Client& inner_;
  const kube::Registry& registry_;
  const rbac::Authorizer* authorizer_;
  rbac::UserInfo user_;
  std::function<void(const kube::Status&)> on_refusal_;
};

}  // namespace fakeapi
