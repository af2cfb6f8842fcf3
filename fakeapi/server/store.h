// The Store is the in-process fake Kubernetes API server: it keeps every object, enforces the API
// semantics real controllers depend on, and serves watches. It implements Client directly, so
// in-process actors use it as their client.
//
// Semantics (each one covered by tests/fakeapi/):
// - create/get/list/update/merge-patch/delete; status subresource; generateName; dry runs of every
//   write (admission and all checks, nothing stored);
// - uid, creationTimestamp from the injected Clock, generation (kinds that have it) bumped on spec
//   changes only, resourceVersion from one global counter bumped on every write;
// - lists at a resourceVersion (Exact from the history, 410 once compacted; NotOlderThan; 504 for
//   a future one) and in pages with continue tokens over one consistent snapshot;
// - 409 Conflict on a stale resourceVersion, 409 AlreadyExists on a taken name;
// - label and field selectors on list and watch; an object leaving a watch's selection arrives
//   as DELETED carrying its previous state at the new resourceVersion, as kube-apiserver's watch
//   cache sends it;
// - watch from a resourceVersion out of a bounded per-resource history, 410 Expired when older
//   (a fixed number of events, or sized as kube-apiserver's watch cache: StoreOptions::history_fresh);
//   bookmarks on request; sendInitialEvents (WatchList) ending with the initial-events-end bookmark;
// - namespaced objects need an existing, non-terminating namespace; deleting a namespace deletes
//   its contents;
// - finalizers and deletionTimestamp; pods bound to a node are deleted gracefully (the kubelet
//   confirms with grace period 0); propagation Background, Foreground and Orphan; a garbage
//   collector deletes dependents whose owners are all gone;
// - per-kind admission: defaulting (mutating) then validation, errors as 422 Invalid with causes;
//   namespaces carry the kubernetes.io/metadata.name label; ConfigMaps hold at most 1 MiB;
// - an optional storage quota on the memory of stored objects (and as much again of watch history).
//
// Thread-safe: one mutex guards everything; watch notifiers run after it is released.
#pragma once

#include "fakeapi/client/client.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/resource.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace fakeapi {

enum class Operation { kCreate, kUpdate, kDelete };

struct AdmissionRequest {
  Operation operation;
  const kube::ResourceType* type;
  std::string subresource;      // "" or "status"
  kube::Json* object;       // the incoming object; defaulters may change it
  const kube::Json* old;    // the stored object on update and delete, else nullptr
};
// Defaulting: may change *request.object. Runs before validation.
using Defaulter = std::function<void(AdmissionRequest& request)>;
// Validation: returns one cause per problem (empty = admitted).
using Validator = std::function<std::vector<kube::StatusCause>(const AdmissionRequest& request)>;

// One write, as the store applied it: for traces and statistics.
struct WriteRecord {
  const char* verb;              // "create", "update", "updateStatus", "patch", "delete", "gc"
  const kube::ResourceType* type;
  const std::string* key;        // "ns/name"
  std::int64_t resource_version;
  kube::WatchEventType event;          // what watchers saw
  // The object written names an owner that does not exist: the garbage collector has work (with
  // synchronous_gc = false, whoever runs CollectGarbage() should run it soon).
  bool orphaned = false;
};

// Options of one write.
struct WriteOptions {
  // dryRun=All: admission, validation and every precondition run, nothing is stored, no version is
  // used and no watcher hears of it; the result is what would have been stored (a create's with a
  // uid drawn apart from real creates', so a dry run changes no later uid).
  bool dry_run = false;
  // UpdateStatus only: the metadata.managedFields to store with the new status, which is otherwise
  // all a status update changes (field_manager.h computes them for an HTTP write of /status, which
  // kube-apiserver attributes like any other write). Unset: the stored managedFields stay.
  const kube::Json* managed_fields = nullptr;
  // UpdateStatus only: the object's labels and annotations are written too, as kube-apiserver's
  // status strategies of built-in kinds (pods, services, nodes, namespaces) keep the new metadata
  // (a custom resource's keeps the old). The HTTP facade sets it for built-in kinds; the
  // simulation's status writes leave it unset and change the status alone.
  bool status_metadata = false;
  // Create and Update: the object gets metadata.generation (1, bumped when its spec changes) though
  // its kind does not track one. The HTTP facade sets it for pods, which kube-apiserver 1.34 gives a
  // generation; the simulation's in-process pods go without (speed). A pod with a generation that is
  // deleted at once ends with a deletionTimestamp and its generation bumped, as in kube-apiserver.
  bool track_generation = false;
};

