// A chaos campaign in shards: each shard runs its seeds only, the slices merge back into exactly the
// outcomes of the unsharded campaign, and merging refuses anything but one whole campaign (another
// seed range or scenario, another shard count, a shard missing or twice, a seed out of place).
#include "sim/harness/chaos/slices.h"

#include "sim/harness/chaos/campaign.h"
#include "tests/sim/harness/harness_test_util.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace harness::chaos {
namespace {

using json = kube::Json;

// A campaign header as `dglsim chaos --shard` writes one, for seeds first..last.
json Header(std::uint64_t first, std::uint64_t last, const std::string& scenario = "small.yaml") {
  json header = {{"scenario", scenario}, {"name", "small"}, {"seeds", {{"first", first}, {"last", last}}}};
  header["fingerprint"] = Fingerprint(header, {"the scenario's text"});
  return header;
}

// Made-up outcomes of seeds first..last: every third fails.
std::vector<SeedOutcome> Outcomes(std::uint64_t first, std::uint64_t last) {
  std::vector<SeedOutcome> outcomes;
  for (std::uint64_t seed = first; seed <= last; ++seed) {
    SeedOutcome o;
    o.seed = seed;
    o.drawn_faults = seed % 5;
    if (seed % 3 == 0) {
      o.failed = true;
      o.failure = "jobsTerminalOrProgressing";
      o.detail = "job default/j stuck, seed " + std::to_string(seed);
      o.failures = {"jobsTerminalOrProgressing", "expectation"};
      o.trace_hash = "hash" + std::to_string(seed);
    }
    outcomes.push_back(o);
  }
  return outcomes;
}

// The slices of `outcomes` (seeds header.seeds.first..) over `count` shards, shard i holding the
// outcomes Shard::Takes gives it.
std::vector<json> Sliced(const json& header, const std::vector<SeedOutcome>& outcomes, std::size_t count) {
  std::vector<json> slices;
  for (std::size_t i = 0; i < count; ++i) {
    std::vector<SeedOutcome> mine;
    for (std::size_t k = 0; k < outcomes.size(); ++k)
      if (Shard{i, count}.Takes(k)) mine.push_back(outcomes[k]);
    slices.push_back(json::parse(ChaosSliceJson(header, {i, count}, mine).dump()));  // through text, as a file
  }
  return slices;
}

void ExpectSameOutcomes(const std::vector<SeedOutcome>& got, const std::vector<SeedOutcome>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    SCOPED_TRACE("seed " + std::to_string(want[i].seed));
    EXPECT_EQ(got[i].seed, want[i].seed);
    EXPECT_EQ(got[i].drawn_faults, want[i].drawn_faults);
    EXPECT_EQ(got[i].failed, want[i].failed);
    EXPECT_EQ(got[i].failure, want[i].failure);
    EXPECT_EQ(got[i].detail, want[i].detail);
    EXPECT_EQ(got[i].failures, want[i].failures);
    if (want[i].failed) EXPECT_EQ(got[i].trace_hash, want[i].trace_hash);  // a slice keeps failing seeds' only
  }
}

// Merges `slices` named a, b, c, ...: the problems ([] when it merged).
std::vector<std::string> MergeProblems(const std::vector<json>& slices) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < slices.size(); ++i) names.push_back(std::string(1, static_cast<char>('a' + i)));
  std::vector<std::string> problems;
  const auto merged = MergeChaosSlices(slices, names, &problems);
  EXPECT_EQ(merged.has_value(), problems.empty());
  return problems;
}

TEST(ChaosSlicesTest, SlicesInAnyOrderMergeIntoEverySeedInOrder) {
  const json header = Header(10, 26);
  const std::vector<SeedOutcome> whole = Outcomes(10, 26);
  std::vector<json> slices = Sliced(header, whole, 4);
  EXPECT_EQ(slices[1]["outcomes"][0]["seed"], 11);  // shard 1 of 4: seeds 11, 15, 19, 23
  EXPECT_EQ(slices[1]["outcomes"][1]["seed"], 15);
  std::swap(slices[0], slices[3]);
  std::vector<std::string> problems;
  const auto merged = MergeChaosSlices(slices, {"3", "1", "2", "0"}, &problems);
  ASSERT_TRUE(merged) << problems.front();
  EXPECT_EQ(merged->header, header);
  ExpectSameOutcomes(merged->outcomes, whole);
}

TEST(ChaosSlicesTest, MoreShardsThanSeedsLeaveSomeEmptyAndStillMerge) {
  const json header = Header(1, 3);
  std::vector<std::string> problems;
  const auto merged = MergeChaosSlices(Sliced(header, Outcomes(1, 3), 5), {"a", "b", "c", "d", "e"}, &problems);
  ASSERT_TRUE(merged) << problems.front();
  ExpectSameOutcomes(merged->outcomes, Outcomes(1, 3));
}

TEST(ChaosSlicesTest, AnOutcomeRoundTripsAndAMalformedOneIsRefused) {
  for (const SeedOutcome& o : Outcomes(5, 6)) {
    const std::optional<SeedOutcome> back = OutcomeFromJson(json::parse(OutcomeToJson(o).dump()));
    ASSERT_TRUE(back);
    ExpectSameOutcomes({*back}, {o});
  }
  EXPECT_EQ(OutcomeToJson(Outcomes(5, 5)[0]).size(), 2u);  // a passing seed: seed and drawnFaults only
  for (const char* bad : {R"({"seed": -1, "drawnFaults": 0})", R"({"seed": 1})", R"({"seed": 1, "drawnFaults": 0, "x": 1})",
                          R"({"seed": 1, "drawnFaults": 0, "failures": []})",
                          R"({"seed": 1, "drawnFaults": 0, "failures": ["a"], "failure": "a", "detail": 3, "traceHash": ""})", "[]"})
    EXPECT_FALSE(OutcomeFromJson(json::parse(bad))) << bad;
}

