// The ranges of a run's predictions, as the DGL programs report them.
//
// The simulation runs the models at the calibration's values. Each program also evaluates the same
// closed-form models at the optimistic and pessimistic ends of the uncertain parameters
// (calibration.h) for every stage it runs, and writes here how much longer or shorter the stage
// would have been (flows scaled by their bytes at those ends, compute by the models' seconds), and
// the memory peaks of its role at both ends. The harness adds these to the simulated breakdown and
// peaks (sim/harness/runner.h), so a report never looks more certain than its inputs. Deltas of a
// stage that ran several times (restarts) add up, as the breakdown's intervals do.
//
// One log per simulation, written by its programs and read once the run is over.
// REQUIRES: single-threaded use inside the engine.
#pragma once

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sim::dglmodels {

class PredictionLog {
 public:
  // Seconds a stage would take beyond (or short of) the simulated one at the optimistic (`low`) and
  // pessimistic (`high`) ends.
  struct StageSpread {
    double low = 0;
    double high = 0;
  };
  // A role's memory peak at the two ends, in bytes.
  struct PeakRange {
    double low = 0;
    double high = 0;
  };
  struct Job {
    std::map<std::string, StageSpread> stages;
    std::map<std::string, PeakRange> peaks;
    std::vector<std::string> notes;  // in the order written, each once
  };

  // `job` is "namespace/name". The smaller delta counts as low whichever end gave it.
  void AddStage(const std::string& job, const std::string& stage, double delta_a, double delta_b) {
    StageSpread& s = jobs_[job].stages[stage];
    s.low += std::min(delta_a, delta_b);
    s.high += std::max(delta_a, delta_b);
  }
  // The largest peak a container of `role` reached at each end.
  void AddPeak(const std::string& job, const std::string& role, double at_a, double at_b) {
    PeakRange& p = jobs_[job].peaks[role];
    p.low = std::max(p.low, std::min(at_a, at_b));
    p.high = std::max(p.high, std::max(at_a, at_b));
  }
  void Note(const std::string& job, const std::string& note) {
    auto& notes = jobs_[job].notes;
    if (std::find(notes.begin(), notes.end(), note) == notes.end()) notes.push_back(note);
  }
  const std::map<std::string, Job>& jobs() const { return jobs_; }

 private:
  std::map<std::string, Job> jobs_;
};

}  // namespace sim::dglmodels
