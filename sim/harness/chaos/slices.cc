#include "sim/harness/chaos/slices.h"

#include "sim/harness/config/manifest_check.h"

#include <map>
#include <utility>

namespace harness::chaos {

using json = kube::Json;

SliceFormat ChaosSliceFormat() {
  return {.kind = kChaosSliceKind, .header = "campaign", .rows = "outcomes", .batch = "chaos campaign",
          .writer = "dglsim chaos --shard", .changed = "the scenario file changed between shards"};
}

json OutcomeToJson(const SeedOutcome& o) {
  json out = {{"seed", o.seed}, {"drawnFaults", o.drawn_faults}};
  if (!o.failed) return out;
  out["failure"] = o.failure;
  out["detail"] = o.detail;
  out["failures"] = o.failures;
  out["traceHash"] = o.trace_hash;
  return out;
}

std::optional<SeedOutcome> OutcomeFromJson(const json& value) {
  if (!value.is_object() || !value.contains("seed") || !value["seed"].is_number_unsigned() ||
      !value.contains("drawnFaults") || !value["drawnFaults"].is_number_unsigned())
    return std::nullopt;
  SeedOutcome o;
  o.seed = value["seed"].get<std::uint64_t>();
  o.drawn_faults = value["drawnFaults"].get<std::size_t>();
  if (!value.contains("failures")) return value.size() == 2 ? std::optional(o) : std::nullopt;
  const json& failures = value["failures"];
  for (const char* key : {"failure", "detail", "traceHash"})
    if (!value.contains(key) || !value[key].is_string()) return std::nullopt;
  if (!failures.is_array() || failures.empty()) return std::nullopt;
  for (const json& f : failures) {
    if (!f.is_string()) return std::nullopt;
    o.failures.insert(f.get<std::string>());
  }
  o.failed = true;
  o.failure = value["failure"].get<std::string>();
  o.detail = value["detail"].get<std::string>();
  o.trace_hash = value["traceHash"].get<std::string>();
  return o;
}

json ChaosSliceJson(const json& header, const Shard& shard, const std::vector<SeedOutcome>& outcomes) {
  json rows = json::array();
  for (const SeedOutcome& o : outcomes) rows.push_back(OutcomeToJson(o));
  return {{"apiVersion", kScenarioApiVersion}, {"kind", kChaosSliceKind}, {"campaign", header},
          {"shard", {{"index", shard.index}, {"count", shard.count}}}, {"outcomes", rows}};
}

namespace {

// The campaign's seed range from its header.
std::optional<std::pair<std::uint64_t, std::uint64_t>> SeedRange(const json& header) {
  if (!header.is_object() || !header.contains("seeds")) return std::nullopt;
  const json& seeds = header["seeds"];
  if (!seeds.is_object() || !seeds.contains("first") || !seeds.contains("last") || !seeds["first"].is_number_unsigned() ||
      !seeds["last"].is_number_unsigned() || seeds["first"].get<std::uint64_t>() > seeds["last"].get<std::uint64_t>())
    return std::nullopt;
  return std::pair{seeds["first"].get<std::uint64_t>(), seeds["last"].get<std::uint64_t>()};
}

}  // namespace

std::optional<MergedCampaign> MergeChaosSlices(const std::vector<json>& slices, const std::vector<std::string>& names,
                                               std::vector<std::string>* problems) {
  const std::optional<json> header = CheckSlices(slices, names, ChaosSliceFormat(), problems);
  if (!header) return std::nullopt;
  const auto range = SeedRange(*header);
  if (!range) {
    problems->push_back(names[0] + ": campaign.seeds: expected {first: A, last: B} with A <= B");
    return std::nullopt;
  }
  const auto [first, last] = *range;
  std::map<std::uint64_t, SeedOutcome> by_seed;
  const std::size_t before = problems->size();
  for (std::size_t i = 0; i < slices.size(); ++i) {
    const Shard shard{slices[i]["shard"]["index"].get<std::size_t>(), slices[i]["shard"]["count"].get<std::size_t>()};
    const json& outcomes = slices[i]["outcomes"];
    for (std::size_t k = 0; k < outcomes.size(); ++k) {
      const std::string where = names[i] + ": outcomes[" + std::to_string(k) + "]";
      std::optional<SeedOutcome> o = OutcomeFromJson(outcomes[k]);
      if (!o) {
        problems->push_back(where + ": not a seed's outcome ({seed, drawnFaults}, and failure, detail, failures, traceHash)");
      } else if (o->seed < first || o->seed > last || !shard.Takes(static_cast<std::size_t>(o->seed - first))) {
        problems->push_back(where + ": seed " + std::to_string(o->seed) + " is not one of shard " + std::to_string(shard.index) +
                            " of " + std::to_string(shard.count) + " of seeds " + std::to_string(first) + ".." +
                            std::to_string(last));
      } else if (!by_seed.emplace(o->seed, *o).second) {
        problems->push_back(where + ": seed " + std::to_string(o->seed) + " again");
      }
    }
  }
  if (problems->size() == before && by_seed.size() != last - first + 1)
    problems->push_back("the slices hold " + std::to_string(by_seed.size()) + " seeds of " + std::to_string(last - first + 1) +
                        " (" + std::to_string(first) + ".." + std::to_string(last) + "): a shard stopped short");
  if (problems->size() != before) return std::nullopt;
  MergedCampaign merged{*header, {}};
  merged.outcomes.reserve(by_seed.size());
  for (auto& [seed, o] : by_seed) merged.outcomes.push_back(std::move(o));
  return merged;
}

}  // namespace harness::chaos
