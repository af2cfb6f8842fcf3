// The simulated kubelet: pod lifecycle and status as the real kubelet writes them, image pulls,
// back-off timings, OOM, graceful deletion, pod IPs, emptyDir volumes, node down and up.
#include "sim/cluster/kubelet.h"

#include <gtest/gtest.h>

#include <set>

namespace sim {
namespace {

using kube::ObjectPtr;
using json = kube::Json;

constexpr Micros T0 = kube::ManualClock::kDefaultStart;  // API time at simulated time 0

std::string At(Micros sim_time) { return kube::FormatTime(T0 + sim_time); }

KubeletConfig Config() {
  KubeletConfig c;
  c.node_name = "node-3";
  c.pod_cidr = "10.244.3.0/24";
  c.host_ip = "192.168.0.13";
  c.image_pull_bytes_per_second = 100e6;
  c.default_image_size = 1'000'000'000;  // 10 s per pull
  c.pod_startup = kSecond;
  c.container_start = 0;
  return c;
}

json KubeletContainer(const std::string& name, const std::string& image = "busybox:1.36") {
  return {{"name", name}, {"image", image}};
}

json KubeletPod(const std::string& name, json containers, json annotations = json::object(),
         const std::string& restart_policy = "Never", json init = json::array()) {
  json pod = {{"metadata", {{"name", name}, {"namespace", "default"}, {"annotations", annotations}}},
              {"spec", {{"restartPolicy", restart_policy}, {"containers", containers}}}};
  if (!init.empty()) pod["spec"]["initContainers"] = init;
  return pod;
}

// Records every status the API holds for each pod, at the simulated time it was written.
class StatusLog : public Actor {
 public:
  explicit StatusLog(Simulation& sim) : Actor(sim, "status-log") {}
  void Start() override {
    auto record = [this](const ObjectPtr& pod) {
      if (!pod->contains("status")) return;
      const json& s = (*pod)["status"];
      auto& history = by_pod[kube::NameOf(*pod)];
      if (!history.empty() && history.back().second == s) return;
      history.push_back({Now(), s});
    };
    AddInformer("pods", {}, {.on_add = record, .on_update = [record](const ObjectPtr&, const ObjectPtr& p) { record(p); }});
  }
  // The first time `pred` held for pod `name`; -1 if never.
  template <class Pred>
  Micros FirstTime(const std::string& name, Pred pred) const {
    auto it = by_pod.find(name);
    if (it == by_pod.end()) return -1;
    for (const auto& [t, s] : it->second)
      if (pred(s)) return t;
    return -1;
  }
  Micros PhaseTime(const std::string& name, const std::string& phase) const {
    return FirstTime(name, [&](const json& s) { return s.value("phase", "") == phase; });
  }
  std::map<std::string, std::vector<std::pair<Micros, json>>> by_pod;
};

class KubeletTest : public ::testing::Test {
 protected:
  void SetUp() override { Build(Config()); }
  void Build(KubeletConfig config, Micros watch_latency = 0) {
    sim_ = std::make_unique<Simulation>(SimulationOptions{.seed = 1, .watch_latency = watch_latency});
    log_ = &sim_->AddActor<StatusLog>();
    kubelet_ = &sim_->AddActor<Kubelet>(std::move(config));
    sim_->Start();
  }
  Simulation& sim() { return *sim_; }
  Kubelet& kubelet() { return *kubelet_; }

  // Creates the pod and binds it to the kubelet's node at simulated time `at`.
  void Run(json pod, Micros at = 0, const std::string& node = "node-3") {
    sim().engine().ScheduleAt(at, [this, pod, node] {
      ASSERT_TRUE(sim().store().Create("pods", pod).ok());
      json binding = {{"metadata", {{"name", pod["metadata"]["name"]}, {"namespace", "default"}}},
                      {"target", {{"kind", "Node"}, {"name", node}}}};
      ASSERT_TRUE(sim().store().Create("pods/binding", binding).ok());
    });
  }
  json Get(const std::string& name) {
    auto r = sim().store().Get("pods", "default", name);
    return r.ok() ? **r : json();
  }
  json Status(const std::string& name) { return Get(name)["status"]; }
  std::string Phase(const std::string& name) { return Status(name).value("phase", ""); }

