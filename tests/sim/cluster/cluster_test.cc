// The Cluster: Node objects from templates and from real NodeLists, the simulation-only spec table,
// node liveness and the DefaultTolerationSeconds admission plugin.
#include "sim/cluster/cluster.h"

#include "sim/cluster/scheduler.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

namespace sim {
namespace {

using json = kube::Json;

NodeTemplate GpuTemplate(int count) {
  NodeTemplate t;
  t.name = "gpu";
  t.count = count;
  t.capacity = {{"cpu", "96"}, {"memory", "768Gi"}, {"nvidia.com/gpu", "8"}, {"ephemeral-storage", "2Ti"}};
  t.labels = {{"node.kubernetes.io/instance-type", "p4d.24xlarge"}};
  t.taints = {Taint{"dedicated", "dgl", "NoSchedule", std::nullopt}};
  t.nic_bytes_per_second = 12.5e9;
  t.disk_bytes_per_second = 2e9;
  t.cpu_speed = 1.5;
  return t;
}

json Condition(const json& node, const std::string& type) {
  for (const auto& c : node["status"]["conditions"])
    if (c["type"] == type) return c;
  return nullptr;
}

json Pod(const std::string& name, json tolerations = nullptr) {
  json pod = {{"metadata", {{"name", name}, {"namespace", "default"}}},
              {"spec", {{"containers", json::array({{{"name", "c"}, {"image", "busybox:1.36"}}})}}}};
  if (!tolerations.is_null()) pod["spec"]["tolerations"] = tolerations;
  return pod;
}

TEST(ClusterTest, TemplateNodesCarryCapacityAllocatableLabelsTaintsAddressesAndPodCidrs) {
  Simulation sim;
  Cluster cluster(sim);
  ASSERT_TRUE(cluster.AddNodes(GpuTemplate(2)).ok());
  auto node = sim.store().Get("nodes", "", "gpu-1");
  ASSERT_TRUE(node.ok());
  const json& n = **node;
  EXPECT_EQ(n["status"]["capacity"]["nvidia.com/gpu"], "8");
  EXPECT_EQ(n["status"]["allocatable"]["memory"], "768Gi");
  EXPECT_EQ(n["status"]["allocatable"]["pods"], "110");
  EXPECT_EQ(n["metadata"]["labels"]["kubernetes.io/hostname"], "gpu-1");
  EXPECT_EQ(n["metadata"]["labels"]["node.kubernetes.io/instance-type"], "p4d.24xlarge");
  EXPECT_EQ(n["spec"]["taints"][0]["key"], "dedicated");
  EXPECT_EQ(n["spec"]["taints"][0]["effect"], "NoSchedule");
  EXPECT_EQ(n["spec"]["podCIDR"], "10.244.1.0/24");
  EXPECT_EQ(n["status"]["addresses"][0]["type"], "InternalIP");
  EXPECT_EQ(n["status"]["addresses"][0]["address"], "10.0.0.2");
  json ready = Condition(n, "Ready");
  EXPECT_EQ(ready["status"], "True");
  EXPECT_EQ(ready["lastHeartbeatTime"], "2026-01-01T00:00:00Z");

  const NodeSimSpec* spec = cluster.Spec("gpu-0");
  ASSERT_NE(spec, nullptr);
  EXPECT_EQ(spec->pod_cidr, "10.244.0.0/24");
  EXPECT_EQ(spec->internal_ip, "10.0.0.1");
  EXPECT_DOUBLE_EQ(spec->nic_bytes_per_second, 12.5e9);
  EXPECT_DOUBLE_EQ(spec->cpu_speed, 1.5);
  EXPECT_EQ(cluster.specs().size(), 2u);
}

TEST(ClusterTest, NodesReportEveryNodeInfoFieldAKubeletReports) {
  Simulation sim;
  Cluster cluster(sim);
  ASSERT_TRUE(cluster.AddNodes(GpuTemplate(2)).ok());
  json manifest = {{"kind", "Node"}, {"apiVersion", "v1"}, {"metadata", {{"name", "exported"}}},
                   {"status", {{"capacity", {{"cpu", "8"}}}, {"nodeInfo", {{"osImage", "Ubuntu 22.04.4 LTS"}}}}}};
  ASSERT_TRUE(cluster.AddNodesFromManifest(manifest).ok());
  const json a = (**sim.store().Get("nodes", "", "gpu-0"))["status"];
  const json b = (**sim.store().Get("nodes", "", "gpu-1"))["status"];
  const json exported = (**sim.store().Get("nodes", "", "exported"))["status"];
  // The official Python client refuses a node without any of these.
  for (const char* field : {"architecture", "bootID", "containerRuntimeVersion", "kernelVersion", "kubeProxyVersion",
                            "kubeletVersion", "machineID", "operatingSystem", "osImage", "systemUUID"}) {
    EXPECT_TRUE(a["nodeInfo"].contains(field) && a["nodeInfo"][field].is_string()) << field;
    EXPECT_TRUE(exported["nodeInfo"].contains(field)) << field;
  }
  EXPECT_NE(a["nodeInfo"]["bootID"], b["nodeInfo"]["bootID"]);
  EXPECT_EQ(a["nodeInfo"]["machineID"].get<std::string>().size(), 32u);
  EXPECT_EQ(exported["nodeInfo"]["osImage"], "Ubuntu 22.04.4 LTS");  // what the manifest says stays
  EXPECT_EQ(a["daemonEndpoints"]["kubeletEndpoint"]["Port"], 10250);
  // The same name gives the same identifiers, run after run.
  Simulation again;
  Cluster other(again);
  ASSERT_TRUE(other.AddNodes(GpuTemplate(1)).ok());
  EXPECT_EQ((**again.store().Get("nodes", "", "gpu-0"))["status"]["nodeInfo"], a["nodeInfo"]);
}

TEST(ClusterTest, PodCidrsStayDistinctPastTwoHundredFiftySixNodes) {
  Simulation sim;
  Cluster cluster(sim);
  NodeTemplate t;
  t.name = "n";
  t.count = 300;
  t.capacity = {{"cpu", "4"}};
  ASSERT_TRUE(cluster.AddNodes(t).ok());
  std::set<std::string> cidrs, ips;
  for (const auto& [name, spec] : cluster.specs()) {
    cidrs.insert(spec.pod_cidr);
    ips.insert(spec.internal_ip);
  }
  EXPECT_EQ(cidrs.size(), 300u);
  EXPECT_EQ(ips.size(), 300u);
  EXPECT_EQ(cluster.Spec("n-256")->pod_cidr, "10.245.0.0/24");
}

TEST(ClusterTest, NodeListNodesKeepTheirCapacityLabelsTaintsAndReadSimulationAnnotations) {
  Simulation sim;
  Cluster cluster(sim);
  json list = {
      {"apiVersion", "v1"},
      {"kind", "List"},
      {"items",
       json::array(
           {{{"apiVersion", "v1"},
             {"kind", "Node"},
             {"metadata",
              {{"name", "ip-10-1-2-3"},
               {"uid", "4f1c-old"},
               {"resourceVersion", "123456"},
               {"creationTimestamp", "2024-03-01T10:00:00Z"},
               {"labels", {{"kubernetes.io/hostname", "ip-10-1-2-3"}, {"zone", "a"}}},
               {"annotations", {{"dglsim.io/network", "1250000000"}, {"dglsim.io/cpu-speed", "2"}}}}},
             {"spec", {{"podCIDR", "192.168.7.0/24"}, {"taints", json::array({{{"key", "gpu"}, {"effect", "NoSchedule"}}})}}},
             {"status",
              {{"capacity", {{"cpu", "48"}, {"memory", "192Gi"}, {"nvidia.com/gpu", "4"}, {"pods", "58"}}},
               {"allocatable", {{"cpu", "47500m"}, {"memory", "185Gi"}, {"nvidia.com/gpu", "4"}, {"pods", "58"}}},
               {"addresses", json::array({{{"type", "InternalIP"}, {"address", "10.1.2.3"}}})},
               {"conditions",
                json::array({{{"type", "Ready"}, {"status", "False"}, {"lastHeartbeatTime", "2024-03-01T10:00:00Z"}},
                             {{"type", "MemoryPressure"}, {"status", "False"}}})}}}},
            {{"apiVersion", "v1"},
             {"kind", "Node"},
             {"metadata", {{"name", "plain"}}},
             {"status", {{"capacity", {{"cpu", "8"}}}}}}})}};
  ASSERT_TRUE(cluster.AddNodesFromManifest(list).ok());

  auto node = sim.store().Get("nodes", "", "ip-10-1-2-3");
  ASSERT_TRUE(node.ok());
  const json& n = **node;
  EXPECT_NE(n["metadata"]["uid"], "4f1c-old");
  EXPECT_EQ(n["metadata"]["labels"]["zone"], "a");
  EXPECT_EQ(n["status"]["allocatable"]["cpu"], "47500m");
  EXPECT_EQ(n["status"]["capacity"]["pods"], "58");
  EXPECT_EQ(n["spec"]["taints"][0]["key"], "gpu");
  EXPECT_EQ(Condition(n, "Ready")["status"], "True");
  EXPECT_EQ(Condition(n, "MemoryPressure")["status"], "False");
  const NodeSimSpec* spec = cluster.Spec("ip-10-1-2-3");
  ASSERT_NE(spec, nullptr);
  EXPECT_DOUBLE_EQ(spec->nic_bytes_per_second, 1.25e9);
  EXPECT_DOUBLE_EQ(spec->disk_bytes_per_second, NodeSimSpec{}.disk_bytes_per_second);
  EXPECT_DOUBLE_EQ(spec->cpu_speed, 2.0);
  EXPECT_EQ(spec->pod_cidr, "192.168.7.0/24");
  EXPECT_EQ(spec->internal_ip, "10.1.2.3");

  auto plain = sim.store().Get("nodes", "", "plain");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ((**plain)["metadata"]["labels"]["kubernetes.io/hostname"], "plain");
  EXPECT_EQ((**plain)["status"]["allocatable"]["cpu"], "8");
  EXPECT_EQ((**plain)["spec"]["podCIDR"], "10.244.1.0/24");
  EXPECT_EQ(cluster.Spec("plain")->internal_ip, "10.0.0.2");
}

TEST(ClusterTest, AManifestThatIsNotANodeIsRejected) {
  Simulation sim;
  Cluster cluster(sim);
  auto s = cluster.AddNodesFromManifest({{"kind", "Pod"}, {"metadata", {{"name", "x"}}}});
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(cluster.size(), 0u);
}

TEST(ClusterTest, ACustomBandwidthParserReadsAnnotations) {
  Simulation sim;
  Cluster cluster(sim, {.parse_bandwidth = [](std::string_view s) -> std::optional<double> {
                          if (s == "100Gbps") return 12.5e9;
                          return std::nullopt;
                        }});
  json node = {{"kind", "Node"},
               {"metadata", {{"name", "a"}, {"annotations", {{"dglsim.io/network", "100Gbps"}}}}},
               {"status", {{"capacity", {{"cpu", "8"}}}}}};
  ASSERT_TRUE(cluster.AddNodesFromManifest(node).ok());
  EXPECT_DOUBLE_EQ(cluster.Spec("a")->nic_bytes_per_second, 12.5e9);
}

TEST(ClusterTest, PodsGetTheDefaultNotReadyAndUnreachableTolerationsOf300Seconds) {
  Simulation sim;
  Cluster cluster(sim);
  auto pod = sim.store().Create("pods", Pod("p"));
  ASSERT_TRUE(pod.ok());
  const json& tolerations = (**pod)["spec"]["tolerations"];
  ASSERT_EQ(tolerations.size(), 2u);
  EXPECT_EQ(tolerations[0]["key"], kTaintNotReady);
  EXPECT_EQ(tolerations[0]["operator"], "Exists");
  EXPECT_EQ(tolerations[0]["effect"], "NoExecute");
  EXPECT_EQ(tolerations[0]["tolerationSeconds"], 300);
  EXPECT_EQ(tolerations[1]["key"], kTaintUnreachable);
}

TEST(ClusterTest, APodsOwnNotReadyTolerationIsKeptAndOnlyTheMissingOneAdded) {
  Simulation sim;
  Cluster cluster(sim);
  auto pod = sim.store().Create(
      "pods", Pod("p", json::array({{{"key", kTaintNotReady}, {"operator", "Exists"}, {"effect", "NoExecute"},
                                     {"tolerationSeconds", 10}}})));
  ASSERT_TRUE(pod.ok());
  const json& tolerations = (**pod)["spec"]["tolerations"];
  ASSERT_EQ(tolerations.size(), 2u);
  EXPECT_EQ(tolerations[0]["tolerationSeconds"], 10);
  EXPECT_EQ(tolerations[1]["key"], kTaintUnreachable);
  EXPECT_EQ(tolerations[1]["tolerationSeconds"], 300);
}

TEST(ClusterTest, ATolerateEverythingPodGetsNoDefaults) {
  Simulation sim;
  Cluster cluster(sim);
  auto pod = sim.store().Create("pods", Pod("p", json::array({{{"operator", "Exists"}}})));
  ASSERT_TRUE(pod.ok());
  EXPECT_EQ((**pod)["spec"]["tolerations"].size(), 1u);
}

TEST(ClusterTest, NodeDownStopsTheHeartbeatAndNotifiesObserversAndNodeUpResumesIt) {
  Simulation sim;
  Cluster cluster(sim);
  ASSERT_TRUE(cluster.AddNodes(GpuTemplate(1)).ok());
  std::vector<std::tuple<std::string, bool, Micros>> seen;
  cluster.AddLivenessObserver([&](const std::string& n, bool up, Micros t) { seen.emplace_back(n, up, t); });
  sim.Start();
  sim.RunUntil(10 * kSecond);
  cluster.NodeDown("gpu-0");
  cluster.NodeDown("gpu-0");  // no-op
  EXPECT_FALSE(cluster.IsUp("gpu-0"));
  sim.RunUntil(40 * kSecond);
  EXPECT_EQ(cluster.LastHeartbeat("gpu-0"), 10 * kSecond);
  cluster.NodeUp("gpu-0");
  EXPECT_TRUE(cluster.IsUp("gpu-0"));
  EXPECT_EQ(cluster.LastHeartbeat("gpu-0"), 40 * kSecond);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], std::make_tuple(std::string("gpu-0"), false, 10 * kSecond));
  EXPECT_EQ(seen[1], std::make_tuple(std::string("gpu-0"), true, 40 * kSecond));
  // The kubelet that came back posted a fresh Ready heartbeat.
  auto node = sim.store().Get("nodes", "", "gpu-0");
  json ready = Condition(**node, "Ready");
  EXPECT_EQ(ready["status"], "True");
  EXPECT_EQ(ready["lastHeartbeatTime"], "2026-01-01T00:00:40Z");
}

