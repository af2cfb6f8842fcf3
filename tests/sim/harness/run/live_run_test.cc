// A live run (`dglsim serve`'s) stops simulated time where `dglsim run` stops it, so that what a
// client sees is what the run reports; its epoch moves timestamps only.
#include "sim/harness/run/live_run.h"

#include "sim/cluster/simulation.h"
#include "sim/harness/run/runner.h"
#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

#include <atomic>
#include <string>

namespace harness {
namespace {

std::string LiveScenarioPath(const std::string& name) { return std::string(DGLSIM_SOURCE_DIR) + "/scenarios/" + name; }

struct LiveResult {
  RunRecord record;
  std::string why;         // the first stop's reason
  Micros stopped_at = -1;  // and its simulated time
};

// Runs `scenario` live at --speed max until simulated time first stops.
LiveResult RunLiveToFirstStop(const Scenario& scenario) {
  LiveResult out;
  SimLock lock;
  std::atomic<bool> stopped{false};
  LiveOptions options;
  options.fast_forward = true;
  options.lock = &lock;
  options.on_time_stopped = [&](sim::Simulation& sim, const char* why) {
    if (stopped) return;
    out.why = why;
    out.stopped_at = sim.Now();
    stopped = true;
  };
  options.should_stop = [&] { return stopped.load(); };
  out.record = RunLive(scenario, options);
  return out;
}

// A job that loses a node for good waits for ever: the live run stops at until, in the very state
// `dglsim run` ends in (the same trace), where it used to race on past until.
TEST(LiveRunTest, FastForwardStopsAtUntilInTheRunsEndState) {
  ScenarioLoad load = LoadScenario(LiveScenarioPath("node-lost-worker-unschedulable.yaml"));
  ASSERT_TRUE(load.ok()) << (load.problems.empty() ? "" : load.problems[0]);
  const RunRecord ran = RunScenario(*load.scenario);
  const LiveResult live = RunLiveToFirstStop(*load.scenario);
  EXPECT_EQ(live.why, "until");
  EXPECT_EQ(live.stopped_at, load.scenario->until);
  EXPECT_EQ(live.record.end, ran.end);
  EXPECT_EQ(live.record.trace_hash, ran.trace_hash);
  const JobKey key{"default", "sage"};
  ASSERT_TRUE(live.record.jobs.contains(key));
  EXPECT_EQ(live.record.jobs.at(key).phase, "Partitioned");
  EXPECT_EQ(live.record.jobs.at(key).phase, ran.jobs.at(key).phase);
  EXPECT_EQ(live.record.jobs.at(key).restarts, ran.jobs.at(key).restarts);
}

// A scenario whose jobs all end stops at its end (after the settle period), as the run does.
TEST(LiveRunTest, FastForwardStopsAtTheScenariosEnd) {
  const Scenario scenario = testing::Load(testing::SmallScenario("", ""));
  const RunRecord ran = RunScenario(scenario);
  const LiveResult live = RunLiveToFirstStop(scenario);
  EXPECT_EQ(live.why, "end");
  EXPECT_LT(live.stopped_at, scenario.until);
  EXPECT_EQ(live.record.end, ran.end);
  EXPECT_EQ(live.record.trace_hash, ran.trace_hash);
}

// The epoch moves what timestamps read, never the run.
TEST(LiveRunTest, EpochMovesTimestampsOnly) {
  const Scenario scenario = testing::Load(testing::SmallScenario("", ""));
  Micros seen = 0;
  RunOptions options;
  options.epoch = kube::ManualClock::kDefaultStart + 1234 * kube::kSecond;
  options.before_start = [&](sim::Simulation& sim) { seen = sim.engine().epoch(); };
  const RunRecord moved = RunScenario(scenario, options);
  EXPECT_EQ(seen, *options.epoch);
  EXPECT_EQ(moved.trace_hash, RunScenario(scenario).trace_hash);
}

}  // namespace
}  // namespace harness
