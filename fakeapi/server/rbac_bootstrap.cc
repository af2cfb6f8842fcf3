// The default policy of the simulated cluster's components. See rbac_bootstrap.h.
#include "fakeapi/server/rbac_bootstrap.h"

#include <initializer_list>

namespace fakeapi::rbac {

using kube::Json;

namespace {

using Words = std::initializer_list<const char*>;

Json List(Words words) {
  Json out = Json::array();
  for (const char* w : words) out.push_back(w);
  return out;
}

// One resource rule: verbs on resources of groups.
Json Rule(Words verbs, Words groups, Words resources) {
  return {{"verbs", List(verbs)}, {"apiGroups", List(groups)}, {"resources", List(resources)}};
}
// One non-resource rule: verbs on URLs.
Json Urls(Words verbs, Words urls) { return {{"verbs", List(verbs)}, {"nonResourceURLs", List(urls)}}; }

Json ClusterRole(const char* name, std::initializer_list<Json> rules) {
  Json r = Json::array();
  for (const Json& rule : rules) r.push_back(rule);
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRole"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
          {"rules", std::move(r)}};
}

// A ClusterRoleBinding of the ClusterRole of the same name; subjects as {kind, name[, namespace]}.
Json Binding(const char* name, std::initializer_list<Json> subjects) {
  Json s = Json::array();
  for (const Json& subject : subjects) s.push_back(subject);
  return {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
          {"metadata", {{"name", name}, {"labels", {{"kubernetes.io/bootstrapping", "rbac-defaults"}}}}},
          {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", name}}},
          {"subjects", std::move(s)}};
}
Json Group(const char* name) { return {{"kind", "Group"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", name}}; }
Json User(const char* name) { return {{"kind", "User"}, {"apiGroup", "rbac.authorization.k8s.io"}, {"name", name}}; }

const Words kRead = {"get", "list", "watch"};
const Words kStatusWrite = {"patch", "update"};
const Words kEvents = {"create", "patch", "update"};

}  // namespace

UserInfo SchedulerUser() { return {kSchedulerUser, {kAuthenticatedGroup}, ""}; }
UserInfo NodeControllerUser() { return ServiceAccountUser("kube-system", "node-controller"); }
UserInfo PodGcUser() { return ServiceAccountUser("kube-system", "pod-garbage-collector"); }

std::vector<Json> BootstrapObjects() {
  std::vector<Json> out;
  out.push_back(ClusterRole("cluster-admin", {Rule({"*"}, {"*"}, {"*"}), Urls({"*"}, {"*"})}));
  out.push_back(Binding("cluster-admin", {Group(kMastersGroup)}));
  out.push_back(ClusterRole("system:discovery",
                            {Urls({"get"}, {"/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi",
                                            "/openapi/*", "/readyz", "/version", "/version/"})}));
  out.push_back(Binding("system:discovery", {Group(kAuthenticatedGroup)}));
  out.push_back(ClusterRole("system:public-info-viewer",
                            {Urls({"get"}, {"/healthz", "/livez", "/readyz", "/version", "/version/"})}));
  out.push_back(Binding("system:public-info-viewer", {Group(kAuthenticatedGroup), Group(kUnauthenticatedGroup)}));
  out.push_back(ClusterRole("system:basic-user",
                            {Rule({"create"}, {"authorization.k8s.io"}, {"selfsubjectaccessreviews", "selfsubjectrulesreviews"}),
                             Rule({"create"}, {"authentication.k8s.io"}, {"selfsubjectreviews"})}));
  out.push_back(Binding("system:basic-user", {Group(kAuthenticatedGroup)}));
  out.push_back(ClusterRole(
      "system:kube-scheduler",
      {Rule(kEvents, {"", "events.k8s.io"}, {"events"}), Rule({"create"}, {"coordination.k8s.io"}, {"leases"}),
       Rule({"get", "update"}, {"coordination.k8s.io"}, {"leases"}), Rule(kRead, {""}, {"nodes"}),
       Rule({"delete", "get", "list", "watch"}, {""}, {"pods"}), Rule({"create"}, {""}, {"bindings", "pods/binding"}),
       Rule(kStatusWrite, {""}, {"pods/status"}),
       Rule(kRead, {""}, {"replicationcontrollers", "services", "persistentvolumeclaims", "persistentvolumes", "namespaces"}),
       Rule(kRead, {"apps"}, {"replicasets", "statefulsets"}), Rule(kRead, {"policy"}, {"poddisruptionbudgets"}),
       Rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
       Rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews"})}));
  out.push_back(Binding("system:kube-scheduler", {User(kSchedulerUser)}));
  out.push_back(ClusterRole("scheduler-plugins-scheduler",
                            {Rule(kRead, {"scheduling.x-k8s.io"}, {"podgroups"}),
                             Rule(kStatusWrite, {"scheduling.x-k8s.io"}, {"podgroups/status"})}));
  out.push_back(Binding("scheduler-plugins-scheduler", {User(kSchedulerUser)}));
  out.push_back(ClusterRole(
      "system:node",
      {Rule({"create", "get", "list", "watch", "patch", "update"}, {""}, {"nodes"}),
       Rule(kStatusWrite, {""}, {"nodes/status"}), Rule({"get", "list", "watch", "create", "delete"}, {""}, {"pods"}),
       Rule(kStatusWrite, {""}, {"pods/status"}), Rule({"create"}, {""}, {"pods/eviction"}),
       Rule(kRead, {""}, {"configmaps", "secrets", "services", "endpoints"}), Rule(kEvents, {"", "events.k8s.io"}, {"events"}),
       Rule({"get"}, {""}, {"persistentvolumeclaims", "persistentvolumes"}),
       Rule(kStatusWrite, {""}, {"persistentvolumeclaims/status"}), Rule({"create"}, {""}, {"serviceaccounts/token"}),
       Rule({"create", "delete", "get", "patch", "update"}, {"coordination.k8s.io"}, {"leases"}),
       Rule({"create"}, {"authentication.k8s.io"}, {"tokenreviews"}),
       Rule({"create"}, {"authorization.k8s.io"}, {"subjectaccessreviews", "localsubjectaccessreviews"})}));
  out.push_back(Binding("system:node", {Group("system:nodes")}));
  out.push_back(ClusterRole("system:controller:node-controller",
                            {Rule({"get", "list", "watch", "update", "delete", "patch"}, {""}, {"nodes"}),
                             Rule(kStatusWrite, {""}, {"nodes/status"}), Rule(kStatusWrite, {""}, {"pods/status"}),
                             Rule({"list", "watch", "get", "delete"}, {""}, {"pods"}),
                             Rule(kEvents, {"", "events.k8s.io"}, {"events"})}));
  out.push_back(Binding("system:controller:node-controller",
                        {Json{{"kind", "ServiceAccount"}, {"name", "node-controller"}, {"namespace", "kube-system"}}}));
  out.push_back(ClusterRole("system:controller:pod-garbage-collector",
                            {Rule({"list", "watch", "delete"}, {""}, {"pods"}), Rule({"patch"}, {""}, {"pods/status"}),
                             Rule({"get", "list", "watch"}, {""}, {"nodes"})}));
  out.push_back(Binding("system:controller:pod-garbage-collector",
                        {Json{{"kind", "ServiceAccount"}, {"name", "pod-garbage-collector"}, {"namespace", "kube-system"}}}));
  return out;
}

Policy BootstrapPolicy() {
  Policy policy;
  for (const Json& object : BootstrapObjects()) (void)policy.Add(object);
  return policy;
}

}  // namespace fakeapi::rbac
