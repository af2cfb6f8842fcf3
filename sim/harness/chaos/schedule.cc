#include "sim/harness/chaos/schedule.h"

#include "sim/kernel/random.h"

#include <algorithm>
#include <cmath>

namespace harness::chaos {
namespace {

constexpr Micros kSecond = kube::kSecond;
constexpr const char* kTriggerPhases[] = {dgl::kPhasePending, dgl::kPhasePartitioning, dgl::kPhasePartitioned,
                                          dgl::kPhaseTraining};

// What a draw needs of the scenario, gathered once.
struct Targets {
  std::vector<std::string> nodes;
  std::vector<JobKey> jobs;
  std::vector<JobKey> pods;  // namespace/name of every pod a job creates
  Micros window = 0;         // `at` faults start before this
  Micros max_for = 0;
};

Targets TargetsOf(const Scenario& scenario, const ChaosRates& rates) {
  Targets t;
  t.nodes = scenario.cluster.NodeNames();
  t.jobs = scenario.job_keys;
  for (const auto& [job, pods] : scenario.job_pods)
    for (const std::string& pod : pods) t.pods.push_back({job.ns, pod});
  const double window = std::clamp(rates.window, 0.0, 1.0);
  t.window = static_cast<Micros>(std::floor(static_cast<double>(scenario.until / kSecond) * window)) * kSecond;
  t.max_for = rates.max_for.value_or(scenario.until / 4);
  t.max_for = std::max<Micros>(kSecond, t.max_for / kSecond * kSecond);
  return t;
}

// Whole seconds in [lo, hi].
Micros Seconds(sim::RandomStream& rng, Micros lo, Micros hi) {
  return rng.UniformInt(lo / kSecond, std::max(lo, hi) / kSecond) * kSecond;
}

// A rate in [0, max] on the grid of 0.001 (written exactly in a scenario file).
double Rate(sim::RandomStream& rng, double max) {
  const std::int64_t top = static_cast<std::int64_t>(std::floor(std::clamp(max, 0.0, 1.0) * 1000));
  return static_cast<double>(rng.UniformInt(0, top)) / 1000.0;
}

template <typename T>
const T& Pick(sim::RandomStream& rng, const std::vector<T>& from) {
  return from[static_cast<std::size_t>(rng.UniformInt(0, static_cast<std::int64_t>(from.size()) - 1))];
}

// Poisson-distributed count with mean `mean`: arrivals of a unit-rate process before `mean`.
int Count(sim::RandomStream& rng, double mean) {
  if (!(mean > 0)) return 0;
  int n = 0;
  for (double t = rng.Exponential(1.0); t <= mean && n < kMaxFaultsPerKind; t += rng.Exponential(1.0)) ++n;
  return n;
}

void DrawTrigger(sim::RandomStream& rng, const Targets& t, FaultSpec& f) {
  if (!t.jobs.empty() && rng.Bernoulli(0.5)) {
    f.trigger.job = Pick(rng, t.jobs);
    f.trigger.phase = kTriggerPhases[rng.UniformInt(0, std::size(kTriggerPhases) - 1)];
    f.trigger.after = Seconds(rng, 0, 600 * kSecond);
  } else {
    f.trigger.at = Seconds(rng, 0, std::max<Micros>(0, t.window - kSecond));
  }
}

// The target and strength of `f` by kind; false when the scenario has nothing it could act on.
bool DrawTarget(sim::RandomStream& rng, const Targets& t, const ChaosRates& rates, FaultSpec& f) {
  auto duration = [&] { return Seconds(rng, kSecond, t.max_for); };
  switch (f.kind) {
    case FaultKind::kNodeDown:
      if (t.nodes.empty()) return false;
      if (!t.pods.empty() && rng.Bernoulli(0.25)) {
        f.node_of = Pick(rng, t.pods);
      } else {
        f.node = Pick(rng, t.nodes);
      }
      f.duration = duration();
      return true;
    case FaultKind::kNodeUp:
      if (t.nodes.empty()) return false;
      f.node = Pick(rng, t.nodes);
      return true;
    case FaultKind::kPodKill:
    case FaultKind::kOOM:
      if (t.pods.empty()) return false;
      f.pod = Pick(rng, t.pods);
      f.exit_code = f.kind == FaultKind::kOOM || rng.Bernoulli(0.5) ? 137 : 1;
      return true;
    case FaultKind::kImagePullError:
      f.image = "*";
      if (!t.nodes.empty() && rng.Bernoulli(0.5)) f.node = Pick(rng, t.nodes);
      f.duration = duration();
      return true;
    case FaultKind::kNetworkSlow:
      if (!t.nodes.empty() && rng.Bernoulli(0.5)) f.node = Pick(rng, t.nodes);
      f.factor = static_cast<double>(rng.UniformInt(5, 100)) / 100.0;
      f.duration = duration();
      return true;
    case FaultKind::kApiFaults:
      f.conflict_rate = Rate(rng, rates.max_conflict_rate);
      f.error_rate = Rate(rng, rates.max_error_rate);
      f.timeout_rate = Rate(rng, rates.max_timeout_rate);
      if (rng.Bernoulli(1.0 / 3)) f.latency = rng.UniformInt(1, 200) * kube::kMillisecond;
      f.duration = duration();
      return true;
    case FaultKind::kWatchDrop: return true;
    case FaultKind::kOperatorRestart:
      if (rng.Bernoulli(0.5)) f.duration = Seconds(rng, kSecond, 120 * kSecond);
      return true;
    case FaultKind::kRbacRuleRemoved: return false;  // a policy edit, not drawn by campaigns
    case FaultKind::kNodeDeleted: return false;      // a node for good, out of every later draw: not drawn
  }
  return false;
}

}  // namespace

std::map<FaultKind, double> ChaosRates::DefaultPerSeed() {
  return {{FaultKind::kNodeDown, 1},       {FaultKind::kNodeUp, 0.5},     {FaultKind::kPodKill, 1},
          {FaultKind::kOOM, 0.5},          {FaultKind::kImagePullError, 0.5}, {FaultKind::kNetworkSlow, 0.5},
          {FaultKind::kApiFaults, 1},      {FaultKind::kWatchDrop, 1},    {FaultKind::kOperatorRestart, 1}};
}

const std::vector<FaultKind>& AllFaultKinds() {
  static const std::vector<FaultKind> kKinds = {
      FaultKind::kNodeDown,    FaultKind::kNodeUp,    FaultKind::kPodKill,   FaultKind::kOOM,
      FaultKind::kImagePullError, FaultKind::kNetworkSlow, FaultKind::kApiFaults, FaultKind::kWatchDrop,
      FaultKind::kOperatorRestart};
  return kKinds;
}

std::optional<FaultKind> FaultKindNamed(const std::string& name) {
  for (FaultKind kind : AllFaultKinds())
    if (name == ToString(kind)) return kind;
  return std::nullopt;
}

std::vector<FaultSpec> DrawFaults(const Scenario& scenario, const ChaosRates& rates, std::uint64_t seed,
                                  std::size_t first_index) {
  const Targets targets = TargetsOf(scenario, rates);
  std::vector<FaultSpec> faults;
  for (FaultKind kind : AllFaultKinds()) {
    // One stream per kind: changing one kind's rate leaves the others' faults as they were.
    sim::RandomStream rng = sim::RandomStream::ForComponent(seed, std::string("chaos-schedule/") + ToString(kind));
    auto rate = rates.per_seed.find(kind);
    const int count = Count(rng, rate == rates.per_seed.end() ? 0 : rate->second);
    for (int i = 0; i < count; ++i) {
      FaultSpec f;
      f.kind = kind;
      DrawTrigger(rng, targets, f);
      if (DrawTarget(rng, targets, rates, f)) faults.push_back(std::move(f));
    }
  }
  std::stable_sort(faults.begin(), faults.end(), [](const FaultSpec& a, const FaultSpec& b) {
    if (a.trigger.at.has_value() != b.trigger.at.has_value()) return a.trigger.at.has_value();
    return a.trigger.at.value_or(0) < b.trigger.at.value_or(0);
  });
  for (std::size_t i = 0; i < faults.size(); ++i) faults[i].field_path = "faults[" + std::to_string(first_index + i) + "]";
  return faults;
}

}  // namespace harness::chaos
