// The RBAC authorizer: each kind of rule, binding and subject, aggregation, the escalation checks,
// the Forbidden bodies word for word, and the AuthorizingClient in front of a Store.
#include "fakeapi/server/authorizing_client.h"
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/rbac_bootstrap.h"
#include "fakeapi/server/store.h"

#include <gtest/gtest.h>

#include <string>

namespace fakeapi::rbac {
namespace rbac_test {

using kube::Json;

Json Rule(std::vector<std::string> verbs, std::vector<std::string> groups, std::vector<std::string> resources,
          std::vector<std::string> names = {}) {
  Json r = {{"verbs", verbs}, {"apiGroups", groups}, {"resources", resources}};
  if (!names.empty()) r["resourceNames"] = names;
  return r;
}

Json RoleObject(const std::string& kind, const std::string& name, const std::string& ns, Json rules,
                Json labels = Json::object()) {
  Json meta = {{"name", name}, {"labels", labels}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", kind}, {"metadata", meta}, {"rules", rules}};
}

Json BindingObject(const std::string& kind, const std::string& name, const std::string& ns, const std::string& role_kind,
                   const std::string& role, Json subjects) {
  Json meta = {{"name", name}};
  if (!ns.empty()) meta["namespace"] = ns;
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", kind}, {"metadata", meta},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", role_kind}, {"name", role}}},
          {"subjects", subjects}};
}

Json Sa(const std::string& ns, const std::string& name) {
  return {{"kind", "ServiceAccount"}, {"name", name}, {"namespace", ns}};
}

Attributes Request(const UserInfo& user, std::string_view verb, std::string_view resource, std::string_view ns,
                   std::string_view name = "", std::string_view group = "", std::string_view sub = "") {
  return {&user, verb, true, group, resource, sub, name, ns, ""};
}

class RbacTest : public ::testing::Test {
 protected:
  void Add(const Json& object) {
    auto r = authorizer.policy().Add(object);
    ASSERT_TRUE(r.ok()) << r.status().ToString();
  }
  Authorizer authorizer;
  const UserInfo op = ServiceAccountUser("dgl-operator", "dgl-operator");
};

TEST_F(RbacTest, ServiceAccountIdentityHasItsThreeGroups) {
  EXPECT_EQ(op.name, "system:serviceaccount:dgl-operator:dgl-operator");
  EXPECT_EQ(op.groups, (std::vector<std::string>{"system:serviceaccounts", "system:serviceaccounts:dgl-operator",
                                                 "system:authenticated"}));
}

TEST_F(RbacTest, NothingIsAllowedWithoutABinding) {
  Add(RoleObject("ClusterRole", "reader", "", Json::array({Rule({"get"}, {""}, {"pods"})})));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "get", "pods", "default", "x")));
}

TEST_F(RbacTest, ClusterRoleBindingGrantsEverywhereRoleBindingOnlyInItsNamespace) {
  Add(RoleObject("ClusterRole", "reader", "", Json::array({Rule({"get", "list"}, {""}, {"pods"})})));
  Add(BindingObject("RoleBinding", "rb", "team-a", "ClusterRole", "reader", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "get", "pods", "team-a", "x")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "get", "pods", "team-b", "x")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "list", "pods", "")));  // the cluster scope
  Add(BindingObject("ClusterRoleBinding", "crb", "", "ClusterRole", "reader", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "list", "pods", "")));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "get", "pods", "team-b", "x")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "delete", "pods", "team-b", "x")));
}

TEST_F(RbacTest, RoleGrantsInItsOwnNamespace) {
  Add(RoleObject("Role", "leases", "dgl-operator", Json::array({Rule({"get", "update"}, {"coordination.k8s.io"}, {"leases"})})));
  Add(BindingObject("RoleBinding", "leases", "dgl-operator", "Role", "leases", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "update", "leases", "dgl-operator", "l", "coordination.k8s.io")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "update", "leases", "default", "l", "coordination.k8s.io")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "update", "leases", "dgl-operator", "l", "")));  // another group
}

