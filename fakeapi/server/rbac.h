// Role-based access control as kube-apiserver's RBAC authorizer evaluates it: who may do what.
//
// - UserInfo: a user name and its groups (service accounts are "system:serviceaccount:NS:NAME" in
//   groups system:serviceaccounts, system:serviceaccounts:NS and system:authenticated).
// - Attributes: one request as the authorizer sees it: verb (get, list, watch, create, update,
//   patch, delete, deletecollection, and the special bind, escalate, impersonate), API group,
//   resource, subresource, object name and namespace, or a non-resource path (/healthz, /api).
// - Policy: Roles, ClusterRoles (aggregationRule label selectors included: an aggregated
//   ClusterRole holds the rules of every ClusterRole its selectors match), RoleBindings and
//   ClusterRoleBindings, indexed by subject so a request looks only at the bindings of its user
//   and groups. A RoleBinding grants its role's rules in its namespace only (it may name a
//   ClusterRole); a ClusterRoleBinding grants a ClusterRole everywhere.
// - Matching, exactly as rbac/v1 PolicyRule does: `*` matches any verb, group, resource or URL;
//   a resource "pods" matches no subresource ("pods/status" is its own), "*/status" matches any
//   resource's status; resourceNames, when set, match only requests naming one of them (a list,
//   which names nothing, never matches); a non-resource URL "/apis/*" matches by prefix.
// - Authorizer: a Policy of its own (the bootstrap policy and any deployment's files: never
//   written to the API, so loading it costs no writes) and, optionally, the RBAC objects stored in
//   a Store (what controllers and users create), consulted only when the first denies. Members of
//   system:masters are allowed everything, as kube-apiserver's superuser group.
// - Refusals are metav1.Status bodies word for word as kube-apiserver's responsewriters write them:
//   `pods "x" is forbidden: User "U" cannot get resource "pods" in API group "" in the namespace
//   "ns"`, `... at the cluster scope`, `forbidden: User "U" cannot get path "/healthz"`.
// - Escalation prevention (AdmitRbacWrite): a Role or ClusterRole may be created, updated or patched
//   (any patch type: the object it makes is judged) only by
//   a user who holds every permission it grants (in its namespace; cluster-wide for a ClusterRole)
//   or who may `escalate` roles; a ClusterRole with an aggregationRule only by one who may escalate;
//   a RoleBinding or ClusterRoleBinding only by a user who may `bind` the role it names or holds
//   every permission of that role.
//
// Not thread-safe: the simulation calls it from its one thread, the HTTP server inside its executor.
#pragma once

#include "fakeapi/client/json.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/client/selector.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fakeapi {

class Store;

namespace rbac {

inline constexpr const char* kRbacGroup = "rbac.authorization.k8s.io";
inline constexpr const char* kMastersGroup = "system:masters";
inline constexpr const char* kAuthenticatedGroup = "system:authenticated";
inline constexpr const char* kUnauthenticatedGroup = "system:unauthenticated";
inline constexpr const char* kAnonymousUser = "system:anonymous";

struct UserInfo {
  std::string name;
  std::vector<std::string> groups;
  std::string uid;
  bool operator==(const UserInfo&) const = default;
};

// system:serviceaccount:NS:NAME in its three groups.
UserInfo ServiceAccountUser(const std::string& ns, const std::string& name);
// system:node:NAME in system:nodes and system:authenticated.
UserInfo NodeUser(const std::string& node);
// A user in system:masters (and system:authenticated): allowed everything.
UserInfo AdminUser(const std::string& name = "system:admin");
bool IsMaster(const UserInfo& user);

// Views: whatever they name must outlive the call they are passed to.
struct Attributes {
  const UserInfo* user = nullptr;
  std::string_view verb;
  bool resource_request = true;
  std::string_view api_group;
  std::string_view resource;     // plural
  std::string_view subresource;  // "", "status", "exec", "binding", ...
  std::string_view name;
  std::string_view ns;           // "" = cluster scope
  std::string_view path;         // a non-resource request's path
};

struct PolicyRule {
  std::vector<std::string> verbs;
  std::vector<std::string> api_groups;
  std::vector<std::string> resources;
  std::vector<std::string> resource_names;
  std::vector<std::string> non_resource_urls;
  bool operator==(const PolicyRule&) const = default;
};

// Whether `rule` allows the request (rbac/v1 semantics, see the file comment).
bool RuleAllows(const PolicyRule& rule, const Attributes& request);
// kube-apiserver's compact form of a rule, as its escalation refusals list them:
// {APIGroups:[""], Resources:["pods"], Verbs:["get"]}.
std::string CompactString(const PolicyRule& rule);
// The rules of an rbac/v1 `rules` array; Invalid (with the field path) when malformed.
kube::Result<std::vector<PolicyRule>> ParseRules(const kube::Json& rules, const std::string& field = "rules");

// The message kube-apiserver's forbiddenMessage writes for `request`, and the whole 403 Status
// (NewForbidden: `<resource>[.<group>] ["<name>"] is forbidden: <message>`).
std::string ForbiddenMessage(const Attributes& request);
kube::Status Forbidden(const Attributes& request, const std::string& reason = "");

class Policy {
 public:
  Policy();
  ~Policy();
  Policy(const Policy&);
  Policy& operator=(const Policy&);
  Policy(Policy&&) noexcept;
  Policy& operator=(Policy&&) noexcept;

