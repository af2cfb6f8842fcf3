// A chaos campaign in shards (`dglsim chaos --shard I/N`, `dglsim chaos merge`): the slice each
// shard writes and their merge into the outcomes of the whole campaign, seed by seed as one
// process would have them.
//
// Shard I of N runs the seeds first + I, first + I + N, ... (harness::Shard over the seed's place
// in the range, sim/harness/shards.h). Its slice:
//   {apiVersion: dglsim/v1, kind: ChaosSlice, campaign: HEADER, shard: {index, count}, outcomes: [...]}
// HEADER is what the command says the campaign is (the scenario, the seed range {first, last}, the
// options, a fingerprint of those and of the scenario file's text); it must be the same in every
// slice. Each outcome is {seed, drawnFaults}, and for a failing seed also failure, detail, failures
// and traceHash: everything the reports read (the wall time of a seed is not kept: the reports
// hold none, so that a merged campaign's are byte for byte the unsharded one's).
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/chaos/campaign.h"
#include "sim/harness/shards.h"

#include <optional>
#include <string>
#include <vector>

namespace harness::chaos {

inline constexpr const char* kChaosSliceKind = "ChaosSlice";

// The slice format for CheckSlices (kind ChaosSlice, header key "campaign", rows "outcomes").
SliceFormat ChaosSliceFormat();

kube::Json OutcomeToJson(const SeedOutcome& outcome);
// nullopt when `value` is not an outcome as OutcomeToJson writes it.
std::optional<SeedOutcome> OutcomeFromJson(const kube::Json& value);

// What shard `shard` writes. REQUIRES: header["seeds"] is {first, last}.
kube::Json ChaosSliceJson(const kube::Json& header, const Shard& shard, const std::vector<SeedOutcome>& outcomes);

struct MergedCampaign {
  kube::Json header;
  std::vector<SeedOutcome> outcomes;  // every seed of first..last, in seed order
};

// The slices (each parsed from names[i]) joined: one campaign (CheckSlices: the same header, one
// shard count, every shard once), each slice holding exactly the seeds of its shard, each seed an
// outcome. nullopt with one message per problem appended to `problems` otherwise.
std::optional<MergedCampaign> MergeChaosSlices(const std::vector<kube::Json>& slices, const std::vector<std::string>& names,
                                               std::vector<std::string>* problems);

}  // namespace harness::chaos