TEST_F(RbacTest, SubjectsByUserGroupAndServiceAccountGroups) {
  Add(RoleObject("ClusterRole", "reader", "", Json::array({Rule({"get"}, {""}, {"configmaps"})})));
  Add(BindingObject("ClusterRoleBinding", "by-user", "", "ClusterRole", "reader", Json::array({{{"kind", "User"}, {"name", "alice"}}})));
  Add(BindingObject("ClusterRoleBinding", "by-group", "", "ClusterRole", "reader",
                    Json::array({{{"kind", "Group"}, {"name", "system:serviceaccounts:team-a"}}})));
  EXPECT_TRUE(authorizer.Allowed(Request(UserInfo{"alice", {}, ""}, "get", "configmaps", "x", "c")));
  EXPECT_FALSE(authorizer.Allowed(Request(UserInfo{"bob", {}, ""}, "get", "configmaps", "x", "c")));
  EXPECT_TRUE(authorizer.Allowed(Request(ServiceAccountUser("team-a", "any"), "get", "configmaps", "x", "c")));
  EXPECT_FALSE(authorizer.Allowed(Request(ServiceAccountUser("team-b", "any"), "get", "configmaps", "x", "c")));
}

TEST_F(RbacTest, SubresourcesAreTheirOwnResources) {
  Add(RoleObject("ClusterRole", "r", "", Json::array({Rule({"update"}, {"kubeflow.org"}, {"dgljobs/status"}),
                                                       Rule({"get"}, {""}, {"pods"}), Rule({"patch"}, {""}, {"*/scale"})})));
  Add(BindingObject("ClusterRoleBinding", "r", "", "ClusterRole", "r", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "update", "dgljobs", "d", "j", "kubeflow.org", "status")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "update", "dgljobs", "d", "j", "kubeflow.org")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "get", "pods", "d", "p", "", "exec")));  // "pods" is not pods/exec
  EXPECT_TRUE(authorizer.Allowed(Request(op, "patch", "deployments", "d", "x", "", "scale")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "patch", "deployments", "d", "x")));
}

TEST_F(RbacTest, ResourceNamesMatchOnlyRequestsNamingThem) {
  Add(RoleObject("ClusterRole", "r", "", Json::array({Rule({"create", "list"}, {""}, {"pods/exec", "pods"}, {"w-0", "w-1"})})));
  Add(BindingObject("ClusterRoleBinding", "r", "", "ClusterRole", "r", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "create", "pods", "d", "w-1", "", "exec")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "create", "pods", "d", "w-2", "", "exec")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "list", "pods", "d")));  // a list names nothing
}

TEST_F(RbacTest, WildcardsMatchAnyVerbGroupAndResource) {
  Add(RoleObject("ClusterRole", "r", "", Json::array({Rule({"*"}, {"*"}, {"*"})})));
  Add(BindingObject("RoleBinding", "r", "ns", "ClusterRole", "r", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "deletecollection", "widgets", "ns", "", "example.com")));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "update", "dgljobs", "ns", "j", "kubeflow.org", "status")));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "get", "pods", "other", "p")));
}

TEST_F(RbacTest, NonResourceUrlsExactAndByPrefix) {
  Add(RoleObject("ClusterRole", "urls", "", Json::array({{{"verbs", {"get"}}, {"nonResourceURLs", {"/healthz", "/apis/*"}}}})));
  Add(BindingObject("ClusterRoleBinding", "urls", "", "ClusterRole", "urls", Json::array({{{"kind", "User"}, {"name", "u"}}})));
  const UserInfo u{"u", {}, ""};
  auto path = [&](std::string_view verb, std::string_view p) { return Attributes{&u, verb, false, "", "", "", "", "", p}; };
  EXPECT_TRUE(authorizer.Allowed(path("get", "/healthz")));
  EXPECT_TRUE(authorizer.Allowed(path("get", "/apis/kubeflow.org/v1")));
  EXPECT_FALSE(authorizer.Allowed(path("get", "/version")));
  EXPECT_FALSE(authorizer.Allowed(path("post", "/healthz")));
}

