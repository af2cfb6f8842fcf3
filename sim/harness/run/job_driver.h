// The JobDriver does to the cluster what the scenario's `jobs:` entries say, at their `at`, the way
// `kubectl` would: it creates DGLJobs (submit), deletes them, and patches runPolicy.suspend
// (suspend, resume), directly in the store, and writes each action to the trace (category
// "harness"). A create the API refuses is noted in the record (submit_error and a note).
//
// Before the run it puts every job the scenario names into the record, in the order of the entries
// by `at` (stably), with the dataset the job runs on: the entry's or the dglsim.io/dataset
// annotation's, else the one the DGL workload models would match from the job's own command line.
//
// REQUIRES: single-threaded use; everything given outlives the driver.
#pragma once

#include "sim/dgl/dataset.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/run/run_record.h"
#include "sim/kernel/owned_events.h"

#include <cstddef>
#include <vector>

namespace sim {
class Simulation;
}  // namespace sim

namespace harness {

class Recorder;

class JobDriver {
 public:
  JobDriver(sim::Simulation& sim, RunRecord& record, Recorder& recorder, const sim::dglmodels::DglEnvironment& dgl);

  // Schedules every entry at its `at`. Call once, before the run.
  void Schedule(const std::vector<JobEntry>& entries);
  // Every scheduled entry has been applied.
  bool AllApplied() const { return applied_ == entries_.size(); }

 private:
  void NoteDatasets(const JobEntry& entry);
  void Apply(const JobEntry& entry);
  void Submit(const JobEntry& entry);
  void Delete(const JobEntry& entry);
  void SetSuspended(const JobEntry& entry, bool suspend);

  sim::Simulation& sim_;
  RunRecord& record_;
  Recorder& recorder_;
  const sim::dglmodels::DglEnvironment& dgl_;
  std::vector<const JobEntry*> entries_;  // by `at`, stably
  std::size_t applied_ = 0;
  sim::OwnedEvents events_;  // last: dies first
};

}  // namespace harness