TEST(ChaosSlicesTest, AShardMissingOrTwiceOrOfAnotherCountIsRefused) {
  const json header = Header(1, 9);
  const std::vector<json> three = Sliced(header, Outcomes(1, 9), 3);
  EXPECT_EQ(MergeProblems({three[0], three[2]}), (std::vector<std::string>{"shard 1 of 3 is missing"}));
  EXPECT_EQ(MergeProblems({three[0], three[1], three[1], three[2]}),
            (std::vector<std::string>{"c: shard 1 again (also in b)"}));
  const std::vector<json> two = Sliced(header, Outcomes(1, 9), 2);
  const auto mixed = MergeProblems({three[0], three[1], three[2], two[1]});
  ASSERT_EQ(mixed.size(), 1u);
  EXPECT_EQ(mixed[0], "d: shard 1 of 2, the others are of 3");
  EXPECT_EQ(MergeProblems({}), (std::vector<std::string>{"no slices to merge"}));
}

TEST(ChaosSlicesTest, ASliceOfAnotherSeedRangeOrScenarioIsRefusedSayingWhatDiffers) {
  std::vector<json> slices = Sliced(Header(1, 9), Outcomes(1, 9), 3);
  slices[1] = Sliced(Header(1, 12), Outcomes(1, 12), 3)[1];
  auto problems = MergeProblems(slices);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].find("b: a slice of another chaos campaign: seeds {\"first\":1,\"last\":12} here, "
                             "{\"first\":1,\"last\":9} in a"), 0u) << problems[0];
  EXPECT_EQ(problems[1], "shard 1 of 3 is missing");

  slices[1] = Sliced(Header(1, 9, "other.yaml"), Outcomes(1, 9), 3)[1];
  problems = MergeProblems(slices);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("scenario \"other.yaml\" here, \"small.yaml\" in a"), std::string::npos) << problems[0];

  // The same command over a scenario file whose text changed: the fingerprint alone differs.
  json changed = Header(1, 9);
  changed["fingerprint"] = "0123456789abcdef";
  slices[1] = Sliced(changed, Outcomes(1, 9), 3)[1];
  problems = MergeProblems(slices);
  ASSERT_FALSE(problems.empty());
  EXPECT_NE(problems[0].find("(fingerprint 0123456789abcdef, not "), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("the scenario file changed between shards"), std::string::npos) << problems[0];
}

TEST(ChaosSlicesTest, ASeedOutOfItsShardOrASliceShortOfASeedIsRefused) {
  const json header = Header(1, 6);
  std::vector<json> slices = Sliced(header, Outcomes(1, 6), 2);
  slices[0]["outcomes"].push_back(OutcomeToJson(Outcomes(2, 2)[0]));  // seed 2 is shard 1's
  auto problems = MergeProblems(slices);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "a: outcomes[3]: seed 2 is not one of shard 0 of 2 of seeds 1..6");

  slices = Sliced(header, Outcomes(1, 6), 2);
  slices[1]["outcomes"].erase(slices[1]["outcomes"].begin());
  problems = MergeProblems(slices);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "the slices hold 5 seeds of 6 (1..6): a shard stopped short");

  slices = Sliced(header, Outcomes(1, 6), 2);
  slices[1]["outcomes"].push_back(slices[1]["outcomes"][0]);
  problems = MergeProblems(slices);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0], "b: outcomes[3]: seed 2 again");

  slices[1] = {{"kind", "SweepSlice"}};
  problems = MergeProblems(slices);
  ASSERT_FALSE(problems.empty());
  EXPECT_EQ(problems[0], "b: not a chaos campaign slice (kind: ChaosSlice, written by dglsim chaos --shard)");
}

TEST(ChaosSlicesTest, ShardedCampaignsRunEachSeedOnceAndTogetherGiveTheWholeCampaign) {
  ScenarioLoad load = LoadScenarioString(testing::SmallScenario("", ""), "small.yaml", ".");
  ASSERT_TRUE(load.ok()) << load.problems.front();
  ChaosOptions options;
  options.rates.per_seed[FaultKind::kPodKill] = 2;
  const std::vector<SeedOutcome> whole = RunCampaign(*load.scenario, options, 20, 24, {.jobs = 1});
  const json header = Header(20, 24);
  std::vector<json> slices;
  for (std::size_t i = 0; i < 2; ++i) {
    const std::vector<SeedOutcome> mine = RunCampaign(*load.scenario, options, 20, 24, {.jobs = 2, .shard = {i, 2}});
    ASSERT_EQ(mine.size(), i == 0 ? 3u : 2u);
    for (std::size_t k = 0; k < mine.size(); ++k) {
      EXPECT_EQ(mine[k].seed, 20 + i + 2 * k);
      EXPECT_EQ(mine[k].trace_hash, whole[i + 2 * k].trace_hash);  // the seed ran as in the whole campaign
    }
    slices.push_back(ChaosSliceJson(header, {i, 2}, mine));
  }
  std::vector<std::string> problems;
  const auto merged = MergeChaosSlices(slices, {"a", "b"}, &problems);
  ASSERT_TRUE(merged) << problems.front();
  ExpectSameOutcomes(merged->outcomes, whole);
}

}  // namespace
}  // namespace harness::chaos