TEST_F(RbacTest, AggregatedClusterRoleHoldsTheRulesItsSelectorsMatch) {
  Add(RoleObject("ClusterRole", "dgl-view", "", Json::array({Rule({"get"}, {"kubeflow.org"}, {"dgljobs"})}),
                 {{"rbac.example.com/aggregate-to-view", "true"}}));
  Add(RoleObject("ClusterRole", "other", "", Json::array({Rule({"delete"}, {""}, {"pods"})})));
  Json view = RoleObject("ClusterRole", "view", "", Json::array());
  view["aggregationRule"] = {{"clusterRoleSelectors", Json::array({{{"matchLabels", {{"rbac.example.com/aggregate-to-view", "true"}}}}})}};
  Add(view);
  Add(BindingObject("ClusterRoleBinding", "view", "", "ClusterRole", "view", Json::array({{{"kind", "User"}, {"name", "v"}}})));
  const UserInfo v{"v", {}, ""};
  EXPECT_TRUE(authorizer.Allowed(Request(v, "get", "dgljobs", "ns", "j", "kubeflow.org")));
  EXPECT_FALSE(authorizer.Allowed(Request(v, "delete", "pods", "ns", "p")));
  // A role labelled later joins the aggregation.
  Add(RoleObject("ClusterRole", "other", "", Json::array({Rule({"delete"}, {""}, {"pods"})}),
                 {{"rbac.example.com/aggregate-to-view", "true"}}));
  EXPECT_TRUE(authorizer.Allowed(Request(v, "delete", "pods", "ns", "p")));
}

TEST_F(RbacTest, SystemMastersIsAllowedEverything) {
  EXPECT_TRUE(authorizer.Allowed(Request(AdminUser(), "delete", "nodes", "", "n")));
}

TEST_F(RbacTest, RemoveRuleTakesThePermissionAway) {
  Add(RoleObject("ClusterRole", "r", "", Json::array({Rule({"list"}, {""}, {"pods"}), Rule({"list"}, {""}, {"nodes"})})));
  Add(BindingObject("ClusterRoleBinding", "r", "", "ClusterRole", "r", Json::array({Sa("dgl-operator", "dgl-operator")})));
  ASSERT_TRUE(authorizer.Allowed(Request(op, "list", "nodes", "")));
  ASSERT_TRUE(authorizer.policy().RemoveRule("ClusterRole", "r", 1));
  EXPECT_FALSE(authorizer.Allowed(Request(op, "list", "nodes", "")));
  EXPECT_TRUE(authorizer.Allowed(Request(op, "list", "pods", "")));
  EXPECT_FALSE(authorizer.policy().RemoveRule("ClusterRole", "r", 5));
}

TEST_F(RbacTest, MalformedObjectsAreInvalidWithTheirField) {
  auto bad = authorizer.policy().Add(RoleObject("ClusterRole", "r", "", Json::array({{{"apiGroups", {""}}}})));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), 422);
  EXPECT_EQ(bad.status().causes().at(0).field, "rules[0].verbs");
  auto kind = authorizer.policy().Add(BindingObject("ClusterRoleBinding", "b", "", "Role", "r", Json::array()));
  ASSERT_FALSE(kind.ok());
  EXPECT_EQ(kind.status().causes().at(0).field, "roleRef.kind");
}

// kube-apiserver's words (k8s.io/apiserver responsewriters.forbiddenMessage and apierrors.NewForbidden).
TEST_F(RbacTest, ForbiddenBodiesAreKubeApiserversWords) {
  kube::Status ns = authorizer.Authorize(Request(op, "list", "pods", "default"));
  EXPECT_EQ(ns.code(), 403);
  EXPECT_EQ(ns.reason(), "Forbidden");
  EXPECT_EQ(ns.message(), "pods is forbidden: User \"system:serviceaccount:dgl-operator:dgl-operator\" cannot list "
                          "resource \"pods\" in API group \"\" in the namespace \"default\"");
  kube::Status cluster = authorizer.Authorize(Request(op, "watch", "dgljobs", "", "", "kubeflow.org"));
  EXPECT_EQ(cluster.message(), "dgljobs.kubeflow.org is forbidden: User \"system:serviceaccount:dgl-operator:dgl-operator\" "
                               "cannot watch resource \"dgljobs\" in API group \"kubeflow.org\" at the cluster scope");
  kube::Status named = authorizer.Authorize(Request(op, "update", "dgljobs", "d", "j", "kubeflow.org", "status"));
  EXPECT_EQ(named.message(), "dgljobs.kubeflow.org \"j\" is forbidden: User \"system:serviceaccount:dgl-operator:dgl-operator\" "
                             "cannot update resource \"dgljobs/status\" in API group \"kubeflow.org\" in the namespace \"d\"");
  const Json body = named.ToJson();
  EXPECT_EQ(body["details"]["name"], "j");
  EXPECT_EQ(body["details"]["group"], "kubeflow.org");
  EXPECT_EQ(body["details"]["kind"], "dgljobs");
  const UserInfo anon{kAnonymousUser, {kUnauthenticatedGroup}, ""};
  kube::Status path = authorizer.Authorize(Attributes{&anon, "get", false, "", "", "", "", "", "/version"});
  EXPECT_EQ(path.message(), "forbidden: User \"system:anonymous\" cannot get path \"/version\"");
}

