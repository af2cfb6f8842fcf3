// The controller end to end against the fake API server: informers, work queue, back-off. A tiny
// stand-in kubelet (written for these tests, one transition per pod per tick) moves pods along,
// so whole jobs run from submission to a terminal phase; faults come from FaultyClient.
#include "operator/controller/controller.h"

#include "fakeapi/client/faulty_client.h"
#include "tests/operator/controller/reconcile_fixture.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <string>
#include <vector>

namespace dgl::testing {
namespace {

class ControllerTest : public ReconcileFixture {
 protected:
  // One tick of the stand-in kubelet: every pod makes at most one step.
  void KubeletTick() {
    kube::ListOptions o;
    o.namespace_ = "ns";
    auto pods = store_.List("pods", o);
    ASSERT_TRUE(pods.ok());
    std::map<std::string, std::string> phase;
    for (const auto& p : pods->items) phase[kube::NameOf(*p)] = (*p)["status"].value("phase", "Pending");
    bool workers_running = true;
    for (const auto& [name, ph] : phase) {
      if (name.find("-worker-") != std::string::npos && ph != "Running") workers_running = false;
    }
    int ip = 10;
    for (const auto& p : pods->items) {
      const std::string name = kube::NameOf(*p);
      const std::string ph = phase[name];
      const std::string addr = "10.0.0." + std::to_string(ip++);
      if (name.ends_with("-partitioner")) {
        if (ph == "Pending") SetPod(name, "Running", addr);
        if (ph == "Running") {
          if (fail_partitioner_ > 0) {
            --fail_partitioner_;
            FailPod(name, 1);
          } else {
            SetPod(name, "Succeeded", addr);
          }
        }
      } else if (name.ends_with("-launcher")) {
        const bool partitioned = !phase.contains("j-partitioner") || phase["j-partitioner"] == "Succeeded";
        const bool has_workers = Job()["spec"].value("partitionMode", "") == "Skip" || phase.contains("j-worker-0");
        if (ph == "Pending" && partitioned && has_workers && workers_running) SetPod(name, "Running", addr);
        if (ph == "Running") SetPod(name, "Succeeded", addr);
      } else if (ph == "Pending") {
        SetPod(name, "Running", addr);
      }
    }
  }

  // Ticks until the job is terminal; returns the phase.
  std::string RunJob(Controller& controller, int max_ticks = 200) {
    for (int tick = 0; tick < max_ticks; ++tick) {
      controller.RunUntilIdle();
      const std::string phase = Phase();
      if (phase == "Succeeded" || phase == "Failed") {
        controller.RunUntilIdle();
        // Let retries waiting in back-off run too (a cleanup delete may have met a conflict).
        for (int i = 0; i < 100 && controller.NextWakeTime(); ++i) {
          clock_.Set(std::max(clock_.Now(), *controller.NextWakeTime()));
          controller.RunUntilIdle();
        }
        return phase;
      }
      KubeletTick();
      clock_.Advance(kube::kSecond);
    }
    return Phase();
  }

  // What a run ends with, independent of timing.
  json FinalState() {
    json s = Status();
    json conditions = json::object();
    // The conditions that hold at the end (the path there may differ with timing).
    for (const json& c : s["conditions"]) {
      if (c["status"] == "True") conditions[c["type"].get<std::string>()] = c["reason"];
    }
    return {{"phase", s["phase"]},
            {"restartCount", s["restartCount"]},
            {"conditions", conditions},
            {"replicaStatuses", s["replicaStatuses"]},
            {"pods", Names("pods")},
            {"services", Names("services")},
            {"configmaps", Names("configmaps")},
            {"roles", Names("roles")}};
  }

  int fail_partitioner_ = 0;
};

TEST_F(ControllerTest, RunsADglApiJobToSucceeded) {
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 3));
  EXPECT_EQ(RunJob(controller), "Succeeded");
  EXPECT_EQ(Status()["restartCount"], 0);
  EXPECT_EQ(controller.stats().errors, 0);
  for (const char* event : {"DGLJobCreated", "PartitionerRunning", "PartitionerSucceeded", "TrainingRunning",
                            "LauncherSucceeded"}) {
    EXPECT_TRUE(HasEvent(event)) << event;
  }
}