  std::unique_ptr<Simulation> sim_;
  StatusLog* log_ = nullptr;
  Kubelet* kubelet_ = nullptr;
};

json StatusCondition(const json& status, const std::string& type) {
  for (const auto& c : status["conditions"])
    if (c["type"] == type) return c;
  return json();
}

TEST_F(KubeletTest, RunsAPodToSucceededWithTheStatusTheRealKubeletWrites) {
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "90s"}}));
  sim().RunUntilIdle();
  // Accept at 0, sandbox at 1 s, pull 10 s, run 90 s.
  json s = Status("p");
  EXPECT_EQ(s["phase"], "Succeeded");
  EXPECT_EQ(s["startTime"], At(0));
  EXPECT_EQ(s["podIP"], "10.244.3.2");
  EXPECT_EQ(s["podIPs"], json::array({{{"ip", "10.244.3.2"}}}));
  EXPECT_EQ(s["hostIP"], "192.168.0.13");
  ASSERT_EQ(s["containerStatuses"].size(), 1u);
  const json& c = s["containerStatuses"][0];
  EXPECT_EQ(c["name"], "main");
  EXPECT_EQ(c["image"], "docker.io/library/busybox:1.36");
  EXPECT_TRUE(c["imageID"].get<std::string>().starts_with("docker.io/library/busybox@sha256:"));
  EXPECT_TRUE(c["containerID"].get<std::string>().starts_with("containerd://"));
  // Both end in 64 lowercase hex digits, as a sha256 digest and a containerd id do.
  const auto hex64 = [](const std::string& s, std::size_t from) {
    return s.size() == from + 64 && s.find_first_not_of("0123456789abcdef", from) == std::string::npos;
  };
  EXPECT_TRUE(hex64(c["imageID"].get<std::string>(), std::string("docker.io/library/busybox@sha256:").size()));
  EXPECT_TRUE(hex64(c["containerID"].get<std::string>(), std::string("containerd://").size()));
  EXPECT_EQ(c["ready"], false);
  EXPECT_EQ(c["started"], false);
  EXPECT_EQ(c["restartCount"], 0);
  EXPECT_EQ(c["lastState"], json::object());
  EXPECT_EQ(c["state"]["terminated"]["exitCode"], 0);
  EXPECT_EQ(c["state"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(c["state"]["terminated"]["startedAt"], At(11 * kSecond));
  EXPECT_EQ(c["state"]["terminated"]["finishedAt"], At(101 * kSecond));
  EXPECT_EQ(StatusCondition(s, "Initialized")["status"], "True");
  EXPECT_EQ(StatusCondition(s, "Initialized")["reason"], "PodCompleted");
  EXPECT_EQ(StatusCondition(s, "Ready")["status"], "False");
  EXPECT_EQ(StatusCondition(s, "Ready")["reason"], "PodCompleted");
  EXPECT_EQ(StatusCondition(s, "ContainersReady")["status"], "False");
  EXPECT_EQ(StatusCondition(s, "PodScheduled")["status"], "True");
  EXPECT_EQ(StatusCondition(s, "Ready")["lastTransitionTime"], At(101 * kSecond));

  // The status the kubelet wrote while the container ran.
  EXPECT_EQ(log_->PhaseTime("p", "Pending"), 0);
  EXPECT_EQ(log_->PhaseTime("p", "Running"), 11 * kSecond);
  EXPECT_EQ(log_->PhaseTime("p", "Succeeded"), 101 * kSecond);
  const json& running = log_->by_pod["p"][log_->by_pod["p"].size() - 2].second;
  EXPECT_EQ(running["containerStatuses"][0]["state"]["running"]["startedAt"], At(11 * kSecond));
  EXPECT_EQ(running["containerStatuses"][0]["ready"], true);
  EXPECT_EQ(StatusCondition(running, "Ready")["status"], "True");
  EXPECT_EQ(StatusCondition(running, "Ready")["lastTransitionTime"], At(11 * kSecond));
  json first;  // the kubelet's first write
  for (const auto& [t, st] : log_->by_pod["p"])
    if (st.contains("containerStatuses")) {
      first = st;
      break;
    }
  EXPECT_EQ(first["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating");
  EXPECT_EQ(StatusCondition(first, "Ready")["message"], "containers with unready status: [main]");
  // One write per change: accepted, sandbox (IP), running, succeeded.
  EXPECT_EQ(kubelet().stats().status_writes, 4);
}

// Each stored version of the pod, as the store shared it (immutable, frozen: reads never copy).
class VersionLog : public Actor {
 public:
  explicit VersionLog(Simulation& sim) : Actor(sim, "version-log") {}
  void Start() override {
    AddInformer("pods", {},
                {.on_add = [this](const ObjectPtr& pod) { versions.push_back(pod); },
                 .on_update = [this](const ObjectPtr&, const ObjectPtr& pod) { versions.push_back(pod); }});
  }
  std::vector<ObjectPtr> versions;
};

// Where the member `key` of the element of `list` named (or typed) `name` lives. A status the
// kubelet did not rebuild shares its objects with the version before (json.h), so the member is
// the very same one: the same address.
const json* MemberOf(const ObjectPtr& pod, const char* list, const char* id, const std::string& name, const char* key) {
  const json& status = pod->at("status");
  if (!status.contains(list)) return nullptr;
  for (const json& e : status.at(list))
    if (e.at(id) == name) return &e.at(key);
  return nullptr;
}

// A flush builds a condition or a container status only when it changed; otherwise every status
// written carries the one built before, shared, instead of a copy of its own.
TEST_F(KubeletTest, AStatusWriteSharesTheConditionsAndContainerStatusesThatDidNotChange) {
  auto& versions = sim().AddActor<VersionLog>();  // started at once: the run has started
  Run(KubeletPod("p", json::array({KubeletContainer("short"), KubeletContainer("long")}),
                 {{"dglsim.io/duration.short", "10s"}, {"dglsim.io/duration.long", "60s"}},
                 "Never"));
  sim().RunUntilIdle();
  ASSERT_EQ(Phase("p"), "Succeeded");
  // The versions the kubelet wrote with both containers running, then with "short" ended.
  ObjectPtr both_running, short_ended;
  for (const ObjectPtr& v : versions.versions) {
    const json* short_state = MemberOf(v, "containerStatuses", "name", "short", "state");
    const json* long_state = MemberOf(v, "containerStatuses", "name", "long", "state");
    if (!short_state || !long_state || !long_state->contains("running")) continue;
    if (short_state->contains("running") && !both_running) both_running = v;
    if (short_state->contains("terminated") && !short_ended) short_ended = v;
  }
  ASSERT_TRUE(both_running && short_ended);
  // "long" kept running: its status is the one built before; "short" ended: built anew.
  EXPECT_EQ(MemberOf(both_running, "containerStatuses", "name", "long", "state"),
            MemberOf(short_ended, "containerStatuses", "name", "long", "state"));
  EXPECT_NE(MemberOf(both_running, "containerStatuses", "name", "short", "state"),
            MemberOf(short_ended, "containerStatuses", "name", "short", "state"));
  // Initialized stayed True; Ready went from True to False.
  EXPECT_EQ(MemberOf(both_running, "conditions", "type", "Initialized", "lastTransitionTime"),
            MemberOf(short_ended, "conditions", "type", "Initialized", "lastTransitionTime"));
  EXPECT_NE(MemberOf(both_running, "conditions", "type", "Ready", "status"),
            MemberOf(short_ended, "conditions", "type", "Ready", "status"));
  EXPECT_EQ(*MemberOf(short_ended, "conditions", "type", "Ready", "status"), "False");
}

// Found auditing the reads of client JSON after tests/fuzz/fuzz_api_server's first finds: a pod
// created over HTTP (`dglsim serve`) with a number where the kubelet reads a string
// (imagePullPolicy: 5) threw inside the simulation and ended the whole server. The kubelet reads
// such a field as absent, as it does an unknown one.
TEST_F(KubeletTest, FieldsOfTheWrongTypeAreReadAsAbsentNotThrown) {
  json container = KubeletContainer("main");
  container["imagePullPolicy"] = 5;
  container["terminationMessagePolicy"] = 7;
  container["volumeMounts"] = json::array({{{"name", 1}, {"mountPath", 2}}});
  json pod = KubeletPod("typed", json::array({container}), {{"dglsim.io/duration", "30s"}});
  pod["spec"]["volumes"] = json::array({{{"name", 3}, {"emptyDir", json::object()}}});
  Run(pod);
  sim().RunUntilIdle();
  EXPECT_EQ(Phase("typed"), "Succeeded");
  EXPECT_EQ(Status("typed")["containerStatuses"][0]["state"]["terminated"]["exitCode"], 0);
}

TEST_F(KubeletTest, InitContainersRunOneAtATimeInOrderBeforeTheAppContainers) {
  json init = json::array({KubeletContainer("first"), KubeletContainer("second")});
  Run(KubeletPod("p", json::array({KubeletContainer("app")}),
          {{"dglsim.io/duration.first", "5s"}, {"dglsim.io/duration.second", "3s"}, {"dglsim.io/duration.app", "1s"}},
          "Never", init));
  sim().RunUntil(12 * kSecond);
  json s = Status("p");
  EXPECT_EQ(s["phase"], "Pending");
  EXPECT_EQ(s["initContainerStatuses"][0]["state"]["running"]["startedAt"], At(11 * kSecond));
  EXPECT_EQ(s["initContainerStatuses"][1]["state"]["waiting"]["reason"], "PodInitializing");
  EXPECT_EQ(s["containerStatuses"][0]["state"]["waiting"]["reason"], "PodInitializing");
  EXPECT_EQ(StatusCondition(s, "Initialized")["message"], "containers with incomplete status: [first second]");
  sim().RunUntilIdle();
  s = Status("p");
  EXPECT_EQ(s["phase"], "Succeeded");
  const json& first = s["initContainerStatuses"][0]["state"]["terminated"];
  const json& second = s["initContainerStatuses"][1]["state"]["terminated"];
  const json& app = s["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(first["finishedAt"], At(16 * kSecond));
  EXPECT_EQ(second["startedAt"], At(16 * kSecond));  // the image is cached by then
  EXPECT_EQ(second["finishedAt"], At(19 * kSecond));
  EXPECT_EQ(app["startedAt"], At(19 * kSecond));
  EXPECT_EQ(s["initContainerStatuses"][0]["ready"], true);
  EXPECT_EQ(log_->PhaseTime("p", "Running"), 19 * kSecond);
}

TEST_F(KubeletTest, AFailedInitContainerFailsANeverPodAndNoAppContainerStarts) {
  Run(KubeletPod("p", json::array({KubeletContainer("app")}), {{"dglsim.io/exit-code.init", "2"}}, "Never",
          json::array({KubeletContainer("init")})));
  sim().RunUntilIdle();
  json s = Status("p");
  EXPECT_EQ(s["phase"], "Failed");
  EXPECT_EQ(s["initContainerStatuses"][0]["state"]["terminated"]["exitCode"], 2);
  EXPECT_EQ(s["initContainerStatuses"][0]["state"]["terminated"]["reason"], "Error");
  EXPECT_EQ(s["containerStatuses"][0]["state"]["waiting"]["reason"], "PodInitializing");
  EXPECT_EQ(kubelet().ips_in_use(), 0u);
}

TEST_F(KubeletTest, PullTimeIsImageSizeOverBandwidthAndASecondPodUsesTheCache) {
  KubeletConfig config = Config();
  config.image_sizes["trainer:v1"] = 3'000'000'000;  // 30 s at 100 MB/s
  Build(config);
  json c = KubeletContainer("main", "trainer:v1");
  c["imagePullPolicy"] = "IfNotPresent";
  Run(KubeletPod("a", json::array({c})));
  Run(KubeletPod("b", json::array({c})), 100 * kSecond);
  sim().RunUntilIdle();
  EXPECT_EQ(log_->PhaseTime("a", "Running"), 31 * kSecond);
  EXPECT_EQ(log_->PhaseTime("b", "Running"), 101 * kSecond);  // sandbox only
  EXPECT_EQ(kubelet().stats().image_pulls, 1);
  EXPECT_EQ(kubelet().stats().bytes_pulled, 3'000'000'000);
  EXPECT_TRUE(kubelet().HasImage("trainer:v1"));
}

TEST_F(KubeletTest, PullsOnANodeAreSerial) {
  Run(KubeletPod("a", json::array({KubeletContainer("main", "one:v1")})));
  Run(KubeletPod("b", json::array({KubeletContainer("main", "two:v1")})));
  sim().RunUntilIdle();
  EXPECT_EQ(log_->PhaseTime("a", "Running"), 11 * kSecond);
  EXPECT_EQ(log_->PhaseTime("b", "Running"), 21 * kSecond);
}

TEST_F(KubeletTest, ParallelPullsWhenSerializationIsOff) {
  KubeletConfig config = Config();
  config.serialize_image_pulls = false;
  Build(config);
  Run(KubeletPod("a", json::array({KubeletContainer("main", "one:v1")})));
  Run(KubeletPod("b", json::array({KubeletContainer("main", "two:v1")})));
  sim().RunUntilIdle();
  EXPECT_EQ(log_->PhaseTime("b", "Running"), 11 * kSecond);
}

TEST_F(KubeletTest, AlwaysPolicyChecksTheManifestOfACachedImageAtEveryStart) {
  json c = KubeletContainer("main", "trainer:latest");  // defaulted to Always
  Run(KubeletPod("a", json::array({c})));
  Run(KubeletPod("b", json::array({c})), 100 * kSecond);
  sim().RunUntilIdle();
  EXPECT_EQ(Get("a")["spec"]["containers"][0]["imagePullPolicy"], "Always");
  EXPECT_EQ(log_->PhaseTime("b", "Running"), 101 * kSecond + 200 * kMillisecond);
  EXPECT_EQ(kubelet().stats().image_pulls, 1);
  EXPECT_EQ(kubelet().stats().manifest_checks, 1);
}

TEST_F(KubeletTest, PullFaultGivesErrImagePullThenImagePullBackOffWithDoublingRetriesUntilCleared) {
  kubelet().AddImagePullFault("*broken*");
  Run(KubeletPod("p", json::array({KubeletContainer("main", "registry.example.com/broken:v1")})));
  std::vector<Micros> errors;
  for (Micros t = 0; t <= 200 * kSecond; t += 100 * kMillisecond) {
    sim().RunUntil(t);
    (void)t;
  }
  const auto& history = log_->by_pod["p"];
  std::string last;
  std::vector<std::pair<Micros, std::string>> reasons;
  for (const auto& [t, s] : history) {
    if (!s.contains("containerStatuses")) continue;
    std::string r = s["containerStatuses"][0]["state"]["waiting"].value("reason", "");
    if (r != last) reasons.push_back({t, r}), last = r;
  }
  // Fails at 1.2 s (sandbox + manifest check), then back-off 10, 20, 40, 80 s after each failure.
  std::vector<std::pair<Micros, std::string>> expected = {
      {0, "ContainerCreating"},
      {1200 * kMillisecond, "ErrImagePull"},
      {2200 * kMillisecond, "ImagePullBackOff"},
      {11400 * kMillisecond, "ErrImagePull"},
      {12400 * kMillisecond, "ImagePullBackOff"},
      {31600 * kMillisecond, "ErrImagePull"},
      {32600 * kMillisecond, "ImagePullBackOff"},
      {71800 * kMillisecond, "ErrImagePull"},
      {72800 * kMillisecond, "ImagePullBackOff"},
      {152000 * kMillisecond, "ErrImagePull"},
      {153000 * kMillisecond, "ImagePullBackOff"},
  };
  EXPECT_EQ(reasons, expected);
  EXPECT_EQ(Status("p")["containerStatuses"][0]["state"]["waiting"]["message"],
            "Back-off pulling image \"registry.example.com/broken:v1\"");
  kubelet().ClearImagePullFaults();
  sim().RunUntilIdle();
  // The next retry, 160 s after the last failure, pulls (10 s).
  EXPECT_EQ(log_->PhaseTime("p", "Succeeded"), 152 * kSecond + 160 * kSecond + 10 * kSecond + kSecond);
}

TEST_F(KubeletTest, NeverPolicyWithoutTheImageWaitsWithErrImageNeverPull) {
  json c = KubeletContainer("main", "absent:v1");
  c["imagePullPolicy"] = "Never";
  Run(KubeletPod("p", json::array({c})));
  sim().RunUntilIdle();
  json w = Status("p")["containerStatuses"][0]["state"]["waiting"];
  EXPECT_EQ(w["reason"], "ErrImageNeverPull");
  EXPECT_EQ(w["message"], "Container image \"absent:v1\" is not present with pull policy of Never");
  EXPECT_EQ(Phase("p"), "Pending");
  EXPECT_EQ(kubelet().stats().image_pulls, 0);
}

TEST_F(KubeletTest, RestartPolicyAlwaysRestartsEvenASuccessfulContainer) {
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "30s"}}, "Always"));
  sim().RunUntil(11 * kSecond + 30 * kSecond + kMillisecond);
  json c = Status("p")["containerStatuses"][0];
  EXPECT_EQ(Phase("p"), "Running");
  EXPECT_EQ(c["restartCount"], 1);  // the first restart is immediate
  EXPECT_EQ(c["lastState"]["terminated"]["reason"], "Completed");
  EXPECT_EQ(c["state"]["running"]["startedAt"], At(41 * kSecond));
}