TEST(ClusterTest, NodesThatDoNotSayGetTheDefaultEphemeralStorageAndWatcherSizedPodsSchedule) {
  Simulation sim;
  Cluster cluster(sim);
  NodeTemplate t;
  t.name = "plain";
  t.capacity = {{"cpu", "8"}, {"memory", "32Gi"}};
  ASSERT_TRUE(cluster.AddNodes(t).ok());
  json manifest = {{"apiVersion", "v1"},
                   {"kind", "Node"},
                   {"metadata", {{"name", "exported"}}},
                   {"status", {{"capacity", {{"cpu", "8"}}}, {"allocatable", {{"cpu", "7"}}}}}};
  ASSERT_TRUE(cluster.AddNodesFromManifest(manifest).ok());
  for (const char* name : {"plain-0", "exported"}) {
    auto node = sim.store().Get("nodes", "", name);
    ASSERT_TRUE(node.ok());
    EXPECT_EQ((**node)["status"]["capacity"]["ephemeral-storage"], "100Gi") << name;
    EXPECT_EQ((**node)["status"]["allocatable"]["ephemeral-storage"], "100Gi") << name;
  }
  EXPECT_EQ((*sim.store().Get("nodes", "", "exported"))->at("status")["allocatable"]["cpu"], "7");
  // A node that says keeps its own figure.
  ASSERT_TRUE(cluster.AddNodes(GpuTemplate(1)).ok());
  EXPECT_EQ((*sim.store().Get("nodes", "", "gpu-0"))->at("status")["capacity"]["ephemeral-storage"], "2Ti");

  // The launcher's watcher containers request 5Gi: they fit.
  sim.AddActor<Scheduler>();
  sim.Start();
  json pod = Pod("launcher");
  pod["spec"]["containers"][0]["resources"] = {{"requests", {{"ephemeral-storage", "5Gi"}, {"cpu", "1"}}}};
  pod["spec"]["nodeSelector"] = {{"kubernetes.io/hostname", "plain-0"}};
  ASSERT_TRUE(sim.store().Create("pods", pod).ok());
  sim.RunUntil(10 * kSecond);
  auto bound = sim.store().Get("pods", "default", "launcher");
  ASSERT_TRUE(bound.ok());
  EXPECT_EQ((**bound)["spec"].value("nodeName", ""), "plain-0");
}

