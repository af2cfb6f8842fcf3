// The operator's RBAC file: every document a Role, ClusterRole, RoleBinding or ClusterRoleBinding
// (or a Namespace or ServiceAccount, which need no checking), each checked as the API would.
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/rbac_bootstrap.h"
#include "sim/harness/config/loader.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"

namespace harness {

RbacObjects LoadRbacObjects(std::string_view text, const std::string& file) {
  RbacObjects out;
  YamlLoad load = LoadYamlString(text, file);
  if (!load.ok()) {
    out.problems.push_back(load.error->ToString());
    return out;
  }
  fakeapi::rbac::Policy check;
  for (std::size_t i = 0; i < load.documents.size(); ++i) {
    const YamlDocument& doc = load.documents[i];
    if (doc.value.is_null()) continue;
    auto problem = [&](const std::string& path, const std::string& message) {
      out.problems.push_back(FormatProblem(file, doc.positions, path, message));
    };
    if (!doc.value.is_object()) {
      problem("", "expected a Kubernetes object, got " + TypeName(doc.value));
      continue;
    }
    const std::string kind = doc.value.contains("kind") && doc.value["kind"].is_string()
                                 ? doc.value["kind"].get<std::string>() : "";
    if (kind == "Namespace" || kind == "ServiceAccount") continue;
    auto added = check.Add(doc.value);
    if (!added.ok()) {
      const auto& causes = added.status().causes();
      problem(causes.empty() ? "" : causes[0].field, causes.empty() ? added.status().message() : causes[0].message);
      continue;
    }
    if (!*added) {
      problem("kind", "expected Role, ClusterRole, RoleBinding or ClusterRoleBinding (or Namespace, ServiceAccount), got " +
                          (kind.empty() ? std::string("nothing") : "\"" + kind + "\""));
      continue;
    }
    out.objects.push_back(doc.value);
  }
  return out;
}

}  // namespace harness

namespace harness::loading {

void Loader::LoadRbacFault(const json& item, const std::string& path, FaultSpec& f) {
  if (auto role = String(item, "role", path, true)) f.role = *role;
  if (auto rule = Integer(item, "rule", path, 0, 1'000'000, true)) f.rule = *rule;
}

void Loader::CheckRbacFault(const std::string& path, const Scenario& s, const FaultSpec& f) {
  if (f.role.empty()) return;  // reported
  const std::size_t slash = f.role.find('/');
  const std::string kind = f.role.substr(0, slash);
  if (slash == std::string::npos || (kind != "Role" && kind != "ClusterRole") ||
      (kind == "Role" && f.role.find('/', slash + 1) == std::string::npos)) {
    Problem(Child(path, "role"), "must be ClusterRole/NAME or Role/NAMESPACE/NAME, got " + Quoted(f.role));
    return;
  }
  fakeapi::rbac::Policy policy = fakeapi::rbac::BootstrapPolicy();
  for (const json& o : s.operator_settings.rbac) (void)policy.Add(o);
  const auto* rules = policy.RulesOf(kind, f.role.substr(slash + 1));
  if (!rules) {
    std::string known;
    for (const auto& [k, key] : policy.Roles())
      if (!(k == "ClusterRole" && (key.rfind("system:", 0) == 0 || key == "cluster-admin")))
        known += (known.empty() ? "" : ", ") + k + "/" + key;
    Problem(Child(path, "role"), "no " + Quoted(f.role) + " in the operator's RBAC file or the default policy (" + known + ")");
    return;
  }
  if (static_cast<std::size_t>(f.rule) >= rules->size())
    Problem(Child(path, "rule"), Quoted(f.role) + " has " + std::to_string(rules->size()) + " rules (0 to " +
                                     std::to_string(rules->size() - 1) + "), not " + std::to_string(f.rule));
}

}  // namespace harness::loading