TEST_F(RbacTest, BootstrapPolicyGrantsTheSystemComponents) {
  Authorizer boot(BootstrapPolicy());
  const UserInfo node = NodeUser("n1");
  EXPECT_TRUE(boot.Allowed(Request(node, "patch", "pods", "d", "p", "", "status")));
  EXPECT_TRUE(boot.Allowed(Request(node, "get", "configmaps", "d", "c")));
  EXPECT_FALSE(boot.Allowed(Request(node, "update", "dgljobs", "d", "j", "kubeflow.org")));
  const UserInfo scheduler = SchedulerUser();
  EXPECT_TRUE(boot.Allowed(Request(scheduler, "create", "pods", "d", "p", "", "binding")));
  EXPECT_FALSE(boot.Allowed(Request(scheduler, "create", "pods", "d")));
  const UserInfo nc = NodeControllerUser();
  EXPECT_TRUE(boot.Allowed(Request(nc, "delete", "pods", "d", "p")));
  EXPECT_FALSE(boot.Allowed(Request(nc, "create", "pods", "d")));
  // The pod garbage collector fails and deletes the pods of a deleted node, after a GET of it.
  const UserInfo gc = PodGcUser();
  EXPECT_TRUE(boot.Allowed(Request(gc, "patch", "pods", "d", "p", "", "status")));
  EXPECT_TRUE(boot.Allowed(Request(gc, "delete", "pods", "d", "p")));
  EXPECT_TRUE(boot.Allowed(Request(gc, "get", "nodes", "", "n1")));
  EXPECT_FALSE(boot.Allowed(Request(gc, "delete", "nodes", "", "n1")));
  EXPECT_FALSE(boot.Allowed(Request(gc, "create", "pods", "d")));
  const UserInfo someone{"someone", {kAuthenticatedGroup}, ""};
  EXPECT_TRUE(boot.Allowed(Attributes{&someone, "get", false, "", "", "", "", "", "/apis/kubeflow.org/v1"}));
  EXPECT_FALSE(boot.Allowed(Request(someone, "list", "pods", "")));
}

// --- Escalation prevention. ---

TEST_F(RbacTest, AllowedByNamesTheBindingAsKubeApiserversAccessReviewsDo) {
  Add(RoleObject("ClusterRole", "reader", "", Json::array({Rule({"list"}, {""}, {"pods"})})));
  Add(BindingObject("ClusterRoleBinding", "op-reads", "", "ClusterRole", "reader", Json::array({Sa("dgl-operator", "dgl-operator")})));
  Add(RoleObject("Role", "leases", "dgl-operator", Json::array({Rule({"get"}, {"coordination.k8s.io"}, {"leases"})})));
  Add(BindingObject("RoleBinding", "le", "dgl-operator", "Role", "leases",
                    Json::array({{{"kind", "ServiceAccount"}, {"name", "dgl-operator"}}, {{"kind", "Group"}, {"name", "g"}}})));
  EXPECT_EQ(authorizer.AllowedBy(Request(op, "list", "pods", "d")),
            "RBAC: allowed by ClusterRoleBinding \"op-reads\" of ClusterRole \"reader\" to ServiceAccount \"dgl-operator/dgl-operator\"");
  EXPECT_EQ(authorizer.AllowedBy(Request(op, "get", "leases", "dgl-operator", "x", "coordination.k8s.io")),
            "RBAC: allowed by RoleBinding \"le/dgl-operator\" of Role \"leases\" to ServiceAccount \"dgl-operator/dgl-operator\"");
  const UserInfo member{"someone", {"g"}, ""};
  EXPECT_EQ(authorizer.AllowedBy(Request(member, "get", "leases", "dgl-operator", "x", "coordination.k8s.io")),
            "RBAC: allowed by RoleBinding \"le/dgl-operator\" of Role \"leases\" to Group \"g\"");
  EXPECT_EQ(authorizer.AllowedBy(Request(op, "delete", "pods", "d")), std::nullopt);
  EXPECT_EQ(authorizer.AllowedBy(Request(AdminUser(), "delete", "pods", "d")), "");
}