TEST(ClusterTest, ADownNodesFlowsStallAndResumeWhenItIsBack) {
  Simulation sim;
  Cluster cluster(sim);
  ASSERT_TRUE(cluster.AddNodes(GpuTemplate(2)).ok());
  Network& net = sim.EnableNetwork();
  for (const auto& [name, spec] : cluster.specs()) net.AddNode(name, 1e9, 1e9);
  sim.Start();
  Micros done = -1;
  const FlowId flow = net.StartFlow({.src = Endpoint::Memory("gpu-1"),
                                     .dst = Endpoint::Memory("gpu-0"),
                                     .bytes = 10e9,
                                     .on_done = [&] { done = sim.Now(); }});
  sim.RunUntil(4 * kSecond);
  cluster.NodeDown("gpu-0");
  sim.RunUntil(60 * kSecond);
  EXPECT_DOUBLE_EQ(net.BytesMoved(flow), 4e9);  // stalled since 4 s
  EXPECT_EQ(done, -1);
  cluster.NodeUp("gpu-0");
  sim.RunUntil(100 * kSecond);
  EXPECT_EQ(done, 66 * kSecond);  // the other 6 GB after it came back at 60 s
}

TEST(ClusterTest, UnknownNodesAreNeitherUpNorChangedByNodeDown) {
  Simulation sim;
  Cluster cluster(sim);
  cluster.NodeDown("nope");
  EXPECT_FALSE(cluster.IsUp("nope"));
  EXPECT_EQ(cluster.Spec("nope"), nullptr);
}

}  // namespace
}  // namespace sim
