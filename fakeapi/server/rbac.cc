// RBAC policy, matching and refusals. See rbac.h.
#include "fakeapi/server/rbac.h"

#include "fakeapi/client/client.h"
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/store.h"

#include <algorithm>

namespace fakeapi::rbac {

using kube::Json;

namespace {

constexpr const char* kAll = "*";

bool Has(const std::vector<std::string>& list, std::string_view value) {
  return std::find(list.begin(), list.end(), value) != list.end();
}
bool HasOrAll(const std::vector<std::string>& list, std::string_view value) {
  for (const std::string& s : list)
    if (s == value || s == kAll) return true;
  return false;
}

bool ResourceMatches(const PolicyRule& rule, const Attributes& r) {
  for (const std::string& res : rule.resources) {
    if (res == kAll) return true;
    if (r.subresource.empty()) {
      if (res == r.resource) return true;
      continue;
    }
    // "pods/status" exactly, or "*/status".
    const std::size_t n = r.resource.size();
    const std::string_view rv(res);
    if (rv.size() == n + 1 + r.subresource.size() && rv.substr(0, n) == r.resource && rv[n] == '/' &&
        rv.substr(n + 1) == r.subresource)
      return true;
    if (rv.size() == r.subresource.size() + 2 && rv.substr(0, 2) == "*/" && rv.substr(2) == r.subresource) return true;
  }
  return false;
}

bool UrlMatches(const std::vector<std::string>& urls, std::string_view path) {
  for (const std::string& u : urls) {
    if (u == kAll || u == path) return true;
    if (!u.empty() && u.back() == '*' && path.substr(0, u.size() - 1) == std::string_view(u).substr(0, u.size() - 1))
      return true;
  }
  return false;
}

kube::Status InvalidField(const std::string& field, const std::string& why) {
  return kube::Status::Invalid("PolicyRule", "", {{"FieldValueInvalid", field, why}});
}

kube::Result<std::vector<std::string>> Strings(const Json& rule, const char* key, const std::string& field) {
  std::vector<std::string> out;
  const Json* at = kube::JsonAt(rule, {key});
  if (!at || at->is_null()) return out;
  if (!at->is_array()) return InvalidField(field + "." + key, "must be a list of strings");
  for (const Json& v : *at) {
    if (!v.is_string()) return InvalidField(field + "." + key, "must be a list of strings");
    out.push_back(v.get<std::string>());
  }
  return out;
}

std::string Quoted(const std::vector<std::string>& list) {
  std::string out = "[";
  for (std::size_t i = 0; i < list.size(); ++i) out += (i ? " \"" : "\"") + list[i] + "\"";
  return out + "]";
}

std::string ObjectKey(const std::string& ns, const std::string& name) { return ns.empty() ? name : ns + "/" + name; }

}  // namespace

UserInfo ServiceAccountUser(const std::string& ns, const std::string& name) {
  return {"system:serviceaccount:" + ns + ":" + name,
          {"system:serviceaccounts", "system:serviceaccounts:" + ns, kAuthenticatedGroup}, ""};
}

UserInfo NodeUser(const std::string& node) { return {"system:node:" + node, {"system:nodes", kAuthenticatedGroup}, ""}; }

UserInfo AdminUser(const std::string& name) { return {name, {kMastersGroup, kAuthenticatedGroup}, ""}; }

bool IsMaster(const UserInfo& user) { return Has(user.groups, kMastersGroup); }

bool RuleAllows(const PolicyRule& rule, const Attributes& r) {
  if (!HasOrAll(rule.verbs, r.verb)) return false;
  if (!r.resource_request) return UrlMatches(rule.non_resource_urls, r.path);
  if (!HasOrAll(rule.api_groups, r.api_group) || !ResourceMatches(rule, r)) return false;
  return rule.resource_names.empty() || (!r.name.empty() && Has(rule.resource_names, r.name));
}

std::string CompactString(const PolicyRule& rule) {
  std::vector<std::string> parts;
  if (!rule.api_groups.empty()) parts.push_back("APIGroups:" + Quoted(rule.api_groups));
  if (!rule.resources.empty()) parts.push_back("Resources:" + Quoted(rule.resources));
  if (!rule.non_resource_urls.empty()) parts.push_back("NonResourceURLs:" + Quoted(rule.non_resource_urls));
  if (!rule.resource_names.empty()) parts.push_back("ResourceNames:" + Quoted(rule.resource_names));
  parts.push_back("Verbs:" + Quoted(rule.verbs));
  std::string out = "{";
  for (std::size_t i = 0; i < parts.size(); ++i) out += (i ? ", " : "") + parts[i];
  return out + "}";
}

kube::Result<std::vector<PolicyRule>> ParseRules(const Json& rules, const std::string& field) {
  std::vector<PolicyRule> out;
  if (rules.is_null()) return out;
  if (!rules.is_array()) return InvalidField(field, "must be a list of rules");
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const Json& r = rules[i];
    const std::string at = field + "[" + std::to_string(i) + "]";
    if (!r.is_object()) return InvalidField(at, "must be an object");
    PolicyRule rule;
    auto verbs = Strings(r, "verbs", at);
    auto groups = Strings(r, "apiGroups", at);
    auto resources = Strings(r, "resources", at);
    auto names = Strings(r, "resourceNames", at);
    auto urls = Strings(r, "nonResourceURLs", at);
    for (const kube::Status* s : {&verbs.status(), &groups.status(), &resources.status(), &names.status(), &urls.status()})
      if (!s->ok()) return *s;
    rule = {*verbs, *groups, *resources, *names, *urls};
    if (rule.verbs.empty()) return InvalidField(at + ".verbs", "verbs must contain at least one value");
    if (!rule.non_resource_urls.empty() && (!rule.resources.empty() || !rule.api_groups.empty()))
      return InvalidField(at + ".nonResourceURLs", "rules cannot apply to both regular resources and non-resource URLs");
    out.push_back(std::move(rule));
  }
  return out;
}

