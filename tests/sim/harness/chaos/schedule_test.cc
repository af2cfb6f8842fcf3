// Chaos fault schedules: drawn from the seed alone, every kind over many seeds, the rates the user
// sets honoured, times and targets within the scenario, and written exactly into a scenario file.
#include "sim/harness/chaos/schedule.h"

#include "sim/harness/chaos/scenario_file.h"
#include "sim/harness/config/yaml_json.h"
#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

namespace harness::chaos {
namespace {

using testing::Load;
using testing::SmallScenario;

std::string Dump(const std::vector<FaultSpec>& faults) {
  kube::Json out = kube::Json::array();
  for (const FaultSpec& f : faults) out.push_back(FaultToJson(f));
  return out.dump();
}

ChaosRates Only(FaultKind kind, double mean) {
  ChaosRates rates;
  rates.per_seed = {{kind, mean}};
  return rates;
}

TEST(ChaosScheduleTest, TheSameSeedDrawsTheSameFaultsAndSeedsDiffer) {
  const Scenario s = Load(SmallScenario("", ""));
  std::set<std::string> schedules;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const std::string first = Dump(DrawFaults(s, ChaosRates{}, seed));
    EXPECT_EQ(first, Dump(DrawFaults(s, ChaosRates{}, seed))) << "seed " << seed;
    schedules.insert(first);
  }
  EXPECT_GE(schedules.size(), 18u);  // an empty schedule may repeat, little else
}

TEST(ChaosScheduleTest, EveryKindIsDrawnOverManySeeds) {
  const Scenario s = Load(SmallScenario("", ""));
  std::map<FaultKind, int> seen;
  bool when = false, at = false, node_of = false;
  for (std::uint64_t seed = 1; seed <= 300; ++seed)
    for (const FaultSpec& f : DrawFaults(s, ChaosRates{}, seed)) {
      ++seen[f.kind];
      when = when || f.trigger.job.has_value();
      at = at || f.trigger.at.has_value();
      node_of = node_of || f.node_of.has_value();
    }
  for (FaultKind kind : AllFaultKinds()) EXPECT_GT(seen[kind], 0) << ToString(kind);
  EXPECT_TRUE(when);
  EXPECT_TRUE(at);
  EXPECT_TRUE(node_of);
}

TEST(ChaosScheduleTest, RatesAreHonoured) {
  const Scenario s = Load(SmallScenario("", ""));
  const int seeds = 2000;
  for (double mean : {0.5, 3.0}) {
    int count = 0;
    for (std::uint64_t seed = 1; seed <= seeds; ++seed)
      for (const FaultSpec& f : DrawFaults(s, Only(FaultKind::kPodKill, mean), seed)) {
        EXPECT_EQ(f.kind, FaultKind::kPodKill);
        ++count;
      }
    // Poisson: the mean of 2000 draws is within 4 standard errors of the rate.
    const double observed = static_cast<double>(count) / seeds;
    EXPECT_NEAR(observed, mean, 4 * std::sqrt(mean / seeds)) << "rate " << mean;
  }
  ChaosRates none;
  none.per_seed.clear();
  for (std::uint64_t seed = 1; seed <= 100; ++seed) EXPECT_TRUE(DrawFaults(s, none, seed).empty());
}

TEST(ChaosScheduleTest, ChangingOneKindsRateLeavesTheOthersAlone) {
  const Scenario s = Load(SmallScenario("", ""));
  ChaosRates more;
  more.per_seed[FaultKind::kPodKill] = 5;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    auto not_pod_kill = [](std::vector<FaultSpec> v) {
      std::erase_if(v, [](const FaultSpec& f) { return f.kind == FaultKind::kPodKill; });
      for (FaultSpec& f : v) f.field_path.clear();
      return Dump(v);
    };
    EXPECT_EQ(not_pod_kill(DrawFaults(s, ChaosRates{}, seed)), not_pod_kill(DrawFaults(s, more, seed)));
  }
}

TEST(ChaosScheduleTest, TimesTargetsAndStrengthsStayWithinTheScenarioAndTheMaxima) {
  const Scenario s = Load(SmallScenario("", ""));
  ChaosRates rates;
  rates.max_conflict_rate = 0.1;
  rates.max_for = 20 * 60 * kube::kSecond;
  const std::vector<std::string> nodes = s.cluster.NodeNames();
  for (std::uint64_t seed = 1; seed <= 200; ++seed)
    for (const FaultSpec& f : DrawFaults(s, rates, seed, 3)) {
      if (f.trigger.at) {
        EXPECT_LT(*f.trigger.at, s.until / 2);
        EXPECT_EQ(*f.trigger.at % kube::kSecond, 0);
      } else {
        ASSERT_TRUE(f.trigger.job);
        EXPECT_EQ(*f.trigger.job, (JobKey{"default", "j"}));
      }
      if (!f.node.empty()) {
        EXPECT_NE(std::find(nodes.begin(), nodes.end(), f.node), nodes.end()) << f.node;
      }
      if (f.pod) {
        EXPECT_TRUE(f.pod->name.starts_with("j-")) << f.pod->name;
      }
      if (f.kind == FaultKind::kNodeDown || f.kind == FaultKind::kApiFaults || f.kind == FaultKind::kNetworkSlow ||
          f.kind == FaultKind::kImagePullError) {
        ASSERT_TRUE(f.duration) << ToString(f.kind) << " is always undone";
      }
      if (f.duration) {
        EXPECT_LE(*f.duration, 20 * 60 * kube::kSecond);
      }
      EXPECT_LE(f.conflict_rate, 0.1);
      EXPECT_GT(f.factor, 0);
      EXPECT_TRUE(f.field_path.starts_with("faults[")) << f.field_path;
    }
}

TEST(ChaosScheduleTest, DrawnFaultsLoadBackFromAScenarioFileUnchanged) {
  const std::string base = SmallScenario("", "");
  const Scenario s = Load(base);
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const std::vector<FaultSpec> drawn = DrawFaults(s, ChaosRates{}, seed);
    kube::Json list = kube::Json::array();
    for (const FaultSpec& f : drawn) list.push_back(FaultToJson(f));
    if (list.empty()) continue;
    // The list as JsonToYaml writes it, indented under `faults:`.
    std::string faults;
    std::istringstream lines(JsonToYaml(list));
    for (std::string line; std::getline(lines, line);) faults += "  " + line + "\n";
    const Scenario again = Load(SmallScenario(faults, ""));
    EXPECT_EQ(Dump(drawn), Dump(again.faults)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace harness::chaos
