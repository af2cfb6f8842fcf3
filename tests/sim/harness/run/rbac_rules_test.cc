// Every rule of deploy/rbac.yaml is needed, and the simulation proves it: with the rule removed, one
// of a few scenarios fails and a refused request (403) names a resource and a verb of that rule;
// with the rule there (and with a broader policy) every scenario runs exactly as without
// authorization. Prints the rule-by-rule table docs/rbac.md shows.
#include "fakeapi/client/leader_election.h"
#include "fakeapi/server/authorizing_client.h"
#include "fakeapi/server/rbac.h"
#include "fakeapi/server/rbac_bootstrap.h"
#include "fakeapi/server/store.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/run/runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

namespace harness {
namespace rbac_rules_test {

using kube::Json;

// The scenarios that, between them, make the operator use every permission it is granted: a job
// that runs and is deleted after its TTL (jobs, status, pods, exec, services, config maps, service
// accounts, roles and bindings, events), gang scheduling (pod groups), a node lost mid-run (nodes,
// force-deleted pods).
const std::vector<std::string> kScenarios = {"ttl-after-finished", "gang-two-jobs", "node-down-during-training"};

struct Outcome {
  bool passed = true;        // every expectation held
  std::string trace_hash;
  std::vector<std::string> forbidden;
};

Outcome RunWithHook(const std::string& name, const std::function<void(sim::Simulation&)>& hook) {
  ScenarioLoad loaded = LoadScenario(std::string(DGLSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml");
  EXPECT_TRUE(loaded.ok()) << name;
  if (!loaded.ok()) return {};
  // A run a refusal stalls would retry until `until` (hours of informer retries every second);
  // three hours are enough for these scenarios' jobs, with or without the rule.
  loaded.scenario->until = std::min<Micros>(loaded.scenario->until, 3 * 60 * 60 * kube::kSecond);
  RunOptions options;
  options.before_start = hook;
  RunRecord record = RunScenario(*loaded.scenario, options);
  Outcome out;
  for (const ExpectationResult& r : EvaluateExpectations(*loaded.scenario, record)) out.passed = out.passed && r.passed;
  out.trace_hash = record.trace_hash;
  out.forbidden = record.forbidden;
  return out;
}

Outcome RunWith(const std::string& name, const std::function<void(fakeapi::rbac::Policy&)>& edit) {
  return RunWithHook(name, [&](sim::Simulation& sim) {
    if (edit) edit(sim.authorizer()->policy());
  });
}

// The operator's leader election (--leader-elect; the simulated operator runs without it), in
// process: two candidates' LeaderElector in the operator's namespace, as its service account, each
// trying twice. Returns what was refused.
const std::string kLeaderElection = "leader election (two operator replicas, in process)";
Outcome RunLeaderElection(const std::function<void(fakeapi::rbac::Policy&)>& edit) {
  kube::ManualClock clock;
  fakeapi::Store store{fakeapi::StoreOptions{.clock = &clock}};
  (void)store.Create("namespaces", {{"metadata", {{"name", "dgl-operator"}}}});
  fakeapi::rbac::Policy policy = fakeapi::rbac::BootstrapPolicy();
  for (const Json& o : LoadRbacObjects(DefaultOperatorRbac(), "deploy/rbac.yaml").objects) (void)policy.Add(o);
  if (edit) edit(policy);
  fakeapi::rbac::Authorizer authorizer(std::move(policy));
  authorizer.SetStore(&store);
  Outcome out;
  fakeapi::AuthorizingClient client(store, store.registry(), &authorizer,
                                    fakeapi::rbac::ServiceAccountUser("dgl-operator", "dgl-operator"));
  client.SetOnRefusal([&](const kube::Status& s) { out.forbidden.push_back("dgl-operator: " + s.message()); });
  kube::LeaderElector a(client, clock, {.lease_namespace = "dgl-operator", .lease_name = "dgl-operator", .identity = "a"});
  kube::LeaderElector b(client, clock, {.lease_namespace = "dgl-operator", .lease_name = "dgl-operator", .identity = "b"});
  const bool first = a.TryAcquireOrRenew() && !b.TryAcquireOrRenew();
  clock.Advance(kube::kSecond);
  out.passed = first && a.TryAcquireOrRenew() && !b.TryAcquireOrRenew();
  return out;
}

struct RuleRef {
  std::string kind, key;
  std::size_t index;
  fakeapi::rbac::PolicyRule rule;
};

std::vector<RuleRef> OperatorRules() {
  std::vector<RuleRef> out;
  fakeapi::rbac::Policy policy;
  for (const Json& o : LoadRbacObjects(DefaultOperatorRbac(), "deploy/rbac.yaml").objects) (void)policy.Add(o);
  for (const auto& [kind, key] : policy.Roles()) {
    const auto* rules = policy.RulesOf(kind, key);
    for (std::size_t i = 0; i < rules->size(); ++i) out.push_back({kind, key, i, (*rules)[i]});
  }
  return out;
}

// Whether a refusal names one of the rule's resources (with its group) and one of its verbs: the
// request's "cannot VERB resource "RES" in API group "G"", or an escalation's missing
// {APIGroups:["G"], Resources:["RES"], Verbs:["VERB"]}.
bool Names(const std::string& refusal, const fakeapi::rbac::PolicyRule& rule) {
  for (const std::string& group : rule.api_groups)
    for (const std::string& resource : rule.resources)
      for (const std::string& verb : rule.verbs) {
        const std::string request = "cannot " + verb + " resource \"" + resource + "\" in API group \"" + group + "\"";
        const std::string grant = "{APIGroups:[\"" + group + "\"], Resources:[\"" + resource + "\"], ";
        const std::string grant_verb = "Verbs:[\"" + verb + "\"]}";
        if (refusal.find(request) != std::string::npos) return true;
        const std::size_t at = refusal.find(grant);
        if (at != std::string::npos && refusal.find(grant_verb, at) != std::string::npos) return true;
      }
  return false;
}

std::string Describe(const fakeapi::rbac::PolicyRule& rule) {
  std::string out;
  for (const std::string& r : rule.resources) out += (out.empty() ? "" : ",") + r;
  out += " [";
  for (std::size_t i = 0; i < rule.verbs.size(); ++i) out += (i ? "," : "") + rule.verbs[i];
  return out + "]";
}

TEST(RbacRulesTest, EachRuleOfTheOperatorsPolicyIsNeededAndABroaderOneChangesNothing) {
  // Baseline: deploy/rbac.yaml as it is. Nothing refused, every expectation holds.
  std::vector<std::string> baseline;
  for (const std::string& s : kScenarios) {
    Outcome o = RunWith(s, nullptr);
    EXPECT_TRUE(o.passed) << s;
    EXPECT_TRUE(o.forbidden.empty()) << s << ": " << (o.forbidden.empty() ? "" : o.forbidden.front());
    baseline.push_back(o.trace_hash);
  }
  Outcome election = RunLeaderElection(nullptr);
  EXPECT_TRUE(election.passed);
  EXPECT_TRUE(election.forbidden.empty());
  // A broader policy (the operator bound to cluster-admin too): the very same runs.
  for (std::size_t i = 0; i < kScenarios.size(); ++i) {
    Outcome o = RunWith(kScenarios[i], [](fakeapi::rbac::Policy& p) {
      (void)p.Add({{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "ClusterRoleBinding"},
                   {"metadata", {{"name", "operator-as-admin"}}},
                   {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", "cluster-admin"}}},
                   {"subjects", Json::array({{{"kind", "ServiceAccount"}, {"name", "dgl-operator"}, {"namespace", "dgl-operator"}}})}});
    });
    EXPECT_EQ(o.trace_hash, baseline[i]) << kScenarios[i];
  }
  // Each rule removed in turn.
  std::cout << "| rule (" << "deploy/rbac.yaml) | caught by | first refusal |\n|---|---|---|\n";
  for (const RuleRef& ref : OperatorRules()) {
    std::string caught_by, refusal;
    std::vector<std::string> runs = kScenarios;
    runs.push_back(kLeaderElection);
    for (const std::string& s : runs) {
      auto without = [&](fakeapi::rbac::Policy& p) { ASSERT_TRUE(p.RemoveRule(ref.kind, ref.key, ref.index)); };
      Outcome o = s == kLeaderElection ? RunLeaderElection(without) : RunWith(s, without);
      for (const std::string& f : o.forbidden)
        if (Names(f, ref.rule)) {
          refusal = f;
          break;
        }
      if (!refusal.empty()) {
        caught_by = s + (o.passed ? " (403s; expectations still hold)" : " (403s; expectations fail)");
        break;
      }
    }
    std::cout << "| " << ref.kind << " " << ref.key << " #" << ref.index << ": " << Describe(ref.rule) << " | "
              << (caught_by.empty() ? "NOT CAUGHT" : caught_by) << " | " << refusal << " |\n";
    EXPECT_FALSE(caught_by.empty()) << ref.kind << " " << ref.key << " rule " << ref.index << " (" << Describe(ref.rule)
                                    << ") is not needed by any scenario";
  }
}

// The launcher's containers act as the launcher's service account under the Role the operator
// creates for it (pods get, list, watch; pods/exec on the job's workers): with that Role stored
// without one of its rules (an admission hook strips it, as an operator that wrote it wrong), the
// launcher's kubectl exec into the workers (or its watcher-loop init container's watch of the
// pods) is refused as on a cluster, and the job fails. karate-real-graph runs the DGL programs
// themselves (no dglsim.io/duration stand-ins).
TEST(RbacRulesTest, TheLauncherActsAsItsServiceAccountUnderTheRoleTheOperatorCreated) {
  const std::string sa = "User \"system:serviceaccount:dgl:karate-launcher\" ";
  struct Case {
    std::string stripped, refusal;
  } cases[] = {
      {"pods/exec", "pods \"karate-worker-0\" is forbidden: " + sa +
                        "cannot create resource \"pods/exec\" in API group \"\" in the namespace \"dgl\""},
      {"pods", "pods is forbidden: " + sa + "cannot list resource \"pods\" in API group \"\" in the namespace \"dgl\""},
  };
  for (const Case& c : cases) {
    Outcome o = RunWithHook("karate-real-graph", [&](sim::Simulation& sim) {
      sim.store().AddDefaulter("roles", [&](fakeapi::AdmissionRequest& r) {
        if (!kube::NameOf(*r.object).ends_with("-launcher") || !(*r.object)["rules"].is_array()) return;
        Json kept = Json::array();
        for (const Json& rule : (*r.object)["rules"])
          if (rule.value("resources", Json::array()) != Json::array({c.stripped})) kept.push_back(rule);
        (*r.object)["rules"] = kept;
      });
    });
    EXPECT_FALSE(o.passed) << c.stripped;
    bool found = false;
    for (const std::string& f : o.forbidden) found = found || f.find(c.refusal) != std::string::npos;
    EXPECT_TRUE(found) << "without " << c.stripped << ": " << (o.forbidden.empty() ? "no refusal" : o.forbidden.front());
    // Only the launcher was refused: the operator and the cluster's components were not.
    for (const std::string& f : o.forbidden) EXPECT_NE(f.find(sa), std::string::npos) << f;
  }
}

}  // namespace rbac_rules_test
}  // namespace harness