std::string ForbiddenMessage(const Attributes& r) {
  const std::string user = r.user ? r.user->name : "";
  const std::string verb(r.verb);
  if (!r.resource_request) return "User \"" + user + "\" cannot " + verb + " path \"" + std::string(r.path) + "\"";
  std::string resource(r.resource);
  if (!r.subresource.empty()) resource += "/" + std::string(r.subresource);
  std::string head = "User \"" + user + "\" cannot " + verb + " resource \"" + resource + "\" in API group \"" +
                     std::string(r.api_group) + "\"";
  if (!r.ns.empty()) return head + " in the namespace \"" + std::string(r.ns) + "\"";
  return head + " at the cluster scope";
}

kube::Status Forbidden(const Attributes& r, const std::string& reason) {
  std::string message = ForbiddenMessage(r);
  if (!reason.empty()) message += ": " + reason;
  // apierrors.NewForbidden: the qualified resource (no subresource), the name when there is one.
  std::string qualified = r.resource_request ? std::string(r.resource) : "";
  if (r.resource_request && !r.api_group.empty()) qualified += "." + std::string(r.api_group);
  const std::string name(r.name);
  std::string full;
  if (!r.resource_request || qualified.empty()) full = "forbidden: " + message;
  else if (name.empty()) full = qualified + " is forbidden: " + message;
  else full = qualified + " \"" + name + "\" is forbidden: " + message;
  kube::Status s = kube::Status::Forbidden(full);
  if (!name.empty()) s = s.WithDetail("name", name);
  if (r.resource_request && !r.api_group.empty()) s = s.WithDetail("group", std::string(r.api_group));
  s = s.WithDetail("kind", r.resource_request ? std::string(r.resource) : "");
  return s;
}

// --- Policy. ---

Policy::Policy() = default;
Policy::~Policy() = default;
// The index points into the maps: a copy builds its own.
Policy::Policy(const Policy& other)
    : roles_(other.roles_), bindings_(other.bindings_), subjects_(other.subjects_), generation_(other.generation_) {}
Policy& Policy::operator=(const Policy& other) {
  if (this != &other) {
    roles_ = other.roles_;
    bindings_ = other.bindings_;
    subjects_ = other.subjects_;
    dirty_ = true;
    ++generation_;
  }
  return *this;
}
Policy::Policy(Policy&& other) noexcept : Policy(static_cast<const Policy&>(other)) {}
Policy& Policy::operator=(Policy&& other) noexcept { return *this = static_cast<const Policy&>(other); }

