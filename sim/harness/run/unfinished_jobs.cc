// Why a job is not done. See unfinished_jobs.h.
#include "sim/harness/run/unfinished_jobs.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/server/store.h"
#include "operator/api/vocabulary.h"
#include "sim/harness/config/units.h"

namespace harness {
namespace {

using kube::JsonString;
using json = kube::Json;

// "waiting: ImagePullBackOff (Back-off pulling image ...)", "running since 1m2s", "exited 1 (Error)".
std::string ContainerState(const json& status, Micros epoch) {
  if (const json* w = kube::JsonAt(status, {"state", "waiting"}); w && w->is_object()) {
    std::string out = "waiting: " + JsonString(*w, {"reason"});
    if (std::string message = JsonString(*w, {"message"}); !message.empty()) out += " (" + message + ")";
    return out;
  }
  if (const json* r = kube::JsonAt(status, {"state", "running"}); r && r->is_object()) {
    auto started = kube::ParseTime(JsonString(*r, {"startedAt"}));
    return started ? "running since " + FormatDuration(*started - epoch) : "running";
  }
  if (const json* t = kube::JsonAt(status, {"state", "terminated"}); t && t->is_object())
    return "exited " + std::to_string(kube::JsonInt(*t, {"exitCode"})) + " (" + JsonString(*t, {"reason"}) + ")";
  return "in no known state";
}

bool ExitedZero(const json& status) {
  const json* t = kube::JsonAt(status, {"state", "terminated"});
  return t && t->is_object() && kube::JsonInt(*t, {"exitCode"}, -1) == 0;
}

// What a bound pod waits on: the first init container not done, else the app containers not running.
std::string WaitsOnContainers(const json& pod, Micros epoch) {
  if (const json* inits = kube::JsonAt(pod, {"status", "initContainerStatuses"}); inits && inits->is_array())
    for (const json& c : *inits)
      if (!ExitedZero(c)) return "init container " + JsonString(c, {"name"}) + " " + ContainerState(c, epoch);
  std::string out;
  if (const json* list = kube::JsonAt(pod, {"status", "containerStatuses"}); list && list->is_array())
    for (const json& c : *list)
      out += (out.empty() ? "" : "; ") + ("container " + JsonString(c, {"name"}) + " " + ContainerState(c, epoch));
  return out.empty() ? "no container status yet" : out;
}

// Why the scheduler has not placed the pod: its PodScheduled=False message.
std::string WaitsOnScheduler(const json& pod) {
  if (const json* conditions = kube::JsonAt(pod, {"status", "conditions"}); conditions && conditions->is_array())
    for (const json& c : *conditions)
      if (JsonString(c, {"type"}) == "PodScheduled" && JsonString(c, {"status"}) == "False")
        return "unschedulable: " + JsonString(c, {"message"});
  return "not scheduled yet";
}

std::string ExplainPod(const json& pod, Micros epoch) {
  const std::string& node = kube::NodeNameOf(pod);
  std::string line = "pod " + kube::KeyOf(pod) + ", " + JsonString(pod, {"status", "phase"});
  if (!node.empty()) line += " on " + node;
  if (!JsonString(pod, {"metadata", "deletionTimestamp"}).empty()) return line + ": being deleted";
  return line + ": " + (node.empty() ? WaitsOnScheduler(pod) : WaitsOnContainers(pod, epoch));
}

// "(last condition Partitioning: reason: message)": the condition of the phase the job is in, else
// the last one listed; or "".
std::string LastCondition(const JobRecord& job) {
  if (!job.conditions.is_array() || job.conditions.empty()) return "";
  const json* current = &job.conditions.back();
  for (const json& c : job.conditions)
    if (JsonString(c, {"type"}) == job.phase && JsonString(c, {"status"}) == "True") current = &c;
  const json& c = *current;
  std::string out = " (last condition " + JsonString(c, {"type"});
  if (std::string reason = JsonString(c, {"reason"}); !reason.empty()) out += ": " + reason;
  if (std::string message = JsonString(c, {"message"}); !message.empty()) out += ": " + message;
  return out + ")";
}

void ExplainJob(fakeapi::Store& store, const JobRecord& job, Micros epoch, std::vector<std::string>& notes) {
  const std::string name = "job " + job.key.ToString();
  if (job.phase == dgl::kPhaseSuspended) {
    notes.push_back(name + " ended the run Suspended (runPolicy.suspend)");
    return;
  }
  notes.push_back(name + " ended the run in " + (job.phase.empty() ? std::string("no phase") : job.phase) +
                  LastCondition(job));
  auto pods = store.List("pods", {.namespace_ = job.key.ns,
                                  .label_selector = std::string(dgl::kLabelJobName) + "=" + job.key.name});
  int waiting = 0;
  if (pods.ok())
    for (const auto& pod : pods->items) {
      const std::string phase = JsonString(*pod, {"status", "phase"});
      if (phase == "Succeeded" || phase == "Failed") continue;
      ++waiting;
      notes.push_back(name + " waits on " + ExplainPod(*pod, epoch));
    }
  if (waiting == 0)
    notes.push_back(name + (pods.ok() && !pods->items.empty() ? " has no pod left running: every one finished"
                                                               : " has no pods: the operator created none"));
}

}  // namespace

std::vector<std::string> ExplainUnfinishedJobs(fakeapi::Store& store, const RunRecord& record, Micros epoch) {
  std::vector<std::string> notes;
  for (const JobKey& key : record.job_order) {
    const JobRecord& job = record.jobs.at(key);
    if (!job.submitted || job.deleted || dgl::IsTerminalPhase(job.phase)) continue;
    ExplainJob(store, job, epoch, notes);
  }
  return notes;
}

}  // namespace harness