  // Adds (or replaces, by kind, namespace and name) a Role, ClusterRole, RoleBinding or
  // ClusterRoleBinding given as its rbac.authorization.k8s.io/v1 object. Other kinds are ignored
  // (false, OK). An Invalid Status names the field that is wrong.
  kube::Result<bool> Add(const kube::Json& object);
  // Removes rule `index` of a Role ("ns/name") or ClusterRole ("name"); false when there is none.
  bool RemoveRule(const std::string& kind, const std::string& key, std::size_t index);
  // Puts `rule` back as rule `index` (at most the number of rules) of that role; false when absent.
  bool InsertRule(const std::string& kind, const std::string& key, std::size_t index, PolicyRule rule);
  // The rules a Role or ClusterRole holds as written (aggregation not applied); nullptr when absent.
  const std::vector<PolicyRule>* RulesOf(const std::string& kind, const std::string& key) const;
  // Every Role and ClusterRole: kind, key ("ns/name" or "name"), in key order.
  std::vector<std::pair<std::string, std::string>> Roles() const;
  // Bumped on every change.
  std::uint64_t generation() const { return generation_; }

  // Calls `visit(rule)` for each rule granted to `user` in namespace `ns` ("" = only cluster-wide
  // grants) until it returns true; returns whether one did.
  template <class Visit>
  bool AnyRule(const UserInfo& user, std::string_view ns, Visit&& visit) const;
  // Every rule granted to `user` in `ns` (cluster-wide grants included).
  std::vector<PolicyRule> RulesFor(const UserInfo& user, const std::string& ns) const;
  // What grants `user` a rule that `allows` in `ns`, as kube-apiserver's access reviews word it:
  // `RBAC: allowed by ClusterRoleBinding "B" of ClusterRole "R" to ServiceAccount "NAME/NS"` (or
  // `RoleBinding "B/NS" of Role "R" to User "U"`, `Group "G"`); ClusterRoleBindings are looked at
  // before the namespace's RoleBindings, as kube-apiserver does. nullopt when nothing does.
  std::optional<std::string> AllowedBy(const UserInfo& user, std::string_view ns,
                                       const std::function<bool(const PolicyRule&)>& allows) const;

 private:
  struct Role {
    std::vector<PolicyRule> rules;
    kube::Json labels;
    std::vector<kube::LabelSelector> aggregation;  // empty: not aggregated
    bool aggregated = false;
    std::vector<PolicyRule> effective;  // rules, or the aggregated rules (Reindex)
  };
  struct Binding {
    std::string ns;          // "" for a ClusterRoleBinding
    std::string role_kind;   // Role or ClusterRole
    std::string role_name;
    std::string source;                  // `ClusterRoleBinding "B" of ClusterRole "R"`, `RoleBinding "B/NS" of Role "R"`
    std::vector<std::string> described;  // its subjects as kube-apiserver names them: `ServiceAccount "NAME/NS"`, ...
  };
  struct Grant {  // a binding and which of its subjects names the user or a group
    const Binding* binding;
    std::size_t subject;
  };
  void Reindex() const;
  const std::vector<PolicyRule>* EffectiveRules(const Binding& binding) const;
  void ForSubjects(const UserInfo& user, const std::function<bool(const Binding&, const std::string& subject)>& fn) const;