kube::Result<bool> Policy::Add(const Json& object) {
  const std::string kind = kube::JsonString(object, {"kind"});
  const std::string api_version = kube::JsonString(object, {"apiVersion"});
  if (kind != "Role" && kind != "ClusterRole" && kind != "RoleBinding" && kind != "ClusterRoleBinding") return false;
  if (api_version != std::string(kRbacGroup) + "/v1")
    return InvalidField("apiVersion", "must be rbac.authorization.k8s.io/v1 for a " + kind);
  const std::string name = kube::JsonString(object, {"metadata", "name"});
  const bool cluster = kind.rfind("Cluster", 0) == 0;
  const std::string ns = cluster ? "" : kube::JsonString(object, {"metadata", "namespace"}, "default");
  if (name.empty()) return InvalidField("metadata.name", "name or generateName is required");
  const std::string key = kind + "/" + ObjectKey(ns, name);
  if (kind == "Role" || kind == "ClusterRole") {
    auto rules = ParseRules(object.contains("rules") ? object["rules"] : Json());
    if (!rules.ok()) return rules.status();
    Role role;
    role.rules = std::move(rules).value();
    if (const Json* labels = kube::JsonAt(object, {"metadata", "labels"})) role.labels = *labels;
    if (const Json* agg = kube::JsonAt(object, {"aggregationRule"}); cluster && agg && agg->is_object()) {
      role.aggregated = true;
      for (const Json& sel : kube::JsonArray(*agg, {"clusterRoleSelectors"})) {
        auto parsed = kube::LabelSelector::FromJson(sel);
        if (!parsed.ok()) return InvalidField("aggregationRule.clusterRoleSelectors", parsed.status().message());
        role.aggregation.push_back(*parsed);
      }
    }
    roles_[key] = std::move(role);
  } else {
    Binding b;
    b.ns = ns;
    b.role_kind = kube::JsonString(object, {"roleRef", "kind"});
    b.role_name = kube::JsonString(object, {"roleRef", "name"});
    if (b.role_kind != "ClusterRole" && (cluster || b.role_kind != "Role"))
      return InvalidField("roleRef.kind", cluster ? "must be ClusterRole" : "must be Role or ClusterRole");
    if (b.role_name.empty()) return InvalidField("roleRef.name", "is required");
    b.source = cluster ? "ClusterRoleBinding \"" + name + "\" of " + b.role_kind + " \"" + b.role_name + "\""
                       : "RoleBinding \"" + name + "/" + ns + "\" of " + b.role_kind + " \"" + b.role_name + "\"";
    std::vector<std::string> subjects;
    const Json& list = kube::JsonArray(object, {"subjects"});
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string sk = kube::JsonString(list[i], {"kind"});
      const std::string sn = kube::JsonString(list[i], {"name"});
      const std::string field = "subjects[" + std::to_string(i) + "]";
      if (sn.empty()) return InvalidField(field + ".name", "is required");
      if (sk == "ServiceAccount") {
        const std::string sns = kube::JsonString(list[i], {"namespace"}, ns);
        if (sns.empty()) return InvalidField(field + ".namespace", "is required for a ServiceAccount");
        subjects.push_back("u:" + ServiceAccountUser(sns, sn).name);
        b.described.push_back("ServiceAccount \"" + sn + "/" + sns + "\"");
      } else if (sk == "User" || sk == "Group") {
        subjects.push_back((sk == "User" ? "u:" : "g:") + sn);
        b.described.push_back(sk + " \"" + sn + "\"");
      } else {
        return InvalidField(field + ".kind", "must be ServiceAccount, User or Group");
      }
    }
    bindings_[key] = std::move(b);
    subjects_[key] = std::move(subjects);
  }
  dirty_ = true;
  ++generation_;
  return true;
}

bool Policy::RemoveRule(const std::string& kind, const std::string& key, std::size_t index) {
  auto it = roles_.find(kind + "/" + key);
  if (it == roles_.end() || index >= it->second.rules.size()) return false;
  it->second.rules.erase(it->second.rules.begin() + static_cast<std::ptrdiff_t>(index));
  dirty_ = true;
  ++generation_;
  return true;
}

bool Policy::InsertRule(const std::string& kind, const std::string& key, std::size_t index, PolicyRule rule) {
  auto it = roles_.find(kind + "/" + key);
  if (it == roles_.end()) return false;
  auto& rules = it->second.rules;
  rules.insert(rules.begin() + static_cast<std::ptrdiff_t>(std::min(index, rules.size())), std::move(rule));
  dirty_ = true;
  ++generation_;
  return true;
}

