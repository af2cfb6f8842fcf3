// The Reconciler brings one DGLJob's cluster state to what the contract (docs/dgljob-api.md)
// says it should be: Reconcile("ns/name") reads the job and its objects through an ObjectReader
// (the controller's informer caches, or the API directly in tests), computes the desired objects for
// the job's stage, writes the difference, computes status from the CURRENT pod states in the same
// pass, records Events for phase changes and failures, and says when time alone will change
// something (deadline, TTL, unschedulable timeout).
//
// Level-triggered and idempotent: a second Reconcile with nothing changed makes no API write.
// status.lastReconcileTime is written only together with another status change, so that a quiet
// job costs no writes (it reads "the last reconcile that changed status").
//
// Restarts: status.restartCount is the restart epoch. Each pod is annotated with the epoch it was
// created in; a restart bumps the epoch in status FIRST (with status.lastRestartTime) and only then
// deletes the pods it replaces: every Failed or lost pod (a lost pod is bound to a NotReady node),
// the launcher and every worker, server, sampler and trainer of an older epoch (the relaunched DGL
// run starts on pods of its own), and the partitioner of an older epoch when partitions do not live
// on a PersistentVolumeClaim. It recreates them only once its back-off has passed (RestartBackoff,
// failure_policy.h: 10 s doubling per restart, at most 6 min, as the Kubernetes Job controller)
// and every pod it deleted is gone (as the Job controller's podReplacementPolicy Failed).
// A sampler or trainer restart of a tri-workload job replaces only the failed or lost pods: it
// moves the launcher's and partitioner's annotation to the new epoch instead of deleting them. If
// a write fails the next pass finishes the job without counting the failure twice. Partitions that
// are kept (on the claim once the job reached Partitioned, or in the current launcher) are never
// made again: a partitioner pod evicted after it succeeded is not recreated.
//
// One Reconcile is one ReconcilePass (reconcile_pass.h); its decisions are pure functions of the
// job and its pods: the failure policy (failure_policy.h) and the phase the pods show
// (observed_phase.h). What a Reconciler remembers between passes besides the jobs it wrote, to
// skip work whose inputs have not changed (never to decide differently): which support objects a
// job's last pass left as they should be, so that a pass with the same inputs whose objects are
// all unchanged (same resourceVersions) skips building and comparing them; and what its last pass read
// from each pod version of the job (its PodView and controller uid), so that a pod version seen
// before is not read again (a new version, being a new object, is), and whether each node version
// it met was NotReady.
//
// REQUIRES: external synchronization (one controller loop owns a Reconciler).
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/status.h"
#include "operator/controller/builders.h"
#include "operator/controller/events.h"
#include "operator/controller/pod_state.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace dgl {

// Where the reconciler reads the current state from. Reads never fail: an absent object is nullptr.
class ObjectReader {
 public:
  virtual ~ObjectReader() = default;
  // `resource` is one of: dgljobs, pods, configmaps, services, serviceaccounts, roles, rolebindings,
  // podgroups, nodes (ns "" for nodes).
  virtual kube::ObjectPtr Get(const std::string& resource, const std::string& ns, const std::string& name) = 0;
  // Pods in `ns` labelled training.kubeflow.org/job-name=<job_name>, in key order.
  virtual std::vector<kube::ObjectPtr> PodsOfJob(const std::string& ns, const std::string& job_name) = 0;
  // A count that changes whenever what Get answers for `resource` may have changed (a cache's
  // Informer::Changes); nullopt when the reader cannot tell, which makes every read count.
  virtual std::optional<std::uint64_t> Changes(const std::string& /*resource*/) { return std::nullopt; }
};

// An ObjectReader that asks the API on every read: for tests and one-shot tools.
class ClientReader : public ObjectReader {
 public:
  explicit ClientReader(kube::Client& client) : client_(client) {}
  kube::ObjectPtr Get(const std::string& resource, const std::string& ns, const std::string& name) override;
  std::vector<kube::ObjectPtr> PodsOfJob(const std::string& ns, const std::string& job_name) override;

 private:
  kube::Client& client_;
};

struct ReconcilerOptions {
  BuildOptions build;
  // The Event source component.
  std::string component = "dgl-operator";
};

struct ReconcileResult {
  // Reconcile again after this long even if nothing changes (a deadline, a TTL, a timeout).
  std::optional<kube::Micros> requeue_after;
};

class Reconciler {
 public:
  // `client` and `clock` and `reader` must outlive the reconciler.
  Reconciler(kube::Client& client, const kube::Clock& clock, ObjectReader& reader, ReconcilerOptions options = {});
  Reconciler(const Reconciler&) = delete;
  Reconciler& operator=(const Reconciler&) = delete;

  // Reconciles job `key` ("ns/name"). An error means "try again with back-off"; whatever was written
  // before the error stays written and the next pass continues from the cluster state.
  kube::Result<ReconcileResult> Reconcile(const std::string& key);

  // Forgets what this reconciler wrote and verified for `key` (the job is gone).
  void Forget(const std::string& key) {
    written_jobs_.erase(key);
    support_in_place_.erase(key);
    seen_pods_.erase(key);
  }

 private:
  friend class ReconcilePass;

  // The job as read, or as last written by this reconciler when the reader has not seen that yet
  // (an informer cache lags the writes made through the client).
  kube::ObjectPtr ReadJob(const std::string& ns, const std::string& name, const std::string& key);

  kube::Client& client_;
  const kube::Clock& clock_;
  ObjectReader& reader_;
  ReconcilerOptions options_;
  std::map<std::string, kube::ObjectPtr> written_jobs_;
  // The support objects a job's last pass left as they should be (found in place, or written as
  // asked), with what they were checked against (pass_objects.cc): a later pass with the same inputs
  // skips them while every one of them still has the resourceVersion it had then. By job key; a
  // key whose job is gone is forgotten.
  struct SupportInPlace {
    std::string uid;
    std::int64_t generation = 0;
    bool workers_stage = false;
    PodAddresses addresses;
    // "resource" and name, and the resourceVersion each had when left as it should be.
    std::vector<std::tuple<std::string, std::string, std::string>> objects;
  };
  std::map<std::string, SupportInPlace> support_in_place_;
  // What a job's last pass read from each of its pods' versions (pass_pods.cc, LoadPods), by the
  // version's address: the entry holds the version, so the address names no other object while it
  // is kept. Entries of versions the last pass did not meet are dropped; only looked up, never
  // iterated for a decision. By job key; a key whose job is gone is forgotten.
  struct SeenPod {
    PodView view;           // node_lost unset: a node's state is read every pass
    bool owned = false;     // the pod has a controller reference
    std::string owner_uid;  // its uid
    std::uint64_t pass = 0;  // the last pass that met it (passes_)
  };
  std::map<std::string, std::unordered_map<const kube::Json*, SeenPod>> seen_pods_;
  // Whether a node is NotReady, as read from the version held (by node name): the node is read
  // again only when the reader's nodes may have changed since (ObjectReader::Changes), and the
  // answer derived again only when the reader holds another version. Hashed: looked up once per pod
  // of every pass, never iterated.
  struct NodeReadiness {
    kube::ObjectPtr node;
    bool not_ready = false;
    std::optional<std::uint64_t> checked_at;  // the reader's Changes("nodes") when read
  };
  std::unordered_map<std::string, NodeReadiness> node_not_ready_;
  std::uint64_t passes_ = 0;  // LoadPods calls so far: each stamps the entries it meets
};

}  // namespace dgl