struct StoreOptions {
  const kube::Clock* clock = nullptr;          // required
  std::size_t history_limit = 10'000;    // watch events kept per resource for resuming watches
  // kube-apiserver's watch cache sizing; 0 (the default) keeps history_limit events. Otherwise a
  // resource's history holds `history_min` events at first; when it is full, it doubles (up to
  // history_limit) if its oldest event is younger than `history_fresh`, and halves (not below
  // history_min) if the event a quarter of it back from the newest is older than that
  // (kube-apiserver: 75 s, 100 and 100 * 1024 events). A watch or list from before what is kept
  // gets 410, as always.
  kube::Micros history_fresh = 0;
  std::size_t history_min = 100;
  std::size_t watch_queue_limit = 1'000'000;  // events queued for one reader before it is cut off
  // true: the garbage collector and namespace deletion run inside each write, so their effects
  // are visible when the call returns. false: they wait for CollectGarbage() (the simulator runs
  // the collector as an actor with its own latency).
  bool synchronous_gc = true;
};

struct StoreStats {
  std::int64_t writes = 0;
  std::int64_t objects = 0;
  std::int64_t watchers = 0;
  std::int64_t gc_deletes = 0;
  std::int64_t watch_events_queued = 0;
  std::int64_t stored_bytes = 0;   // with a storage quota: memory of the stored objects
  std::int64_t history_bytes = 0;  // with a storage quota: memory of the watch history's objects
};

// A resourceVersion as kube-apiserver parses one (strconv.ParseUint): "" and "0" are 0, digits the
// version, anything else a 500 carrying the parser's words, as kube-apiserver answers a watch or a
// get (kubernetes/kubernetes#101350); Store::List makes it 400 "invalid resource version: ...", as
// kube-apiserver 1.34 answers a list.
kube::Result<std::int64_t> ParseResourceVersion(const std::string& text);

class Store : public kube::Client {
 public:
  // `registry` must hold the built-in kinds (extend Registry::WithBuiltins() to add more).
  explicit Store(StoreOptions options, kube::Registry registry = kube::Registry::WithBuiltins());
  ~Store() override;
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // Create also takes resource "pods/binding" with a v1 Binding ({metadata.name: pod,
  // target.name: node}): it sets spec.nodeName once, as the scheduler's POST .../binding does.
  kube::Result<kube::ObjectPtr> Create(const std::string& resource, kube::Json object,
                           const std::string& ns = kube::kNoNamespace()) override;
  kube::Result<kube::ObjectPtr> Get(const std::string& resource, const std::string& ns,
                        const std::string& name) override;
  kube::Result<kube::ListResult> List(const std::string& resource, const kube::ListOptions& options = {}) override;
  kube::Result<kube::ObjectPtr> Update(const std::string& resource, kube::Json object) override;
  kube::Result<kube::ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object) override;
  kube::Result<kube::ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                          const kube::Json& patch, kube::PatchType type = kube::PatchType::kMerge,
                          const std::string& subresource = "") override;
  kube::Result<kube::ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                           const kube::DeleteOptions& options = {}) override;
  kube::Result<kube::WatchPtr> Watch(const std::string& resource, const kube::WatchOptions& options = {}) override;

  // The writes with options (a dry run).
  kube::Result<kube::ObjectPtr> Create(const std::string& resource, kube::Json object, const std::string& ns,
                                       const WriteOptions& write);
  kube::Result<kube::ObjectPtr> Update(const std::string& resource, kube::Json object, const WriteOptions& write);
  kube::Result<kube::ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object,
                                             const WriteOptions& write);
  kube::Result<kube::ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                      const kube::Json& patch, const std::string& subresource,
                                      const WriteOptions& write);
  kube::Result<kube::ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                       const kube::DeleteOptions& options, const WriteOptions& write);

  // Queues a BOOKMARK at the current resourceVersion on `watch` (one this store opened with
  // allow_bookmarks; others are left alone): every event up to that version has been queued before it.
  void Bookmark(const kube::WatchPtr& watch);

  // Holds the memory of stored objects (json_bounds.h's ApproximateMemory) to `bytes`: a create or
  // update that would pass it is refused with etcd's "database space exceeded" (500), and the watch
  // history is trimmed (compacted) to hold at most as much again. 0 (the default) = no quota.
  void SetStorageQuota(std::size_t bytes);
  // Changes StoreOptions::history_limit (events kept per resource for resuming watches).
  void SetHistoryLimit(std::size_t events);

  // Admission hooks for a resource (any name Registry::Find accepts).
  void AddDefaulter(const std::string& resource, Defaulter defaulter);
  void AddValidator(const std::string& resource, Validator validator);

  // Runs pending garbage collection and namespace cleanup until nothing is left; returns the
  // number of objects deleted or changed. Only needed with synchronous_gc = false.
  std::size_t CollectGarbage();
  bool HasPendingGarbage() const;

  // Ends every open watch stream, as a restarted API server or a dropped connection would. Readers
  // see their stream end with a non-Expired status and resume from their last resourceVersion.
  void DropWatches();

  // Called for every write, under the store lock: must not call back into the store.
  void SetWriteObserver(std::function<void(const WriteRecord&)> observer);

  const kube::Registry& registry() const;
  std::int64_t CurrentResourceVersion() const;
  StoreStats Stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace fakeapi