const std::vector<PolicyRule>* Policy::RulesOf(const std::string& kind, const std::string& key) const {
  auto it = roles_.find(kind + "/" + key);
  return it == roles_.end() ? nullptr : &it->second.rules;
}

std::vector<std::pair<std::string, std::string>> Policy::Roles() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, role] : roles_) {
    const std::size_t slash = key.find('/');
    out.emplace_back(key.substr(0, slash), key.substr(slash + 1));
  }
  return out;
}

void Policy::Reindex() const {
  if (!dirty_) return;
  by_user_.clear();
  by_group_.clear();
  for (const auto& [key, subjects] : subjects_) {
    const Binding* b = &bindings_.at(key);
    for (std::size_t i = 0; i < subjects.size(); ++i)
      (subjects[i][0] == 'u' ? by_user_ : by_group_)[subjects[i].substr(2)].push_back({b, i});
  }
  // Aggregation: a ClusterRole with selectors holds the rules of every (non-aggregated, as the
  // clusterrole-aggregation controller fills them in one level) ClusterRole they match.
  auto& roles = const_cast<std::map<std::string, Role>&>(roles_);
  for (auto& [key, role] : roles) {
    if (!role.aggregated) {
      role.effective = role.rules;
      continue;
    }
    role.effective.clear();
    for (const auto& [other_key, other] : roles_) {
      if (other_key.rfind("ClusterRole/", 0) != 0 || other.aggregated) continue;
      const auto& labels = other.labels;  // a structured binding cannot be captured before C++20's clang 16
      const bool match = std::any_of(role.aggregation.begin(), role.aggregation.end(),
                                     [&](const kube::LabelSelector& s) { return !s.Empty() && s.Matches(labels); });
      if (!match) continue;
      for (const PolicyRule& r : other.rules)
        if (std::find(role.effective.begin(), role.effective.end(), r) == role.effective.end()) role.effective.push_back(r);
    }
  }
  dirty_ = false;
}

const std::vector<PolicyRule>* Policy::EffectiveRules(const Binding& b) const {
  auto it = roles_.find(b.role_kind + "/" + ObjectKey(b.role_kind == "Role" ? b.ns : "", b.role_name));
  return it == roles_.end() ? nullptr : &it->second.effective;
}

void Policy::ForSubjects(const UserInfo& user,
                         const std::function<bool(const Binding&, const std::string& subject)>& fn) const {
  Reindex();
  if (auto it = by_user_.find(user.name); it != by_user_.end())
    for (const Grant& g : it->second)
      if (fn(*g.binding, g.binding->described[g.subject])) return;
  for (const std::string& group : user.groups)
    if (auto it = by_group_.find(group); it != by_group_.end())
      for (const Grant& g : it->second)
        if (fn(*g.binding, g.binding->described[g.subject])) return;
}

std::optional<std::string> Policy::AllowedBy(const UserInfo& user, std::string_view ns,
                                             const std::function<bool(const PolicyRule&)>& allows) const {
  std::optional<std::string> reason;
  for (const bool cluster : {true, false}) {
    ForSubjects(user, [&](const Binding& b, const std::string& subject) {
      if (b.ns.empty() != cluster || (!cluster && b.ns != ns)) return false;
      const std::vector<PolicyRule>* rules = EffectiveRules(b);
      if (!rules || std::none_of(rules->begin(), rules->end(), allows)) return false;
      reason = "RBAC: allowed by " + b.source + " to " + subject;
      return true;
    });
    if (reason) break;
  }
  return reason;
}

std::vector<PolicyRule> Policy::RulesFor(const UserInfo& user, const std::string& ns) const {
  std::vector<PolicyRule> out;
  AnyRule(user, ns, [&](const PolicyRule& r) {
    out.push_back(r);
    return false;
  });
  return out;
}

// --- Authorizer. ---

Authorizer::Authorizer(Policy policy) : policy_(std::move(policy)) {}

