#include "sim/harness/chaos/shrink.h"

#include "sim/harness/chaos/scenario_file.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>

namespace harness::chaos {
namespace {

class Shrinker {
 public:
  Shrinker(Micros until, const std::function<bool(const std::vector<FaultSpec>&)>& still_fails, int max_runs,
           const std::function<void(const std::string&)>& on_step)
      : until_(until), still_fails_(still_fails), max_runs_(max_runs), on_step_(on_step) {}

  ShrinkResult Run(std::vector<FaultSpec> faults) {
    faults_ = std::move(faults);
    if (!faults_.empty() && Try({}, "dropped every drawn fault")) return Result();
    DropChunks();
    while (!Exhausted() && WeakenAll()) {
    }
    return Result();
  }

 private:
  bool Exhausted() const { return runs_ >= max_runs_; }
  ShrinkResult Result() const { return {faults_, runs_, Exhausted()}; }

  // Runs `candidate`; keeps it (and reports `step`) when it still fails.
  bool Try(std::vector<FaultSpec> candidate, const std::string& step) {
    if (Exhausted()) return false;
    ++runs_;
    if (!still_fails_(candidate)) return false;
    faults_ = std::move(candidate);
    if (on_step_)
      on_step_("shrink: " + step + " -> " + std::to_string(faults_.size()) + " fault" +
               (faults_.size() == 1 ? "" : "s") + ", still fails");
    return true;
  }

  // ddmin: remove chunks of 1/n of the faults, n doubling up to single faults.
  void DropChunks() {
    std::size_t n = 2;
    while (faults_.size() >= 2 && !Exhausted()) {
      const std::size_t size = faults_.size();
      const std::size_t chunk = (size + n - 1) / n;
      bool dropped = false;
      for (std::size_t begin = 0; begin < faults_.size() && !Exhausted(); begin += chunk) {
        const std::size_t end = std::min(faults_.size(), begin + chunk);
        std::vector<FaultSpec> rest(faults_.begin(), faults_.begin() + begin);
        rest.insert(rest.end(), faults_.begin() + end, faults_.end());
        std::string what = end - begin == 1 ? DescribeFault(faults_[begin])
                                            : std::to_string(end - begin) + " faults (" + std::to_string(begin + 1) +
                                                  ".." + std::to_string(end) + " of " + std::to_string(faults_.size()) + ")";
        if (Try(std::move(rest), "dropped " + what)) {
          dropped = true;
          break;
        }
      }
      if (dropped) {
        n = std::max<std::size_t>(2, n - 1);
      } else if (chunk == 1) {
        break;
      } else {
        n = std::min(faults_.size(), n * 2);
      }
    }
    // A single fault left is needed: Run tried none at all first.
  }

  // One pass of weakening over every fault; true when anything changed.
  bool WeakenAll() {
    bool changed = false;
    for (std::size_t i = 0; i < faults_.size() && !Exhausted(); ++i)
      for (int move = 0; move < kMoves; ++move) {
        // From the fault as it is now: an earlier move of this pass may have changed it.
        std::optional<std::pair<std::string, FaultSpec>> weaker = Weaken(faults_[i], move);
        if (!weaker) continue;
        std::vector<FaultSpec> candidate = faults_;
        const std::string what = DescribeFault(faults_[i]) + ": " + weaker->first;
        candidate[i] = std::move(weaker->second);
        changed = Try(std::move(candidate), what) || changed;
      }
    return changed;
  }

  static constexpr int kMoves = 7;

  // `f` weakened by move `move` (later, shorter, each rate, latency, factor), with what changed;
  // nullopt when that move does not apply or changes nothing.
  std::optional<std::pair<std::string, FaultSpec>> Weaken(const FaultSpec& f, int move) const {
    FaultSpec w = f;
    char text[96] = "";
    auto halve_rate = [&](const char* name, double FaultSpec::*rate) {
      if (f.*rate <= 0) return false;
      w.*rate = static_cast<double>(std::llround(f.*rate * 1000) / 2) / 1000.0;
      std::snprintf(text, sizeof text, "%s %g", name, w.*rate);
      return true;
    };
    switch (move) {
      case 0: {  // later: halfway to `until`
        if (!f.trigger.at) return std::nullopt;
        const Micros later = (*f.trigger.at + (until_ - *f.trigger.at) / 2) / kube::kSecond * kube::kSecond;
        if (later <= *f.trigger.at) return std::nullopt;
        w.trigger.at = later;
        return std::pair{"moved to " + ExactDuration(later), w};
      }
      case 1: {  // shorter
        if (!f.duration || *f.duration < 2 * kube::kSecond) return std::nullopt;
        w.duration = *f.duration / 2 / kube::kSecond * kube::kSecond;
        return std::pair{"for " + ExactDuration(*w.duration), w};
      }
      case 2:
        if (!halve_rate("conflictRate", &FaultSpec::conflict_rate)) return std::nullopt;
        return std::pair{std::string(text), w};
      case 3:
        if (!halve_rate("errorRate", &FaultSpec::error_rate)) return std::nullopt;
        return std::pair{std::string(text), w};
      case 4:
        if (!halve_rate("timeoutRate", &FaultSpec::timeout_rate)) return std::nullopt;
        return std::pair{std::string(text), w};
      case 5:
        if (f.latency <= 0) return std::nullopt;
        w.latency = f.latency / 2 / kube::kMillisecond * kube::kMillisecond;
        return std::pair{"latency " + ExactDuration(w.latency), w};
      default:  // a slow network less slow
        if (f.kind != FaultKind::kNetworkSlow || f.factor >= 0.99) return std::nullopt;
        w.factor = static_cast<double>(std::llround((1 + f.factor) * 50)) / 100.0;
        std::snprintf(text, sizeof text, "factor %g", w.factor);
        return std::pair{std::string(text), w};
    }
  }

  Micros until_;
  const std::function<bool(const std::vector<FaultSpec>&)>& still_fails_;
  int max_runs_;
  const std::function<void(const std::string&)>& on_step_;
  std::vector<FaultSpec> faults_;
  int runs_ = 0;
};

}  // namespace

std::string DescribeFault(const FaultSpec& f) {
  std::string out = std::string(ToString(f.kind));
  if (f.node_of) out += " nodeOf " + f.node_of->ToString();
  if (!f.node.empty()) out += " " + f.node;
  if (f.pod) out += " " + f.pod->ToString();
  if (f.trigger.at) out += " at " + ExactDuration(*f.trigger.at);
  if (f.trigger.job) out += " when " + f.trigger.job->ToString() + " " + f.trigger.phase + " after " + ExactDuration(f.trigger.after);
  if (f.duration) out += " for " + ExactDuration(*f.duration);
  return out;
}

ShrinkResult Shrink(std::vector<FaultSpec> faults, Micros until,
                    const std::function<bool(const std::vector<FaultSpec>&)>& still_fails, int max_runs,
                    const std::function<void(const std::string&)>& on_step) {
  return Shrinker(until, still_fails, max_runs, on_step).Run(std::move(faults));
}

}  // namespace harness::chaos
