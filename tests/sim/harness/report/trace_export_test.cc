// The Chrome trace of a run (--trace) and the per-pod record it is drawn from: valid trace-event
// JSON with a track per job and per node slot, a slice per pod, container and stage, no slices
// that overlap on a track, faults as instant events, and the same bytes for the same seed.
#include "sim/harness/report/trace_export.h"

#include "sim/harness/report/report_layout.h"
#include "tests/sim/harness/harness_test_util.h"
#include "tests/sim/harness/report/report_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <iostream>
#include <map>
#include <set>
#include <tuple>

namespace harness {
namespace {

using json = kube::Json;
using testing::Load;
using testing::SmallScenario;

RunRecord SmallRun(const std::string& faults = "") { return RunScenario(Load(SmallScenario(faults, ""))); }

json Parse(const std::string& text) {
  json j = json::parse(text, nullptr, false);
  EXPECT_FALSE(j.is_discarded()) << text.substr(0, 400);
  return j;
}

std::vector<json> EventsOf(const json& trace, const std::string& ph) {
  std::vector<json> out;
  for (const auto& e : trace["traceEvents"])
    if (e["ph"] == ph) out.push_back(e);
  return out;
}

// pid -> process name; (pid, tid) -> thread name.
std::map<int, std::string> Processes(const json& trace) {
  std::map<int, std::string> out;
  for (const auto& e : EventsOf(trace, "M"))
    if (e["name"] == "process_name") out[e["pid"].get<int>()] = e["args"]["name"];
  return out;
}
std::map<std::pair<int, int>, std::string> Threads(const json& trace) {
  std::map<std::pair<int, int>, std::string> out;
  for (const auto& e : EventsOf(trace, "M"))
    if (e["name"] == "thread_name") out[{e["pid"].get<int>(), e["tid"].get<int>()}] = e["args"]["name"];
  return out;
}

// Every track's slices are disjoint or nested: checked with a stack of open slices.
void ExpectDisjointOrNested(const json& trace) {
  std::map<std::pair<int, int>, std::vector<std::tuple<std::int64_t, std::int64_t, std::string>>> tracks;
  for (const auto& e : EventsOf(trace, "X")) {
    std::int64_t ts = e["ts"], dur = e["dur"];
    EXPECT_GE(dur, 0) << e.dump();
    tracks[{e["pid"].get<int>(), e["tid"].get<int>()}].emplace_back(ts, -(ts + dur), e["name"]);
  }
  for (auto& [track, slices] : tracks) {
    std::sort(slices.begin(), slices.end());
    std::vector<std::pair<std::int64_t, std::string>> open;  // ends
    for (const auto& [ts, neg_end, name] : slices) {
      std::int64_t end = -neg_end;
      while (!open.empty() && open.back().first <= ts) open.pop_back();
      if (!open.empty()) {
        EXPECT_LE(end, open.back().first) << "pid " << track.first << " tid " << track.second << ": " << name << " ["
                                          << ts << ", " << end << ") overlaps " << open.back().second;
      }
      open.emplace_back(end, name);
    }
  }
}

TEST(RunRecordPodsTest, EveryPodOfTheJobHasItsNodeRoleGpusAndTimes) {
  RunRecord r = SmallRun();
  ASSERT_EQ(r.node_list.size(), 3u);
  EXPECT_EQ(r.node_list[0].gpus, 4);
  std::map<std::string, int> roles;
  for (const auto& pod : r.pods) {
    SCOPED_TRACE(pod.name);
    ASSERT_TRUE(pod.job);
    EXPECT_EQ(pod.job->name, "j");
    EXPECT_EQ(pod.ns, "default");
    ++roles[pod.role];
    EXPECT_FALSE(pod.node.empty());
    ASSERT_TRUE(pod.created && pod.bound && pod.started && pod.released);
    EXPECT_LE(*pod.created, *pod.bound);
    EXPECT_LE(*pod.started, *pod.released);
    EXPECT_TRUE(pod.phase == "Succeeded" || pod.phase == "Failed") << pod.phase;
    EXPECT_EQ(pod.gpus, pod.role == "worker" ? 1 : 0);
    ASSERT_FALSE(pod.containers.empty());
    EXPECT_EQ(pod.containers.back().name, "main");
    EXPECT_TRUE(pod.containers.back().finished);
    // The workers are stopped once the launcher is done; the others exit 0.
    if (pod.role != "worker") {
      EXPECT_EQ(pod.phase, "Succeeded");
      EXPECT_EQ(pod.containers.back().exit_code, 0);
    }
  }
  EXPECT_EQ(roles["worker"], 2);
  EXPECT_EQ(roles["launcher"], 1);
  EXPECT_EQ(roles["partitioner"], 1);
}

TEST(RunRecordPodsTest, GpusInUseIsAStepFunctionWhoseIntegralIsTheGpuSeconds) {
  RunRecord r = SmallRun();
  ASSERT_GE(r.gpus_in_use.size(), 3u);
  EXPECT_EQ(r.gpus_in_use.front().at, 0);
  EXPECT_EQ(r.gpus_in_use.front().in_use, 0);
  EXPECT_EQ(r.gpus_in_use.back().in_use, 0);
  std::int64_t peak = 0;
  double integral = 0;
  for (std::size_t i = 0; i + 1 < r.gpus_in_use.size(); ++i) {
    EXPECT_LT(r.gpus_in_use[i].at, r.gpus_in_use[i + 1].at);
    peak = std::max(peak, r.gpus_in_use[i].in_use);
    integral += static_cast<double>(r.gpus_in_use[i].in_use) *
                static_cast<double>(r.gpus_in_use[i + 1].at - r.gpus_in_use[i].at) / kube::kSecond;
  }
  EXPECT_EQ(peak, 2);  // two one-GPU workers
  EXPECT_NEAR(integral, r.gpu_seconds, 1e-6);
}

TEST(TraceExportTest, IsTraceEventJsonWithAJobsTrackAndATrackPerNodeSlot) {
  RunRecord r = SmallRun();
  json trace = Parse(ChromeTrace(r));
  ASSERT_TRUE(trace["traceEvents"].is_array());
  EXPECT_EQ(trace["otherData"]["traceHash"], r.trace_hash);
  for (const auto& e : trace["traceEvents"]) {
    ASSERT_TRUE(e.contains("ph") && e.contains("pid") && e.contains("name")) << e.dump();
    if (e["ph"] != "M") {
      EXPECT_TRUE(e["ts"].is_number_integer()) << e.dump();
    }
  }
  auto processes = Processes(trace);
  EXPECT_EQ(processes[1], "jobs");
  EXPECT_EQ(processes[2], "cluster");
  std::set<std::string> names;
  for (const auto& [pid, name] : processes) names.insert(name);
  for (const char* node : {"node n-0 (4 GPUs)", "node n-1 (4 GPUs)", "node n-2 (4 GPUs)"}) EXPECT_TRUE(names.count(node)) << node;
  auto threads = Threads(trace);
  EXPECT_EQ((threads[{1, 1}]), "default/j");

  // The job's phases are slices of its track, in order; Succeeded is an instant.
  std::vector<std::string> phases;
  for (const auto& e : EventsOf(trace, "X"))
    if (e["pid"] == 1 && e["tid"] == 1) phases.push_back(e["name"]);
  std::vector<std::string> want;
  for (const auto& p : r.jobs.at(JobKey{"default", "j"}).phases)
    if (p.phase != "Succeeded") want.push_back(p.phase);
  EXPECT_EQ(phases, want);
  bool succeeded = false;
  for (const auto& e : EventsOf(trace, "i")) succeeded |= e["pid"] == 1 && e["name"] == "Succeeded";
  EXPECT_TRUE(succeeded);

  // One pod slice per pod, on a node's slot track, named after the pod, with its container inside.
  std::map<std::string, json> pod_slices;
  int containers = 0;
  for (const auto& e : EventsOf(trace, "X")) {
    if (e["cat"] == "pod") {
      EXPECT_FALSE(pod_slices.count(e["name"])) << "two slices for " << e["name"];
      pod_slices[e["name"]] = e;
      EXPECT_GE(e["pid"].get<int>(), 100);
      EXPECT_EQ((threads[{e["pid"].get<int>(), e["tid"].get<int>()}].rfind("slot ", 0)), 0u);
    }
    if (e["cat"] == "container") ++containers;
  }
  ASSERT_EQ(pod_slices.size(), r.pods.size());
  for (const auto& pod : r.pods) {
    ASSERT_TRUE(pod_slices.count(pod.name)) << pod.name;
    const json& slice = pod_slices[pod.name];
    EXPECT_EQ(slice["ts"], *pod.bound);
    EXPECT_EQ(processes[slice["pid"].get<int>()], "node " + pod.node + " (4 GPUs)");
    EXPECT_EQ(slice["args"]["role"], pod.role);
  }
  EXPECT_GE(containers, static_cast<int>(r.pods.size()));
  // The GPU counter goes up to the two workers.
  std::int64_t peak = 0;
  for (const auto& e : EventsOf(trace, "C")) peak = std::max<std::int64_t>(peak, e["args"]["GPUs"]);
  EXPECT_EQ(peak, 2);
  ExpectDisjointOrNested(trace);
}

TEST(TraceExportTest, FaultsAreInstantEventsAndANodeOutageIsASliceOfItsNode) {
  RunRecord r = SmallRun("  - {at: 3m, kind: NodeDown, node: n-0, for: 2m}\n");
  ASSERT_EQ(r.node_outages.size(), 1u);
  EXPECT_EQ(r.node_outages[0].node, "n-0");
  EXPECT_EQ(r.node_outages[0].down, 180 * kube::kSecond);
  ASSERT_TRUE(r.node_outages[0].up);
  EXPECT_EQ(*r.node_outages[0].up, 300 * kube::kSecond);
  json trace = Parse(ChromeTrace(r));
  bool fault = false;
  for (const auto& e : EventsOf(trace, "i"))
    if (e["cat"] == "fault" && e["name"].get<std::string>().rfind("NodeDown n-0", 0) == 0) {
      fault = true;
      EXPECT_EQ(e["ts"], 180 * kube::kSecond);
    }
  EXPECT_TRUE(fault);
  auto processes = Processes(trace);
  bool outage = false;
  for (const auto& e : EventsOf(trace, "X"))
    if (e["cat"] == "node" && processes[e["pid"].get<int>()] == "node n-0 (4 GPUs)") {
      outage = true;
      EXPECT_EQ(e["ts"], 180 * kube::kSecond);
      EXPECT_EQ(e["dur"], 120 * kube::kSecond);
    }
  EXPECT_TRUE(outage);
  ExpectDisjointOrNested(trace);
}

TEST(TraceExportTest, TheSameSeedGivesTheSameBytes) {
  Scenario s = Load(SmallScenario("  - {at: 3m, kind: NodeDown, node: n-1, for: 2m}\n", ""));
  std::string a = ChromeTrace(RunScenario(s)), b = ChromeTrace(RunScenario(s));
  EXPECT_EQ(a, b);
  EXPECT_NE(a, ChromeTrace(RunScenario(s, {.seed = 99})));
}

TEST(TraceExportTest, OverlappingContainersOfOnePodGoToAnExtraTrackOfItsSlot) {
  RunRecord r = testing::SyntheticRecord(1, 1, 2);
  PodRecord& pod = r.pods[0];  // the launcher, in slot 0 (the worker runs beside it, in slot 1)
  // A sidecar from just after binding into the middle of "main": they overlap without nesting.
  pod.containers.push_back({.name = "sidecar", .started = *pod.bound + testing::kSec,
                            .finished = *pod.started + 100 * testing::kSec});
  // A stage reported past the pod's release is cut at the release.
  pod.stages.push_back({"cleanup", *pod.released - 10 * testing::kSec, *pod.released + 100 * testing::kSec});
  json trace = Parse(ChromeTrace(r));
  auto threads = Threads(trace);
  std::map<std::string, int> tid;
  for (const auto& e : EventsOf(trace, "X")) {
    if (e["args"].value("pod", "") != "default/" + pod.name) continue;
    tid[e["name"]] = e["tid"];
    if (e["name"] == "cleanup") {
      EXPECT_EQ(e["ts"].get<Micros>() + e["dur"].get<Micros>(), *pod.released);
    }
  }
  ASSERT_TRUE(tid.count("sidecar") && tid.count("main") && tid.count("cleanup"));
  EXPECT_NE(tid["sidecar"], tid["main"]);
  EXPECT_EQ((threads[{100, tid["sidecar"]}]), "slot 0");
  EXPECT_EQ((threads[{100, tid["main"]}]), "slot 0 +1");
  ExpectDisjointOrNested(trace);
}

TEST(TraceExportTest, PodsOnOneNodeNeverShareASlotWhileTheyOverlap) {
  RunRecord r = testing::SyntheticRecord(2, 6, 5);  // 30 pods on 2 nodes, many at once
  PodLayout layout = LayOutPods(r);
  ASSERT_EQ(layout.nodes.size(), 2u);
  std::size_t placed = 0;
  for (const auto& node : layout.nodes) {
    placed += node.pods.size();
    for (std::size_t i = 0; i < node.pods.size(); ++i)
      for (std::size_t k = i + 1; k < node.pods.size(); ++k)
        if (node.pods[i].slot == node.pods[k].slot) {
          EXPECT_TRUE(node.pods[i].end <= node.pods[k].begin || node.pods[k].end <= node.pods[i].begin);
        }
  }
  EXPECT_EQ(placed, 30u);
  ExpectDisjointOrNested(Parse(ChromeTrace(r)));
}

TEST(TraceExportTest, NodesComeInNaturalOrder) {
  EXPECT_TRUE(NaturalLess("gpu-2", "gpu-10"));
  EXPECT_FALSE(NaturalLess("gpu-10", "gpu-2"));
  EXPECT_TRUE(NaturalLess("a", "b"));
  EXPECT_TRUE(NaturalLess("gpu-1", "gpu-1a"));
  EXPECT_FALSE(NaturalLess("x", "x"));
  RunRecord r = testing::SyntheticRecord(12, 1, 2);
  PodLayout layout = LayOutPods(r);
  ASSERT_EQ(layout.nodes.size(), 12u);
  EXPECT_EQ(layout.nodes[2].name, "node-2");
  EXPECT_EQ(layout.nodes[11].name, "node-11");
}

TEST(TraceExportTest, TwoThousandPodsOnTwoHundredNodesGiveASlicePerPod) {
  RunRecord r = testing::SyntheticRecord(200, 200, 10);
  auto start = std::chrono::steady_clock::now();
  std::string text = ChromeTrace(r);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::cout << "[ info ] 200 nodes, 2000 pods, 200 jobs: trace of " << text.size() << " bytes in " << seconds << " s\n";
  json trace = Parse(text);
  std::size_t pods = 0;
  for (const auto& e : EventsOf(trace, "X")) pods += e["cat"] == "pod" ? 1 : 0;
  EXPECT_EQ(pods, 2000u);
  EXPECT_EQ(Processes(trace).size(), 200u + 2);  // the nodes, jobs, cluster
}

TEST(TraceExportTest, NamesThatAreNotUtf8DoNotBreakTheJson) {
  RunRecord r = testing::SyntheticRecord(1, 1, 1);
  r.pods[0].name = std::string("bad-\xff\xfe-name");
  json trace = Parse(ChromeTrace(r));
  EXPECT_TRUE(trace["traceEvents"].is_array());
}

}  // namespace
}  // namespace harness