class EscalationTest : public RbacTest {
 protected:
  void SetUp() override {
    Add(RoleObject("ClusterRole", "operator", "",
                   Json::array({Rule({"get", "list", "watch"}, {""}, {"pods"}), Rule({"create"}, {""}, {"pods/exec"}),
                                Rule({"create", "update"}, {"rbac.authorization.k8s.io"}, {"roles"}),
                                Rule({"create"}, {"rbac.authorization.k8s.io"}, {"rolebindings"})})));
    Add(BindingObject("ClusterRoleBinding", "operator", "", "ClusterRole", "operator", Json::array({Sa("dgl-operator", "dgl-operator")})));
    roles = registry.Find("roles");
    bindings = registry.Find("rolebindings");
  }
  kube::Registry registry = kube::Registry::WithBuiltins();
  const kube::ResourceType* roles = nullptr;
  const kube::ResourceType* bindings = nullptr;
  const Json launcher = RoleObject("Role", "j-launcher", "d",
                                   Json::array({Rule({"get", "list", "watch"}, {""}, {"pods"}),
                                                Rule({"create"}, {""}, {"pods/exec"}, {"j-worker-0"})}));
};

TEST_F(EscalationTest, ARoleWithinWhatTheCreatorHoldsIsAdmitted) {
  EXPECT_TRUE(authorizer.AdmitRbacWrite(op, *roles, launcher, "d").ok());
}

TEST_F(EscalationTest, ARoleGrantingMoreIsRefusedListingWhatIsMissing) {
  Json more = launcher;
  more["rules"].push_back(Rule({"delete"}, {""}, {"pods"}));
  more["rules"].push_back(Rule({"*"}, {""}, {"pods/exec"}));
  kube::Status s = authorizer.AdmitRbacWrite(op, *roles, more, "d");
  ASSERT_EQ(s.code(), 403);
  EXPECT_EQ(s.message(),
            "roles.rbac.authorization.k8s.io \"j-launcher\" is forbidden: user "
            "\"system:serviceaccount:dgl-operator:dgl-operator\" (groups=[\"system:serviceaccounts\" "
            "\"system:serviceaccounts:dgl-operator\" \"system:authenticated\"]) is attempting to grant RBAC permissions "
            "not currently held:\n{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}\n"
            "{APIGroups:[\"\"], Resources:[\"pods/exec\"], Verbs:[\"*\"]}");
}

