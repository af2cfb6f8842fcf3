// The Client is the one interface through which every actor talks to the API: the operator, the
// simulated scheduler, kubelets and controllers, tests. The in-process implementation calls the
// Store directly; the HTTP implementation speaks the Kubernetes REST protocol; FaultyClient wraps
// either to inject conflicts, errors, timeouts, latency and dropped watches.
//
// Objects are JSON (kube::Json, json.h) and shared: a returned ObjectPtr is immutable and may be
// kept for as long as wanted (a shared pointer hand-off, never a deep copy). To change one, copy
// it, edit, Update. ShareObject makes one, as make_shared would, seals it (kube::SealTree: copies of
// it share its objects' members until they write to them), and frees it with ReleaseTree when the
// last holder lets go.
#pragma once

#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kube {

using ObjectPtr = std::shared_ptr<const kube::Json>;

// Empties a JSON tree from its leaves up, so that no container is left with children when its own
// destructor runs (nlohmann's basic_json moves every child through a heap stack first). For a pod-sized
// object this takes about half the time. Below `kReleaseDepth` levels the rest is left to that
// destructor, which does not recurse: an object from a hostile peer cannot exhaust the stack here.
// Members another value shares (json.h: a later version that kept them) are not visited: letting
// go of them is counting one holder fewer.
inline constexpr int kReleaseDepth = 64;
inline void ReleaseTree(kube::Json& value, int depth = 0) {
  if (depth >= kReleaseDepth) return;
  if (value.is_object()) {
    auto& members = value.get_ref<kube::Json::object_t&>();
    if (members.empty() || !members.Alone()) return;  // shared members are another version's too
    for (auto& member : members.Members())
      if (member.second.is_structured()) ReleaseTree(member.second, depth + 1);
    members.clear();
  } else if (value.is_array()) {
    auto& elements = value.get_ref<kube::Json::array_t&>();
    for (auto& element : elements)
      if (element.is_structured()) ReleaseTree(element, depth + 1);
    elements.clear();
  }
}

namespace detail {
// The allocator ShareObject hands std::allocate_shared: the object and its count in one block, as
// make_shared does, and the tree released leaves first before the object is destroyed.
template <class T>
struct ReleasingAllocator {
  using value_type = T;
  ReleasingAllocator() = default;
  template <class U>
  ReleasingAllocator(const ReleasingAllocator<U>&) {}  // NOLINT(google-explicit-constructor): rebinding
  T* allocate(std::size_t n) { return std::allocator<T>().allocate(n); }
  void deallocate(T* p, std::size_t n) { std::allocator<T>().deallocate(p, n); }
  template <class U>
  void destroy(U* p) {
    if constexpr (std::is_same_v<U, kube::Json>) ReleaseTree(*p);
    p->~U();
  }
  template <class U>
  bool operator==(const ReleasingAllocator<U>&) const { return true; }
};
}  // namespace detail

// (The object is made mutable and handed out const: the release may then legally empty it.)
inline ObjectPtr ShareObject(kube::Json&& value) {
  SealTree(value);
  return std::allocate_shared<kube::Json>(detail::ReleasingAllocator<kube::Json>(), std::move(value));
}

inline const std::string& kNoNamespace() {
  static const std::string empty;
  return empty;
}

struct ListOptions {
  std::string namespace_;       // "" = all namespaces (and the only choice for cluster-scoped kinds)
  std::string label_selector;   // "app=x,tier in (a,b)"
  std::string field_selector;   // "spec.nodeName=n1,status.phase!=Failed"
  // As kube-apiserver reads them: "" the latest state; "0" any state (the latest here); "N" with
  // match "" or "NotOlderThan" a state at least as new as N; "N" with match "Exact" the state at N,
  // 410 Expired once N is older than the history kept. N newer than the server: 504 Timeout.
  std::string resource_version;
  std::string resource_version_match;  // "", "NotOlderThan", "Exact"
  // Paging: at most `limit` items (0 = all) and a continue token in the result while more remain;
  // `continue_` lists the next page of the same snapshot (410 once the snapshot is compacted).
  std::int64_t limit = 0;
  std::string continue_;
};

struct ListResult {
  std::vector<ObjectPtr> items;   // in key order (namespace, then name), as etcd lists them
  std::string resource_version;   // watch from here to see every later change
  std::string continue_;          // "" on the last page
  std::optional<std::int64_t> remaining_item_count;  // set on pages of unfiltered lists
};