  std::map<std::string, Role> roles_;            // "Role/ns/name", "ClusterRole/name"
  std::map<std::string, Binding> bindings_;      // "RoleBinding/ns/name", "ClusterRoleBinding/name"
  std::map<std::string, std::vector<std::string>> subjects_;  // binding key -> "u:NAME" / "g:NAME"
  mutable bool dirty_ = true;
  // By user name (service accounts under their user name) and by group: the bindings naming it.
  mutable std::map<std::string, std::vector<Grant>, std::less<>> by_user_;
  mutable std::map<std::string, std::vector<Grant>, std::less<>> by_group_;
  std::uint64_t generation_ = 1;
};

class Authorizer {
 public:
  explicit Authorizer(Policy policy = {});
  Policy& policy() { return policy_; }
  const Policy& policy() const { return policy_; }
  // RBAC objects stored in `store` count too (nullptr: only the Policy). Every read of the store
  // is a List or Get, never a write.
  void SetStore(Store* store) { store_ = store; }

  bool Allowed(const Attributes& request) const;
  // Why the request is allowed (Policy::AllowedBy, the Policy's then the store's), as an access
  // review's status.reason; nullopt when it is not. Members of system:masters: "".
  std::optional<std::string> AllowedBy(const Attributes& request) const;
  // OK, or kube-apiserver's 403 Forbidden for the request.
  kube::Status Authorize(const Attributes& request) const;
  // Escalation prevention for a create or update of an RBAC object by `user` (see the file
  // comment); OK for every other kind. `ns` is the object's namespace.
  // An update (`update`) that changes nothing but ownerReferences and finalizers of the object
  // stored (the garbage collector's writes; an object written back as read) is not checked, as
  // kube-apiserver's IsOnlyMutatingGCFields lets it pass.
  kube::Status AdmitRbacWrite(const UserInfo& user, const kube::ResourceType& type, const kube::Json& object,
                              const std::string& ns, bool update = false) const;
  // Every rule `user` holds in `ns` (cluster-wide ones included), from the Policy and the store.
  std::vector<PolicyRule> RulesFor(const UserInfo& user, const std::string& ns) const;

 private:
  // The Policy of the RBAC objects stored for `ns` (cluster-wide ones included) and the bootstrap
  // ClusterRoles stored bindings may name. Built once per namespace and kept while the stored RBAC
  // objects are the same ones (their uids and resourceVersions): a container's or the operator's
  // every request would otherwise parse every stored role again.
  std::shared_ptr<const Policy> StoredPolicy(std::string_view ns) const;
  Policy BuildStoredPolicy(std::string_view ns) const;
  // The rules of the Role ("ns/name") or ClusterRole ("name") a binding names, from the Policy or
  // the store (aggregation applied); nullopt when there is no such role.
  std::optional<std::vector<PolicyRule>> RoleRules(const std::string& kind, const std::string& key) const;

  Policy policy_;
  Store* store_ = nullptr;
  // StoredPolicy's memo, by namespace: the stored objects' fingerprint and the Policy built from
  // them. A copy of the Authorizer starts with an empty one (it may be given another store).
  struct StoredPolicies {
    StoredPolicies() = default;
    StoredPolicies(const StoredPolicies&) {}
    StoredPolicies& operator=(const StoredPolicies&) { return *this; }
    std::mutex mu;
    std::map<std::string, std::pair<std::string, std::shared_ptr<const Policy>>, std::less<>> by_ns;
  };
  mutable StoredPolicies stored_;
};

// --- Template definitions. ---

template <class Visit>
bool Policy::AnyRule(const UserInfo& user, std::string_view ns, Visit&& visit) const {
  bool found = false;
  ForSubjects(user, [&](const Binding& b, const std::string&) {
    if (!b.ns.empty() && b.ns != ns) return false;
    const std::vector<PolicyRule>* rules = EffectiveRules(b);
    if (!rules) return false;
    for (const PolicyRule& r : *rules)
      if (visit(r)) return found = true;
    return false;
  });
  return found;
}

}  // namespace rbac
}  // namespace fakeapi