TEST_F(KubeletTest, RestartPolicyOnFailureRestartsFailuresAndSucceedsOnExitZero) {
  Run(KubeletPod("ok", json::array({KubeletContainer("main")}), {}, "OnFailure"));
  Run(KubeletPod("bad", json::array({KubeletContainer("main")}), {{"dglsim.io/exit-code", "1"}}, "OnFailure"));
  sim().RunUntil(60 * kSecond);
  EXPECT_EQ(Phase("ok"), "Succeeded");
  EXPECT_EQ(Phase("bad"), "Running");
  EXPECT_GE(Status("bad")["containerStatuses"][0]["restartCount"].get<int>(), 2);
  EXPECT_EQ(Status("bad")["containerStatuses"][0]["lastState"]["terminated"]["exitCode"], 1);
}

TEST_F(KubeletTest, RestartPolicyNeverFailsThePodWhenAContainerFails) {
  Run(KubeletPod("p", json::array({KubeletContainer("a"), KubeletContainer("b")}),
          {{"dglsim.io/exit-code.a", "3"}, {"dglsim.io/duration.b", "20s"}}));
  sim().RunUntil(15 * kSecond);
  EXPECT_EQ(Phase("p"), "Running");  // b still runs
  sim().RunUntilIdle();
  json s = Status("p");
  EXPECT_EQ(s["phase"], "Failed");
  EXPECT_EQ(s["containerStatuses"][0]["state"]["terminated"]["exitCode"], 3);
  EXPECT_EQ(s["containerStatuses"][0]["restartCount"], 0);
  EXPECT_EQ(s["containerStatuses"][1]["state"]["terminated"]["reason"], "Completed");
}