std::shared_ptr<const Policy> Authorizer::StoredPolicy(std::string_view ns) const {
  if (!store_) return std::make_shared<const Policy>();
  // The fingerprint: every stored RBAC object the Policy would be built from, by uid and version.
  std::string fingerprint;
  auto add_keys = [&](const char* resource, std::string_view in) {
    auto listed = store_->List(resource, {.namespace_ = std::string(in)});
    if (!listed.ok()) return;
    fingerprint += resource;
    for (const kube::ObjectPtr& o : listed->items)
      fingerprint += "|" + kube::JsonString(*o, {"metadata", "uid"}) + "@" + kube::JsonString(*o, {"metadata", "resourceVersion"});
    fingerprint += ";";
  };
  add_keys("clusterroles", "");
  add_keys("clusterrolebindings", "");
  if (!ns.empty()) {
    add_keys("roles", ns);
    add_keys("rolebindings", ns);
  }
  std::lock_guard<std::mutex> lock(stored_.mu);
  auto it = stored_.by_ns.find(ns);
  if (it != stored_.by_ns.end() && it->second.first == fingerprint) return it->second.second;
  auto built = std::make_shared<const Policy>(BuildStoredPolicy(ns));
  stored_.by_ns[std::string(ns)] = {std::move(fingerprint), built};
  return built;
}

Policy Authorizer::BuildStoredPolicy(std::string_view ns) const {
  Policy stored;
  if (!store_) return stored;
  auto add_all = [&](const char* resource, const char* kind, std::string_view in) {
    auto listed = store_->List(resource, {.namespace_ = std::string(in)});
    if (!listed.ok()) return;
    for (const kube::ObjectPtr& o : listed->items) {
      Json copy = *o;
      copy["kind"] = kind;
      copy["apiVersion"] = std::string(kRbacGroup) + "/v1";
      (void)stored.Add(copy);  // the store admitted it: it is well-formed
    }
  };
  add_all("clusterroles", "ClusterRole", "");
  add_all("clusterrolebindings", "ClusterRoleBinding", "");
  if (!ns.empty()) {
    add_all("roles", "Role", ns);
    add_all("rolebindings", "RoleBinding", ns);
  }
  // Bindings in the store may name the bootstrap ClusterRoles.
  for (const auto& [kind, key] : policy_.Roles())
    if (kind == "ClusterRole" && !stored.RulesOf(kind, key)) {
      Json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"}, {"metadata", {{"name", key}}},
                   {"rules", Json::array()}};
      for (const PolicyRule& r : *policy_.RulesOf(kind, key)) {
        Json jr = {{"verbs", r.verbs}};
        if (!r.api_groups.empty()) jr["apiGroups"] = r.api_groups;
        if (!r.resources.empty()) jr["resources"] = r.resources;
        if (!r.resource_names.empty()) jr["resourceNames"] = r.resource_names;
        if (!r.non_resource_urls.empty()) jr["nonResourceURLs"] = r.non_resource_urls;
        role["rules"].push_back(std::move(jr));
      }
      (void)stored.Add(role);
    }
  return stored;
}

std::optional<std::string> Authorizer::AllowedBy(const Attributes& r) const {
  if (r.user && IsMaster(*r.user)) return std::string();
  static const UserInfo kNobody;
  const UserInfo& user = r.user ? *r.user : kNobody;
  auto allows = [&](const PolicyRule& rule) { return RuleAllows(rule, r); };
  if (auto reason = policy_.AllowedBy(user, r.ns, allows)) return reason;
  if (!store_) return std::nullopt;
  return StoredPolicy(r.ns)->AllowedBy(user, r.ns, allows);
}

bool Authorizer::Allowed(const Attributes& r) const {
  if (r.user && IsMaster(*r.user)) return true;
  static const UserInfo kNobody;
  const UserInfo& user = r.user ? *r.user : kNobody;
  auto allows = [&](const PolicyRule& rule) { return RuleAllows(rule, r); };
  if (policy_.AnyRule(user, r.ns, allows)) return true;
  if (!store_) return false;
  return StoredPolicy(r.ns)->AnyRule(user, r.ns, allows);
}

kube::Status Authorizer::Authorize(const Attributes& r) const { return Allowed(r) ? kube::Status::Ok() : Forbidden(r); }

std::vector<PolicyRule> Authorizer::RulesFor(const UserInfo& user, const std::string& ns) const {
  std::vector<PolicyRule> out = policy_.RulesFor(user, ns);
  if (store_)
    for (PolicyRule& r : StoredPolicy(ns)->RulesFor(user, ns)) out.push_back(std::move(r));
  return out;
}

}  // namespace fakeapi::rbac
