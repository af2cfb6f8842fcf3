// The HTTP server's authentication and authorization in process (HttpServer::Serve): escalation
// prevention on every patch type of Roles and bindings, as on creates and updates, and
// service-account tokens from the TokenRequest subresource.
#include "fakeapi/server/authentication.h"
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/rbac_bootstrap.h"
#include "fakeapi/server/service_account_tokens.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>
#include <httplib.h>

#include <algorithm>
#include <memory>
#include <string>

namespace fakeapi {
namespace http_auth_test {

using json = kube::Json;

json Rule(std::vector<std::string> verbs, std::vector<std::string> groups, std::vector<std::string> resources) {
  return {{"verbs", verbs}, {"apiGroups", groups}, {"resources", resources}};
}

class HttpAuthTest : public ::testing::Test {
 protected:
  HttpAuthTest() {
    for (const char* ns : {"default", "d"})
      store.Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
    // The operator may read pods and write roles and bindings, nothing more.
    Add({{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", "ClusterRole"},
         {"metadata", {{"name", "op"}}},
         {"rules", json::array({Rule({"get", "list"}, {""}, {"pods"}),
                                Rule({"get", "create", "update", "patch"}, {"rbac.authorization.k8s.io"},
                                     {"roles", "rolebindings"})})}});
    Add({{"apiVersion", "rbac.authorization.k8s.io/v1"},
         {"kind", "ClusterRoleBinding"},
         {"metadata", {{"name", "op"}}},
         {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "op"}}},
         {"subjects", json::array({{{"kind", "ServiceAccount"}, {"name", "op"}, {"namespace", "d"}}})}});
    authorizer.SetStore(&store);
    auto auth = std::make_shared<Authentication>();
    auth->AddToken("op-token", rbac::ServiceAccountUser("d", "op"));
    auth->AddToken("admin-token", rbac::AdminUser("alice"));
    HttpServerOptions options;
    options.clock = &clock;
    options.authentication = auth;
    options.authorizer = &authorizer;
    options.service_account_tokens = tokens;
    server = std::make_unique<HttpServer>(store, options);
    // A Role within what the operator holds, and a binding of it.
    EXPECT_EQ(Send("op-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/d/roles",
                   R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r"},
                       "rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["get"]}]})")
                  .status,
              201);
  }
  void Add(const json& object) { ASSERT_TRUE(authorizer.policy().Add(object).ok()); }

  httplib::Response Send(const std::string& token, const std::string& method, const std::string& path,
                         const std::string& body = "", const std::string& content_type = "application/json") {
    httplib::Request req;
    req.method = method;
    req.target = path;
    req.path = path.substr(0, path.find('?'));
    if (const std::size_t q = path.find('?'); q != std::string::npos)
      for (std::size_t at = q + 1; at < path.size();) {
        const std::size_t end = std::min(path.find('&', at), path.size());
        const std::string pair = path.substr(at, end - at);
        req.params.emplace(pair.substr(0, pair.find('=')), pair.substr(std::min(pair.find('='), pair.size() - 1) + 1));
        at = end + 1;
      }
    req.body = body;
    if (!token.empty()) req.headers.emplace("Authorization", "Bearer " + token);
    if (!body.empty()) req.headers.emplace("Content-Type", content_type);
    httplib::Response res;
    server->Serve(req, res);
    return res;
  }
  static std::string Message(const httplib::Response& r) {
    json body = json::parse(r.body, nullptr, false);
    return body.is_object() && body.contains("message") ? body["message"].get<std::string>() : r.body;
  }

  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};
  rbac::Authorizer authorizer{rbac::BootstrapPolicy()};
  std::shared_ptr<ServiceAccountTokens> tokens = std::make_shared<ServiceAccountTokens>(7);
  std::unique_ptr<HttpServer> server;
  const std::string role_path = "/apis/rbac.authorization.k8s.io/v1/namespaces/d/roles/r";
};

constexpr const char* kNotHeld =
    "roles.rbac.authorization.k8s.io \"r\" is forbidden: user \"system:serviceaccount:d:op\" "
    "(groups=[\"system:serviceaccounts\" \"system:serviceaccounts:d\" \"system:authenticated\"]) is attempting "
    "to grant RBAC permissions not currently held:\n{APIGroups:[\"\"], Resources:[\"secrets\"], Verbs:[\"get\"]}";