TEST_F(ControllerTest, EveryModeRunsToSucceeded) {
  for (const char* mode : {"ParMETIS", "DistParMETIS", "Skip"}) {
    SCOPED_TRACE(mode);
    Controller controller(store_, clock_);
    ASSERT_TRUE(controller.Start().ok());
    json job = MakeJob(mode, 2);
    job["metadata"]["name"] = "j";
    CreateJob(job);
    EXPECT_EQ(RunJob(controller), "Succeeded");
    ASSERT_TRUE(store_.Delete("dgljobs", "ns", "j").ok());
    controller.RunUntilIdle();
  }
}

TEST_F(ControllerTest, PartitionerFailureIsRetriedAndTheJobSucceeds) {
  fail_partitioner_ = 1;
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 2));
  EXPECT_EQ(RunJob(controller), "Succeeded");
  EXPECT_EQ(Status()["restartCount"], 1);
  EXPECT_TRUE(HasEvent("PartitionerFailed"));
}

TEST_F(ControllerTest, IdleControllerMakesNoWrites) {
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 2));
  controller.RunUntilIdle();
  KubeletTick();
  controller.RunUntilIdle();
  const int before = writes_;
  // Requeue everything: nothing changed, so nothing is written.
  controller.queue().Add("ns/j");
  controller.RunUntilIdle();
  EXPECT_EQ(writes_, before);
  EXPECT_FALSE(controller.NextWakeTime().has_value());
}

TEST_F(ControllerTest, ConflictsAreRetriedWithBackoffAndConvergeToTheCleanResult) {
  json clean;
  {
    Controller controller(store_, clock_);
    ASSERT_TRUE(controller.Start().ok());
    CreateJob(MakeJob("DGL-API", 4));
    ASSERT_EQ(RunJob(controller), "Succeeded");
    clean = FinalState();
    ASSERT_TRUE(store_.Delete("dgljobs", "ns", "j").ok());
  }
  kube::FaultyClient faulty(store_, /*seed=*/42, kube::FaultPlan{.conflict_rate = 0.2});
  Controller controller(faulty, clock_);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 4));
  EXPECT_EQ(RunJob(controller), "Succeeded");
  EXPECT_GT(faulty.counts().conflicts, 0);
  EXPECT_GT(controller.stats().errors, 0);
  EXPECT_EQ(FinalState(), clean);
}

TEST_F(ControllerTest, ErrorsAndTimeoutsAndWatchDropsStillConverge) {
  kube::FaultyClient faulty(store_, /*seed=*/7,
                               kube::FaultPlan{.conflict_rate = 0.1,
                                                  .error_rate = 0.1,
                                                  .timeout_rate = 0.1,
                                                  .read_error_rate = 0.05,
                                                  .watch_drop_rate = 0.05});
  Controller controller(faulty, clock_);
  (void)controller.Start();  // may fail: later pumps retry
  CreateJob(MakeJob("DGL-API", 3));
  EXPECT_EQ(RunJob(controller, 400), "Succeeded");
  EXPECT_EQ(Status()["restartCount"], 0);
  EXPECT_EQ(Names("services"), std::vector<std::string>{"j-worker"});
}

TEST_F(ControllerTest, ANewControllerPicksUpFromTheClusterState) {
  json clean;
  {
    Controller controller(store_, clock_);
    ASSERT_TRUE(controller.Start().ok());
    CreateJob(MakeJob("DGL-API", 3));
    ASSERT_EQ(RunJob(controller), "Succeeded");
    clean = FinalState();
    ASSERT_TRUE(store_.Delete("dgljobs", "ns", "j").ok());
  }
  CreateJob(MakeJob("DGL-API", 3));
  {
    // The first operator runs until partitioning is done, then crashes.
    Controller first(store_, clock_);
    ASSERT_TRUE(first.Start().ok());
    for (int tick = 0; tick < 4; ++tick) {
      first.RunUntilIdle();
      KubeletTick();
      clock_.Advance(kube::kSecond);
    }
  }
  // Changes made while no operator runs are seen by the new one's lists.
  KubeletTick();
  Controller second(store_, clock_);
  ASSERT_TRUE(second.Start().ok());
  EXPECT_EQ(RunJob(second), "Succeeded");
  EXPECT_EQ(FinalState(), clean);
}