TEST_F(KubeletTest, CrashLoopBackOffWaitsTenSecondsDoublingToFiveMinutes) {
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/exit-code", "1"}}, "Always"));
  sim().RunUntil(40 * kMinute);
  // Each run lasts 1 s; the gap between an exit and the next start is the back-off.
  std::vector<Micros> starts, ends;
  for (const auto& [t, s] : log_->by_pod["p"]) {
    if (!s.contains("containerStatuses")) continue;
    const json& state = s["containerStatuses"][0]["state"];
    if (state.contains("running")) starts.push_back(t);
    if (state.contains("waiting") && state["waiting"]["reason"] == "CrashLoopBackOff") ends.push_back(t);
  }
  std::vector<Micros> gaps;
  for (std::size_t i = 1; i < starts.size(); ++i) gaps.push_back((starts[i] - starts[i - 1] - kSecond) / kSecond);
  std::vector<Micros> expected = {0, 10, 20, 40, 80, 160, 300, 300, 300};
  ASSERT_GE(gaps.size(), expected.size());
  gaps.resize(expected.size());
  EXPECT_EQ(gaps, expected);
  json c = Status("p")["containerStatuses"][0];
  EXPECT_EQ(c["lastState"]["terminated"]["exitCode"], 1);
  EXPECT_EQ(Phase("p"), "Running");
  EXPECT_FALSE(ends.empty());
}

