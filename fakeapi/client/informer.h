// An Informer keeps a local, watch-updated cache of one resource (optionally narrowed to a
// namespace and label/field selectors) and tells registered handlers about every change, as
// client-go's shared informer does. Controllers read from the cache and write to the API; the cache
// is only ever changed by list and watch results.
//
// Lifecycle: Start() lists, fills the cache (OnAdd per object), opens a watch from the list's
// resourceVersion and takes whatever the watch already holds. Pump() takes every event the watch
// has queued (non-blocking), applies it to the cache and calls the handlers. When the watch has
// ended, Pump() resumes it: a re-watch from the last resourceVersion seen (no relist, no duplicate
// handler calls), or, when the server answers 410 Expired, a relist that reconciles the cache with
// the new list and emits OnAdd / OnUpdate / OnDelete for the differences, in key order.
// A failed re-watch or relist (an API error) is not fatal: the cache is kept, last_error() says
// what happened, NeedsResync() turns true and the next Pump() tries again.
//
// The simulator drives an informer with SetNotifier(): the notifier is installed on every watch
// stream the informer opens (across re-watches), and the actor schedules a Pump() when it fires.
//
// Objects are shared, immutable ObjectPtrs; the cache never deep-copies them.
//
// REQUIRES: external synchronization. An informer is used by one actor (thread) at a time; the
// notifier may run on another thread and must only schedule work, not call into the informer.
// Handlers run inside Start()/Pump() after the cache has been updated; they may read the cache but
// must not call Start(), Pump() or Stop().
#pragma once

#include "fakeapi/client/client.h"
#include "fakeapi/client/json.h"
#include "fakeapi/client/selector.h"
#include "fakeapi/client/status.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kube {

// Handlers for cache changes. Any of them may be empty.
struct InformerHandlers {
  std::function<void(const ObjectPtr& object)> on_add;
  std::function<void(const ObjectPtr& old_object, const ObjectPtr& new_object)> on_update;
  // `object` is the last state known: the DELETED event's object, or the cached one when a relist
  // found the object gone.
  std::function<void(const ObjectPtr& object)> on_delete;
};

// The values an object is indexed under in one secondary index (none is fine).
using IndexFunc = std::function<std::vector<std::string>(const kube::Json& object)>;

// Index functions the controllers need.
// The uid of the controller ownerReference (ownerReferences[].controller == true), if any.
IndexFunc IndexByControllerUid();
// spec.nodeName, if set and not empty.
IndexFunc IndexByNodeName();
// The value of metadata.labels[key], if the label is present.
IndexFunc IndexByLabel(std::string key);

struct InformerStats {
  std::int64_t lists = 0;             // successful lists, the initial one included
  std::int64_t relists = 0;           // successful lists after the initial one (410, failed resume)
  std::int64_t rewatches = 0;         // watches re-opened from the last resourceVersion
  std::int64_t events = 0;            // watch events applied
  std::int64_t resync_failures = 0;   // list or watch calls that failed
};

class Informer {
 public:
  // `resource` is any name the client accepts ("pods", "dgljobs.kubeflow.org"). The client must
  // outlive the informer.
  Informer(Client& client, std::string resource, ListOptions filter = {});
  ~Informer();
  Informer(const Informer&) = delete;
  Informer& operator=(const Informer&) = delete;

  // Registers handlers. Objects already in the cache are replayed to on_add, in key order, so a
  // late handler sees the same world as an early one.
  void AddEventHandler(InformerHandlers handlers);

  // Registers a secondary index and builds it over the current cache. BadRequest if `name` is taken.
  Status AddIndex(const std::string& name, IndexFunc func);

  // Lists, fills the cache, opens the watch and applies events already queued on it. On an API
  // error returns it; the informer is then started anyway and Pump() retries.
  Status Start();

  // Applies every event available now and resumes an ended watch (see the file comment). Returns
  // the number of changes processed: watch events taken plus differences found by a relist.
  // Does nothing before Start() or after Stop().
  std::size_t Pump();

  // Installed on the current watch stream and on every later one. Replaces an earlier notifier.
  void SetNotifier(std::function<void()> notify);

  // Stops the watch. The cache stays readable; Pump() does nothing afterwards.
  void Stop();

