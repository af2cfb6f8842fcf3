// A Kubelet is the simulated node agent of one node: an actor ("kubelet/<node>") that watches the
// pods bound to its node (field selector spec.nodeName=<node>) and runs them as the real kubelet
// does, writing pod status the way the real one writes it:
//
// - accept: startTime, phase Pending, conditions Initialized / Ready / ContainersReady (the
//   scheduler's PodScheduled is kept), every container waiting (PodInitializing, ContainerCreating);
// - sandbox (after `pod_startup`): a pod IP from the node's CIDR (host-local style: .2, .3, ...
//   round robin, released when the pod ends or leaves the node), status.podIP/podIPs/hostIP;
// - images: a per-node cache and one pull queue (serial pulls, as serializeImagePulls: true);
//   with a flow network a pull is a flow from the registry to the node's disk capped at the pull
//   bandwidth (so concurrent pulls, other traffic and a slow NIC stretch it), without one it takes
//   size / bandwidth; each pull is reported to the observer as stage "imagePull" of every pod
//   whose container waited for it; imagePullPolicy Always pulls at every start (a cached image
//   costs a manifest check), IfNotPresent uses the cache, Never fails with ErrImageNeverPull;
//   injected pull faults give ErrImagePull then ImagePullBackOff, retried after 10 s doubling to
//   5 min;
// - init containers one at a time, in order, each must exit 0; then every app container;
// - exits: terminated{exitCode, reason Completed|Error|OOMKilled}, restarts for restartPolicy
//   Always / OnFailure with the kubelet's crash back-off (the first restart is immediate, then
//   CrashLoopBackOff waits of 10 s doubling to 5 min; reset when the container ran 10 min);
//   phase computed as kubelet's getPhase does;
// - OOMKilled (exit 137) when a program's memory use exceeds the container's memory limit;
// - graceful deletion: on deletionTimestamp the programs get SIGTERM, are killed at the grace
//   period, the final status is written and the deletion confirmed with grace period 0 (and a uid
//   precondition), retried every second on any refusal but NotFound, across a node's fall too,
//   until the pod leaves the API or is replaced there (the real status manager retries at each sync);
//   a pod met already being deleted, which never ran here, is confirmed and retried the same way;
// - emptyDir volumes live and die with the pod;
// - programs call the API as their pod's service account (ProgramContext::client: the kubelet's
//   client with its identity swapped for system:serviceaccount:NS:SA during each call, so RBAC
//   judges the pod and a refusal is the pod's, reported under this actor), their `kubectl exec`
//   is checked as create pods/exec (ProgramContext::Exec), and the pod's ConfigMap volumes are
//   read as the node (ProgramContext::volume_client);
// - node down (SetNodeUp(false)): the kubelet writes nothing and its containers are lost; back up,
//   pods still bound to the node restart their containers (Always / OnFailure, in a new sandbox,
//   init containers again) or fail (Never: ContainerStatusUnknown, exit 137).
//
// Status writes are merge patches of the status subresource, at most one per pod per instant:
// changes made in the same instant are batched, and a patch equal to the last one is skipped.
//
// REQUIRES: single-threaded use, inside the simulation's engine.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/cluster/program.h"
#include "sim/cluster/simulation.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sim {

// Image pulls: planning default 100-300 MB/s (docs/models.md, "Kubernetes and cluster defaults",
// unconfirmed): 200 MB/s; an image of unknown size is 10 GB (docs/models.md: ML images are
// hundreds of MB to tens of GB).
inline constexpr double kDefaultImagePullBytesPerSecond = 200e6;
inline constexpr std::int64_t kDefaultImageSize = 10'000'000'000;
// Sandbox creation, from accepting the pod to its IP (pod startup SLO: p99 <= 5 s without pulls).
inline constexpr Micros kDefaultPodStartup = 1 * kSecond;
// The kubelet's crash and pull back-off: 10 s doubling to 5 min (MaxContainerBackOff, 300 s).
inline constexpr Micros kDefaultBackoffInitial = 10 * kSecond;
inline constexpr Micros kDefaultBackoffMax = 5 * kMinute;