TEST_F(KubeletTest, CrashLoopBackOffMessageAndResetAfterTenMinutesOfRunning) {
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/exit-code", "1"}}, "Always"));
  sim().RunUntil(13 * kSecond);  // ran 11-12 s, restarted at 12, exits at 13: back-off 10 s
  json w = Status("p")["containerStatuses"][0]["state"]["waiting"];
  EXPECT_EQ(w["reason"], "CrashLoopBackOff");
  std::string uid = Get("p")["metadata"]["uid"];
  EXPECT_EQ(w["message"], "back-off 10s restarting failed container=main pod=p_default(" + uid + ")");
  EXPECT_EQ(Status("p")["containerStatuses"][0]["restartCount"], 1);
}

TEST_F(KubeletTest, OomKilledWithExitCode137WhenMemoryExceedsTheLimit) {
  json c = KubeletContainer("main");
  c["resources"] = {{"limits", {{"memory", "2Gi"}}}};
  Run(KubeletPod("p", json::array({c}), {{"dglsim.io/peak-memory", "3Gi"}, {"dglsim.io/duration", "60s"}}));
  sim().RunUntilIdle();
  json t = Status("p")["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(Phase("p"), "Failed");
  EXPECT_EQ(t["exitCode"], 137);
  EXPECT_EQ(t["reason"], "OOMKilled");
  EXPECT_EQ(t["finishedAt"], At(41 * kSecond));  // peak reached halfway through
}

TEST_F(KubeletTest, MemoryWithinTheLimitIsNotKilled) {
  json c = KubeletContainer("main");
  c["resources"] = {{"limits", {{"memory", "4Gi"}}}};
  Run(KubeletPod("p", json::array({c}), {{"dglsim.io/peak-memory", "3Gi"}}));
  sim().RunUntilIdle();
  EXPECT_EQ(Phase("p"), "Succeeded");
}

TEST_F(KubeletTest, GracefulDeletionStopsTheProgramWritesFinalStatusAndConfirms) {
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "infinity"}}));
  sim().RunUntil(20 * kSecond);
  ASSERT_EQ(Phase("p"), "Running");
  ASSERT_TRUE(sim().store().Delete("pods", "default", "p").ok());
  EXPECT_TRUE(Get("p")["metadata"].contains("deletionTimestamp"));
  sim().RunUntil(20 * kSecond + kMillisecond);
  EXPECT_TRUE(Get("p").is_null());  // SIGTERM -> exit 143 at once, then confirmed
  const json& last = log_->by_pod["p"].back().second;
  EXPECT_EQ(last["phase"], "Failed");
  EXPECT_EQ(last["containerStatuses"][0]["state"]["terminated"]["exitCode"], 143);
  EXPECT_EQ(kubelet().pod_count(), 0u);
  EXPECT_EQ(kubelet().ips_in_use(), 0u);
}