struct WatchOptions {
  std::string namespace_;
  std::string label_selector;
  std::string field_selector;
  // "" or "0": start with a synthetic ADDED for every current object, then changes.
  // Otherwise every change after this version: 410 Expired if it is older than the history, 504
  // Timeout if it is newer than the server, 500 if it is not a number (as kube-apiserver answers).
  std::string resource_version;
  bool allow_bookmarks = false;
  // WatchList: with true, the current state as ADDED events first, then (with allow_bookmarks) a
  // BOOKMARK annotated k8s.io/initial-events-end: "true", then changes. Needs
  // resource_version_match "NotOlderThan", as kube-apiserver requires.
  std::optional<bool> send_initial_events;
  std::string resource_version_match;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };
const char* WatchEventTypeName(WatchEventType type);  // "ADDED", ...

struct WatchEvent {
  WatchEventType type;
  ObjectPtr object;  // the object after the change (for DELETED: its last state); a Status for ERROR
};

// A stream of watch events. Writers never wait on it: events are queued for the reader, and a
// reader that falls too far behind has its stream closed with an InternalError (its queued events
// are dropped; it re-watches from its last resourceVersion, or relists if that is gone too).
// Thread-safe: a writer may queue while a reader polls.
class WatchStream {
 public:
  virtual ~WatchStream() = default;
  // Moves the queued events into `out` (appending). Returns false once the stream has ended and
  // every event has been taken; then `status()` says why (OK when stopped by the reader).
  virtual bool Poll(std::vector<WatchEvent>* out) = 0;
  // Blocks up to `timeout` microseconds of wall time for an event or the end. Only for threads
  // serving real clients; simulated actors use the notifier.
  virtual void Wait(Micros timeout) = 0;
  // Called (without any store lock held) whenever events become available or the stream ends.
  // Replaces any earlier notifier.
  virtual void SetNotifier(std::function<void()> notify) = 0;
  virtual void Stop() = 0;
  virtual bool Ended() const = 0;
  virtual Status status() const = 0;
};
using WatchPtr = std::shared_ptr<WatchStream>;

enum class PropagationPolicy { kBackground, kForeground, kOrphan };

struct DeleteOptions {
  std::optional<PropagationPolicy> propagation;  // unset: Background (Orphan for legacy owners)
  std::optional<std::int64_t> grace_period_seconds;  // pods: unset = spec.terminationGracePeriodSeconds
  std::optional<std::string> precondition_uid;
  std::optional<std::string> precondition_resource_version;
};

enum class PatchType { kMerge };

class Client {
 public:
  virtual ~Client() = default;

  // `resource` is a plural ("pods"), a qualified plural ("dgljobs.kubeflow.org") or a short name.
  // `ns` is ignored for cluster-scoped kinds; for namespaced kinds "" means the object's own
  // metadata.namespace, else "default".
  virtual Result<ObjectPtr> Create(const std::string& resource, kube::Json object,
                                   const std::string& ns = kNoNamespace()) = 0;
  virtual Result<ObjectPtr> Get(const std::string& resource, const std::string& ns,
                                const std::string& name) = 0;
  virtual Result<ListResult> List(const std::string& resource, const ListOptions& options = {}) = 0;
  // Replaces the object. metadata.resourceVersion, if set, must be current (else 409 Conflict).
  // Status is ignored for kinds with a status subresource.
  virtual Result<ObjectPtr> Update(const std::string& resource, kube::Json object) = 0;
  // Replaces only the status (the rest of the given object is ignored).
  virtual Result<ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object) = 0;
  // `subresource` is "" or "status".
  virtual Result<ObjectPtr> Patch(const std::string& resource, const std::string& ns,
                                  const std::string& name, const kube::Json& patch,
                                  PatchType type = PatchType::kMerge,
                                  const std::string& subresource = "") = 0;
  // Returns the object as it is after the call: marked for deletion (deletionTimestamp) while
  // finalizers or a grace period hold it, else its last state.
  virtual Result<ObjectPtr> Delete(const std::string& resource, const std::string& ns,
                                   const std::string& name, const DeleteOptions& options = {}) = 0;
  virtual Result<WatchPtr> Watch(const std::string& resource, const WatchOptions& options = {}) = 0;
};

// Helpers for reading metadata of a JSON object without copying.
const std::string& NameOf(const kube::Json& obj);
const std::string& NamespaceOf(const kube::Json& obj);
const std::string& UidOf(const kube::Json& obj);
const std::string& ResourceVersionOf(const kube::Json& obj);
// A pod's spec.nodeName: "" while it is not bound.
const std::string& NodeNameOf(const kube::Json& pod);
// "ns/name", or "name" for cluster-scoped objects: the key informers and work queues use.
std::string KeyOf(const kube::Json& obj);
// The ownerReference with controller: true, or nullptr.
const kube::Json* ControllerRefOf(const kube::Json& obj);

}  // namespace kube