TEST_F(ControllerTest, DroppedWatchesAreResumedAndNotMissed) {
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("Skip", 0));
  controller.RunUntilIdle();
  store_.DropWatches();
  SetPod("j-launcher", "Running", "10.0.0.3");
  controller.RunUntilIdle();
  EXPECT_EQ(Phase(), "Training");
}

TEST_F(ControllerTest, DeadlineIsEnforcedThroughRequeueAfter) {
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  json job = MakeJob("Skip", 0);
  job["spec"]["runPolicy"] = {{"activeDeadlineSeconds", 30}};
  CreateJob(job);
  controller.RunUntilIdle();
  auto wake = controller.NextWakeTime();
  ASSERT_TRUE(wake.has_value());
  EXPECT_EQ(*wake, clock_.Now() + 30 * kube::kSecond);
  clock_.Set(*wake);
  controller.RunUntilIdle();
  EXPECT_EQ(Phase(), "Failed");
  EXPECT_EQ(Condition("Failed").value("reason", ""), "DeadlineExceeded");
}

TEST_F(ControllerTest, OwnedObjectChangesEnqueueTheirJob) {
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 2));
  controller.RunUntilIdle();
  // Someone deletes the Service: the operator puts it back.
  ASSERT_TRUE(store_.Delete("services", "ns", "j-worker").ok());
  controller.RunUntilIdle();
  EXPECT_TRUE(Exists("services", "j-worker"));
}

TEST_F(ControllerTest, JobsOfTheSameNameInTwoNamespacesSeeOnlyTheirOwnPods) {
  ASSERT_TRUE(store_.Create("namespaces", {{"metadata", {{"name", "ns2"}}}}).ok());
  Controller controller(store_, clock_);
  ASSERT_TRUE(controller.Start().ok());
  json other = MakeJob("DGL-API", 2);
  other["metadata"]["namespace"] = "ns2";
  ASSERT_TRUE(store_.Create("dgljobs", other).ok());
  CreateJob(MakeJob("DGL-API", 3));
  controller.RunUntilIdle();
  KubeletTick();  // this namespace's pods only: ns2's stay Pending
  controller.RunUntilIdle();
  auto ns2_job = store_.Get("dgljobs", "ns2", Name());
  ASSERT_TRUE(ns2_job.ok());
  EXPECT_EQ(Name(), kube::NameOf(**ns2_job));
  // Both partitioners are named j-partitioner: each job counts its own, Running here, Pending there.
  EXPECT_EQ(Status()["replicaStatuses"]["Partitioner"]["ready"], "1/1");
  EXPECT_EQ((**ns2_job)["status"]["replicaStatuses"]["Partitioner"]["ready"], "0/1");
  EXPECT_EQ((**ns2_job)["status"]["replicaStatuses"]["Partitioner"]["active"], 1);
  EXPECT_EQ((**ns2_job)["status"]["replicaStatuses"]["Worker"]["ready"], "0/2");
}


// Metrics: what a Prometheus scrape of the operator would read after the job's life.
double Metric(kube::MetricsRegistry& r, const std::string& name, const kube::LabelValues& labels) {
  kube::MetricFamily* f = r.Find(name);
  return f == nullptr ? -1 : f->Value(labels);
}

const kube::LabelValues kJobLabels = {"ns", "dgl", "DGL-API"};

