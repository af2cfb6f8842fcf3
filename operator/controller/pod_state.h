// What the operator reads from a pod: a PodView of one of the job's pods (its phase, whether it is
// terminating, the restart epoch it was created in, whether its node is lost) and the predicates
// the failure policy and the phase computation ask of pods and nodes (how it failed, whether it
// was OOMKilled, the state of an init container, whether the scheduler gave up on it, whether a
// node is NotReady). Pure functions of the objects; null members read as absent, as in a merge
// patch.
#pragma once

#include "fakeapi/client/client.h"
#include "fakeapi/client/json.h"

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>

namespace dgl {

// The member at `path`; nullptr when a step is absent, null or not an object.
const kube::Json* FindField(const kube::Json& obj, std::initializer_list<std::string_view> path);
// The string at `path`; "" when absent or not a string.
std::string StringField(const kube::Json& obj, std::initializer_list<std::string_view> path);
// The integer at `path`; `fallback` when absent or not an integer.
std::int64_t IntField(const kube::Json& obj, std::initializer_list<std::string_view> path, std::int64_t fallback = 0);
// metadata.deletionTimestamp is set.
bool Terminating(const kube::Json& obj);

// A pod of the job as the reconciler sees it: every field but node_lost read once from the pod
// version it holds (MakePodView), which never changes. Its phase, name, node and IP point into
// that object (held here, so they live as long as the view and any copy of it): copying a view
// copies no string.
struct PodView {
  kube::ObjectPtr object;
  std::string_view phase;  // status.phase, "Pending" when unset
  bool terminating = false;
  std::int64_t epoch = 0;  // the restart epoch annotation (kAnnotationRestartEpoch)
  // Bound to a node that is NotReady (its Ready condition False or Unknown, as the node lifecycle
  // controller sets it once the node's heartbeat has been missing for nodeMonitorGracePeriod; a
  // node the reader does not hold is not lost: NodeNotReady). Set by the reconcile pass, which
  // reads the nodes.
  bool node_lost = false;
  bool ready_condition = false;  // the Ready condition is True
  const std::string* name = &kNone;       // metadata.name
  const std::string* node_name = &kNone;  // spec.nodeName, "" when unbound
  const std::string* ip = &kNone;         // status.podIP, "" when unset
  static const std::string kNone;         // ""

  const kube::Json& obj() const { return *object; }
  bool Active() const { return !terminating && (phase == "Pending" || phase == "Running"); }
  bool Running() const { return !terminating && phase == "Running"; }
  bool Succeeded() const { return phase == "Succeeded"; }
  bool Failed() const { return !terminating && phase == "Failed"; }
  // Pending or Running on a lost node: whatever it runs is gone, though its status still says
  // Running (nobody writes it) until the taint manager evicts it, tolerationSeconds (300 s) later.
  bool Lost() const { return node_lost && Active(); }
  // Failed, or lost with its node: the failure policy treats both as the pod's end.
  bool Down() const { return Failed() || Lost(); }
  const std::string& NodeName() const { return *node_name; }
  // Running with the Ready condition True.
  bool Ready() const { return Running() && ready_condition; }
  const std::string& Ip() const { return *ip; }
  const std::string& Name() const { return *name; }
};
// The view of `pod`: every field above read from it.
PodView MakePodView(kube::ObjectPtr pod, bool node_lost = false);

// The terminated state of the pod's first app container that has one (state, else lastState).
const kube::Json* TerminatedState(const kube::Json& pod);
// The pod, or one of its app containers, was OOMKilled.
bool OomKilled(const kube::Json& pod);
// The memory limit of the first app container; "" if none.
std::string MemoryLimit(const kube::Json& pod);
// Why a pod failed, for messages: "exit code 137 (Error)", "Evicted: ...".
std::string FailureDescription(const kube::Json& pod);
// FailureDescription, or for a lost pod "lost with its node N (not Ready)".
std::string FailureDescription(const PodView& pod);
// The node's Ready condition is True (false for nullptr).
bool NodeReady(const kube::Json* node);
// The node's Ready condition is False or Unknown (false for nullptr and for a node that reports no
// Ready condition yet: absent from a cache is not evidence of a loss).
bool NodeNotReady(const kube::Json* node);
// PodScheduled is False with reason Unschedulable.
bool Unschedulable(const kube::Json& pod);

// The state of an init container: "running", "succeeded", "failed" or "" (not started or absent).
std::string InitContainerState(const kube::Json& pod, const char* name);
// The terminated state of init container `name` (state, else lastState); nullptr when none.
const kube::Json* InitContainerTerminated(const kube::Json& pod, const char* name);
// The spec of init container `name`; nullptr when the pod has none of that name.
const kube::Json* InitContainerSpec(const kube::Json& pod, const char* name);

// `text` as a decimal integer, `fallback` when it is empty or not all digits.
std::int64_t ParseIntOr(const std::string& text, std::int64_t fallback);

}  // namespace dgl
