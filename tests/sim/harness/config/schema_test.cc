// Every field of the scenario format does what its role in the schema says (schema.h), field by
// field: changing a run field changes the trace hash, changing an expectation's field changes its
// verdict and not the trace, changing a report field changes the report and not the trace, and a
// format field takes its one value only. A field added to the schema without a case here fails
// EverySchemaFieldHasAProof; a field the loader would read without a schema entry is refused as
// unknown (UnknownAndRetiredFieldsAreRefused). The runs are small: two or three nodes, one or two
// short jobs.
#include "sim/harness/config/schema.h"

#include "fakeapi/client/json.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/report/report.h"
#include "sim/harness/run/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <system_error>
#include <vector>

namespace harness {
namespace {

using json = kube::Json;
using Edit = std::function<void(json&)>;

const std::string kSchemaDataDir = std::string(DGLSIM_SOURCE_DIR) + "/tests/sim/data";

// A scratch folder for the files some cases name (manifests, edge lists, a calibration), one per
// test process, removed when the process exits (CTest runs each case in a process of its own).
struct ScratchDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("dglsim-schema-test-" + std::to_string(::getpid()));
  ScratchDir() { std::filesystem::create_directories(path); }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
};

std::string Scratch() {
  static const ScratchDir dir;
  return dir.path.string();
}

std::string WriteScratch(const std::string& name, const std::string& text) {
  const std::string path = Scratch() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

// ---- the base scenarios ----------------------------------------------------------------------------

json Template(const std::string& duration, json container) {
  return {{"metadata", {{"annotations", {{"dglsim.io/duration", duration}}}}},
          {"spec", {{"containers", json::array({std::move(container)})}}}};
}

// A DGL-API job on the generic program: a 1-minute partitioner, a 5-minute launcher, 2 one-GPU
// workers.
json GenericJob(const std::string& name, const std::string& ns = "default") {
  json main = {{"name", "main"}, {"image", "dgloperator/graphsage:v1"}, {"command", json::array({"dglrun"})}};
  json worker = {{"name", "main"},
                 {"image", "dgloperator/graphsage:v1"},
                 {"resources", {{"limits", {{"nvidia.com/gpu", "1"}, {"cpu", "4"}, {"memory", "16Gi"}}}}}};
  return {{"apiVersion", "kubeflow.org/v1alpha1"},
          {"kind", "DGLJob"},
          {"metadata", {{"name", name}, {"namespace", ns}}},
          {"spec",
           {{"partitionMode", "DGL-API"},
            {"dglReplicaSpecs",
             {{"Launcher", {{"replicas", 1}, {"template", Template("5m", main)}}},
              {"Partitioner", {{"replicas", 1}, {"template", Template("1m", main)}}},
              {"Worker", {{"replicas", 2}, {"template", Template("5m", worker)}}}}}}}};
}

// Three 4-GPU nodes and one generic job, j.
json Small() {
  return {{"apiVersion", "dglsim/v1"},
          {"kind", "Scenario"},
          {"metadata", {{"name", "fields"}}},
          {"seed", 5},
          {"until", "12h"},
          {"cluster",
           {{"nodes", json::array({{{"name", "n"},
                                     {"count", 3},
                                     {"capacity",
                                      {{"cpu", "32"}, {"memory", "128Gi"}, {"nvidia.com/gpu", "4"}, {"ephemeral-storage", "1Ti"}}}}})},
            {"images", {{"defaultSize", "1G"}}}}},
          {"jobs", json::array({{{"at", "0s"}, {"inline", GenericJob("j")}}})}};
}

// The DGL workload models (dglrun) on a small dataset, "tiny", named by the job entry.
json Models() {
  const json args = json::array({"--graph-name", "tiny", "--num-partitions", "2", "--num-epochs", "1", "--num-trainers",
                                 "1", "--num-samplers", "1", "--num-servers", "1"});
  json main = {{"name", "main"}, {"image", "dgloperator/examples:graphsage-dist"}, {"command", json::array({"dglrun"})},
               {"args", args}};
  json partitioner = main;
  partitioner["resources"] = {{"limits", {{"cpu", "8"}, {"memory", "32Gi"}}}};
  json worker = {{"name", "main"},
                 {"image", "dgloperator/examples:graphsage-dist"},
                 {"resources", {{"limits", {{"cpu", "8"}, {"memory", "32Gi"}}}}}};
  json job = {{"apiVersion", "kubeflow.org/v1alpha1"},
              {"kind", "DGLJob"},
              {"metadata", {{"name", "m"}, {"namespace", "default"}}},
              {"spec",
               {{"partitionMode", "DGL-API"},
                {"dglReplicaSpecs",
                 {{"Launcher", {{"replicas", 1}, {"template", {{"spec", {{"containers", json::array({main})}}}}}}},
                  {"Partitioner", {{"replicas", 1}, {"template", {{"spec", {{"containers", json::array({partitioner})}}}}}}},
                  {"Worker", {{"replicas", 2}, {"template", {{"spec", {{"containers", json::array({worker})}}}}}}}}}}}};
  json s = Small();
  s["cluster"]["nodes"][0]["capacity"] = {{"cpu", "32"}, {"memory", "128Gi"}, {"ephemeral-storage", "1Ti"}};
  s["datasets"] = json::array({{{"name", "tiny"}, {"nodes", 200000}, {"edges", 2000000}, {"featureDim", 16}}});
  s["jobs"] = json::array({{{"at", "0s"}, {"dataset", "tiny"}, {"inline", job}}});
  return s;
}

// No fixed node: one pool of 4-GPU nodes (at most three) that the autoscaler grows for the job.
json Pooled() {
  json s = Small();
  s["cluster"].erase("nodes");
  s["cluster"]["nodePools"] = json::array(
      {{{"name", "p"},
        {"max", 3},
        {"scaleUpDelay", "2m"},
        {"capacity", {{"cpu", "32"}, {"memory", "128Gi"}, {"nvidia.com/gpu", "4"}, {"ephemeral-storage", "1Ti"}}}}});
  return s;
}

// The workload models' job on a pool of CPU machines.
json PooledModels() {
  json s = Models();
  s["cluster"]["nodePools"] = json::array({{{"name", "p"}, {"max", 3}, {"capacity", s["cluster"]["nodes"][0]["capacity"]}}});
  s["cluster"].erase("nodes");
  return s;
}

json& Pool(json& s, std::size_t i = 0) { return s["cluster"]["nodePools"][i]; }

json& Job(json& s, std::size_t i = 0) { return s["jobs"][i]["inline"]; }
json& Nodes(json& s) { return s["cluster"]["nodes"][0]; }
void ForEachTemplate(json& job, const std::function<void(json&)>& f) {
  for (auto& [role, replica] : job["spec"]["dglReplicaSpecs"].items()) f(replica["template"]);
}
void AddJob(json& s, const json& job, const std::string& at = "0s") { s["jobs"].push_back({{"at", at}, {"inline", job}}); }
void AddFault(json& s, json fault) {
  if (!s.contains("faults")) s["faults"] = json::array();
  s["faults"].push_back(std::move(fault));
}
json& Fault(json& s, std::size_t i = 0) { return s["faults"][i]; }

Scenario LoadOrFail(const json& s) {
  ScenarioLoad load = LoadScenarioString(s.dump(), "fields.yaml", kSchemaDataDir);
  if (!load.ok()) {
    ADD_FAILURE() << (load.problems.empty() ? "no scenario" : load.problems.front()) << "\n" << s.dump(2);
    return Scenario{};
  }
  return *load.scenario;
}

// ---- the cases ----------------------------------------------------------------------------------

struct RunCase {
  std::string field;
  json (*base)();
  Edit setup;   // applied to both runs (may be empty)
  Edit change;  // applied to the second run only
};

// One case per run field: changing it changes the trace hash.
std::vector<RunCase> RunCases() {
  auto set = [](std::vector<std::string> path, json value) -> Edit {
    return [path, value](json& s) {
      json* at = &s;
      for (const auto& key : path) at = key.front() == '#' ? &(*at)[std::stoul(key.substr(1))] : &(*at)[key];
      *at = value;
    };
  };
  auto none = Edit{};
  // Two jobs j and k (k in namespace b for the namespace cases).
  Edit two_jobs = [](json& s) { AddJob(s, GenericJob("k")); };
  Edit two_namespaces = [](json& s) { AddJob(s, GenericJob("j", "b")); };
  Edit node_down = [](json& s) { AddFault(s, {{"at", "2m"}, {"kind", "NodeDown"}, {"node", "n-0"}}); };
  // The node goes down under a job whose partitions are on a claim: the operator deletes the lost
  // pods itself at NotReady, but keeps the partitioner that succeeded there (its partitions are
  // kept), which only the taint manager evicts, tolerationSeconds later.
  Edit node_down_claim = [node_down](json& s) {
    node_down(s);
    json& launcher = s["jobs"][0]["inline"]["spec"]["dglReplicaSpecs"]["Launcher"]["template"]["spec"];
    launcher["containers"][0]["volumeMounts"] = json::array({{{"name", "parts"}, {"mountPath", "/dgl_workspace/dataset"}}});
    launcher["volumes"] = json::array({{{"name", "parts"}, {"persistentVolumeClaim", {{"claimName", "parts"}}}}});
  };
  Edit pull_errors = [](json& s) {
    AddFault(s, {{"at", "0s"}, {"kind", "ImagePullError"}, {"image", "dgloperator/*"}, {"for", "10m"}});
  };
  Edit api_faults = [](json& s) {
    AddFault(s, {{"at", "0s"}, {"kind", "ApiFaults"}, {"for", "10m"}, {"conflictRate", 0.1}, {"errorRate", 0.1},
                 {"timeoutRate", 0.1}, {"latency", "10ms"}});
  };
  Edit taint = [](json& s) {
    Nodes(s)["taints"] = json::array({{{"key", "k"}, {"value", "v"}, {"effect", "NoSchedule"}}});
    ForEachTemplate(Job(s), [](json& t) {
      t["spec"]["tolerations"] =
          json::array({{{"key", "k"}, {"operator", "Equal"}, {"value", "v"}, {"effect", "NoSchedule"}}});
    });
  };
  Edit pool_taint = [](json& s) {
    Pool(s)["taints"] = json::array({{{"key", "k"}, {"value", "v"}, {"effect", "NoSchedule"}}});
    ForEachTemplate(Job(s), [](json& t) {
      t["spec"]["tolerations"] =
          json::array({{{"key", "k"}, {"operator", "Equal"}, {"value", "v"}, {"effect", "NoSchedule"}}});
    });
  };
  Edit second_pool = [](json& s) {
    json q = Pool(s);
    q["name"] = "q";
    s["cluster"]["nodePools"].push_back(q);
    s["cluster"]["autoscaler"] = {{"expander", "priority"}};
  };
  // The operator's events rule (rule 7 of deploy/rbac.yaml's ClusterRole) removed a second in.
  auto rbac_fault = [](json& s) {
    AddFault(s, {{"at", "1s"}, {"kind", "RbacRuleRemoved"}, {"role", "ClusterRole/dgl-operator"}, {"rule", 7}});
  };
  const std::string manifest_a = WriteScratch("job-a.yaml", GenericJob("j").dump());
  json one_worker = GenericJob("j");
  one_worker["spec"]["dglReplicaSpecs"]["Worker"]["replicas"] = 1;
  const std::string manifest_b = WriteScratch("job-b.yaml", one_worker.dump());
  const std::string edges_b = WriteScratch("ring.txt", [] {
    std::string text;
    for (int i = 0; i < 40; ++i) text += std::to_string(i) + " " + std::to_string((i + 1) % 40) + "\n";
    return text;
  }());
  // Arrivals: a Poisson process of generic jobs, or a trace of submit times (a template named per line).
  auto arrival = [](json a) -> Edit { return [a](json& s) { s["arrivals"] = json::array({a}); }; };
  const json poisson = {{"name", "a"}, {"process", "Poisson"}, {"meanInterval", "10m"}, {"count", 3},
                        {"templates", json::array({{{"inline", GenericJob("x")}}})}};
  const json two_templates = {{"name", "a"}, {"process", "Poisson"}, {"meanInterval", "10m"}, {"count", 6},
                              {"templates", json::array({{{"inline", GenericJob("x")}}, {{"inline", one_worker}}})}};
  const std::string trace_a = WriteScratch("arrivals-a.txt", "0s\n2m\n");
  const std::string trace_b = WriteScratch("arrivals-b.txt", "0s\n7m\n");
  const std::string trace_named = WriteScratch("arrivals-named.txt", "0s one\n5m two\n");
  const json traced = {{"name", "a"}, {"process", "Trace"}, {"file", trace_a}, {"templates", json::array({{{"inline", GenericJob("x")}}})}};
  const json named = {{"name", "a"},
                      {"process", "Trace"},
                      {"file", trace_named},
                      {"templates", json::array({{{"name", "one"}, {"inline", GenericJob("x")}}, {{"name", "two"}, {"inline", one_worker}}})}};
  json models_job = Models()["jobs"][0]["inline"];
  const json with_dataset = {{"name", "a"}, {"process", "Poisson"}, {"meanInterval", "10m"}, {"count", 2},
                             {"templates", json::array({{{"dataset", "tiny"}, {"inline", models_job}}})}};
  const json from_manifest = {{"name", "a"}, {"process", "Poisson"}, {"meanInterval", "10m"}, {"count", 2},
                              {"templates", json::array({{{"manifest", manifest_a}}})}};
  auto in_arrival = [](std::vector<std::string> path, json value) -> Edit {
    return [path, value](json& s) {
      json* at = &s["arrivals"][0];
      for (const auto& key : path) at = key.front() == '#' ? &(*at)[std::stoul(key.substr(1))] : &(*at)[key];
      *at = value;
    };
  };
  const std::string calibration = WriteScratch(
      "calibration.yaml", "apiVersion: dglsim/v1\nkind: Calibration\npartition: {metisEdgesPerSecond: 1000}\n");
  return {
      {"seed", Small, none, set({"seed"}, 6)},
      {"until", Small, none, set({"until"}, "5m")},
      {"cluster.nodes[].name", Small, none, [](json& s) { Nodes(s)["name"] = "m"; }},
      {"cluster.nodes[].count", Small, none, [](json& s) { Nodes(s)["count"] = 4; }},
      {"cluster.nodes[].capacity", Small, none, [](json& s) { Nodes(s)["capacity"]["memory"] = "8Gi"; }},
      {"cluster.nodes[].labels", Small,
       [](json& s) {
         Nodes(s)["labels"] = {{"pool", "a"}};
         Job(s)["spec"]["dglReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"] = {{"pool", "a"}};
       },
       [](json& s) { Nodes(s)["labels"] = {{"pool", "b"}}; }},
      {"cluster.nodes[].taints[].key", Small, taint, [](json& s) { Nodes(s)["taints"][0]["key"] = "k2"; }},
      {"cluster.nodes[].taints[].value", Small, taint, [](json& s) { Nodes(s)["taints"][0]["value"] = "v2"; }},
      {"cluster.nodes[].taints[].effect", Small, taint, [](json& s) { Nodes(s)["taints"][0]["effect"] = "NoExecute"; }},
      {"cluster.nodes[].network", Small, none, [](json& s) { Nodes(s)["network"] = "10Mbps"; }},
      {"cluster.nodes[].disk", Small, none, [](json& s) { Nodes(s)["disk"] = "10MBps"; }},
      {"cluster.nodes[].cpuSpeed", Models, none, [](json& s) { Nodes(s)["cpuSpeed"] = 0.25; }},
      // A mean time between failures short enough that nodes fail while the 6-minute job runs.
      {"cluster.nodes[].mtbf", Small, none, [](json& s) { Nodes(s)["mtbf"] = "2m"; }},
      {"cluster.nodes[].repairTime", Small, [](json& s) { Nodes(s)["mtbf"] = "2m"; }, [](json& s) { Nodes(s)["repairTime"] = "5m"; }},
      {"cluster.nodes[].manifest", Small, none, set({"cluster", "nodes", "#0"}, {{"manifest", "nodes.yaml"}})},
      {"cluster.nodePools[].name", Pooled, none, [](json& s) { Pool(s)["name"] = "q"; }},
      {"cluster.nodePools[].min", Pooled, none, [](json& s) { Pool(s)["min"] = 1; }},
      // Two jobs on 2-GPU nodes need two nodes at once; with one, the second job waits.
      {"cluster.nodePools[].max", Pooled,
       [two_jobs](json& s) {
         two_jobs(s);
         Pool(s)["capacity"]["nvidia.com/gpu"] = "2";
       },
       [](json& s) { Pool(s)["max"] = 1; }},
      {"cluster.nodePools[].capacity", Pooled, none, [](json& s) { Pool(s)["capacity"]["memory"] = "8Gi"; }},
      {"cluster.nodePools[].labels", Pooled,
       [](json& s) {
         Pool(s)["labels"] = {{"pool", "a"}};
         Job(s)["spec"]["dglReplicaSpecs"]["Worker"]["template"]["spec"]["nodeSelector"] = {{"pool", "a"}};
       },
       [](json& s) { Pool(s)["labels"] = {{"pool", "b"}}; }},
      {"cluster.nodePools[].taints[].key", Pooled, pool_taint, [](json& s) { Pool(s)["taints"][0]["key"] = "k2"; }},
      {"cluster.nodePools[].taints[].value", Pooled, pool_taint, [](json& s) { Pool(s)["taints"][0]["value"] = "v2"; }},
      {"cluster.nodePools[].taints[].effect", Pooled, pool_taint, [](json& s) { Pool(s)["taints"][0]["effect"] = "NoExecute"; }},
      {"cluster.nodePools[].network", Pooled, none, [](json& s) { Pool(s)["network"] = "10Mbps"; }},
      {"cluster.nodePools[].disk", Pooled, none, [](json& s) { Pool(s)["disk"] = "10MBps"; }},
      {"cluster.nodePools[].cpuSpeed", PooledModels, none, [](json& s) { Pool(s)["cpuSpeed"] = 0.25; }},
      {"cluster.nodePools[].scaleUpDelay", Pooled, none, [](json& s) { Pool(s)["scaleUpDelay"] = "5m"; }},
      // Two pools alike but for their names: the priority expander takes the one listed first
      // unless the other's priority is higher.
      {"cluster.nodePools[].priority", Pooled, second_pool, [](json& s) { Pool(s, 1)["priority"] = 10; }},
      {"cluster.nodePools[].spot.meanTimeToInterruption", Pooled, none,
       [](json& s) { Pool(s)["spot"] = {{"meanTimeToInterruption", "2m"}}; }},
      {"cluster.nodePools[].spot.notice", Pooled, [](json& s) { Pool(s)["spot"] = {{"meanTimeToInterruption", "2m"}}; },
       [](json& s) { Pool(s)["spot"]["notice"] = "30s"; }},
      // A roomier machine listed first: least waste takes the other, priority (all 0) the first.
      {"cluster.autoscaler.expander", Pooled,
       [](json& s) {
         json big = Pool(s);
         big["name"] = "big";
         big["capacity"]["cpu"] = "96";
         big["capacity"]["memory"] = "512Gi";
         s["cluster"]["nodePools"].insert(s["cluster"]["nodePools"].begin(), big);
       },
       set({"cluster", "autoscaler", "expander"}, "priority")},
      {"cluster.autoscaler.scanInterval", Pooled, none, set({"cluster", "autoscaler", "scanInterval"}, "1m")},
      {"cluster.autoscaler.scaleDownUnneededTime", Pooled, none, set({"cluster", "autoscaler", "scaleDownUnneededTime"}, "1m")},
      {"cluster.autoscaler.scaleDownDelayAfterAdd", Pooled, set({"cluster", "autoscaler", "scaleDownUnneededTime"}, "1m"),
       set({"cluster", "autoscaler", "scaleDownDelayAfterAdd"}, "1m")},
      {"cluster.storage.bandwidth", Models, none, set({"cluster", "storage", "bandwidth"}, "5MBps")},
      // A second job on a bigger graph: the two jobs' downloads share the storage and end at
      // different times, so the re-rate after the first ending waits.
      {"cluster.network.rerateWindow", Models,
       [](json& s) {
         s["datasets"].push_back({{"name", "big"}, {"nodes", 800000}, {"edges", 8000000}, {"featureDim", 16}});
         json second = s["jobs"][0];
         second["dataset"] = "big";
         second["inline"]["metadata"]["name"] = "m2";
         s["jobs"].push_back(second);
       },
       set({"cluster", "network", "rerateWindow"}, 0.5)},
      {"cluster.scheduler.scoring", Small, none, set({"cluster", "scheduler", "scoring"}, "MostAllocated")},
      {"cluster.scheduler.gang", Small, set({"operator", "gangScheduling"}, true), set({"cluster", "scheduler", "gang"}, true)},
      // Over 100 nodes a decision looks at its share of them only, from where the last one stopped.
      {"cluster.scheduler.percentageOfNodesToScore", Small, [](json& s) { Nodes(s)["count"] = 200; },
       set({"cluster", "scheduler", "percentageOfNodesToScore"}, 0)},
      // Worker 0 pinned beside the partitioner (n-0, where the image is already pulled), or not.
      {"cluster.scheduler.placements[].pod", Small,
       set({"cluster", "scheduler", "placements"}, json::array({{{"pod", "j-worker-0"}, {"nodes", json::array({"n-0"})}}})),
       [](json& s) { s["cluster"]["scheduler"]["placements"][0]["pod"] = "j-partitioner"; }},
      {"cluster.scheduler.placements[].nodes", Small,
       set({"cluster", "scheduler", "placements"}, json::array({{{"pod", "j-worker-0"}, {"nodes", json::array({"n-0"})}}})),
       [](json& s) { s["cluster"]["scheduler"]["placements"][0]["nodes"] = json::array({"n-1"}); }},
      {"cluster.images.pullBandwidth", Small, none, set({"cluster", "images", "pullBandwidth"}, "20MBps")},
      {"cluster.images.defaultSize", Small, none, set({"cluster", "images", "defaultSize"}, "3G")},
      {"cluster.images.sizes", Small, none, set({"cluster", "images", "sizes"}, {{"dgloperator/graphsage:v1", "3G"}})},
      {"cluster.timings.podStartup", Small, none, set({"cluster", "timings", "podStartup"}, "5s")},
      {"cluster.timings.nodeMonitorGracePeriod", Small, node_down, set({"cluster", "timings", "nodeMonitorGracePeriod"}, "20s")},
      {"cluster.timings.tolerationSeconds", Small, node_down_claim, set({"cluster", "timings", "tolerationSeconds"}, "60s")},
      {"cluster.timings.podRestartBackoff", Small, pull_errors, set({"cluster", "timings", "podRestartBackoff"}, "30s")},
      {"cluster.timings.podRestartBackoffMax", Small, pull_errors, set({"cluster", "timings", "podRestartBackoffMax"}, "30s")},
      {"api.watchLatency", Small, none, set({"api", "watchLatency"}, "5ms")},
      {"api.requestLatency", Small, none, set({"api", "requestLatency"}, "10ms")},
      {"operator.enabled", Small, none, set({"operator", "enabled"}, false)},
      {"operator.reconcileLatency", Small, none, set({"operator", "reconcileLatency"}, "100ms")},
      {"operator.gangScheduling", Small, none, set({"operator", "gangScheduling"}, true)},
      // An operator whose role grants all it needs but Events: its Events are refused.
      {"operator.rbac", Small, none,
       set({"operator", "rbac"},
           WriteScratch("rbac-no-events.yaml",
                        "apiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRole\nmetadata: {name: dgl-operator}\n"
                        "rules: [{apiGroups: ['', kubeflow.org, rbac.authorization.k8s.io, scheduling.x-k8s.io], "
                        "resources: [pods, pods/exec, configmaps, services, serviceaccounts, nodes, dgljobs, "
                        "dgljobs/status, roles, rolebindings, podgroups], verbs: ['*']}]\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: ClusterRoleBinding\n"
                        "metadata: {name: dgl-operator}\nroleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, "
                        "name: dgl-operator}\nsubjects: [{kind: ServiceAccount, name: dgl-operator, namespace: dgl-operator}]\n"))},
      {"calibration", Models, none, set({"calibration"}, calibration)},
      {"datasets[].name", Models, [](json& s) { s["jobs"][0].erase("dataset"); },
       [](json& s) { s["datasets"][0]["name"] = "other"; }},
      {"datasets[].preset", Models, [](json& s) { s["datasets"][0] = {{"name", "tiny"}, {"preset", "ogbn-arxiv"}}; },
       [](json& s) { s["datasets"][0]["preset"] = "ogbn-proteins"; }},
      {"datasets[].nodes", Models, none, [](json& s) { s["datasets"][0]["nodes"] = 400000; }},
      {"datasets[].edges", Models, none, [](json& s) { s["datasets"][0]["edges"] = 8000000; }},
      {"datasets[].featureDim", Models, none, [](json& s) { s["datasets"][0]["featureDim"] = 256; }},
      {"datasets[].structure", Models, none, [](json& s) { s["datasets"][0]["structure"] = "random"; }},
      {"datasets[].url", Models,
       [](json& s) {
         s["jobs"][0].erase("dataset");
         s["datasets"][0]["name"] = "unnamed";
         s["datasets"][0]["url"] = "http://example.com/tiny.zip";
         ForEachTemplate(Job(s), [](json& t) {
           for (auto& c : t["spec"]["containers"])
             if (c.contains("args")) c["args"] = json::array({"--dataset-url", "http://example.com/tiny.zip"});
         });
       },
       [](json& s) { s["datasets"][0]["url"] = "http://example.com/other.zip"; }},
      {"datasets[].edgeList", Models, [](json& s) { s["datasets"][0] = {{"name", "tiny"}, {"edgeList", "graphs/karate.txt"}}; },
       [edges_b](json& s) { s["datasets"][0]["edgeList"] = edges_b; }},
      {"jobs[].at", Small, none, set({"jobs", "#0", "at"}, "1m")},
      {"jobs[].manifest", Small, [manifest_a](json& s) { s["jobs"][0] = {{"at", "0s"}, {"manifest", manifest_a}}; },
       [manifest_b](json& s) { s["jobs"][0]["manifest"] = manifest_b; }},
      {"jobs[].inline", Small, none, [](json& s) { Job(s)["spec"]["dglReplicaSpecs"]["Worker"]["replicas"] = 1; }},
      {"jobs[].dataset", Models, [](json& s) { s["datasets"].push_back({{"name", "big"}, {"nodes", 2000000}, {"edges", 20000000}}); },
       set({"jobs", "#0", "dataset"}, "big")},
      {"jobs[].delete.name", Small, [two_jobs](json& s) {
         two_jobs(s);
         s["jobs"].push_back({{"at", "2m"}, {"delete", {{"name", "j"}}}});
       },
       set({"jobs", "#2", "delete", "name"}, "k")},
      {"jobs[].delete.namespace", Small, [two_namespaces](json& s) {
         two_namespaces(s);
         s["jobs"].push_back({{"at", "2m"}, {"delete", {{"namespace", "default"}, {"name", "j"}}}});
       },
       set({"jobs", "#2", "delete", "namespace"}, "b")},
      {"jobs[].suspend.name", Small, [two_jobs](json& s) {
         two_jobs(s);
         s["jobs"].push_back({{"at", "2m"}, {"suspend", {{"name", "j"}}}});
       },
       set({"jobs", "#2", "suspend", "name"}, "k")},
      {"jobs[].suspend.namespace", Small, [two_namespaces](json& s) {
         two_namespaces(s);
         s["jobs"].push_back({{"at", "2m"}, {"suspend", {{"namespace", "default"}, {"name", "j"}}}});
       },
       set({"jobs", "#2", "suspend", "namespace"}, "b")},
      {"jobs[].resume.name", Small, [two_jobs](json& s) {
         two_jobs(s);
         s["jobs"].push_back({{"at", "1m"}, {"suspend", "j"}});
         s["jobs"].push_back({{"at", "1m"}, {"suspend", "k"}});
         s["jobs"].push_back({{"at", "3m"}, {"resume", {{"name", "j"}}}});
       },
       set({"jobs", "#4", "resume", "name"}, "k")},
      {"jobs[].resume.namespace", Small, [two_namespaces](json& s) {
         two_namespaces(s);
         s["jobs"].push_back({{"at", "1m"}, {"suspend", "default/j"}});
         s["jobs"].push_back({{"at", "1m"}, {"suspend", "b/j"}});
         s["jobs"].push_back({{"at", "3m"}, {"resume", {{"namespace", "default"}, {"name", "j"}}}});
       },
       set({"jobs", "#4", "resume", "namespace"}, "b")},
      {"arrivals[].name", Small, arrival(poisson), in_arrival({"name"}, "b")},
      {"arrivals[].process", Small, arrival(traced),
       [](json& s) {
         s["arrivals"][0].erase("file");
         s["arrivals"][0]["process"] = "Poisson";
         s["arrivals"][0]["meanInterval"] = "10m";
         s["arrivals"][0]["count"] = 2;
       }},
      {"arrivals[].meanInterval", Small, arrival(poisson), in_arrival({"meanInterval"}, "20m")},
      {"arrivals[].count", Small, arrival(poisson), in_arrival({"count"}, 2)},
      {"arrivals[].start", Small, arrival(poisson), in_arrival({"start"}, "1m")},
      {"arrivals[].file", Small, arrival(traced), in_arrival({"file"}, trace_b)},
      {"arrivals[].templates[].weight", Small, arrival(two_templates), in_arrival({"templates", "#1", "weight"}, 100)},
      {"arrivals[].templates[].name", Small, arrival(named),
       [](json& s) {
         s["arrivals"][0]["templates"][0]["name"] = "two";
         s["arrivals"][0]["templates"][1]["name"] = "one";
       }},
      {"arrivals[].templates[].dataset", Models,
       [with_dataset](json& s) {
         s["datasets"].push_back({{"name", "big"}, {"nodes", 2000000}, {"edges", 20000000}});
         s["arrivals"] = json::array({with_dataset});
       },
       in_arrival({"templates", "#0", "dataset"}, "big")},
      {"arrivals[].templates[].manifest", Small, arrival(from_manifest), in_arrival({"templates", "#0", "manifest"}, manifest_b)},
      {"arrivals[].templates[].inline", Small, arrival(poisson),
       in_arrival({"templates", "#0", "inline", "spec", "dglReplicaSpecs", "Worker", "replicas"}, 1)},
      {"faults[].at", Small, [](json& s) { AddFault(s, {{"at", "1m"}, {"kind", "OperatorRestart"}}); },
       [](json& s) { Fault(s)["at"] = "3m"; }},
      {"faults[].when.job", Small, [](json& s) {
         AddJob(s, GenericJob("k"), "2m");
         AddFault(s, {{"when", {{"job", "j"}, {"phase", "Training"}}}, {"kind", "PodKill"}, {"pod", "j-worker-0"}});
       },
       [](json& s) {
         Fault(s)["when"]["job"] = "k";
         Fault(s)["pod"] = "j-worker-0";
       }},
      {"faults[].when.phase", Small,
       [](json& s) { AddFault(s, {{"when", {{"job", "j"}, {"phase", "Training"}}}, {"after", "1m"}, {"kind", "OperatorRestart"}}); },
       [](json& s) { Fault(s)["when"]["phase"] = "Partitioning"; }},
      {"faults[].after", Small,
       [](json& s) { AddFault(s, {{"when", {{"job", "j"}, {"phase", "Training"}}}, {"after", "1m"}, {"kind", "OperatorRestart"}}); },
       [](json& s) { Fault(s)["after"] = "2m"; }},
      {"faults[].kind", Small, [](json& s) { AddFault(s, {{"at", "1m"}, {"kind", "WatchDrop"}}); },
       [](json& s) { Fault(s)["kind"] = "OperatorRestart"; }},
      {"faults[NodeDown].node", Small, node_down, [](json& s) { Fault(s)["node"] = "n-2"; }},
      {"faults[NodeDown].nodeOf", Small, [](json& s) { AddFault(s, {{"at", "3m"}, {"kind", "NodeDown"}, {"nodeOf", "j-worker-0"}}); },
       [](json& s) { Fault(s)["nodeOf"] = "j-launcher"; }},
      {"faults[NodeDown].for", Small, node_down, [](json& s) { Fault(s)["for"] = "2m"; }},
      {"faults[NodeUp].node", Small,
       [](json& s) {
         AddFault(s, {{"at", "1m"}, {"kind", "NodeDown"}, {"node", "n-0"}});
         AddFault(s, {{"at", "1m"}, {"kind", "NodeDown"}, {"node", "n-1"}});
         AddFault(s, {{"at", "3m"}, {"kind", "NodeUp"}, {"node", "n-0"}});
       },
       [](json& s) { Fault(s, 2)["node"] = "n-1"; }},
      {"faults[PodKill].pod", Small, [](json& s) { AddFault(s, {{"at", "4m"}, {"kind", "PodKill"}, {"pod", "j-worker-0"}}); },
       [](json& s) { Fault(s)["pod"] = "j-launcher"; }},
      {"faults[PodKill].container", Small, [](json& s) { AddFault(s, {{"at", "4m"}, {"kind", "PodKill"}, {"pod", "j-worker-0"}}); },
       [](json& s) { Fault(s)["container"] = "sidecar"; }},
      {"faults[PodKill].exitCode", Small, [](json& s) { AddFault(s, {{"at", "4m"}, {"kind", "PodKill"}, {"pod", "j-worker-0"}}); },
       [](json& s) { Fault(s)["exitCode"] = 0; }},
      {"faults[OOM].pod", Small, [](json& s) { AddFault(s, {{"at", "4m"}, {"kind", "OOM"}, {"pod", "j-worker-0"}}); },
       [](json& s) { Fault(s)["pod"] = "j-launcher"; }},
      {"faults[OOM].container", Small, [](json& s) { AddFault(s, {{"at", "4m"}, {"kind", "OOM"}, {"pod", "j-worker-0"}}); },
       [](json& s) { Fault(s)["container"] = "sidecar"; }},
      {"faults[ImagePullError].image", Small, pull_errors, [](json& s) { Fault(s)["image"] = "other/*"; }},
      {"faults[ImagePullError].node", Small, [pull_errors](json& s) {
         pull_errors(s);
         Fault(s)["node"] = "n-0";
       },
       [](json& s) { Fault(s)["node"] = "n-2"; }},
      {"faults[ImagePullError].for", Small, pull_errors, [](json& s) { Fault(s)["for"] = "2m"; }},
      {"faults[NetworkSlow].node", Small,
       [](json& s) { AddFault(s, {{"at", "0s"}, {"kind", "NetworkSlow"}, {"node", "n-0"}, {"factor", 0.001}, {"for", "10m"}}); },
       [](json& s) { Fault(s)["node"] = "n-2"; }},
      {"faults[NetworkSlow].factor", Small,
       [](json& s) { AddFault(s, {{"at", "0s"}, {"kind", "NetworkSlow"}, {"factor", 0.001}, {"for", "10m"}}); },
       [](json& s) { Fault(s)["factor"] = 0.002; }},
      {"faults[NetworkSlow].for", Small,
       [](json& s) { AddFault(s, {{"at", "0s"}, {"kind", "NetworkSlow"}, {"factor", 0.001}, {"for", "10m"}}); },
       [](json& s) { Fault(s)["for"] = "1m"; }},
      {"faults[ApiFaults].for", Small, api_faults, [](json& s) { Fault(s)["for"] = "1m"; }},
      {"faults[ApiFaults].conflictRate", Small, api_faults, [](json& s) { Fault(s)["conflictRate"] = 0.5; }},
      {"faults[ApiFaults].errorRate", Small, api_faults, [](json& s) { Fault(s)["errorRate"] = 0.5; }},
      {"faults[ApiFaults].timeoutRate", Small, api_faults, [](json& s) { Fault(s)["timeoutRate"] = 0.5; }},
      {"faults[ApiFaults].latency", Small, api_faults, [](json& s) { Fault(s)["latency"] = "100ms"; }},
      {"faults[WatchDrop]", Small, none, [](json& s) { AddFault(s, {{"at", "2m"}, {"kind", "WatchDrop"}}); }},
      {"faults[OperatorRestart].for", Small, [](json& s) { AddFault(s, {{"at", "1m"}, {"kind", "OperatorRestart"}}); },
       [](json& s) { Fault(s)["for"] = "3m"; }},
      {"faults[RbacRuleRemoved].role", Small, rbac_fault, [](json& s) { Fault(s)["role"] = "ClusterRole/system:node"; }},
      {"faults[RbacRuleRemoved].rule", Small, rbac_fault, [](json& s) { Fault(s)["rule"] = 2; }},
      {"faults[RbacRuleRemoved].for", Small, rbac_fault, [](json& s) { Fault(s)["for"] = "10s"; }},
      {"faults[NodeDeleted].node", Small, [](json& s) { AddFault(s, {{"at", "3m"}, {"kind", "NodeDeleted"}, {"node", "n-0"}}); },
       [](json& s) { Fault(s)["node"] = "n-2"; }},
      {"faults[NodeDeleted].nodeOf", Small,
       [](json& s) { AddFault(s, {{"at", "3m"}, {"kind", "NodeDeleted"}, {"nodeOf", "j-worker-0"}}); },
       [](json& s) { Fault(s)["nodeOf"] = "j-launcher"; }},
  };
}

// The verdict cases: a base expectation that holds on the small run, and a change of one field
// that makes it fail. `rerun`: the change alters what the run records (a pod count's time), so it
// runs again, and the trace must come out the same.
struct VerdictCase {
  std::string field;
  json expect;
  Edit change;
  bool rerun = false;
};

std::vector<VerdictCase> VerdictCases() {
  auto set = [](std::string key, json value) -> Edit { return [key, value](json& e) { e[key] = value; }; };
  const json selector = {{"namespace", "default"}, {"selector", "training.kubeflow.org/job-name=j"}};
  return {
      {"expect[phase].job", {{"job", "j"}, {"phase", "Succeeded"}}, set("job", "k")},
      {"expect[phase].phase", {{"job", "j"}, {"phase", "Succeeded"}}, set("phase", "Failed")},
      {"expect[phases].job", {{"job", "j"}, {"phases", {"Pending", "Succeeded"}}}, set("job", "k")},
      {"expect[phases].phases", {{"job", "j"}, {"phases", {"Pending", "Succeeded"}}}, set("phases", {"Restarting"})},
      {"expect[condition].job", {{"job", "j"}, {"condition", "Succeeded"}}, set("job", "k")},
      {"expect[condition].condition", {{"job", "j"}, {"condition", "Succeeded"}}, set("condition", "Failed")},
      {"expect[condition].reason", {{"job", "j"}, {"condition", "Succeeded"}}, set("reason", "NoSuchReason")},
      {"expect[condition].status", {{"job", "j"}, {"condition", "Succeeded"}}, set("status", "False")},
      {"expect[within].job", {{"job", "j"}, {"within", "1h"}}, set("job", "k")},
      {"expect[within].within", {{"job", "j"}, {"within", "1h"}}, set("within", "1s")},
      {"expect[restarts].job", {{"job", "j"}, {"restarts", 0}}, set("job", "k")},
      {"expect[restarts].restarts", {{"job", "j"}, {"restarts", 0}}, set("restarts", 1)},
      {"expect[configMap].configMap", {{"configMap", "j-config"}, {"key", "hostfile"}, {"lines", 2}}, set("configMap", "k-config")},
      {"expect[configMap].key", {{"configMap", "j-config"}, {"key", "hostfile"}, {"lines", 2}}, set("key", "partfile")},
      {"expect[configMap].lines", {{"configMap", "j-config"}, {"key", "hostfile"}, {"lines", 2}}, set("lines", 3)},
      {"expect[configMap].line", {{"configMap", "j-config"}, {"key", "hostfile"}, {"line", 0}, {"matches", "worker-0"}},
       set("line", 1)},
      {"expect[configMap].matches", {{"configMap", "j-config"}, {"key", "hostfile"}, {"line", 0}, {"matches", "worker-0"}},
       set("matches", "^nothing$")},
      {"expect[breakdown].job", {{"job", "j"}, {"breakdown", "imagePull"}, {"between", {"1s", "1h"}}}, set("job", "k")},
      {"expect[breakdown].breakdown", {{"job", "j"}, {"breakdown", "imagePull"}, {"between", {"1s", "1h"}}},
       set("breakdown", "partition")},
      {"expect[breakdown].between", {{"job", "j"}, {"breakdown", "imagePull"}, {"between", {"1s", "1h"}}},
       set("between", {"2h", "3h"})},
      {"expect[peakMemory].job", {{"job", "j"}, {"peakMemory", "worker"}, {"between", {"0", "1Ti"}}}, set("job", "k")},
      {"expect[peakMemory].peakMemory", {{"job", "j"}, {"peakMemory", "worker"}, {"between", {"0", "1Ti"}}},
       set("peakMemory", "partitioner")},
      {"expect[peakMemory].between", {{"job", "j"}, {"peakMemory", "worker"}, {"between", {"0", "1Ti"}}},
       set("between", {"2Ti", "3Ti"})},
      {"expect[pods].pods.namespace", {{"pods", selector}, {"count", 4}, {"at", "4m"}},
       [](json& e) { e["pods"]["namespace"] = "b"; }, true},
      {"expect[pods].pods.selector", {{"pods", selector}, {"count", 4}, {"at", "4m"}},
       [](json& e) { e["pods"]["selector"] = "training.kubeflow.org/job-name=k"; }, true},
      {"expect[pods].count", {{"pods", selector}, {"count", 4}, {"at", "4m"}}, set("count", 5), true},
      {"expect[pods].at", {{"pods", selector}, {"count", 4}, {"at", "4m"}}, set("at", "10s"), true},
      {"expect[nodes].nodes", {{"nodes", 3}, {"at", "4m"}}, set("nodes", 2)},
      // After the run's end (until is 12h), there is nothing to count.
      {"expect[nodes].at", {{"nodes", 3}, {"at", "4m"}}, set("at", "13h")},
      {"expect[invariants].invariants", {{"invariants", "all"}}, set("invariants", {"noSuchInvariant"})},
  };
}

// ---- the proofs -----------------------------------------------------------------------------------

bool HasFieldsUnder(std::string_view path) {
  for (const SchemaField& f : ScenarioSchema())
    if (f.path.size() > path.size() && f.path.starts_with(path) && (f.path[path.size()] == '.' || f.path[path.size()] == '['))
      return true;
  return false;
}

TEST(SchemaTest, EverySchemaFieldHasAProof) {
  std::set<std::string> proven;
  for (const RunCase& c : RunCases()) proven.insert(c.field);
  for (const VerdictCase& c : VerdictCases()) proven.insert(c.field);
  for (const char* f : {"metadata.name", "metadata.description", "metadata.labels", "metadata.annotations",
                        "cluster.nodes[].pricePerHour", "cluster.nodePools[].pricePerHour", "apiVersion", "kind"})
    proven.insert(f);
  for (const SchemaField& f : ScenarioSchema()) {
    if (HasFieldsUnder(f.path)) continue;  // a mapping whose fields are listed is proven through them
    EXPECT_TRUE(proven.count(std::string(f.path))) << f.path << " is in the schema but no case here proves what it does";
  }
  for (const std::string& field : proven) {
    auto it = std::find_if(ScenarioSchema().begin(), ScenarioSchema().end(),
                           [&](const SchemaField& f) { return f.path == field; });
    EXPECT_NE(it, ScenarioSchema().end()) << field << " has a case but is not in the schema";
  }
}

// One test per run field (RunFieldTest/EveryRunFieldChangesTheTraceHash.<field>), so that the runs,
// a third of this binary's time, spread over the shards CI runs side by side. A base scenario that
// several fields share runs once per process.
class RunFieldTest : public ::testing::TestWithParam<std::size_t> {};

TEST_P(RunFieldTest, EveryRunFieldChangesTheTraceHash) {
  static std::map<std::string, std::string> base_hashes;  // by base scenario text
  const std::vector<RunCase> cases = RunCases();
  ASSERT_LT(GetParam(), cases.size());
  const RunCase& c = cases[GetParam()];
  SCOPED_TRACE(c.field);
  auto role = std::find_if(ScenarioSchema().begin(), ScenarioSchema().end(),
                           [&](const SchemaField& f) { return f.path == c.field; });
  ASSERT_NE(role, ScenarioSchema().end());
  EXPECT_EQ(role->role, FieldRole::kRun);
  json base = c.base();
  if (c.setup) c.setup(base);
  json changed = base;
  c.change(changed);
  const std::string key = base.dump();
  if (!base_hashes.count(key)) base_hashes[key] = RunScenario(LoadOrFail(base)).trace_hash;
  const std::string after = RunScenario(LoadOrFail(changed)).trace_hash;
  EXPECT_NE(base_hashes[key], after) << "changing " << c.field << " left the run as it was:\n" << changed.dump();
}

// The test's name says the field: cluster.nodes[].count -> cluster_nodes_count, with the case's
// index for the fields that have two cases.
std::string RunFieldName(const ::testing::TestParamInfo<std::size_t>& info) {
  const std::string field = RunCases()[info.param].field;
  std::string name;
  for (char ch : field) {
    if (std::isalnum(static_cast<unsigned char>(ch))) {
      name += ch;
    } else if (!name.empty() && name.back() != '_') {
      name += '_';
    }
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  return name + "_" + std::to_string(info.param);
}

INSTANTIATE_TEST_SUITE_P(SchemaTest, RunFieldTest, ::testing::Range<std::size_t>(0, RunCases().size()), RunFieldName);

TEST(SchemaTest, EveryExpectationFieldChangesTheVerdictAndNotTheRun) {
  // Job k is named by the scenario but due after `until`: never submitted, so every expectation
  // moved from j to k fails.
  json base = Small();
  AddJob(base, GenericJob("k"), "13h");
  // The operator gives workers the DGL worker's command, which reports no memory; the generic
  // program reports the figure it is told.
  json& worker_annotations = Job(base)["spec"]["dglReplicaSpecs"]["Worker"]["template"]["metadata"]["annotations"];
  worker_annotations["dglsim.io/program"] = "generic";
  worker_annotations["dglsim.io/peak-memory"] = "1Gi";
  base["expect"] = json::array();
  for (const VerdictCase& c : VerdictCases()) base["expect"].push_back(c.expect);
  Scenario scenario = LoadOrFail(base);
  RunRecord record = RunScenario(scenario);
  std::vector<ExpectationResult> results = EvaluateExpectations(scenario, record);
  auto cases = VerdictCases();
  ASSERT_EQ(results.size(), cases.size());
  for (std::size_t i = 0; i < cases.size(); ++i) {
    SCOPED_TRACE(cases[i].field);
    EXPECT_TRUE(results[i].passed) << results[i].text << ": " << results[i].detail;
    json changed = base;
    cases[i].change(changed["expect"][i]);
    if (cases[i].field == "expect[invariants].invariants") {
      // An invariant the registry does not have is refused; a list without the broken one is not
      // the point here: refusing is the verdict.
      EXPECT_FALSE(LoadScenarioString(changed.dump(), "fields.yaml", kSchemaDataDir).ok());
      continue;
    }
    Scenario other = LoadOrFail(changed);
    RunRecord other_record = cases[i].rerun ? RunScenario(other) : record;
    EXPECT_EQ(other_record.trace_hash, record.trace_hash) << "an expectation changed the run";
    EXPECT_FALSE(EvaluateExpectation(other.expectations[i], i, other_record).passed) << changed["expect"][i].dump();
  }
  // Every expectation at once changes the run no more than one does.
  json all_changed = base;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (cases[i].field != "expect[invariants].invariants") cases[i].change(all_changed["expect"][i]);
  EXPECT_EQ(RunScenario(LoadOrFail(all_changed)).trace_hash, record.trace_hash);
}

TEST(SchemaTest, ReportFieldsChangeTheReportAndNotTheRun) {
  json base = Small();
  base["metadata"] = {{"name", "a"}, {"description", "one"}, {"labels", {{"team", "x"}}}, {"annotations", {{"note", "y"}}}};
  RunRecord before = RunScenario(LoadOrFail(base));
  const json report_before = ReportJson(before, {});
  for (const auto& [field, change] : std::vector<std::pair<std::string, Edit>>{
           {"metadata.name", [](json& s) { s["metadata"]["name"] = "b"; }},
           {"metadata.description", [](json& s) { s["metadata"]["description"] = "two"; }},
           {"metadata.labels", [](json& s) { s["metadata"]["labels"]["team"] = "z"; }},
           {"metadata.annotations", [](json& s) { s["metadata"]["annotations"]["note"] = "w"; }},
           {"cluster.nodes[].pricePerHour", [](json& s) { Nodes(s)["pricePerHour"] = 3.5; }}}) {
    SCOPED_TRACE(field);
    json changed = base;
    change(changed);
    RunRecord after = RunScenario(LoadOrFail(changed));
    EXPECT_EQ(after.trace_hash, before.trace_hash);
    EXPECT_NE(ReportJson(after, {}), report_before);
  }
}

// A pool's price bills its nodes for the time they are paid for; the run stays the same.
TEST(SchemaTest, PoolPriceChangesTheCostAndNotTheRun) {
  const json base = Pooled();
  RunRecord before = RunScenario(LoadOrFail(base));
  json priced = base;
  Pool(priced)["pricePerHour"] = 3.5;
  RunRecord after = RunScenario(LoadOrFail(priced));
  EXPECT_EQ(after.trace_hash, before.trace_hash);
  EXPECT_TRUE(ReportJson(before, {})["cluster"]["cost"].is_null());
  ASSERT_TRUE(ReportJson(after, {})["cluster"]["cost"].is_number());
  EXPECT_GT(ReportJson(after, {})["cluster"]["cost"].get<double>(), 0);
}

TEST(SchemaTest, FormatFieldsTakeTheirOneValueOnly) {
  for (const char* field : {"apiVersion", "kind"}) {
    json s = Small();
    s[field] = "v2";
    ScenarioLoad load = LoadScenarioString(s.dump(), "fields.yaml", kSchemaDataDir);
    ASSERT_FALSE(load.ok()) << field;
    EXPECT_NE(load.problems[0].find(field), std::string::npos) << load.problems[0];
  }
}

TEST(SchemaTest, UnknownAndRetiredFieldsAreRefused) {
  json s = Small();
  s["cluster"]["timings"] = {{"nodeStatusUpdateFrequency", "10s"}, {"terminationGracePeriod", "30s"}, {"podStrtup", "1s"}};
  ScenarioLoad load = LoadScenarioString(s.dump(), "fields.yaml", kSchemaDataDir);
  ASSERT_FALSE(load.ok());
  std::string all;
  for (const auto& p : load.problems) all += p + "\n";
  EXPECT_NE(all.find("cluster.timings.nodeStatusUpdateFrequency: refused: not a setting of the simulated cluster"),
            std::string::npos) << all;
  EXPECT_NE(all.find("cluster.timings.terminationGracePeriod: refused: not a setting of a cluster"), std::string::npos)
      << all;
  EXPECT_NE(all.find("unknown field \"podStrtup\" (did you mean \"podStartup\"?)"), std::string::npos) << all;
}

}  // namespace
}  // namespace harness
