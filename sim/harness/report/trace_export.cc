#include "sim/harness/report/trace_export.h"

#include "sim/harness/report/report_layout.h"

#include <algorithm>
#include <sstream>
#include <utility>
#include <vector>

namespace harness {
namespace {

using json = kube::Json;

constexpr int kJobsPid = 1;
constexpr int kClusterPid = 2;
constexpr int kUnscheduledPid = 3;
constexpr int kFirstNodePid = 100;
constexpr int kFaultsTid = 1;
constexpr int kInvariantsTid = 2;
constexpr int kNodeStatusTid = 1;

double Seconds(Micros t) { return static_cast<double>(t) / static_cast<double>(kube::kSecond); }

json Meta(const char* what, int pid, std::optional<int> tid, json args) {
  json e = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", std::move(args)}};
  if (tid) e["tid"] = *tid;
  return e;
}

json Complete(std::string name, const char* cat, int pid, int tid, Micros begin, Micros end, json args) {
  return {{"ph", "X"}, {"name", std::move(name)}, {"cat", cat}, {"pid", pid}, {"tid", tid},
          {"ts", begin}, {"dur", end - begin}, {"args", std::move(args)}};
}

json Instant(std::string name, const char* cat, int pid, int tid, Micros at, json args) {
  return {{"ph", "i"}, {"s", "t"}, {"name", std::move(name)}, {"cat", cat}, {"pid", pid},
          {"tid", tid}, {"ts", at}, {"args", std::move(args)}};
}

void NameProcess(std::vector<json>& out, int pid, const std::string& name, int sort) {
  out.push_back(Meta("process_name", pid, std::nullopt, {{"name", name}}));
  out.push_back(Meta("process_sort_index", pid, std::nullopt, {{"sort_index", sort}}));
}

void NameThread(std::vector<json>& out, int pid, int tid, const std::string& name) {
  out.push_back(Meta("thread_name", pid, tid, {{"name", name}}));
  out.push_back(Meta("thread_sort_index", pid, tid, {{"sort_index", tid}}));
}

json OptionalSeconds(const std::optional<Micros>& t) { return t ? json(Seconds(*t)) : json(nullptr); }

// A thread that takes slices in order of their begin and keeps them disjoint or nested: the ends
// of the slices still open at the last begin, innermost last.
class Lane {
 public:
  bool Fits(Micros begin, Micros end) {
    while (!open_.empty() && open_.back() <= begin) open_.pop_back();
    return open_.empty() || end <= open_.back();
  }
  void Add(Micros end) { open_.push_back(end); }

