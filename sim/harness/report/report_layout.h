// The layout the visual reports share (the Chrome trace of --trace and the page of --html): where
// each pod of a RunRecord goes on its node, which spans a job's phases cover, and when the faults
// were applied. Both reports draw the same picture, so a pod sits in the same slot in both.
//
// A pod occupies its node from `bound` to `released` (or its deletion, or the end of the run); each
// node's pods are packed, in order of binding, into the lowest-numbered slot that is free by then,
// so the pods of one slot never overlap in time. Pods never bound are laid out the same way in a
// row of their own, from `created`. Nodes come in natural name order (gpu-2 before gpu-10).
//
// Everything here is a pure function of the record: the same record gives the same layout.
#pragma once

#include "sim/harness/run/runner.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace harness {

// "gpu-2" < "gpu-10": runs of digits compare as numbers, the rest bytewise.
bool NaturalLess(std::string_view a, std::string_view b);

struct PodPlacement {
  const PodRecord* pod = nullptr;
  Micros begin = 0;
  Micros end = 0;  // >= begin
  int slot = 0;
};

struct NodeRow {
  std::string name;
  std::int64_t gpus = 0;
  int slots = 0;                      // slots used (0 for an idle node)
  std::vector<PodPlacement> pods;     // in order of begin
  std::vector<NodeOutage> outages;
};

struct PodLayout {
  std::vector<NodeRow> nodes;  // every node of the record (and any only pods name), natural order
  NodeRow unscheduled;         // pods never bound; name "(unscheduled)"
};

PodLayout LayOutPods(const RunRecord& record);

// A job's time in one phase: [begin, end). The last phase ends at the job's deletion or the end of
// the run; a terminal phase (Succeeded, Failed) is a moment: begin == end, `terminal` set.
struct PhaseSpan {
  std::string phase;
  Micros begin = 0;
  Micros end = 0;
  bool terminal = false;
};

std::vector<PhaseSpan> PhaseSpans(const JobRecord& job, Micros run_end);

// A fault from RunRecord::fault_log ("12m30s NodeDown gpu-1"): its time and its text.
struct FaultMark {
  Micros at = 0;
  std::string text;
};

std::vector<FaultMark> FaultMarks(const RunRecord& record);

// The pod's replica type ("launcher", "partitioner", "worker"), or "pod" when it has none.
std::string RoleOf(const PodRecord& pod);
// The pod's name without its job's name in front ("worker-0" for "j-worker-0").
std::string ShortPodName(const PodRecord& pod);

}  // namespace harness
