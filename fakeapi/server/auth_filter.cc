// Authentication, impersonation and authorization of each HTTP request before it is routed, as
// kube-apiserver's filter chain does them (authentication.h, rbac.h). See http_server.h.
#include "fakeapi/server/authentication.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/wire.h"

namespace fakeapi {

namespace {

thread_local const rbac::UserInfo* t_user = nullptr;

// A request's RBAC attributes from its method and path, as kube-apiserver's RequestInfoFactory
// reads them: /api/v1/... and /apis/GROUP/VERSION/... are resource requests (namespaces/NS/...
// names the namespace; RESOURCE[/NAME[/SUBRESOURCE]]), everything else a non-resource path.
struct RequestInfo {
  bool resource_request = false;
  std::string verb, group, resource, subresource, name, ns;
};

RequestInfo Describe(const httplib::Request& req, const std::vector<std::string>& segs) {
  RequestInfo info;
  std::string method = req.method;
  for (char& c : method) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (method == "head") method = "get";
  info.verb = method;
  const bool core = !segs.empty() && segs[0] == "api";
  const std::size_t at = core ? 2 : 3;
  if (segs.empty() || (segs[0] != "api" && segs[0] != "apis") || segs.size() <= at) return info;
  info.resource_request = true;
  if (!core) info.group = segs[1];
  std::vector<std::string> parts(segs.begin() + static_cast<std::ptrdiff_t>(at), segs.end());
  if (parts[0] == "namespaces" && parts.size() >= 2) {
    info.ns = parts[1];
    if (parts.size() >= 3) parts.erase(parts.begin(), parts.begin() + 2);
  }
  info.resource = parts[0];
  if (parts.size() >= 2) info.name = parts[1];
  if (parts.size() >= 3) info.subresource = parts[2];
  if (method == "get") info.verb = wire::Truthy(req.get_param_value("watch")) ? "watch" : info.name.empty() ? "list" : "get";
  else if (method == "post") info.verb = "create";
  else if (method == "put") info.verb = "update";
  else if (method == "delete") info.verb = info.name.empty() ? "deletecollection" : "delete";
  return info;
}

}  // namespace

const rbac::UserInfo* HttpServer::Impl::CurrentUser() { return t_user; }

HttpServer::Impl::RequestUser::RequestUser(const rbac::UserInfo* user) : previous_(t_user) { t_user = user; }
HttpServer::Impl::RequestUser::~RequestUser() { t_user = previous_; }

// The impersonated user of kubectl --as / --as-group, if the requester may impersonate it.
bool HttpServer::Impl::Impersonate(const httplib::Request& req, httplib::Response& res, rbac::UserInfo* user) {
  const std::string as = req.get_header_value("Impersonate-User");
  const std::size_t group_count = req.get_header_value_count("Impersonate-Group");
  if (as.empty() && group_count == 0) return true;
  if (as.empty()) {
    SendStatus(res, kube::Status::Internal("requested impersonation of groups without impersonating a user"));
    return false;
  }
  rbac::UserInfo wanted{as, {}, ""};
  rbac::Attributes check{user, "impersonate", true, "", "users", "", as, "", ""};
  const std::string prefix = "system:serviceaccount:";
  std::string sa_ns, sa_name;
  if (as.rfind(prefix, 0) == 0 && as.find(':', prefix.size()) != std::string::npos) {
    sa_ns = as.substr(prefix.size(), as.find(':', prefix.size()) - prefix.size());
    sa_name = as.substr(as.find(':', prefix.size()) + 1);
    wanted = rbac::ServiceAccountUser(sa_ns, sa_name);
    check.resource = "serviceaccounts";
    check.name = sa_name;
    check.ns = sa_ns;
  }
  kube::Status refused;
  Run([&] {
    if (options.authorizer && !options.authorizer->Allowed(check)) {
      refused = rbac::Forbidden(check);
      return;
    }
    for (std::size_t i = 0; i < group_count; ++i) {
      const std::string g = req.get_header_value("Impersonate-Group", i);
      rbac::Attributes gc{user, "impersonate", true, "", "groups", "", g, "", ""};
      if (options.authorizer && !options.authorizer->Allowed(gc)) {
        refused = rbac::Forbidden(gc);
        return;
      }
      if (std::find(wanted.groups.begin(), wanted.groups.end(), g) == wanted.groups.end()) wanted.groups.push_back(g);
    }
  });
  if (!refused.ok()) {
    SendStatus(res, refused);
    return false;
  }
  if (std::find(wanted.groups.begin(), wanted.groups.end(), rbac::kAuthenticatedGroup) == wanted.groups.end())
    wanted.groups.push_back(rbac::kAuthenticatedGroup);
  *user = std::move(wanted);
  return true;
}

bool HttpServer::Impl::Admit(const httplib::Request& req, httplib::Response& res, rbac::UserInfo* user) {
  const std::string authorization = req.get_header_value("Authorization");
  bool expired = false;
  if (auto account = ServiceAccountBearer(authorization, &expired)) {
    *user = std::move(*account);  // a token TokenRequest issued, with or without a token file
  } else if (expired) {
    SendStatus(res, Unauthorized());
    return false;
  } else if (options.authentication) {
    auto who = options.authentication->Authenticate(authorization);
    if (!who) {
      SendStatus(res, Unauthorized());
      return false;
    }
    *user = std::move(*who);
  } else {
    // No authentication configured: anonymous, and a superuser (what the server was before it had
    // authorization, and what kubectl sees: `auth whoami` says system:anonymous).
    *user = rbac::UserInfo{rbac::kAnonymousUser, {rbac::kUnauthenticatedGroup, rbac::kMastersGroup}, ""};
  }
  if (!Impersonate(req, res, user)) return false;
  if (!options.authorizer) return true;
  std::vector<std::string> segs;
  for (auto& s : wire::Split(req.path, '/'))
    if (!s.empty()) segs.push_back(s);
  const RequestInfo info = Describe(req, segs);
  const std::string path = req.path.empty() ? "/" : req.path;
  rbac::Attributes attrs{user, info.verb, info.resource_request, info.group, info.resource, info.subresource,
                         info.name, info.ns, path};
  kube::Status status;
  Run([&] {
    status = options.authorizer->Authorize(attrs);
    // Escalation prevention on the RBAC kinds' creates and updates.
    if (!status.ok() || !info.resource_request || info.group != "rbac.authorization.k8s.io" || !info.subresource.empty() ||
        (info.verb != "create" && info.verb != "update"))
      return;
    const kube::ResourceType* type = store.registry().Find(info.resource + "." + info.group);
    auto body = ParseBody(req, true);
    if (!type || !body.ok() || !body->is_object()) return;  // the handler answers what is wrong
    status = options.authorizer->AdmitRbacWrite(*user, *type, *body, info.ns, info.verb == "update");
  });
  if (!status.ok()) {
    SendStatus(res, status);
    return false;
  }
  return true;
}

}  // namespace fakeapi