 private:
  std::vector<Micros> open_;
};

struct Child {
  std::string name;
  const char* cat;
  Micros begin;
  Micros end;
  json args;
};

// The container runs and stages of a placed pod, clipped to its slice, parents before children.
std::vector<Child> ChildrenOf(const PodPlacement& placed) {
  std::vector<Child> out;
  const PodRecord& pod = *placed.pod;
  auto add = [&](std::string name, const char* cat, Micros b, Micros e, json args) {
    b = std::max(b, placed.begin);
    e = std::min(e, placed.end);
    if (e > b) out.push_back({std::move(name), cat, b, e, std::move(args)});
  };
  for (const auto& c : pod.containers)
    add(c.init ? c.name + " (init)" : c.name, "container", c.started, c.finished.value_or(placed.end),
        {{"init", c.init},
         {"exitCode", c.finished ? json(c.exit_code) : json(nullptr)},
         {"reason", c.reason}});
  for (const auto& s : pod.stages) add(s.stage, "stage", s.begin, s.end, json::object());
  std::stable_sort(out.begin(), out.end(), [](const Child& a, const Child& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end > b.end;
  });
  return out;
}

json PodArgs(const PodRecord& pod) {
  return {{"pod", pod.ns + "/" + pod.name},
          {"uid", pod.uid},
          {"job", pod.job ? json(pod.job->ToString()) : json(nullptr)},
          {"role", pod.role},
          {"node", pod.node},
          {"gpus", pod.gpus},
          {"phase", pod.phase},
          {"created", OptionalSeconds(pod.created)},
          {"bound", OptionalSeconds(pod.bound)},
          {"started", OptionalSeconds(pod.started)},
          {"finished", OptionalSeconds(pod.finished)},
          {"released", OptionalSeconds(pod.released)},
          {"deleted", OptionalSeconds(pod.deleted)}};
}

// One node's (or the unscheduled pods') process: pods on their slots, children nested or on extra
// threads of the slot.
void EmitRow(std::vector<json>& out, const NodeRow& row, int pid, const char* pod_cat) {
  // slot -> its lanes (0: the pod's own thread, then extras); threads are named as they appear.
  std::vector<std::vector<Lane>> lanes(static_cast<std::size_t>(row.slots));
  auto tid_of = [](int slot, std::size_t extra) { return (slot + 1) * 100 + static_cast<int>(extra); };
  for (int slot = 0; slot < row.slots; ++slot) {
    lanes[static_cast<std::size_t>(slot)].emplace_back();
    NameThread(out, pid, tid_of(slot, 0), "slot " + std::to_string(slot));
  }
  for (const auto& placed : row.pods) {
    auto& slot_lanes = lanes[static_cast<std::size_t>(placed.slot)];
    slot_lanes[0].Fits(placed.begin, placed.end);  // closes what ended before this pod
    slot_lanes[0].Add(placed.end);
    out.push_back(Complete(placed.pod->name, pod_cat, pid, tid_of(placed.slot, 0), placed.begin, placed.end,
                           PodArgs(*placed.pod)));
    for (auto& child : ChildrenOf(placed)) {
      std::size_t lane = 0;
      while (lane < slot_lanes.size() && !slot_lanes[lane].Fits(child.begin, child.end)) ++lane;
      if (lane == slot_lanes.size()) {
        slot_lanes.emplace_back();
        slot_lanes.back().Fits(child.begin, child.end);
        NameThread(out, pid, tid_of(placed.slot, lane), "slot " + std::to_string(placed.slot) + " +" + std::to_string(lane));
      }
      slot_lanes[lane].Add(child.end);
      child.args["pod"] = placed.pod->ns + "/" + placed.pod->name;
      out.push_back(Complete(std::move(child.name), child.cat, pid, tid_of(placed.slot, lane), child.begin, child.end,
                             std::move(child.args)));
    }
  }
}

}  // namespace

json ChromeTraceJson(const RunRecord& record) {
  std::vector<json> events;

  // Jobs and their phases.
  NameProcess(events, kJobsPid, "jobs", 0);
  for (std::size_t i = 0; i < record.job_order.size(); ++i) {
    const JobKey& key = record.job_order[i];
    const JobRecord& job = record.jobs.at(key);
    int tid = static_cast<int>(i) + 1;
    NameThread(events, kJobsPid, tid, key.ToString());
    for (const auto& span : PhaseSpans(job, record.end)) {
      json args = {{"job", key.ToString()}, {"phase", span.phase}};
      if (span.terminal) events.push_back(Instant(span.phase, "phase", kJobsPid, tid, span.begin, std::move(args)));
      else events.push_back(Complete(span.phase, "phase", kJobsPid, tid, span.begin, span.end, std::move(args)));
    }
  }

  // The cluster: GPUs in use, faults, invariant violations.
  NameProcess(events, kClusterPid, "cluster", 1);
  NameThread(events, kClusterPid, kFaultsTid, "faults");
  NameThread(events, kClusterPid, kInvariantsTid, "invariants");
  for (const auto& step : record.gpus_in_use)
    events.push_back({{"ph", "C"}, {"name", "GPUs in use"}, {"pid", kClusterPid}, {"ts", step.at},
                      {"args", {{"GPUs", step.in_use}}}});
  for (const auto& fault : FaultMarks(record))
    events.push_back(Instant(fault.text, "fault", kClusterPid, kFaultsTid, fault.at, json::object()));
  for (const auto& v : record.invariant_violations)
    events.push_back(Instant(v.name, "invariant", kClusterPid, kInvariantsTid, v.at, {{"detail", v.detail}}));

  PodLayout layout = LayOutPods(record);
  if (!layout.unscheduled.pods.empty()) {
    NameProcess(events, kUnscheduledPid, "unscheduled pods", 2);
    EmitRow(events, layout.unscheduled, kUnscheduledPid, "pending");
  }
  for (std::size_t i = 0; i < layout.nodes.size(); ++i) {
    const NodeRow& row = layout.nodes[i];
    int pid = kFirstNodePid + static_cast<int>(i);
    NameProcess(events, pid, "node " + row.name + " (" + std::to_string(row.gpus) + " GPUs)", pid);
    if (!row.outages.empty()) {
      NameThread(events, pid, kNodeStatusTid, "node");
      for (const auto& o : row.outages)
        events.push_back(Complete("NodeDown", "node", pid, kNodeStatusTid, o.down, std::max(o.down, o.up.value_or(record.end)),
                                  {{"node", o.node}, {"up", OptionalSeconds(o.up)}}));
    }
    EmitRow(events, row, pid, "pod");
  }

  json trace;
  trace["traceEvents"] = std::move(events);
  trace["displayTimeUnit"] = "ms";
  trace["otherData"] = {{"scenario", record.scenario},
                        {"seed", record.seed},
                        {"traceHash", record.trace_hash},
                        {"simulatedSeconds", Seconds(record.end)},
                        {"timeUnit", "simulated microseconds from the scenario start"}};
  return trace;
}

std::string ChromeTrace(const RunRecord& record) {
  json trace = ChromeTraceJson(record);
  constexpr auto kReplace = json::error_handler_t::replace;  // names are user input: never throw on bad UTF-8
  std::ostringstream out;
  out << "{\"traceEvents\":[\n";
  const json& events = trace["traceEvents"];
  for (std::size_t i = 0; i < events.size(); ++i)
    out << events[i].dump(-1, ' ', false, kReplace) << (i + 1 < events.size() ? ",\n" : "\n");
  out << "],\n\"displayTimeUnit\":" << trace["displayTimeUnit"].dump()
      << ",\n\"otherData\":" << trace["otherData"].dump(-1, ' ', false, kReplace) << "}\n";
  return out.str();
}

}  // namespace harness