struct KubeletConfig {
  std::string node_name;
  // The node's pod CIDR (IPv4). Addresses .1 (gateway), network and broadcast are never handed out.
  std::string pod_cidr = "10.244.0.0/24";
  // The node's InternalIP for status.hostIP; "" = read it from the Node object at start.
  std::string host_ip;
  double image_pull_bytes_per_second = kDefaultImagePullBytesPerSecond;
  std::map<std::string, std::int64_t> image_sizes;  // by image as written in the pod spec
  std::int64_t default_image_size = kDefaultImageSize;
  Micros manifest_check = 200 * kMillisecond;       // Always-pull of a cached image; a failing pull
  bool serialize_image_pulls = true;                // false: every pull starts at once, full speed
  std::set<std::string> preloaded_images;           // in the cache from the start
  Micros pod_startup = kDefaultPodStartup;
  // From image ready to container running.
  Micros container_start = 100 * kMillisecond;
  // From a failed pull (ErrImagePull) to the next sync that reports ImagePullBackOff.
  Micros pull_error_resync = 1 * kSecond;
  // Back-offs (an entry expires after 2 x cap without updates).
  Micros backoff_initial = kDefaultBackoffInitial;
  Micros backoff_max = kDefaultBackoffMax;
  // Programs for containers; nullptr = a registry of the built-ins owned by the kubelet.
  std::shared_ptr<ProgramRegistry> programs;
  // The cluster's flow network (programs' transfers); nullptr = none. Must outlive the kubelet.
  Network* network = nullptr;
  // This machine's properties (cluster's spec table entry); nullptr = unknown. Must outlive it.
  const NodeSimSpec* node_spec = nullptr;
  // Receives stages and memory figures for reports; nullptr = none. Must outlive the kubelet.
  WorkloadObserver* observer = nullptr;
  bool start_up = true;
};

struct KubeletStats {
  std::int64_t status_writes = 0;
  std::int64_t image_pulls = 0;        // pulls that transferred the image
  std::int64_t manifest_checks = 0;    // Always-pulls of a cached image
  std::int64_t pull_failures = 0;
  std::int64_t bytes_pulled = 0;
  std::int64_t container_starts = 0;
};

class Kubelet : public Actor {
 public:
  Kubelet(Simulation& sim, KubeletConfig config);
  ~Kubelet() override;

  void Start() override;

  const std::string& node_name() const { return config_.node_name; }
  const KubeletConfig& config() const { return config_; }
  ProgramRegistry& programs() { return *programs_; }

  // Node down: every container is lost, nothing is written, nothing runs. Node up: pods the API
  // still binds to this node are recovered as after a reboot (see the file comment).
  void SetNodeUp(bool up);
  bool node_up() const { return up_; }

  // Injected pull faults: images matching any glob fail with ErrImagePull until removed.
  void AddImagePullFault(std::string glob) { pull_faults_.insert(std::move(glob)); }
  void RemoveImagePullFault(const std::string& glob) { pull_faults_.erase(glob); }
  void ClearImagePullFaults() { pull_faults_.clear(); }

  // Kills a running container of a pod, as a signal or the OOM killer would: it ends at once with
  // `exit_code` and `reason` ("" = Completed/Error by the code), and the pod's restartPolicy applies.
  // `container` "" = the first running app container. False when there is no such running container.
  bool KillContainer(const std::string& ns, const std::string& pod, const std::string& container, int exit_code,
                     const std::string& reason);

  bool HasImage(const std::string& image) const;
  // A container's log lines (of its current or last run; `previous`: of the run before).
  // nullptr when the kubelet has no such pod or container.
  const std::vector<std::string>* Logs(const std::string& ns, const std::string& pod, const std::string& container,
                                       bool previous = false) const;
  // A pod's emptyDir volume; nullptr when absent.
  const EmptyDir* Volume(const std::string& ns, const std::string& pod, const std::string& volume) const;
  // Pods this kubelet is running or keeps (terminal ones until they leave the API).
  std::size_t pod_count() const { return pods_.size(); }
  std::size_t ips_in_use() const { return used_ips_.size(); }
  const KubeletStats& stats() const { return stats_; }

 private:
  struct Backoff {
    bool has = false;
    Micros duration = 0;
    Micros last_update = 0;
  };
  struct Container;
  struct PodState;
  class Run;
  class Watch;
  struct PullRequest {
    std::string key;
    std::uint64_t serial;   // PodState::serial
    bool init;
    std::size_t index;
    std::uint64_t attempt;  // Container::attempt when requested
  };