TEST_F(EscalationTest, TheEscalateVerbLiftsTheCheck) {
  Json more = launcher;
  more["rules"].push_back(Rule({"delete"}, {""}, {"nodes"}));
  ASSERT_FALSE(authorizer.AdmitRbacWrite(op, *roles, more, "d").ok());
  Add(RoleObject("ClusterRole", "escalator", "", Json::array({Rule({"escalate"}, {"rbac.authorization.k8s.io"}, {"roles"})})));
  Add(BindingObject("RoleBinding", "escalator", "d", "ClusterRole", "escalator", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.AdmitRbacWrite(op, *roles, more, "d").ok());
  EXPECT_FALSE(authorizer.AdmitRbacWrite(op, *roles, more, "other").ok());
  EXPECT_TRUE(authorizer.AdmitRbacWrite(AdminUser(), *roles, more, "other").ok());
}

TEST_F(EscalationTest, BindingNeedsTheRolesPermissionsOrBind) {
  Add(launcher);
  Json binding = BindingObject("RoleBinding", "j-launcher", "d", "Role", "j-launcher", Json::array({Sa("d", "j-launcher")}));
  EXPECT_TRUE(authorizer.AdmitRbacWrite(op, *bindings, binding, "d").ok());
  Add(RoleObject("ClusterRole", "admin-ish", "", Json::array({Rule({"*"}, {"*"}, {"*"})})));
  Json to_admin = BindingObject("RoleBinding", "x", "d", "ClusterRole", "admin-ish", Json::array({Sa("d", "x")}));
  kube::Status s = authorizer.AdmitRbacWrite(op, *bindings, to_admin, "d");
  EXPECT_EQ(s.code(), 403);
  EXPECT_NE(s.message().find("is attempting to grant RBAC permissions not currently held"), std::string::npos);
  Add(RoleObject("ClusterRole", "binder", "",
                 Json::array({Rule({"bind"}, {"rbac.authorization.k8s.io"}, {"clusterroles"}, {"admin-ish"})})));
  Add(BindingObject("ClusterRoleBinding", "binder", "", "ClusterRole", "binder", Json::array({Sa("dgl-operator", "dgl-operator")})));
  EXPECT_TRUE(authorizer.AdmitRbacWrite(op, *bindings, to_admin, "d").ok());
  Json missing = BindingObject("RoleBinding", "y", "d", "Role", "nope", Json::array({Sa("d", "x")}));
  EXPECT_EQ(authorizer.AdmitRbacWrite(op, *bindings, missing, "d").code(), 404);
}

TEST_F(EscalationTest, AggregationRuleNeedsEscalate) {
  Json agg = RoleObject("ClusterRole", "agg", "", Json::array());
  agg["aggregationRule"] = {{"clusterRoleSelectors", Json::array({{{"matchLabels", {{"a", "b"}}}}})}};
  kube::Status s = authorizer.AdmitRbacWrite(op, *registry.Find("clusterroles"), agg, "");
  EXPECT_EQ(s.code(), 403);
  // kube-apiserver's words (compared with it by scripts/rbac-diff.sh).
  EXPECT_EQ(s.message(), "clusterroles.rbac.authorization.k8s.io \"agg\" is forbidden: must have cluster-admin privileges to "
                         "use the aggregationRule");
}

// --- In front of a Store. ---

TEST(AuthorizingClientTest, RefusesBeforeTheStoreAndRolesInTheStoreCount) {
  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};
  ASSERT_TRUE(store.Create("namespaces", {{"metadata", {{"name", "d"}}}}).ok());
  Authorizer authorizer(BootstrapPolicy());
  authorizer.SetStore(&store);
  AuthorizingClient launcher(store, store.registry(), &authorizer, ServiceAccountUser("d", "j-launcher"));
  int refusals = 0;
  launcher.SetOnRefusal([&](const kube::Status&) { ++refusals; });
  const std::int64_t rv = store.CurrentResourceVersion();
  auto denied = launcher.List("pods", {.namespace_ = "d"});
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().message(), "pods is forbidden: User \"system:serviceaccount:d:j-launcher\" cannot list "
                                       "resource \"pods\" in API group \"\" in the namespace \"d\"");
  EXPECT_EQ(refusals, 1);
  EXPECT_EQ(store.CurrentResourceVersion(), rv);
  // The Role the operator creates for the launcher, stored in the API, grants it.
  ASSERT_TRUE(store.Create("roles", RoleObject("Role", "j-launcher", "d",
                                               Json::array({Rule({"list"}, {""}, {"pods"}),
                                                            Rule({"create"}, {""}, {"pods/exec"}, {"w-0"})})))
                  .ok());
  ASSERT_TRUE(store.Create("rolebindings", BindingObject("RoleBinding", "j-launcher", "d", "Role", "j-launcher",
                                                         Json::array({Sa("d", "j-launcher")})))
                  .ok());
  EXPECT_TRUE(launcher.List("pods", {.namespace_ = "d"}).ok());
  EXPECT_TRUE(launcher.Check("create", "pods", "exec", "d", "w-0").ok());
  EXPECT_EQ(launcher.Check("create", "pods", "exec", "d", "w-1").code(), 403);
  EXPECT_FALSE(launcher.List("pods", {.namespace_ = "other"}).ok());
  // Writes map to their verbs; a refused create stores nothing.
  auto created = launcher.Create("configmaps", {{"metadata", {{"name", "c"}, {"namespace", "d"}}}});
  EXPECT_EQ(created.status().message(), "configmaps is forbidden: User \"system:serviceaccount:d:j-launcher\" cannot "
                                        "create resource \"configmaps\" in API group \"\" in the namespace \"d\"");
  EXPECT_FALSE(store.Get("configmaps", "d", "c").ok());
}