TEST_F(KubeletTest, SleepIgnoresSigtermSoDeletionTakesTheGracePeriod) {
  json c = KubeletContainer("main");
  c["command"] = {"sleep"};
  c["args"] = {"365d"};
  json pod = KubeletPod("p", json::array({c}));
  pod["spec"]["terminationGracePeriodSeconds"] = 30;
  Run(pod);
  sim().RunUntil(20 * kSecond);
  ASSERT_TRUE(sim().store().Delete("pods", "default", "p").ok());
  sim().RunUntil(49 * kSecond);
  EXPECT_FALSE(Get("p").is_null());
  sim().RunUntil(50 * kSecond + kMillisecond);
  EXPECT_TRUE(Get("p").is_null());
  EXPECT_EQ(log_->by_pod["p"].back().second["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
}

// The confirmation is retried whatever the API answers (an injected 409 included), as the real
// status manager retries at its next sync: a pod the kubelet gave up on stayed Terminating forever
// and blocked the re-creation of its name (chaos seed 16 of three-modes: a launcher never replaced).
class KubeletConfirmationTest : public KubeletTest {
 protected:
  // Pod "p" runs until 20 s, then is deleted while every write of the kubelet is refused with 409.
  void DeleteWhileTheKubeletsWritesConflict() {
    Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "infinity"}}));
    sim().RunUntil(20 * kSecond);
    ASSERT_EQ(Phase("p"), "Running");
    kubelet().faulty_client().SetPlan({.conflict_rate = 1.0});
    ASSERT_TRUE(sim().store().Delete("pods", "default", "p").ok());
  }
};

TEST_F(KubeletConfirmationTest, RefusedWithAConflictItIsRetriedUntilThePodIsGone) {
  ASSERT_NO_FATAL_FAILURE(DeleteWhileTheKubeletsWritesConflict());
  sim().RunUntil(25 * kSecond);
  EXPECT_FALSE(Get("p").is_null());  // every confirmation so far refused
  EXPECT_GE(kubelet().faulty_client().counts().conflicts, 5);
  kubelet().faulty_client().SetPlan({});
  sim().RunUntil(26 * kSecond + kMillisecond);
  EXPECT_TRUE(Get("p").is_null());
  EXPECT_EQ(kubelet().pod_count(), 0u);
}

