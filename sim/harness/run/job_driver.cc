// The scenario's job entries, applied at their times. See job_driver.h.
#include "sim/harness/run/job_driver.h"

#include "sim/cluster/simulation.h"
#include "sim/harness/run/recorder.h"

#include <algorithm>

namespace harness {

using json = kube::Json;

JobDriver::JobDriver(sim::Simulation& sim, RunRecord& record, Recorder& recorder,
                     const sim::dglmodels::DglEnvironment& dgl)
    : sim_(sim), record_(record), recorder_(recorder), dgl_(dgl), events_(sim.engine()) {}

void JobDriver::Schedule(const std::vector<JobEntry>& entries) {
  for (const JobEntry& e : entries) entries_.push_back(&e);
  std::stable_sort(entries_.begin(), entries_.end(), [](const JobEntry* a, const JobEntry* b) { return a->at < b->at; });
  for (const JobEntry* entry : entries_) {
    NoteDatasets(*entry);
    events_.At(entry->at, [this, entry] { Apply(*entry); });
  }
}

void JobDriver::NoteDatasets(const JobEntry& entry) {
  for (const auto& key : entry.targets) {
    JobRecord& r = recorder_.Job(key);
    if (entry.action == JobAction::kSubmit && r.dataset.empty()) r.dataset = entry.dataset;
  }
  if (entry.action != JobAction::kSubmit) return;
  for (std::size_t i = 0; i < entry.objects.size() && i < entry.targets.size(); ++i) {
    JobRecord& r = recorder_.Job(entry.targets[i]);
    if (!r.dataset.empty()) continue;
    sim::dglmodels::DglEnvironment::Match match = dgl_.MatchJob(entry.objects[i]);
    if (!match.dataset->is_default) r.dataset = match.dataset->name;
  }
}

void JobDriver::Apply(const JobEntry& entry) {
  ++applied_;
  switch (entry.action) {
    case JobAction::kSubmit: Submit(entry); break;
    case JobAction::kDelete: Delete(entry); break;
    case JobAction::kSuspend: SetSuspended(entry, true); break;
    case JobAction::kResume: SetSuspended(entry, false); break;
  }
}

void JobDriver::Submit(const JobEntry& entry) {
  for (const json& obj : entry.objects) {
    JobKey key{kube::NamespaceOf(obj), kube::NameOf(obj)};
    JobRecord& r = recorder_.Job(key);
    auto created = sim_.UserClient().Create("dgljobs", obj, key.ns);
    if (created.ok()) {
      if (!r.submitted) r.submitted = sim_.Now();
      r.deleted = false;
    } else {
      r.submit_error = created.status().message();
      record_.notes.push_back(entry.field_path + ": " + key.ToString() + " was not created: " + r.submit_error);
    }
    sim_.trace().Record(sim_.Now(), "harness", "submit " + key.ToString() + (created.ok() ? "" : " failed"));
  }
}

void JobDriver::Delete(const JobEntry& entry) {
  for (const auto& key : entry.targets) {
    auto deleted = sim_.UserClient().Delete("dgljobs", key.ns, key.name);
    sim_.trace().Record(sim_.Now(), "harness", "delete " + key.ToString() + (deleted.ok() ? "" : " failed"));
  }
}

void JobDriver::SetSuspended(const JobEntry& entry, bool suspend) {
  const std::string what = ToString(entry.action);
  for (const auto& key : entry.targets) {
    json patch = {{"spec", {{"runPolicy", {{"suspend", suspend}}}}}};
    auto patched = sim_.UserClient().Patch("dgljobs", key.ns, key.name, patch);
    sim_.trace().Record(sim_.Now(), "harness", what + " " + key.ToString() + (patched.ok() ? "" : " failed"));
  }
}

}  // namespace harness