TEST(AuthorizingClientTest, EscalationIsCheckedOnRoleCreates) {
  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};
  ASSERT_TRUE(store.Create("namespaces", {{"metadata", {{"name", "d"}}}}).ok());
  Authorizer authorizer;
  ASSERT_TRUE(authorizer.policy().Add(RoleObject("ClusterRole", "op", "", Json::array({Rule({"create"}, {"rbac.authorization.k8s.io"}, {"roles"})}))).ok());
  ASSERT_TRUE(authorizer.policy().Add(BindingObject("ClusterRoleBinding", "op", "", "ClusterRole", "op", Json::array({{{"kind", "User"}, {"name", "op"}}}))).ok());
  AuthorizingClient client(store, store.registry(), &authorizer, UserInfo{"op", {}, ""});
  auto r = client.Create("roles", RoleObject("Role", "x", "d", Json::array({Rule({"get"}, {""}, {"pods"})})));
  ASSERT_EQ(r.status().code(), 403);
  EXPECT_NE(r.status().message().find("{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"get\"]}"), std::string::npos);
  EXPECT_TRUE(client.Create("roles", RoleObject("Role", "y", "d", Json::array())).ok());
}

TEST(AuthorizingClientTest, EscalationIsCheckedOnRolePatches) {
  kube::ManualClock clock;
  Store store{StoreOptions{.clock = &clock}};
  ASSERT_TRUE(store.Create("namespaces", {{"metadata", {{"name", "d"}}}}).ok());
  Authorizer authorizer;
  ASSERT_TRUE(authorizer.policy().Add(RoleObject("ClusterRole", "op", "", Json::array({Rule({"get"}, {""}, {"pods"}), Rule({"create", "patch", "update"}, {"rbac.authorization.k8s.io"}, {"roles"})}))).ok());
  ASSERT_TRUE(authorizer.policy().Add(BindingObject("ClusterRoleBinding", "op", "", "ClusterRole", "op", Json::array({{{"kind", "User"}, {"name", "op"}}}))).ok());
  AuthorizingClient client(store, store.registry(), &authorizer, UserInfo{"op", {}, ""});
  ASSERT_TRUE(client.Create("roles", RoleObject("Role", "x", "d", Json::array({Rule({"get"}, {""}, {"pods"})}))).ok());
  auto r = client.Patch("roles", "d", "x", {{"rules", Json::array({Rule({"delete"}, {""}, {"pods"})})}});
  ASSERT_EQ(r.status().code(), 403);
  EXPECT_NE(r.status().message().find("{APIGroups:[\"\"], Resources:[\"pods\"], Verbs:[\"delete\"]}"), std::string::npos);
  EXPECT_EQ((**store.Get("roles", "d", "x"))["rules"][0]["verbs"][0], "get");
  // A patch that grants nothing new, and a patch of metadata only, pass.
  EXPECT_TRUE(client.Patch("roles", "d", "x", {{"metadata", {{"labels", {{"a", "b"}}}}}}).ok());
  EXPECT_TRUE(client.Patch("roles", "d", "x", {{"rules", Json::array()}}).ok());
  // A Role granting what op does not hold, written back as read (or with only its finalizers
  // changed) passes, as kube-apiserver's IsOnlyMutatingGCFields lets it; any other change does not.
  authorizer.SetStore(&store);
  ASSERT_TRUE(store.Create("roles", RoleObject("Role", "s", "d", Json::array({Rule({"get"}, {""}, {"secrets"})}))).ok());
  Json read = **store.Get("roles", "d", "s");
  EXPECT_TRUE(client.Update("roles", read).ok());
  read = **store.Get("roles", "d", "s");
  read["metadata"]["finalizers"] = Json::array({"example.com/keep"});
  EXPECT_TRUE(client.Update("roles", read).ok());
  read = **store.Get("roles", "d", "s");
  read["metadata"]["labels"]["a"] = "b";
  EXPECT_EQ(client.Update("roles", read).status().code(), 403);
  EXPECT_EQ(client.Patch("roles", "d", "s", {{"metadata", {{"labels", {{"a", "b"}}}}}}).status().code(), 403);
}

}  // namespace rbac_test
}  // namespace fakeapi::rbac