TEST_F(KubeletConfirmationTest, InterruptedByTheNodesFallItIsSentAgainWhenTheNodeComesBack) {
  ASSERT_NO_FATAL_FAILURE(DeleteWhileTheKubeletsWritesConflict());
  sim().RunUntil(22 * kSecond);
  kubelet().SetNodeUp(false);
  kubelet().faulty_client().SetPlan({});
  sim().RunUntil(60 * kSecond);
  EXPECT_FALSE(Get("p").is_null());  // nothing is written while the node is down
  kubelet().SetNodeUp(true);
  sim().RunUntil(60 * kSecond + kMillisecond);
  EXPECT_TRUE(Get("p").is_null());
  EXPECT_EQ(kubelet().pod_count(), 0u);
}

// A real 409 (the uid precondition: the name now holds another pod) ends the retries once the
// kubelet sees the replacement, which it runs and never deletes.
TEST_F(KubeletConfirmationTest, RetriesStopAtAPodReplacedUnderTheSameName) {
  ASSERT_NO_FATAL_FAILURE(DeleteWhileTheKubeletsWritesConflict());
  sim().RunUntil(21 * kSecond + 500 * kMillisecond);
  const std::string old_uid = kube::UidOf(Get("p"));
  ASSERT_TRUE(sim().store().Delete("pods", "default", "p", {.grace_period_seconds = 0}).ok());
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "infinity"}}), sim().Now());
  kubelet().faulty_client().SetPlan({});
  sim().RunUntil(60 * kSecond);
  json replacement = Get("p");
  ASSERT_FALSE(replacement.is_null());
  EXPECT_NE(kube::UidOf(replacement), old_uid);
  EXPECT_FALSE(replacement["metadata"].contains("deletionTimestamp"));
  EXPECT_EQ(Phase("p"), "Running");
  EXPECT_EQ(kubelet().pod_count(), 1u);
}

TEST_F(KubeletTest, PodIpsAreUniqueWithinTheNodeCidrAndReleasedWithThePod) {
  for (int i = 0; i < 5; ++i)
    Run(KubeletPod("p" + std::to_string(i), json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "infinity"}}));
  sim().RunUntil(20 * kSecond);
  std::set<std::string> ips;
  for (int i = 0; i < 5; ++i) {
    std::string ip = Status("p" + std::to_string(i))["podIP"];
    EXPECT_TRUE(ip.starts_with("10.244.3.")) << ip;
    ips.insert(ip);
  }
  EXPECT_EQ(ips, (std::set<std::string>{"10.244.3.2", "10.244.3.3", "10.244.3.4", "10.244.3.5", "10.244.3.6"}));
  EXPECT_EQ(kubelet().ips_in_use(), 5u);
  sim().store().Delete("pods", "default", "p0");
  sim().RunUntil(21 * kSecond);
  EXPECT_EQ(kubelet().ips_in_use(), 4u);
}

TEST_F(KubeletTest, AFullCidrMakesNewPodsWaitForAReleasedAddress) {
  KubeletConfig config = Config();
  config.pod_cidr = "10.244.3.0/29";  // .2 to .6: five addresses
  Build(config);
  for (int i = 0; i < 6; ++i)
    Run(KubeletPod("p" + std::to_string(i), json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "infinity"}}));
  sim().RunUntil(20 * kSecond);
  EXPECT_EQ(Phase("p5"), "Pending");
  EXPECT_FALSE(Status("p5").contains("podIP"));
  sim().store().Delete("pods", "default", "p0");
  sim().RunUntil(40 * kSecond);
  EXPECT_EQ(Phase("p5"), "Running");
  EXPECT_EQ(Status("p5")["podIP"], "10.244.3.2");
}

TEST_F(KubeletTest, EmptyDirVolumesLiveAndDieWithThePod) {
  json c = KubeletContainer("download", "dgloperator/kubectl-download:latest");
  c["volumeMounts"] = {{{"name", "kube-volume"}, {"mountPath", "/opt/kube"}}};
  json app = KubeletContainer("app");
  app["volumeMounts"] = {{{"name", "kube-volume"}, {"mountPath", "/opt/kube"}}};
  json pod = KubeletPod("p", json::array({app}), {{"dglsim.io/duration.app", "infinity"}}, "Never", json::array({c}));
  pod["spec"]["volumes"] = {{{"name", "kube-volume"}, {"emptyDir", json::object()}}};
  Run(pod);
  sim().RunUntil(40 * kSecond);
  const EmptyDir* dir = kubelet().Volume("default", "p", "kube-volume");
  ASSERT_NE(dir, nullptr);
  EXPECT_EQ(dir->Read("kubectl"), kKubectlBinaryBytes);
  sim().store().Delete("pods", "default", "p");
  sim().RunUntil(41 * kSecond);
  EXPECT_EQ(kubelet().Volume("default", "p", "kube-volume"), nullptr);
}

