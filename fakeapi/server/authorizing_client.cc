// Every call authorized for one identity. See authorizing_client.h.
#include "fakeapi/server/authorizing_client.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/server/merge_patch.h"

namespace fakeapi {

AuthorizingClient::AuthorizingClient(kube::Client& inner, const kube::Registry& registry,
                                     const rbac::Authorizer* authorizer, rbac::UserInfo user)
    : inner_(inner), registry_(registry), authorizer_(authorizer), user_(std::move(user)) {}

kube::Status AuthorizingClient::Authorize(std::string_view verb, const std::string& resource,
                                          std::string_view subresource, std::string_view ns, std::string_view name,
                                          const kube::Json* written) const {
  if (!authorizer_) return kube::Status::Ok();
  const kube::ResourceType* type = registry_.Find(resource);
  if (!type) return kube::Status::Ok();  // the store answers 404 for a kind it does not serve
  const std::string_view scope = type->namespaced ? ns : std::string_view();
  kube::Status s = authorizer_->Authorize(
      {&user_, verb, true, type->group, type->plural, subresource, name, scope, ""});
  if (s.ok() && written && type->group == "rbac.authorization.k8s.io")
    s = authorizer_->AdmitRbacWrite(user_, *type, *written, std::string(scope), verb == "update");
  if (!s.ok() && on_refusal_) on_refusal_(s);
  return s;
}

kube::Status AuthorizingClient::Check(const std::string& verb, const std::string& resource,
                                      const std::string& subresource, const std::string& ns,
                                      const std::string& name) const {
  return Authorize(verb, resource, subresource, ns, name);
}

kube::Status AuthorizingClient::AdmitPatch(const std::string& resource, const std::string& ns, const std::string& name,
                                           const kube::Json& patch, const std::string& subresource) const {
  const kube::ResourceType* type = registry_.Find(resource);
  if (!authorizer_ || !subresource.empty() || !type || type->group != rbac::kRbacGroup) return kube::Status::Ok();
  auto current = inner_.Get(resource, ns, name);
  if (!current.ok()) return kube::Status::Ok();  // the store answers the patch's 404
  const kube::Json next = MergePatched(**current, patch);
  kube::Status s = authorizer_->AdmitRbacWrite(user_, *type, next, type->namespaced ? kube::NamespaceOf(next) : "", true);
  if (!s.ok() && on_refusal_) on_refusal_(s);
  return s;
}

namespace {
// The namespace a namespaced create lands in: the argument, else the object's, else "default".
const std::string& CreateNamespace(const std::string& ns, const kube::Json& object) {
  static const std::string kDefault = "default";
  if (!ns.empty()) return ns;
  const kube::Json* in = kube::JsonAt(object, {"metadata", "namespace"});
  return in && in->is_string() && !in->get_ref<const std::string&>().empty() ? in->get_ref<const std::string&>()
                                                                             : kDefault;
}
const std::string& ObjectNamespace(const kube::Json& object) {
  static const std::string kDefault = "default";
  const kube::Json* in = kube::JsonAt(object, {"metadata", "namespace"});
  return in && in->is_string() && !in->get_ref<const std::string&>().empty() ? in->get_ref<const std::string&>()
                                                                             : kDefault;
}
}  // namespace

kube::Result<kube::ObjectPtr> AuthorizingClient::Create(const std::string& resource, kube::Json object,
                                                        const std::string& ns) {
  if (authorizer_) {
    const std::string& in = CreateNamespace(ns, object);
    kube::Status s = resource == "pods/binding"
                         ? Authorize("create", "pods", "binding", in, kube::NameOf(object))
                         : Authorize("create", resource, "", in, "", &object);
    if (!s.ok()) return s;
  }
  return inner_.Create(resource, std::move(object), ns);
}

kube::Result<kube::ObjectPtr> AuthorizingClient::Get(const std::string& resource, const std::string& ns,
                                                     const std::string& name) {
  if (kube::Status s = Authorize("get", resource, "", ns.empty() ? "default" : ns, name); !s.ok()) return s;
  return inner_.Get(resource, ns, name);
}

kube::Result<kube::ListResult> AuthorizingClient::List(const std::string& resource, const kube::ListOptions& options) {
  if (kube::Status s = Authorize("list", resource, "", options.namespace_, ""); !s.ok()) return s;
  return inner_.List(resource, options);
}

kube::Result<kube::ObjectPtr> AuthorizingClient::Update(const std::string& resource, kube::Json object) {
  if (authorizer_)
    if (kube::Status s = Authorize("update", resource, "", ObjectNamespace(object), kube::NameOf(object), &object);
        !s.ok())
      return s;
  return inner_.Update(resource, std::move(object));
}

kube::Result<kube::ObjectPtr> AuthorizingClient::UpdateStatus(const std::string& resource, kube::Json object) {
  if (authorizer_)
    if (kube::Status s = Authorize("update", resource, "status", ObjectNamespace(object), kube::NameOf(object));
        !s.ok())
      return s;
  return inner_.UpdateStatus(resource, std::move(object));
}

kube::Result<kube::ObjectPtr> AuthorizingClient::Patch(const std::string& resource, const std::string& ns,
                                                       const std::string& name, const kube::Json& patch,
                                                       kube::PatchType type, const std::string& subresource) {
  if (kube::Status s = Authorize("patch", resource, subresource, ns.empty() ? "default" : ns, name); !s.ok())
    return s;
  if (kube::Status s = AdmitPatch(resource, ns, name, patch, subresource); !s.ok()) return s;
  return inner_.Patch(resource, ns, name, patch, type, subresource);
}

kube::Result<kube::ObjectPtr> AuthorizingClient::Delete(const std::string& resource, const std::string& ns,
                                                        const std::string& name, const kube::DeleteOptions& options) {
  if (kube::Status s = Authorize("delete", resource, "", ns.empty() ? "default" : ns, name); !s.ok()) return s;
  return inner_.Delete(resource, ns, name, options);
}

kube::Result<kube::WatchPtr> AuthorizingClient::Watch(const std::string& resource, const kube::WatchOptions& options) {
  if (kube::Status s = Authorize("watch", resource, "", options.namespace_, ""); !s.ok()) return s;
  return inner_.Watch(resource, options);
}

}  // namespace fakeapi
