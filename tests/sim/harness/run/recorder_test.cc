// The Recorder's pod accounting, fed through the store: a pod's record (creation, binding,
// containers, GPU-seconds) is kept after its deletion, while what the recorder holds to follow it
// goes with it, so its memory follows the pods alive; the pods still open at the end are closed by
// Finish.
#include "sim/harness/run/recorder.h"

#include "clock/clock.h"
#include "operator/api/vocabulary.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/simulation.h"
#include "sim/harness/run/faults.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

namespace harness {
namespace {

using json = kube::Json;
using kube::kSecond;

class RecorderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    cluster_ = std::make_unique<sim::Cluster>(sim_);
    faults_ = std::make_unique<FaultInjector>(sim_, *cluster_, std::map<std::string, sim::Kubelet*>{}, nullptr);
    recorder_ = &sim_.AddActor<Recorder>(record_, *faults_);
    sim_.Start();
  }

  // A pod of job `j` on node `n` holding `gpus` GPUs.
  void AddPod(const std::string& name, int gpus) {
    json limits = {{"nvidia.com/gpu", std::to_string(gpus)}};
    json pod = {{"apiVersion", "v1"},
                {"kind", "Pod"},
                {"metadata", {{"name", name}, {"namespace", "default"}, {"labels", {{dgl::kLabelJobName, "j"}}}}},
                {"spec", {{"nodeName", "n"}, {"containers", json::array({{{"name", "c"}, {"image", "i"}, {"resources", {{"limits", limits}}}}})}}}};
    ASSERT_TRUE(sim_.store().Create("pods", pod).ok());
  }
  // The pod's container running since `since` (simulated time).
  void SetRunning(const std::string& name, kube::Micros since) {
    json running = {{"running", {{"startedAt", kube::FormatTime(sim_.engine().epoch() + since)}}}};
    json status = {{"status", {{"phase", "Running"}, {"containerStatuses", json::array({{{"name", "c"}, {"state", running}}})}}}};
    ASSERT_TRUE(sim_.store().Patch("pods", "default", name, status, kube::PatchType::kMerge, "status").ok());
  }
  void Delete(const std::string& name) {
    kube::DeleteOptions now;
    now.grace_period_seconds = 0;
    ASSERT_TRUE(sim_.store().Delete("pods", "default", name, now).ok());
  }
  void RunFor(kube::Micros d) { sim_.RunUntil(sim_.Now() + d); }
  // The record of the pod named `name`; nullptr when there is none.
  const PodRecord* Record(const std::string& name) const {
    for (const PodRecord& p : record_.pods)
      if (p.name == name) return &p;
    return nullptr;
  }

  sim::Simulation sim_;
  RunRecord record_;
  std::unique_ptr<sim::Cluster> cluster_;
  std::unique_ptr<FaultInjector> faults_;
  Recorder* recorder_ = nullptr;
};

TEST_F(RecorderTest, ADeletedPodKeepsItsRecordAndLeavesTheRecorder) {
  AddPod("a", 2);
  AddPod("b", 4);
  RunFor(kSecond);
  SetRunning("a", sim_.Now());
  SetRunning("b", sim_.Now());
  const kube::Micros started = sim_.Now();
  RunFor(10 * kSecond);
  EXPECT_EQ(recorder_->PodsTracked(), 2u);

  Delete("a");
  RunFor(10 * kSecond);
  EXPECT_EQ(recorder_->PodsTracked(), 1u);
  ASSERT_NE(Record("a"), nullptr);
  const PodRecord& a = *Record("a");
  ASSERT_TRUE(a.deleted.has_value());
  ASSERT_TRUE(a.started.has_value());
  EXPECT_EQ(*a.started, started);
  ASSERT_EQ(a.containers.size(), 1u);
  EXPECT_EQ(a.containers[0].name, "c");
  EXPECT_EQ(a.containers[0].started, started);
  EXPECT_EQ(a.node, "n");
  EXPECT_EQ(a.job, (JobKey{"default", "j"}));

  // Finish closes the pod still running; the deleted one counted until its deletion was seen.
  recorder_->Finish();
  ASSERT_NE(Record("b"), nullptr);
  const PodRecord& b = *Record("b");
  ASSERT_TRUE(b.released.has_value());
  EXPECT_EQ(*b.released, sim_.Now());
  ASSERT_TRUE(a.released.has_value());
  const double a_seconds = static_cast<double>(*a.released - started) / kSecond;
  const double b_seconds = static_cast<double>(*b.released - started) / kSecond;
  EXPECT_DOUBLE_EQ(record_.gpu_seconds, 2 * a_seconds + 4 * b_seconds);
  EXPECT_DOUBLE_EQ(recorder_->Job(JobKey{"default", "j"}).gpu_seconds, record_.gpu_seconds);
  EXPECT_EQ(recorder_->Job(JobKey{"default", "j"}).pods_created, 2);

  Delete("b");
  RunFor(kSecond);
  EXPECT_EQ(recorder_->PodsTracked(), 0u);
  EXPECT_EQ(record_.pods.size(), 2u);
  ASSERT_NE(Record("b"), nullptr);
  EXPECT_TRUE(Record("b")->deleted.has_value());
  // Its GPU-seconds were closed by Finish and are not counted again.
  EXPECT_DOUBLE_EQ(record_.gpu_seconds, 2 * a_seconds + 4 * b_seconds);
}

}  // namespace
}  // namespace harness