TEST_F(KubeletTest, NodeDownWritesNothingAndNodeUpRestartsAlwaysPodsAndFailsNeverPods) {
  json annotations = {{"dglsim.io/duration", "infinity"}};
  Run(KubeletPod("always", json::array({KubeletContainer("main")}), annotations, "Always"));
  Run(KubeletPod("never", json::array({KubeletContainer("main")}), annotations, "Never"));
  sim().RunUntil(30 * kSecond);
  ASSERT_EQ(Phase("always"), "Running");
  ASSERT_EQ(Phase("never"), "Running");
  std::int64_t writes = kubelet().stats().status_writes;
  sim().engine().ScheduleAt(40 * kSecond, [&] { kubelet().SetNodeUp(false); });
  Run(KubeletPod("late", json::array({KubeletContainer("main")}), annotations, "Always"), 50 * kSecond);
  sim().RunUntil(100 * kSecond);
  EXPECT_EQ(kubelet().stats().status_writes, writes);
  EXPECT_EQ(Phase("always"), "Running");  // the API still believes it
  EXPECT_FALSE(Status("late").contains("startTime"));
  kubelet().SetNodeUp(true);
  sim().RunUntil(120 * kSecond);
  json a = Status("always")["containerStatuses"][0];
  EXPECT_EQ(a["restartCount"], 1);
  EXPECT_EQ(a["lastState"]["terminated"]["reason"], "Unknown");
  EXPECT_EQ(a["lastState"]["terminated"]["exitCode"], 255);
  EXPECT_EQ(a["lastState"]["terminated"]["finishedAt"], At(40 * kSecond));
  EXPECT_TRUE(a["state"].contains("running"));
  json n = Status("never");
  EXPECT_EQ(n["phase"], "Failed");
  EXPECT_EQ(n["containerStatuses"][0]["state"]["terminated"]["reason"], "ContainerStatusUnknown");
  EXPECT_EQ(n["containerStatuses"][0]["state"]["terminated"]["exitCode"], 137);
  EXPECT_EQ(Phase("late"), "Running");
}

TEST_F(KubeletTest, PodsDeletedWhileTheNodeIsDownAreForgottenWhenItComesBack) {
  Run(KubeletPod("p", json::array({KubeletContainer("main")}), {{"dglsim.io/duration", "infinity"}}));
  sim().RunUntil(30 * kSecond);
  kubelet().SetNodeUp(false);
  sim().store().Delete("pods", "default", "p", {.grace_period_seconds = 0});
  sim().RunUntil(40 * kSecond);
  EXPECT_EQ(kubelet().pod_count(), 1u);
  kubelet().SetNodeUp(true);
  EXPECT_EQ(kubelet().pod_count(), 0u);
  EXPECT_EQ(kubelet().ips_in_use(), 0u);
}

TEST_F(KubeletTest, IgnoresPodsBoundToOtherNodes) {
  Run(KubeletPod("elsewhere", json::array({KubeletContainer("main")})), 0, "node-4");
  sim().RunUntilIdle();
  EXPECT_EQ(Status("elsewhere")["phase"], "Pending");
  EXPECT_FALSE(Status("elsewhere").contains("startTime"));
  EXPECT_EQ(kubelet().pod_count(), 0u);
}

TEST_F(KubeletTest, WatchLatencyDelaysWhenTheKubeletSeesThePod) {
  Build(Config(), 5 * kMillisecond);
  Run(KubeletPod("p", json::array({KubeletContainer("main")})));
  sim().RunUntilIdle();
  EXPECT_EQ(Status("p")["startTime"], At(5 * kMillisecond));
}

TEST(KubeletDeterminismTest, TheSameRunGivesTheSameTraceHash) {
  auto run = [](std::uint64_t seed) {
    Simulation sim({.seed = seed});
    sim.AddActor<Kubelet>(Config());
    sim.Start();
    for (int i = 0; i < 20; ++i) {
      json pod = KubeletPod("p" + std::to_string(i), json::array({KubeletContainer("main", i % 2 ? "a:v1" : "b:v1")}),
                     {{"dglsim.io/duration", std::to_string(5 + i % 7) + "s"}, {"dglsim.io/exit-code", i % 5 ? "0" : "1"}},
                     i % 3 ? "Never" : "OnFailure");
      sim.engine().ScheduleAt(i * 2 * kSecond, [&sim, pod] {
        sim.store().Create("pods", pod);
        sim.store().Create("pods/binding", json{{"metadata", {{"name", pod["metadata"]["name"]}, {"namespace", "default"}}},
                                                {"target", {{"name", "node-3"}}}});
      });
    }
    sim.RunUntil(30 * kMinute);
    return sim.trace().HashHex();
  };
  EXPECT_EQ(run(1), run(1));
  EXPECT_EQ(run(2), run(2));
}

TEST(KubeletImageTest, NormalizesImagesAsTheRuntimeReportsThem) {
  EXPECT_EQ(NormalizeImage("busybox"), "docker.io/library/busybox:latest");
  EXPECT_EQ(NormalizeImage("dgloperator/watcher-loop:latest"), "docker.io/dgloperator/watcher-loop:latest");
  EXPECT_EQ(NormalizeImage("registry.example.com:5000/a/b"), "registry.example.com:5000/a/b:latest");
  EXPECT_EQ(NormalizeImage("localhost/x:1"), "localhost/x:1");
}

}  // namespace
}  // namespace sim