TEST_F(HttpAuthTest, EveryPatchTypeOfARoleIsCheckedForEscalation) {
  const std::string secrets = R"({"apiGroups":[""],"resources":["secrets"],"verbs":["get"]})";
  struct Case {
    const char* type;
    std::string body;
  } cases[] = {
      {"application/merge-patch+json", R"({"rules":[)" + secrets + "]}"},
      {"application/strategic-merge-patch+json", R"({"rules":[)" + secrets + "]}"},
      {"application/json-patch+json", R"([{"op":"add","path":"/rules/-","value":)" + secrets + "}]"},
      {"application/apply-patch+yaml",
       R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"Role","metadata":{"name":"r","namespace":"d"},"rules":[)" +
           secrets + "]}"},
  };
  for (const Case& c : cases) {
    std::string path = role_path;
    if (std::string(c.type) == "application/apply-patch+yaml") path += "?fieldManager=op&force=true";
    httplib::Response r = Send("op-token", "PATCH", path, c.body, c.type);
    EXPECT_EQ(r.status, 403) << c.type << ": " << r.body;
    EXPECT_EQ(Message(r), kNotHeld) << c.type;
  }
  // Nothing was written: the Role still grants only pods get.
  auto stored = store.Get("roles", "d", "r");
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ((**stored)["rules"].size(), 1u);
  EXPECT_EQ((**stored)["rules"][0]["resources"][0], "pods");
  // A patch within what the operator holds passes; so does any patch by a member of system:masters.
  EXPECT_EQ(Send("op-token", "PATCH", role_path, R"({"rules":[{"apiGroups":[""],"resources":["pods"],"verbs":["list"]}]})",
                 "application/merge-patch+json")
                .status,
            200);
  EXPECT_EQ(Send("admin-token", "PATCH", role_path, R"({"rules":[)" + secrets + "]}", "application/merge-patch+json").status,
            200);
}

TEST_F(HttpAuthTest, APatchOfABindingNeedsTheRolesPermissionsOrBind) {
  Add({{"apiVersion", "rbac.authorization.k8s.io/v1"},
       {"kind", "ClusterRole"},
       {"metadata", {{"name", "everything"}}},
       {"rules", json::array({Rule({"*"}, {"*"}, {"*"})})}});
  const std::string binding = R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding",
      "metadata":{"name":"b"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"r"},
      "subjects":[{"kind":"User","name":"u"}]})";
  ASSERT_EQ(Send("op-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/d/rolebindings", binding).status, 201);
  // The roleRef cannot change, but a binding of a role the operator does not hold cannot be patched
  // either: an admin's binding of `everything`, patched to add a subject.
  ASSERT_EQ(Send("admin-token", "POST", "/apis/rbac.authorization.k8s.io/v1/namespaces/d/rolebindings",
                 R"({"apiVersion":"rbac.authorization.k8s.io/v1","kind":"RoleBinding","metadata":{"name":"all"},
                     "roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"ClusterRole","name":"everything"},
                     "subjects":[{"kind":"User","name":"u"}]})")
                .status,
            201);
  httplib::Response r = Send("op-token", "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/d/rolebindings/all",
                             R"({"subjects":[{"kind":"User","name":"u"},{"kind":"User","name":"mallory"}]})",
                             "application/merge-patch+json");
  EXPECT_EQ(r.status, 403) << r.body;
  EXPECT_NE(Message(r).find("rolebindings.rbac.authorization.k8s.io \"all\" is forbidden: user \"system:serviceaccount:d:op\""),
            std::string::npos)
      << Message(r);
  EXPECT_EQ(Send("op-token", "PATCH", "/apis/rbac.authorization.k8s.io/v1/namespaces/d/rolebindings/b",
                 R"({"subjects":[{"kind":"User","name":"v"}]})", "application/merge-patch+json")
                .status,
            200);
}

// --- Service-account tokens (TokenRequest). ---

class TokenRequestTest : public HttpAuthTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(store.Create("serviceaccounts", {{"metadata", {{"name", "op"}, {"namespace", "d"}}}}).ok());
  }
  // `kubectl create token op -n d` as alice: the token.
  std::string CreateToken(const std::string& body = R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})") {
    httplib::Response r = Send("admin-token", "POST", "/api/v1/namespaces/d/serviceaccounts/op/token", body);
    EXPECT_EQ(r.status, 201) << r.body;
    json answer = json::parse(r.body, nullptr, false);
    return answer.is_object() ? answer["status"].value("token", "") : "";
  }
};