  // Informer handlers.
  void OnPod(const kube::ObjectPtr& pod);
  void OnPodGone(const kube::ObjectPtr& pod);

  // Pod lifecycle.
  void Accept(const kube::ObjectPtr& pod);
  void SandboxReady(PodState& p);
  void Advance(PodState& p);
  void RequestStart(PodState& p, Container& c);
  void StartContainer(PodState& p, Container& c);
  void ContainerExited(PodState& p, Container& c, int code, std::string reason, std::string message = "");
  void AfterExit(PodState& p, Container& c);
  void FinishPod(PodState& p);
  void BeginTermination(PodState& p);
  void MaybeCompleteTermination(PodState& p);
  void ConfirmDeletion(PodState& p);
  void ConfirmUnstartedDeletion(const kube::ObjectPtr& pod);  // retried until gone or replaced
  void Teardown(const std::string& key);
  void Recover(PodState& p);
  void LoseContainers(PodState& p);
  void CancelPodEvents(PodState& p);

  // Images.
  void EnsureImage(PodState& p, Container& c);
  void ImageReady(PodState& p, Container& c);
  static void ToWaiting(Container& c, std::string reason, std::string message);
  void ProcessPullQueue();
  void StartPull(const PullRequest& request);
  // A pull of `image` that started at `begin` is over (`ok`: the image is now cached).
  void PullDone(const PullRequest& request, const std::string& image, bool ok, bool transferred, Micros begin);
  void PullFailed(PodState& p, Container& c);
  bool Faulted(const std::string& image) const;
  std::int64_t ImageSize(const std::string& image) const;

  // IPs.
  std::optional<std::uint32_t> AllocateIp();  // an offset within the CIDR
  std::string FormatIp(std::uint32_t offset) const;
  void ReleaseIp(PodState& p);

  // Status.
  void MarkDirty(PodState& p);
  void Flush(PodState& p);
  kube::Json BuildStatus(PodState& p);
  // The container's status: the JSON built for it last time (sealed, shared by every status that
  // carries it) while what it is built from is unchanged, else built anew (BuildContainerStatus).
  static kube::Json ContainerStatus(Container& c);
  static kube::Json BuildContainerStatus(const Container& c);
  kube::Json PodConditions(PodState& p, const std::string& phase);
  std::string ComputePhase(const PodState& p) const;

  // Runs `fn` on the pod after `delay` while the node is up: a timer the pod owns (it dies when the
  // pod is torn down, replaced or lost with the node).
  EventId AfterForPod(PodState& p, Micros delay, std::function<void(PodState&)> fn);
  // The pod instance a queue entry names; nullptr once it was torn down or replaced.
  PodState* Find(const std::string& key, std::uint64_t serial);
  bool Backoff_InBackoff(const Backoff& b, Micros event_time) const;
  void Backoff_Next(Backoff& b, Micros event_time);

  KubeletConfig config_;
  std::shared_ptr<ProgramRegistry> programs_;
  kube::Informer* informer_ = nullptr;
  bool up_ = true;
  std::map<std::string, std::unique_ptr<PodState>> pods_;  // by "ns/name"
  std::uint64_t next_serial_ = 1;
  KubeletStats stats_;

  std::set<std::string> images_;  // the node's image cache (normalized names)
  std::set<std::string> pull_faults_;
  std::deque<PullRequest> pull_queue_;
  bool pulling_ = false;
  std::vector<FlowId> pull_flows_;  // pulls in flight on the network

  std::uint32_t ip_base_ = 0, ip_size_ = 0, ip_next_ = 2;
  std::set<std::uint32_t> used_ips_;  // offsets within the CIDR
  std::deque<std::pair<std::string, std::uint64_t>> ip_waiters_;
  OwnedEvents unstarted_deletions_{sim().engine()};  // ConfirmUnstartedDeletion's retries
  OwnedEvents pull_timers_{sim().engine()};  // pulls in flight without a network; last: dies first
};

// "busybox" -> "docker.io/library/busybox:latest", as the runtime reports images.
std::string NormalizeImage(const std::string& image);

}  // namespace sim