namespace fakeapi {

kube::Json HttpServer::Impl::ReviewStatus(const Target& t, const kube::Json& review) const {
  using kube::Json;
  static const rbac::UserInfo kNobody;
  const rbac::UserInfo& me = CurrentUser() ? *CurrentUser() : kNobody;
  const std::string& kind = t.resource->kind;
  if (kind == "SelfSubjectReview") {
    Json info = {{"username", me.name}, {"groups", me.groups}};
    if (!me.uid.empty()) info["uid"] = me.uid;
    return {{"userInfo", std::move(info)}};
  }
  const Json spec = review.contains("spec") && review["spec"].is_object() ? review["spec"] : Json::object();
  auto str = [](const Json& o, const char* key) {
    return o.is_object() && o.contains(key) && o[key].is_string() ? o[key].get<std::string>() : std::string();
  };
  if (kind == "SelfSubjectRulesReview") {
    Json resource_rules = Json::array(), url_rules = Json::array();
    for (const rbac::PolicyRule& r : options.authorizer->RulesFor(me, str(spec, "namespace"))) {
      if (!r.non_resource_urls.empty()) {
        url_rules.push_back({{"verbs", r.verbs}, {"nonResourceURLs", r.non_resource_urls}});
        continue;
      }
      Json rule = {{"verbs", r.verbs}, {"apiGroups", r.api_groups}, {"resources", r.resources}};
      if (!r.resource_names.empty()) rule["resourceNames"] = r.resource_names;
      resource_rules.push_back(std::move(rule));
    }
    if (rbac::IsMaster(me)) {
      resource_rules.push_back({{"verbs", {"*"}}, {"apiGroups", {"*"}}, {"resources", {"*"}}});
      url_rules.push_back({{"verbs", {"*"}}, {"nonResourceURLs", {"*"}}});
    }
    return {{"resourceRules", resource_rules}, {"nonResourceRules", url_rules}, {"incomplete", false}};
  }
  // SubjectAccessReview names its subject; the self and local reviews ask for the requester.
  rbac::UserInfo subject = me;
  if (kind == "SubjectAccessReview") {
    subject = rbac::UserInfo{str(spec, "user"), {}, str(spec, "uid")};
    if (spec.contains("groups") && spec["groups"].is_array())
      for (const Json& g : spec["groups"])
        if (g.is_string()) subject.groups.push_back(g.get<std::string>());
  }
  rbac::Attributes attrs;
  attrs.user = &subject;
  const Json* ra = spec.contains("resourceAttributes") ? &spec["resourceAttributes"] : nullptr;
  const Json* na = spec.contains("nonResourceAttributes") ? &spec["nonResourceAttributes"] : nullptr;
  std::string verb, group, resource, subresource, name, ns, path;
  if (ra && ra->is_object()) {
    verb = str(*ra, "verb"), group = str(*ra, "group"), resource = str(*ra, "resource");
    subresource = str(*ra, "subresource"), name = str(*ra, "name"), ns = str(*ra, "namespace");
    if (kind == "LocalSubjectAccessReview") ns = t.ns;
  } else if (na && na->is_object()) {
    attrs.resource_request = false;
    verb = str(*na, "verb"), path = str(*na, "path");
  }
  attrs.verb = verb, attrs.api_group = group, attrs.resource = resource, attrs.subresource = subresource;
  attrs.name = name, attrs.ns = ns, attrs.path = path;
  // kube-apiserver's reasons: the binding that allowed (rbac.h, AllowedBy); none for a denial, nor
  // for a member of system:masters (its privileged-group authorizer gives none).
  const std::optional<std::string> reason = options.authorizer->AllowedBy(attrs);
  Json status = {{"allowed", reason.has_value()}};
  if (reason && !reason->empty()) status["reason"] = *reason;
  return status;
}

}  // namespace fakeapi
