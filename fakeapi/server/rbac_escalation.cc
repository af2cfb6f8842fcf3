// Escalation prevention on writes of Roles, ClusterRoles and their bindings, as kube-apiserver's
// RBAC registries check them (rbac.h, Authorizer::AdmitRbacWrite).
#include "fakeapi/client/client.h"
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/store.h"

#include <algorithm>

namespace fakeapi::rbac {

using kube::Json;

namespace {

bool ListHolds(const std::vector<std::string>& list, const std::string& value) {
  for (const std::string& s : list)
    if (s == value || s == "*") return true;
  return false;
}

// An owner's resources cover one requested resource: "*", the same, or "*/sub" for "res/sub".
bool ResourceCovered(const std::vector<std::string>& owner, const std::string& resource) {
  if (ListHolds(owner, resource)) return true;
  const std::size_t slash = resource.find('/');
  if (slash == std::string::npos) return false;
  return std::find(owner.begin(), owner.end(), "*/" + resource.substr(slash + 1)) != owner.end();
}

bool UrlCovered(const std::vector<std::string>& owner, const std::string& url) {
  for (const std::string& u : owner) {
    if (u == "*" || u == url) return true;
    if (!u.empty() && u.back() == '*' && url.compare(0, u.size() - 1, u, 0, u.size() - 1) == 0) return true;
  }
  return false;
}

// One atomic permission (one verb of one resource of one group, one name at most, or one verb of
// one URL) is held by a rule of `owner`.
bool Covered(const std::vector<PolicyRule>& owner, const PolicyRule& atom) {
  for (const PolicyRule& o : owner) {
    if (!ListHolds(o.verbs, atom.verbs[0])) continue;
    if (!atom.non_resource_urls.empty()) {
      if (UrlCovered(o.non_resource_urls, atom.non_resource_urls[0])) return true;
      continue;
    }
    if (!ListHolds(o.api_groups, atom.api_groups[0]) || !ResourceCovered(o.resources, atom.resources[0])) continue;
    if (o.resource_names.empty()) return true;
    if (!atom.resource_names.empty() &&
        std::find(o.resource_names.begin(), o.resource_names.end(), atom.resource_names[0]) != o.resource_names.end())
      return true;
  }
  return false;
}

// The rules of `wanted` that `owner` does not hold, broken down into atoms as kube-apiserver's
// validation.Covers lists them.
std::vector<PolicyRule> Missing(const std::vector<PolicyRule>& owner, const std::vector<PolicyRule>& wanted) {
  std::vector<PolicyRule> missing;
  auto check = [&](PolicyRule atom) {
    if (!Covered(owner, atom) && std::find(missing.begin(), missing.end(), atom) == missing.end())
      missing.push_back(std::move(atom));
  };
  for (const PolicyRule& w : wanted)
    for (const std::string& verb : w.verbs) {
      for (const std::string& url : w.non_resource_urls) check({{verb}, {}, {}, {}, {url}});
      for (const std::string& group : w.api_groups)
        for (const std::string& resource : w.resources) {
          if (w.resource_names.empty()) check({{verb}, {group}, {resource}, {}, {}});
          for (const std::string& name : w.resource_names) check({{verb}, {group}, {resource}, {name}, {}});
        }
    }
  return missing;
}

kube::Status NotHeld(const std::string& plural, const std::string& name, const UserInfo& user,
                     const std::vector<PolicyRule>& missing) {
  std::string groups = "[";
  for (std::size_t i = 0; i < user.groups.size(); ++i) {
    // Piece by piece: `"lit" + std::string&&` trips g++ -O3's -Wrestrict (GCC bug 105329).
    groups += i ? " \"" : "\"";
    groups += user.groups[i];
    groups += '"';
  }
  groups += "]";
  std::string message = plural + "." + kRbacGroup + " \"" + name + "\" is forbidden: user \"" + user.name +
                        "\" (groups=" + groups + ") is attempting to grant RBAC permissions not currently held:";
  for (const PolicyRule& r : missing) {
    message += '\n';
    message += CompactString(r);
  }
  return kube::Status::Forbidden(message).WithDetail("name", name).WithDetail("group", kRbacGroup).WithDetail("kind", plural);
}

// The rules `policy` grants through role kind/ns/name, aggregation applied: a binding of it to a
// user bound to nothing else, asked for its rules.
std::vector<PolicyRule> ThroughBinding(Policy policy, const std::string& kind, const std::string& ns,
                                       const std::string& name) {
  static const UserInfo kProbe{"\x01escalation-check", {}, ""};
  Json binding = {{"apiVersion", std::string(kRbacGroup) + "/v1"},
                  {"kind", kind == "Role" ? "RoleBinding" : "ClusterRoleBinding"},
                  {"metadata", {{"name", kProbe.name}, {"namespace", ns}}},
                  {"roleRef", {{"apiGroup", kRbacGroup}, {"kind", kind}, {"name", name}}},
                  {"subjects", Json::array({{{"kind", "User"}, {"name", kProbe.name}}})}};
  (void)policy.Add(binding);
  return policy.RulesFor(kProbe, ns);
}

// The object without what a write may change freely: server-set metadata, ownerReferences and
// finalizers (kube-apiserver's IsOnlyMutatingGCFields compares the rest).
Json WithoutGcFields(Json object) {
  object.erase("apiVersion");
  object.erase("kind");
  if (object.contains("metadata") && object["metadata"].is_object()) {
    Json meta = object["metadata"];
    for (const char* field : {"ownerReferences", "finalizers", "resourceVersion", "managedFields", "generation",
                              "creationTimestamp", "uid", "selfLink", "deletionTimestamp", "deletionGracePeriodSeconds"})
      meta.erase(field);
    object["metadata"] = std::move(meta);
  }
  return object;
}

}  // namespace

std::optional<std::vector<PolicyRule>> Authorizer::RoleRules(const std::string& kind, const std::string& key) const {
  const std::size_t slash = key.find('/');
  const std::string ns = slash == std::string::npos ? "" : key.substr(0, slash);
  const std::string name = slash == std::string::npos ? key : key.substr(slash + 1);
  // A stored role wins over the Policy's of the same name: the API is what is current.
  if (store_ && store_->Get(kind == "Role" ? "roles" : "clusterroles", ns, name).ok())
    return ThroughBinding(*StoredPolicy(ns), kind, ns, name);
  if (policy_.RulesOf(kind, key) == nullptr) return std::nullopt;
  return ThroughBinding(policy_, kind, ns, name);
}

kube::Status Authorizer::AdmitRbacWrite(const UserInfo& user, const kube::ResourceType& type, const Json& object,
                                        const std::string& ns, bool update) const {
  if (type.group != kRbacGroup || IsMaster(user)) return kube::Status::Ok();
  const std::string name = kube::JsonString(object, {"metadata", "name"});
  const bool cluster = !type.namespaced;
  const std::string scope = cluster ? "" : ns;
  if (update && store_)
    if (auto stored = store_->Get(type.plural, scope, name); stored.ok() && WithoutGcFields(**stored) == WithoutGcFields(object))
      return kube::Status::Ok();
  if (type.kind == "Role" || type.kind == "ClusterRole") {
    if (Allowed({&user, "escalate", true, kRbacGroup, type.plural, "", name, scope, ""})) return kube::Status::Ok();
    if (cluster && kube::JsonAt(object, {"aggregationRule"}) && !kube::JsonAt(object, {"aggregationRule"})->is_null())
      return kube::Status::Forbidden(type.plural + "." + kRbacGroup + " \"" + name +
                                     "\" is forbidden: must have cluster-admin privileges to use the aggregationRule")
          .WithDetail("name", name)
          .WithDetail("group", kRbacGroup)
          .WithDetail("kind", type.plural);
    auto rules = ParseRules(object.contains("rules") ? object["rules"] : Json());
    if (!rules.ok()) return rules.status();
    std::vector<PolicyRule> missing = Missing(RulesFor(user, scope), *rules);
    return missing.empty() ? kube::Status::Ok() : NotHeld(type.plural, name, user, missing);
  }
  if (type.kind != "RoleBinding" && type.kind != "ClusterRoleBinding") return kube::Status::Ok();
  const std::string role_kind = kube::JsonString(object, {"roleRef", "kind"});
  const std::string role_name = kube::JsonString(object, {"roleRef", "name"});
  const std::string role_plural = role_kind == "Role" ? "roles" : "clusterroles";
  // `bind` on the role named lets a user bind it without holding what it grants.
  if (Allowed({&user, "bind", true, kRbacGroup, role_plural, "", role_name, scope, ""})) return kube::Status::Ok();
  auto role = RoleRules(role_kind, role_kind == "Role" ? ns + "/" + role_name : role_name);
  if (!role) return kube::Status::NotFound(role_plural + "." + kRbacGroup, role_name);
  std::vector<PolicyRule> missing = Missing(RulesFor(user, scope), *role);
  return missing.empty() ? kube::Status::Ok() : NotHeld(type.plural, name, user, missing);
}

}  // namespace fakeapi::rbac