TEST_F(TokenRequestTest, AnIssuedTokenIsTheServiceAccountUnderRbac) {
  httplib::Response r = Send("admin-token", "POST", "/api/v1/namespaces/d/serviceaccounts/op/token",
                             R"({"apiVersion":"authentication.k8s.io/v1","kind":"TokenRequest","spec":{}})");
  ASSERT_EQ(r.status, 201) << r.body;
  json answer = json::parse(r.body);
  EXPECT_EQ(answer["kind"], "TokenRequest");
  EXPECT_EQ(answer["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(answer["spec"]["expirationSeconds"], 3600);
  EXPECT_EQ(answer["spec"]["audiences"], json::array({"https://kubernetes.default.svc.cluster.local"}));
  EXPECT_EQ(answer["status"]["expirationTimestamp"], kube::FormatTime(clock.Now() / kube::kSecond * kube::kSecond + 3600 * kube::kSecond));
  const std::string token = answer["status"]["token"];
  EXPECT_EQ(std::count(token.begin(), token.end(), '.'), 2) << token;  // a JWT: header.claims.signature
  // The token is the service account: what RBAC grants it, nothing more.
  EXPECT_EQ(Send(token, "GET", "/api/v1/namespaces/d/pods").status, 200);
  httplib::Response refused = Send(token, "GET", "/api/v1/namespaces/d/secrets");
  EXPECT_EQ(refused.status, 403);
  EXPECT_EQ(Message(refused), "secrets is forbidden: User \"system:serviceaccount:d:op\" cannot list resource \"secrets\" in "
                              "API group \"\" in the namespace \"d\"");
  httplib::Response who = Send(token, "POST", "/apis/authentication.k8s.io/v1/selfsubjectreviews",
                               R"({"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"})");
  ASSERT_EQ(who.status, 201) << who.body;
  const json info = json::parse(who.body)["status"]["userInfo"];
  EXPECT_EQ(info["username"], "system:serviceaccount:d:op");
  EXPECT_EQ(info["groups"], json::array({"system:serviceaccounts", "system:serviceaccounts:d", "system:authenticated"}));
  EXPECT_EQ(info["uid"], kube::UidOf(**store.Get("serviceaccounts", "d", "op")));
  // Asking for a token is `create serviceaccounts/token`: the operator may not.
  httplib::Response own = Send(token, "POST", "/api/v1/namespaces/d/serviceaccounts/op/token", R"({"spec":{}})");
  EXPECT_EQ(own.status, 403);
  EXPECT_EQ(Message(own), "serviceaccounts \"op\" is forbidden: User \"system:serviceaccount:d:op\" cannot create resource "
                          "\"serviceaccounts/token\" in API group \"\" in the namespace \"d\"");
}

TEST_F(TokenRequestTest, ATokenEndsWithItsExpiryAndWithItsServiceAccount) {
  const std::string token = CreateToken(R"({"spec":{"expirationSeconds":600}})");
  EXPECT_EQ(Send(token, "GET", "/api/v1/namespaces/d/pods").status, 200);
  clock.Advance(599 * kube::kSecond);
  EXPECT_EQ(Send(token, "GET", "/api/v1/namespaces/d/pods").status, 200);
  clock.Advance(kube::kSecond);
  httplib::Response expired = Send(token, "GET", "/api/v1/namespaces/d/pods");
  EXPECT_EQ(expired.status, 401);
  EXPECT_EQ(Message(expired), "Unauthorized");
  // A service account deleted and created again is another account: its old tokens are not it.
  const std::string second = CreateToken();
  ASSERT_TRUE(store.Delete("serviceaccounts", "d", "op").ok());
  EXPECT_EQ(Send(second, "GET", "/api/v1/namespaces/d/pods").status, 401);
  ASSERT_TRUE(store.Create("serviceaccounts", {{"metadata", {{"name", "op"}, {"namespace", "d"}}}}).ok());
  EXPECT_EQ(Send(second, "GET", "/api/v1/namespaces/d/pods").status, 401);
  EXPECT_EQ(Send(CreateToken(), "GET", "/api/v1/namespaces/d/pods").status, 200);
}

TEST_F(TokenRequestTest, TokensComeFromTheSeedAndTheApiClockOnly) {
  ServiceAccountTokens a(7), b(7), c(8);
  const ServiceAccountTokens::Holder op{"d", "op", "uid-1", 0};
  const std::string first = a.Issue(op, {}, 3600, 1000 * kube::kSecond);
  EXPECT_EQ(first, b.Issue(op, {}, 3600, 1000 * kube::kSecond));
  EXPECT_NE(first, c.Issue(op, {}, 3600, 1000 * kube::kSecond));
  EXPECT_NE(first, a.Issue(op, {}, 3600, 1000 * kube::kSecond));  // each token its own jti
  auto found = a.Find(first);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->expires, 4600 * kube::kSecond);
  EXPECT_FALSE(a.Find(first + "x").has_value());
  EXPECT_FALSE(c.Find(first).has_value());
}

TEST_F(TokenRequestTest, RequestsAreCheckedAsKubeApiserverChecksThem) {
  httplib::Response short_lived = Send("admin-token", "POST", "/api/v1/namespaces/d/serviceaccounts/op/token",
                                       R"({"spec":{"expirationSeconds":60}})");
  EXPECT_EQ(short_lived.status, 422);
  EXPECT_EQ(Message(short_lived), "TokenRequest.authentication.k8s.io \"\" is invalid: spec.expirationSeconds: Invalid "
                                  "value: 60: may not specify a duration less than 10 minutes");
  httplib::Response absent = Send("admin-token", "POST", "/api/v1/namespaces/d/serviceaccounts/nope/token", R"({"spec":{}})");
  EXPECT_EQ(absent.status, 404);
  EXPECT_EQ(Message(absent), "serviceaccounts \"nope\" not found");
  EXPECT_EQ(tokens->issued(), 0u);
}

}  // namespace http_auth_test
}  // namespace fakeapi
