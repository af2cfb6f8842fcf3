// From a cluster's evidence to a scenario that replays it: what `dglsim import` writes.
//
// Time 0 of the scenario is the creation of the first DGLJob; every time of the evidence becomes
// its distance from that (earlier ones are 0s). What the scenario holds, from what evidence:
//   cluster.nodes  the Nodes, grouped into templates where allocatable (used as the template's
//                  capacity: it is what the scheduler fits pods into), labels (but the per-node
//                  kubernetes.io/hostname) and taints (but the node lifecycle's own) are identical. A
//                  group whose names are P-0 .. P-(n-1) keeps them; others are renamed P-i and the
//                  faults use the new names (the mapping is a comment). A node the pods, events or
//                  audit log name but the dump lacks (deleted) joins the group of a node that ran
//                  the same replica type, else the largest.
//   cluster.scheduler.placements  each pod of a DGLJob pinned to the nodes it was placed on, in
//                  order, where its Scheduled events tell them all (none aggregated): kube-scheduler
//                  breaks ties between equal nodes at random. A dumped pod's nodeName is not used
//                  (it is the last pod of that name, and a pin goes by order of creation).
//   jobs           each DGLJob as submitted (kubectl's last-applied-configuration when there is one,
//                  else the object without status and server-set metadata) at its creation time,
//                  with the dataset its launcher's --dataset-url names when that is a preset's, and
//                  `dglsim.io/duration` on a replica type's template when its containers run
//                  something other than dglrun and the evidence shows how long they ran. A user's
//                  deletion of a DGLJob in the audit log becomes a `delete:` entry.
//   faults         each `when` the last phase a job had entered by then, `after` the time between,
//                  where the jobs' Events show their phases (the simulation's pace differs):
//                  NodeDown (`nodeOf` a job's pod that ran on the node, else the node) when a node went NotReady (its Ready condition, NodeNotReady events),
//                  `nodeMonitorGracePeriod` before (the node died that long before it was noticed),
//                  for as long as it stayed so (NodeReady events, the condition's transition),
//                  for good when it never came back; NodeDeleted (the same target) when it was
//                  deleted (audit log, RemovingNode events), at the deletion (after a NodeDown for
//                  good when it was NotReady before); OOM for a container that was OOMKilled; PodKill for one that exited
//                  non-zero, for an evicted pod (exit 137) and for a user's pod deletion (exit 143);
//                  ImagePullError for a container waiting in ErrImagePull or ImagePullBackOff;
//                  OperatorRestart when the operator's Lease changed hands (the dump's Lease: the
//                  last change; an audit log with request or response bodies: every change).
//   expect         per job, the phase it was in, its condition's reason, the reason of its last
//                  restart and its restart count, and that the simulation keeps its invariants when
//                  every job had ended (a job the evidence shows unfinished ends the replay unfinished
//                  too, which the invariant jobsTerminalOrProgressing would report).
//   until          twice the time the evidence spans, plus 10 minutes (the simulation's pace
//                  differs from the cluster's); the run ends sooner once every job ended.
// Every assumption is a comment where it applies and a line of the header; every piece of
// evidence not used is a header line saying why (and `unused`, for stderr).
#pragma once

#include "sim/harness/import/evidence.h"

#include <string>
#include <vector>

namespace harness::importer {

using kube::Micros;

struct ImportOptions {
  std::string name = "imported";        // metadata.name
  std::vector<std::string> sources;     // the files read, for the header
  // How long after a node stops the node lifecycle controller marks it NotReady: the scenario's
  // cluster.timings.nodeMonitorGracePeriod (kube-controller-manager's --node-monitor-grace-period).
  Micros node_monitor_grace = 50 * kube::kSecond;
};

struct ImportResult {
  std::string yaml;                       // the scenario file
  std::vector<std::string> assumptions;   // also in the file
  std::vector<std::string> unused;        // also in the file
  std::vector<std::string> problems;      // evidence that cannot make a scenario (no DGLJob, ...)
  bool ok() const { return problems.empty(); }
};

ImportResult BuildScenario(const evidence::Evidence& evidence, const ImportOptions& options);

}  // namespace harness::importer