TEST_F(ControllerTest, MetricsFollowAJobFromCreationToDeletion) {
  kube::MetricsRegistry metrics;
  ControllerOptions options;
  options.metrics = &metrics;
  Controller controller(store_, clock_, options);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 3));
  controller.RunUntilIdle();
  EXPECT_EQ(Metric(metrics, "training_operator_jobs_created_total", kJobLabels), 1);
  KubeletTick();
  controller.RunUntilIdle();
  EXPECT_EQ(Metric(metrics, "dgl_operator_jobs_running", kJobLabels), 1) << Phase();
  ASSERT_EQ(RunJob(controller), "Succeeded");
  EXPECT_EQ(Metric(metrics, "training_operator_jobs_successful_total", kJobLabels), 1);
  EXPECT_FALSE(metrics.Find("training_operator_jobs_failed_total")->Has(kJobLabels));
  EXPECT_EQ(Metric(metrics, "dgl_operator_jobs_running", kJobLabels), 0);
  EXPECT_EQ(Metric(metrics, "controller_runtime_reconcile_total", {"dgljob", "success"}) +
                Metric(metrics, "controller_runtime_reconcile_total", {"dgljob", "requeue_after"}),
            static_cast<double>(controller.stats().reconciles));
  EXPECT_EQ(Metric(metrics, "controller_runtime_reconcile_errors_total", {"dgljob"}), 0);
  EXPECT_EQ(Metric(metrics, "controller_runtime_max_concurrent_reconciles", {"dgljob"}), 1);
  EXPECT_EQ(Metric(metrics, "controller_runtime_active_workers", {"dgljob"}), 0);
  EXPECT_GE(Metric(metrics, "workqueue_adds_total", {"dgljob", "dgljob"}),
            static_cast<double>(controller.stats().reconciles));
  EXPECT_EQ(Metric(metrics, "workqueue_depth", {"dgljob", "dgljob", ""}), 0);
  // Each stage once, as long as the conditions say (the stand-in kubelet takes a tick a step).
  kube::MetricFamily* stages = metrics.Find("dgl_operator_job_stage_duration_seconds");
  ASSERT_NE(stages, nullptr);
  for (const char* stage : {"partitioning", "training"}) {
    kube::LabelValues labels = kJobLabels;
    labels.push_back(stage);
    EXPECT_EQ(stages->Count(labels), 1u) << stage;
    EXPECT_GE(stages->Sum(labels), 1.0) << stage;
  }
  ASSERT_TRUE(store_.Delete("dgljobs", "ns", "j").ok());
  controller.RunUntilIdle();
  EXPECT_EQ(Metric(metrics, "training_operator_jobs_deleted_total", kJobLabels), 1);
}

TEST_F(ControllerTest, MetricsCountRestartsAndFailedReconciles) {
  fail_partitioner_ = 1;
  kube::MetricsRegistry metrics;
  kube::FaultyClient faulty(store_, /*seed=*/42, kube::FaultPlan{.conflict_rate = 0.2});
  ControllerOptions options;
  options.metrics = &metrics;
  Controller controller(faulty, clock_, options);
  ASSERT_TRUE(controller.Start().ok());
  CreateJob(MakeJob("DGL-API", 3));
  ASSERT_EQ(RunJob(controller), "Succeeded");
  ASSERT_EQ(Status()["restartCount"], 1);
  EXPECT_EQ(Metric(metrics, "training_operator_jobs_restarted_total", kJobLabels), 1);
  ASSERT_GT(controller.stats().errors, 0);
  EXPECT_EQ(Metric(metrics, "controller_runtime_reconcile_errors_total", {"dgljob"}),
            static_cast<double>(controller.stats().errors));
  EXPECT_EQ(Metric(metrics, "controller_runtime_reconcile_total", {"dgljob", "error"}),
            static_cast<double>(controller.stats().errors));
  EXPECT_GE(Metric(metrics, "workqueue_retries_total", {"dgljob", "dgljob"}),
            static_cast<double>(controller.stats().errors));
}

TEST_F(ControllerTest, ARestartedControllerCountsOnWhereItsPredecessorLeftOff) {
  kube::MetricsRegistry metrics;
  ControllerOptions options;
  options.metrics = &metrics;
  CreateJob(MakeJob("DGL-API", 3));
  {
    Controller first(store_, clock_, options);
    ASSERT_TRUE(first.Start().ok());
    first.RunUntilIdle();
    KubeletTick();
    first.RunUntilIdle();
    ASSERT_EQ(Metric(metrics, "dgl_operator_jobs_running", kJobLabels), 1);
  }
  Controller second(store_, clock_, options);
  ASSERT_TRUE(second.Start().ok());
  second.Pump();
  // The job has a status: not created again; still running, counted once.
  EXPECT_EQ(Metric(metrics, "training_operator_jobs_created_total", kJobLabels), 1);
  EXPECT_EQ(Metric(metrics, "dgl_operator_jobs_running", kJobLabels), 1);
  ASSERT_EQ(RunJob(second), "Succeeded");
  EXPECT_EQ(Metric(metrics, "training_operator_jobs_successful_total", kJobLabels), 1);
  kube::LabelValues partitioning = kJobLabels;
  partitioning.push_back("partitioning");
  // The partitioning stage began under the first controller and ended under the second.
  EXPECT_EQ(metrics.Find("dgl_operator_job_stage_duration_seconds")->Count(partitioning), 1u);
}

}  // namespace
}  // namespace dgl::testing