  // True when the watch must be re-opened or the resource relisted, i.e. a Pump() has work to do
  // even if no event arrives (after a failed resume, the caller retries when it sees fit).
  bool NeedsResync() const { return started_ && pending_ != Pending::kNone; }
  // True once a list has filled the cache.
  bool HasSynced() const { return stats_.lists > 0; }
  // OK, or the error of the last failed list / watch call (cleared by the next success).
  const Status& last_error() const { return last_error_; }
  // The resourceVersion of the last list or watch event applied: where a re-watch starts.
  const std::string& LastSyncResourceVersion() const { return last_resource_version_; }
  const InformerStats& stats() const { return stats_; }
  const std::string& resource() const { return resource_; }
  // How many times the cache has changed (an object added, replaced or removed): while it reads the
  // same, every Get answers as before, so a reader may keep what it derived from earlier answers.
  std::uint64_t Changes() const { return changes_; }

  // --- The cache. Results are in key order ("ns/name"). ---
  // nullptr when absent. For cluster-scoped kinds pass ns = "".
  ObjectPtr Get(std::string_view ns, std::string_view name) const;
  ObjectPtr GetByKey(std::string_view key) const;
  // Every cached object in `ns`; every cached object when `ns` is "".
  std::vector<ObjectPtr> List(std::string_view ns = {}) const;
  // Cached objects (in `ns`, or all when "") whose labels match.
  std::vector<ObjectPtr> ListBySelector(const LabelSelector& selector, std::string_view ns = {}) const;
  // Cached objects indexed under `value` in index `index_name`; empty for an unknown index.
  std::vector<ObjectPtr> ByIndex(std::string_view index_name, std::string_view value) const;
  std::vector<std::string> Keys() const;
  std::size_t Size() const { return cache_.size(); }

 private:
  enum class Pending { kNone, kRewatch, kRelist };
  // An entry of cache_: its key and object. std::map nodes stay put until erased, so an index
  // holds them by address and reads the current object from them without a lookup.
  using CacheEntry = std::pair<const std::string, ObjectPtr>;
  struct Index {
    IndexFunc func;
    // Index value -> the cache entries indexed under it, by key (their keys viewed in place).
    std::map<std::string, std::map<std::string_view, const CacheEntry*>, std::less<>> entries_by_value;
  };

  // Re-opens the watch or relists according to pending_. Returns false when an API call failed.
  bool Resume(std::size_t* processed);
  bool Relist(std::size_t* processed);
  bool OpenWatch();
  void Apply(const WatchEvent& event);
  // Cache mutations keep every index in step. Reindex moves `entry` (already in the cache, holding
  // the new object or about to) from the index values of `old_object` (none when null) to those of
  // `new_object`; an entry is unindexed before it is erased.
  void Put(const std::string& key, const ObjectPtr& old_object, const ObjectPtr& new_object);
  void Reindex(const CacheEntry& entry, const kube::Json* old_object, const kube::Json& new_object);
  void Remove(const std::string& key, const ObjectPtr& old_object);
  void IndexObject(Index& index, const CacheEntry& entry);
  void UnindexObject(Index& index, std::string_view key, const kube::Json& object);
  void Unindex(Index& index, std::string_view key, const std::vector<std::string>& values);
  void NotifyAdd(const ObjectPtr& object);
  void NotifyUpdate(const ObjectPtr& old_object, const ObjectPtr& new_object);
  void NotifyDelete(const ObjectPtr& object);
  // From an object's metadata (nullptr: it has none), looked up once by the caller.
  const std::string& ScratchKey(const kube::Json* meta);
  void NoteResourceVersion(const kube::Json* meta);

  Client& client_;
  const std::string resource_;
  const ListOptions filter_;

  std::map<std::string, ObjectPtr, std::less<>> cache_;
  std::uint64_t changes_ = 0;  // Changes()
  // KeyOf(object) built in place for a lookup, its capacity kept from event to event (Apply).
  std::string key_scratch_;
  std::map<std::string, Index, std::less<>> indexes_;
  std::vector<InformerHandlers> handlers_;
  std::function<void()> notifier_;

  WatchPtr watch_;
  bool started_ = false;
  Pending pending_ = Pending::kNone;
  Status last_error_;
  std::string last_resource_version_;
  InformerStats stats_;
};

}  // namespace kube
