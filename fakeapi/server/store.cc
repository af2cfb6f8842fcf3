// The in-process fake API server. See store.h for the semantics it keeps.
//
// Layout: one ResourceData per registered kind holds the objects (an ordered map keyed like etcd,
// "ns/name"), a bounded history of watch events for resuming, and the open watch streams. A
// global uid index and an owner index let the garbage collector find owners and dependents without
// scanning. Pods are indexed by spec.nodeName, and watch streams that select one node are indexed
// the same way, so that a write touches only the watchers it concerns (as kube-apiserver's watch
// cache does with its indexed triggers).
#include "fakeapi/server/store.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/client/selector.h"
#include "fakeapi/server/json_bounds.h"
#include "fakeapi/server/merge_patch.h"
#include "fakeapi/server/strategic_merge.h"
#include "fakeapi/server/wire.h"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <string_view>
#include <unordered_map>

namespace fakeapi {
namespace {

using json = kube::Json;

constexpr const char* kForegroundFinalizer = "foregroundDeletion";
constexpr const char* kOrphanFinalizer = "orphan";
constexpr const char* kNamespaceFinalizer = "kubernetes";

std::string MakeKey(const kube::ResourceType& type, const std::string& ns, const std::string& name) {
  return type.namespaced ? ns + "/" + name : name;
}

const json* Find(const json& obj, std::string_view a) { return kube::Member(obj, a); }
const json* Find(const json& obj, std::string_view a, std::string_view b) {
  const json* first = Find(obj, a);
  return first ? Find(*first, b) : nullptr;
}
std::string StringOr(const json* value, const std::string& fallback = "") {
  return value && value->is_string() ? value->get<std::string>() : fallback;
}

// The garbage collector removed the ownerReference to `uid`: no manager owns it any more (as in
// kube-apiserver, where the collector's write takes it from whoever set it). Entries left owning
// nothing go.
void ForgetOwnerFields(json& obj, const std::string& uid) {
  json* managed = kube::Member(obj, "metadata") ? &obj["metadata"]["managedFields"] : nullptr;
  if (!managed || !managed->is_array()) {
    if (managed && managed->is_null()) obj["metadata"].erase("managedFields");
    return;
  }
  const std::string item = "k:" + json{{"uid", uid}}.dump();
  json kept = json::array();
  for (json& entry : *managed) {
    json* fields = entry.is_object() && entry.contains("fieldsV1") ? &entry["fieldsV1"] : nullptr;
    if (fields && fields->is_object() && fields->contains("f:metadata") && (*fields)["f:metadata"].contains("f:ownerReferences")) {
      json& meta = (*fields)["f:metadata"];
      json& refs = meta["f:ownerReferences"];
      refs.erase(item);
      if (refs.empty() || (refs.size() == 1 && refs.contains("."))) meta.erase("f:ownerReferences");
      if (meta.empty()) fields->erase("f:metadata");
      if (fields->empty()) continue;
    }
    kept.push_back(std::move(entry));
  }
  if (kept.empty()) obj["metadata"].erase("managedFields");
  else *managed = std::move(kept);
}

// Labels and annotations alike (a status write of a built-in kind may change them).
bool SameLabels(const json& a, const json& b) {
  for (const char* member : {"labels", "annotations"}) {
    const json* x = kube::Member(a, "metadata") ? kube::Member(*kube::Member(a, "metadata"), member) : nullptr;
    const json* y = kube::Member(b, "metadata") ? kube::Member(*kube::Member(b, "metadata"), member) : nullptr;
    if ((x == nullptr) != (y == nullptr) || (x && *x != *y)) return false;
  }
  return true;
}

const json& StatusOf(const json& obj) {
  static const json kAbsent;
  auto it = obj.find("status");
  return it == obj.end() ? kAbsent : *it;
}

std::string NodeNameOf(const json& pod) { return StringOr(Find(pod, "spec", "nodeName")); }

// A write whose resourceVersion precondition names a version that is no longer the current one.
kube::Status StaleVersion(const kube::ResourceType& type, const std::string& name) {
  return kube::Status::Conflict(type.plural, name,
                                "the object has been modified; please apply your changes to the latest version and try again");
}

// NodeNameOf without a copy: a view into `pod`, valid while it lives.
std::string_view NodeNameView(const json& pod) {
  const json* node = Find(pod, "spec", "nodeName");
  return node && node->is_string() ? std::string_view(node->get_ref<const std::string&>()) : std::string_view();
}

bool HasDeletionTimestamp(const json& obj) {
  const json* ts = Find(obj, "metadata", "deletionTimestamp");
  return ts && ts->is_string();
}

std::vector<std::string> FinalizersOf(const json& obj) {
  std::vector<std::string> out;
  const json* list = Find(obj, "metadata", "finalizers");
  if (list && list->is_array())
    for (const auto& f : *list)
      if (f.is_string()) out.push_back(f.get<std::string>());
  return out;
}

bool HasFinalizer(const json& obj, const std::string& name) {
  auto all = FinalizersOf(obj);
  return std::find(all.begin(), all.end(), name) != all.end();
}

void RemoveFinalizer(json& obj, const std::string& name) {
  json& list = obj["metadata"]["finalizers"];
  if (!list.is_array()) return;
  json kept = json::array();
  for (auto& f : list)
    if (!(f.is_string() && f.get<std::string>() == name)) kept.push_back(f);
  if (kept.empty())
    obj["metadata"].erase("finalizers");
  else
    list = std::move(kept);
}

void AddFinalizer(json& obj, const std::string& name) {
  if (HasFinalizer(obj, name)) return;
  json& list = obj["metadata"]["finalizers"];
  if (!list.is_array()) list = json::array();
  list.push_back(name);
}

// Owner uids named by an object's ownerReferences, in order.
std::vector<std::string> OwnerUids(const json& obj) {
  std::vector<std::string> out;
  const json* refs = Find(obj, "metadata", "ownerReferences");
  if (refs && refs->is_array())
    for (const auto& ref : *refs) {
      std::string uid = StringOr(Find(ref, "uid"));
      if (!uid.empty()) out.push_back(uid);
    }
  return out;
}

// Whether two versions of an object name different owners (OwnerUids(a) != OwnerUids(b)), without
// building the lists when their ownerReferences are equal (shared between versions, usually).
bool OwnersDiffer(const json& a, const json& b) {
  const json* ra = Find(a, "metadata", "ownerReferences");
  const json* rb = Find(b, "metadata", "ownerReferences");
  if (ra == rb || (ra && rb && *ra == *rb)) return false;
  return OwnerUids(a) != OwnerUids(b);
}

bool BlocksOwnerDeletion(const json& obj, const std::string& owner_uid) {
  const json* refs = Find(obj, "metadata", "ownerReferences");
  if (!refs || !refs->is_array()) return false;
  for (const auto& ref : *refs) {
    if (StringOr(Find(ref, "uid")) != owner_uid) continue;
    const json* block = Find(ref, "blockOwnerDeletion");
    return block && block->is_boolean() && block->get<bool>();
  }
  return false;
}

// Whether two objects differ outside metadata and status (what bumps metadata.generation).
bool SpecChanged(const json& a, const json& b) {
  auto skip = [](const std::string& k) {
    return k == "metadata" || k == "status" || k == "apiVersion" || k == "kind";
  };
  for (auto it = a.begin(); it != a.end(); ++it) {
    if (skip(it.key())) continue;
    auto other = b.find(it.key());
    if (other == b.end() || *other != it.value()) return true;
  }
  for (auto it = b.begin(); it != b.end(); ++it) {
    if (skip(it.key())) continue;
    if (a.find(it.key()) == a.end()) return true;
  }
  return false;
}

// kube-apiserver's storage error prefix for a precondition that fails inside storage.
std::string StorageError(const kube::ResourceType& type, const std::string& ns, const std::string& name) {
  std::string key = "/registry/" + (type.group.empty() || TakesStrategicMerge(type) ? "" : type.group + "/") + type.plural + "/" +
                    (ns.empty() ? "" : ns + "/") + name;
  return "StorageError: invalid object, Code: 4, Key: " + key + ", ResourceVersion: 0, AdditionalErrorMsg: ";
}

// The internal API group a decoding error names: "core" for the core group, else its first label.
std::string InternalGroup(const kube::ResourceType& type) {
  if (type.group.empty()) return "core";
  return type.group.substr(0, type.group.find('.'));
}

// A ConfigMap's (and a Secret's) key, as kube-apiserver checks it: "" when valid.
std::string CheckConfigMapKey(const std::string& key) {
  bool ok = !key.empty() && key.size() <= 253 && key != "." && key != "..";
  for (char c : key)
    ok = ok && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.');
  if (ok) return "";
  if (key.size() > 253) return "Invalid value: \"" + key + "\": must be no more than 253 characters";
  if (key == "." || key == "..") return "Invalid value: \"" + key + "\": must not be '" + key + "'";
  return "Invalid value: \"" + key + "\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' "
         "(e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";
}

// DNS-1123 label (services, namespaces) or subdomain (everything else).
std::string CheckName(const std::string& name, bool label) {
  const std::size_t max = label ? 63 : 253;
  if (name.empty()) return "Required value: name or generateName is required";
  if (name.size() > max) return "Invalid value: \"" + name + "\": must be no more than " + std::to_string(max) + " characters";
  auto alnum = [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); };
  bool ok = alnum(name.front()) && alnum(name.back());
  for (char c : name) ok = ok && (alnum(c) || c == '-' || (!label && c == '.'));
  if (!ok)
    return "Invalid value: \"" + name + "\": a lowercase RFC 1123 " + std::string(label ? "label" : "subdomain") +
           " must consist of lower case alphanumeric characters, '-'" + (label ? "" : " or '.'") +
           ", and must start and end with an alphanumeric character (e.g. '" + (label ? "my-name" : "example.com") +
           "', regex used for validation is '" +
           (label ? "[a-z0-9]([-a-z0-9]*[a-z0-9])?" : "[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*") + "')";
  return "";
}

std::uint64_t Mix(std::uint64_t x) {  // kube::SplitMix64 finaliser: deterministic, well spread
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A Kubernetes watch stream fed by the store. The store pushes under its own lock; the reader
// takes events under the stream's lock only.
class StoreWatch : public kube::WatchStream {
 public:
  StoreWatch(std::string ns, kube::LabelSelector labels, kube::FieldSelector fields, std::size_t limit,
             const kube::ResourceType* type, bool bookmarks)
      : ns_(std::move(ns)), labels_(std::move(labels)), fields_(std::move(fields)), limit_(limit), type_(type),
        bookmarks_(bookmarks) {}

  // A BOOKMARK at `rv` (annotated as the end of the initial events when `initial_end`), if the
  // reader asked for bookmarks.
  std::function<void()> PushBookmark(std::int64_t rv, bool initial_end = false) {
    if (!bookmarks_) return {};
    json meta = {{"resourceVersion", std::to_string(rv)}};
    if (initial_end) meta["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    auto object = kube::ShareObject(
        json{{"kind", type_->kind}, {"apiVersion", type_->ApiVersion()}, {"metadata", std::move(meta)}});
    return Push(kube::WatchEventType::kBookmark, std::move(object));
  }

  bool Poll(std::vector<kube::WatchEvent>* out) override {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& e : queue_) out->push_back(std::move(e));
    queue_.clear();
    return !ended_;
  }
  void Wait(kube::Micros timeout) override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::microseconds(timeout), [&] { return !queue_.empty() || ended_; });
  }
  // A reader that sets its notifier after events were queued is told at once, so nothing waits
  // for a wake-up that already happened.
  void SetNotifier(std::function<void()> notify) override {
    std::unique_lock<std::mutex> lock(mu_);
    notify_ = std::move(notify);
    bool pending = (!queue_.empty() || ended_) && notify_;
    auto copy = notify_;
    lock.unlock();
    if (pending) copy();
  }
  void Stop() override { End(kube::Status::Ok()); }
  bool Ended() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return ended_;
  }
  kube::Status status() const override {
    std::lock_guard<std::mutex> lock(mu_);
    return end_status_;
  }

  bool Matches(const json& obj) const {
    if (!ns_.empty() && kube::NamespaceOf(obj) != ns_) return false;
    if (!labels_.Empty()) {
      static const json kNoLabels;
      const json* l = Find(obj, "metadata", "labels");
      if (!labels_.Matches(l ? *l : kNoLabels)) return false;  // (both lvalues: the labels are not copied)
    }
    return fields_.Empty() || fields_.Matches(obj);
  }
  const kube::FieldSelector& fields() const { return fields_; }

  // Queues an event; returns the notifier to call (after the store lock is released) when the
  // reader should be woken, else an empty function.
  std::function<void()> Push(kube::WatchEventType type, kube::ObjectPtr obj) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return {};
    if (queue_.size() >= limit_) {
      // A reader this far behind is cut off rather than ever slowing a writer down.
      queue_.clear();
      ended_ = true;
      end_status_ = kube::Status::Internal("watch closed: the reader fell more than " + std::to_string(limit_) + " events behind");
      cv_.notify_all();
      return notify_;
    }
    bool was_empty = queue_.empty();
    queue_.push_back(kube::WatchEvent{type, std::move(obj)});
    cv_.notify_all();
    return was_empty ? notify_ : std::function<void()>();
  }
  std::function<void()> End(kube::Status why) {
    std::lock_guard<std::mutex> lock(mu_);
    if (ended_) return {};
    ended_ = true;
    end_status_ = std::move(why);
    cv_.notify_all();
    return notify_;
  }
  bool EndedUnlocked() {
    std::lock_guard<std::mutex> lock(mu_);
    return ended_;
  }

 private:
  const std::string ns_;
  const kube::LabelSelector labels_;
  const kube::FieldSelector fields_;
  const std::size_t limit_;
  const kube::ResourceType* const type_;
  const bool bookmarks_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<kube::WatchEvent> queue_;
  bool ended_ = false;
  kube::Status end_status_;
  std::function<void()> notify_;
};

kube::Status OptionsInvalid(const char* kind, const std::string& field, const std::string& message) {
  return kube::Status::Invalid(std::string(kind) + ".meta.k8s.io", "", {{"FieldValueForbidden", field, message}});
}

// ListOptions as kube-apiserver validates them (ValidateListOptions).
kube::Status ValidateListOptions(const kube::ListOptions& o) {
  const std::string& match = o.resource_version_match;
  if (match.empty()) return kube::Status::Ok();
  if (o.resource_version.empty())
    return OptionsInvalid("ListOptions", "resourceVersionMatch", "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided");
  if (!o.continue_.empty())
    return OptionsInvalid("ListOptions", "resourceVersionMatch", "Forbidden: resourceVersionMatch is forbidden when continue is provided");
  if (match != "Exact" && match != "NotOlderThan")
    return kube::Status::Invalid("ListOptions.meta.k8s.io", "",
                                 {{"FieldValueNotSupported", "resourceVersionMatch",
                                   "Unsupported value: \"" + match + "\": supported values: \"Exact\", \"NotOlderThan\", \"\""}});
  if (match == "Exact" && o.resource_version == "0")
    return OptionsInvalid("ListOptions", "resourceVersionMatch", "Forbidden: resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
  return kube::Status::Ok();
}

// WatchOptions as kube-apiserver validates them (validateWatchOptions, WatchList enabled as in 1.32).
kube::Status ValidateWatchOptions(const kube::WatchOptions& o) {
  const std::string& match = o.resource_version_match;
  if (o.send_initial_events && match != "NotOlderThan")
    return OptionsInvalid("ListOptions", "resourceVersionMatch", "Forbidden: sendInitialEvents requires setting resourceVersionMatch to NotOlderThan");
  if (!match.empty() && !o.send_initial_events)
    return OptionsInvalid("ListOptions", "resourceVersionMatch", "Forbidden: resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided");
  if (!match.empty() && match != "NotOlderThan")
    return kube::Status::Invalid("ListOptions.meta.k8s.io", "",
                                 {{"FieldValueNotSupported", "resourceVersionMatch",
                                   "Unsupported value: \"" + match + "\": supported values: \"NotOlderThan\""}});
  return kube::Status::Ok();
}

// A continue token as kube-apiserver's etcd3 store writes one: base64 of
// {"v":"meta.k8s.io/v1","rv":N,"start":"KEY\u0000"}, the next page starting at KEY (rv -1: the
// latest state, handed out when the snapshot is gone).
std::string EncodeContinue(std::int64_t rv, const std::string& start) {
  return wire::Base64(json{{"v", "meta.k8s.io/v1"}, {"rv", rv}, {"start", start}}.dump());
}

// Go's encoding/json words for a document whose first byte cannot start a value ("" when it can):
// what kube-apiserver says of a continue token that decodes to something else than its JSON.
std::string GoJsonStartError(const std::string& text) {
  const auto at = text.find_first_not_of(" \t\r\n");
  if (at == std::string::npos) return "unexpected end of JSON input";
  const unsigned char c = static_cast<unsigned char>(text[at]);
  if (std::string_view("{[\"-0123456789tfn").find(static_cast<char>(c)) != std::string_view::npos) return "";
  std::string shown;  // strconv.Quote of the byte as a rune, in single quotes
  static constexpr char kHex[] = "0123456789abcdef";
  if (c == '\'') shown = "\\'";
  else if (c >= 0x20 && c < 0x7f) shown = std::string(1, static_cast<char>(c));
  else if (c < 0x20 || c == 0x7f) shown = std::string("\\x") + kHex[c >> 4] + kHex[c & 15];
  else if (c < 0xa0) shown = std::string("\\u00") + kHex[c >> 4] + kHex[c & 15];
  else shown = std::string(1, static_cast<char>(0xc0 | (c >> 6))) + static_cast<char>(0x80 | (c & 0x3f));
  return "invalid character '" + shown + "' looking for beginning of value";
}

kube::Status DecodeContinue(const std::string& token, std::int64_t* rv, std::string* start) {
  auto text = wire::FromBase64(token);
  if (text)
    if (std::string go = GoJsonStartError(*text); !go.empty())
      return kube::Status::BadRequest("invalid continue token: continue key is not valid: " + go);
  json parsed = text ? json::parse(*text, nullptr, false) : json();
  if (!parsed.is_object() || kube::JsonString(parsed, {"v"}) != "meta.k8s.io/v1" || !parsed.contains("rv") ||
      !parsed["rv"].is_number_integer() || !parsed.contains("start") || !parsed["start"].is_string())
    return kube::Status::BadRequest("invalid continue token: it was not issued by this server");
  *rv = parsed["rv"].get<std::int64_t>();
  *start = parsed["start"].get<std::string>();
  return kube::Status::Ok();
}

// `current` with the merge patch's status applied to its status; the rest of the patch is ignored
// (a status write changes nothing else). A null status removes it.
json StatusPatched(const json& current, const json& patch) {
  // A copy of a stored (sealed) object shares its members: writing the status copies the top
  // level only, and the merge below shares the status members the patch leaves alone.
  json next = current;
  const json* status = Find(patch, "status");
  if (!status) return next;
  if (status->is_null())
    next.erase("status");
  else
    next["status"] = MergePatched(StatusOf(current), *status);
  return next;
}

struct HistoryEvent {
  std::int64_t rv;
  kube::WatchEventType type;
  kube::ObjectPtr object;
  kube::ObjectPtr old;  // the previous state for MODIFIED, to turn selector transitions into ADDED/DELETED
  kube::Micros at = 0;  // when it happened (for StoreOptions::history_fresh)
};

struct ResourceData {
  const kube::ResourceType* type = nullptr;
  std::map<std::string, kube::ObjectPtr> objects;           // key order, as etcd lists
  std::map<std::string, std::set<std::string>> by_node;  // pods: spec.nodeName -> keys
  std::deque<HistoryEvent> history;
  std::size_t history_capacity = 0;  // with StoreOptions::history_fresh: events kept now (0: not set yet)
  std::int64_t compacted_rv = 0;  // watches from versions older than this get 410
  std::vector<std::shared_ptr<StoreWatch>> watchers;  // not indexed by node
  std::map<std::string, std::vector<std::shared_ptr<StoreWatch>>, std::less<>> node_watchers;
  std::vector<Defaulter> defaulters;
  std::vector<Validator> validators;
};

struct ObjectRef {
  ResourceData* data;
  std::string key;
};

enum class GcKind { kOwnerGone, kDependent, kOwnerDeleting, kNamespace };
struct GcItem {
  GcKind kind;
  std::string id;   // owner uid, dependent uid, or namespace name
};

}  // namespace

// Resource types in the order of their group and plural, never of their addresses: the garbage
// collector, the namespace controller and DropWatches walk types in this order (an owner's dependents
// by type, then key), and what they write or notify first must not depend on where the heap put a
// type (ordered by pointer, the trace hash changed with the heap layout).
struct TypeOrder {
  bool operator()(const kube::ResourceType* a, const kube::ResourceType* b) const {
    return std::tie(a->group, a->plural) < std::tie(b->group, b->plural);
  }
  bool operator()(const std::pair<const kube::ResourceType*, std::string>& a,
                  const std::pair<const kube::ResourceType*, std::string>& b) const {
    if ((*this)(a.first, b.first)) return true;
    if ((*this)(b.first, a.first)) return false;
    return a.second < b.second;
  }
};

// kube-apiserver parses resourceVersions with strconv.ParseUint and answers a failure with a 500
// carrying the parser's words (kubernetes/kubernetes#101350, still so in 1.32); so does the fake.
kube::Result<std::int64_t> ParseResourceVersion(const std::string& text) {
  if (text.empty() || text == "0") return std::int64_t{0};
  const bool digits = text.find_first_not_of("0123456789") == std::string::npos;
  if (digits && text.size() <= 18) return static_cast<std::int64_t>(std::stoll(text));
  const std::string why = digits ? "value out of range" : "invalid syntax";
  return kube::Status::FromJson({{"status", "Failure"},
                                 {"code", 500},
                                 {"message", "resourceVersion: Invalid value: \"" + text + "\": strconv.ParseUint: parsing \"" +
                                                 text + "\": " + why}});
}

struct Store::Impl {
  StoreOptions options;
  kube::Registry registry;
  mutable std::mutex mu;
  std::int64_t rv = 0;
  std::uint64_t uid_counter = 0;
  std::map<const kube::ResourceType*, ResourceData, TypeOrder> data;
  // Resource names as requests spell them -> their data, filled as names resolve (the registry is
  // fixed, so an entry never goes stale; names that resolve to nothing are not kept). Lookups only.
  std::unordered_map<std::string, ResourceData*> resolved;
  std::unordered_map<std::string, ObjectRef> by_uid;  // lookups only, never iterated
  std::unordered_map<std::string, std::set<std::pair<const kube::ResourceType*, std::string>, TypeOrder>> dependents;
  std::deque<GcItem> gc_queue;
  std::function<void(const WriteRecord&)> observer;
  StoreStats stats;
  std::vector<std::function<void()>> pending_notifications;  // fired after the lock is released
  bool dry_run = false;           // the write being served is a dry run: nothing may change
  // Marks the write being served as a dry run for its duration.
  struct DryRun {
    DryRun(Impl& impl, bool on) : impl_(impl) { impl_.dry_run = on; }
    ~DryRun() { impl_.dry_run = false; }
    Impl& impl_;
  };
  // The write in progress gives its object a metadata.generation whatever its kind
  // (WriteOptions::track_generation).
  bool track_generation = false;
  struct TrackGeneration {
    TrackGeneration(Impl& impl, bool on) : impl_(impl) { impl_.track_generation = on; }
    ~TrackGeneration() { impl_.track_generation = false; }
    Impl& impl_;
  };
  bool orphaned = false;          // the write being recorded names an owner that does not exist
  std::size_t quota = 0;          // bytes of stored objects allowed; 0 = no quota

  explicit Impl(StoreOptions o, kube::Registry r) : options(o), registry(std::move(r)) {
    for (const auto& type : registry.All()) data[type.get()].type = type.get();
  }

  // ---- lookups -------------------------------------------------------------------------------

  kube::Result<ResourceData*> Resolve(const std::string& resource) {
    if (auto it = resolved.find(resource); it != resolved.end()) return it->second;
    const kube::ResourceType* type = registry.Find(resource);
    if (!type) return kube::Status::NotFound("resource", resource);
    ResourceData* found = &data.at(type);
    resolved.emplace(resource, found);
    return found;
  }

  ResourceData& DataOf(const std::string& plural) { return data.at(registry.Find(plural)); }

  kube::ObjectPtr Lookup(ResourceData& d, const std::string& key) {
    auto it = d.objects.find(key);
    return it == d.objects.end() ? nullptr : it->second;
  }

  kube::ObjectPtr NamespaceObject(const std::string& ns) { return Lookup(DataOf("namespaces"), ns); }

  std::string NextRv() { return std::to_string(++rv); }

  std::uint64_t dry_run_uids = 0;  // dry-run creates' uids (CreateLocked)

  std::string NewUid() {
    std::uint64_t a = Mix(++uid_counter), b = Mix(a ^ uid_counter);
    // A version-4 UUID's layout, 8-4-4-4-12 lowercase hex digits: (a >> 32), (a >> 16) & 0xffff,
    // "4" then a & 0xfff, "8" then (b >> 48) & 0xfff, b & 0xffffffffffff. Written digit by digit
    // (snprintf took 2,600 instructions of every create).
    std::string out(36, '-');
    const auto put = [&out](std::size_t at, std::uint64_t value, int digits) {
      static constexpr char kDigits[] = "0123456789abcdef";
      for (int i = digits - 1; i >= 0; --i, value >>= 4) out[at + i] = kDigits[value & 0xf];
    };
    put(0, a >> 32, 8);
    put(9, (a >> 16) & 0xffff, 4);
    out[14] = '4';
    put(15, a & 0xfff, 3);
    out[19] = '8';
    put(20, (b >> 48) & 0xfff, 3);
    put(24, b & 0xffffffffffffULL, 12);
    return out;
  }

  std::string GeneratedSuffix() {
    // The alphabet kube-apiserver uses for generateName (no vowels, no look-alikes).
    static const char kAlphabet[] = "bcdfghjklmnpqrstvwxz2456789";
    std::uint64_t x = Mix(++uid_counter * 0x51ed2701ULL);
    std::string out;
    for (int i = 0; i < 5; ++i) {
      out += kAlphabet[x % 27];
      x /= 27;
    }
    return out;
  }

  // ---- the write path --------------------------------------------------------------------------

  void Record(const char* verb, ResourceData& d, const std::string& key, kube::WatchEventType event) {
    ++stats.writes;
    if (observer) observer(WriteRecord{verb, d.type, &key, rv, event, orphaned});
    orphaned = false;
  }

  // Whether some owner the object names is gone; then the collector has work.
  bool NamesMissingOwner(const json& obj) const {
    for (const auto& owner : OwnerUids(obj))
      if (!by_uid.count(owner)) return true;
    return false;
  }

  void Deliver(StoreWatch& w, kube::WatchEventType type, const kube::ObjectPtr& obj, const kube::ObjectPtr& old) {
    kube::WatchEventType out = type;
    if (type == kube::WatchEventType::kModified) {
      bool now = w.Matches(*obj), before = old && w.Matches(*old);
      if (!now && !before) return;
      if (now && !before) out = kube::WatchEventType::kAdded;
      if (!now && before) {
        // Leaving the selection: as kube-apiserver's watch cache, the object as the watcher last
        // matched it (the previous state), at the event's resourceVersion.
        json left = *old;
        left["metadata"]["resourceVersion"] = kube::JsonString(*obj, {"metadata", "resourceVersion"});
        ++stats.watch_events_queued;
        if (auto notify = w.Push(kube::WatchEventType::kDeleted, kube::ShareObject(std::move(left))))
          pending_notifications.push_back(std::move(notify));
        return;
      }
    } else if (!w.Matches(*obj)) {
      return;
    }
    ++stats.watch_events_queued;
    if (auto notify = w.Push(out, obj)) pending_notifications.push_back(std::move(notify));
  }

  void Broadcast(std::vector<std::shared_ptr<StoreWatch>>& list, kube::WatchEventType type, const kube::ObjectPtr& obj,
                 const kube::ObjectPtr& old) {
    bool stale = false;
    for (auto& w : list) {
      if (w->EndedUnlocked()) {
        stale = true;
        continue;
      }
      Deliver(*w, type, obj, old);
    }
    if (stale) std::erase_if(list, [](const auto& w) { return w->EndedUnlocked(); });
  }

  // Appends to the history and queues the event for every watcher it concerns. `same_node`: `old`
  // is bound where `obj` is (a status write), so the node watchers of one node are all it reaches.
  void Publish(ResourceData& d, kube::WatchEventType type, const kube::ObjectPtr& obj, const kube::ObjectPtr& old,
               bool same_node = false) {
    const kube::Micros now = options.clock->Now();
    if (options.history_fresh > 0) ResizeHistory(d, now);
    d.history.push_back(HistoryEvent{rv, type, obj, old, now});
    if (quota > 0) stats.history_bytes += static_cast<std::int64_t>(ApproximateMemory(*obj));
    while (d.history.size() > HistoryCapacity(d)) Compact(d);
    while (quota > 0 && stats.history_bytes > static_cast<std::int64_t>(quota) && CompactOldest()) {
    }
    Broadcast(d.watchers, type, obj, old);
    if (!d.node_watchers.empty()) {
      const std::string_view now = NodeNameView(*obj), before = old && !same_node ? NodeNameView(*old) : now;
      for (std::string_view node : {now, before}) {
        auto it = d.node_watchers.find(node);
        if (it != d.node_watchers.end()) Broadcast(it->second, type, obj, old);
        if (before == now) break;
      }
    }
  }

  // With history_fresh, the fewest events a resource's history keeps.
  std::size_t HistoryFloor() const {
    return std::max<std::size_t>(std::min(options.history_min, options.history_limit), 1);
  }

  // Events a resource's history keeps.
  std::size_t HistoryCapacity(const ResourceData& d) const {
    if (options.history_fresh <= 0) return options.history_limit;
    return d.history_capacity == 0 ? HistoryFloor() : d.history_capacity;
  }

  // kube-apiserver's watchCache.resizeCacheLocked, before an event at `now` is added to a full
  // history: double while the oldest event is fresh, halve once a quarter of it is stale.
  void ResizeHistory(ResourceData& d, kube::Micros now) {
    const std::size_t capacity = HistoryCapacity(d);
    if (d.history.size() < capacity) return;
    const std::size_t quarter_back = d.history.size() - std::max<std::size_t>(capacity / 4, 1);
    if (now - d.history.front().at < options.history_fresh) {
      d.history_capacity = std::min(capacity * 2, options.history_limit);
    } else if (now - d.history[quarter_back].at > options.history_fresh) {
      d.history_capacity = std::max(capacity / 2, HistoryFloor());
    }
  }

  // Drops the oldest event of a resource's history: watches and lists from before it get 410.
  void Compact(ResourceData& d) {
    if (quota > 0) stats.history_bytes -= static_cast<std::int64_t>(ApproximateMemory(*d.history.front().object));
    d.compacted_rv = d.history.front().rv;
    d.history.pop_front();
  }

  // Under the storage quota: drops the oldest event of any resource's history (never a resource's
  // last, which watches resume from). False when nothing is left to drop.
  bool CompactOldest() {
    ResourceData* oldest = nullptr;
    for (auto& [type, d] : data)
      if (d.history.size() > 1 && (!oldest || d.history.front().rv < oldest->history.front().rv)) oldest = &d;
    if (!oldest) return false;
    Compact(*oldest);
    return true;
  }

  // With a quota: whether `added` more bytes of stored objects still fit.
  kube::Status Fits(std::int64_t added) const {
    if (quota == 0 || added <= 0 || stats.stored_bytes + added <= static_cast<std::int64_t>(quota)) return kube::Status::Ok();
    return kube::Status::FromJson({{"status", "Failure"}, {"code", 500}, {"message", "etcdserver: mvcc: database space exceeded"}});
  }
  std::int64_t Bytes(const json& obj) const { return quota > 0 ? static_cast<std::int64_t>(ApproximateMemory(obj)) : 0; }

  static bool IsCorePods(const ResourceData& d) { return d.type->plural == "pods" && d.type->group.empty(); }

  void IndexAdd(ResourceData& d, const std::string& key, const json& obj) {
    const std::string& uid = kube::UidOf(obj);
    by_uid[uid] = ObjectRef{&d, key};
    for (const auto& owner : OwnerUids(obj)) dependents[owner].insert({d.type, key});
    if (IsCorePods(d)) {
      std::string node = NodeNameOf(obj);
      if (!node.empty()) d.by_node[node].insert(key);
    }
  }

  void IndexRemove(ResourceData& d, const std::string& key, const json& obj) {
    by_uid.erase(kube::UidOf(obj));
    for (const auto& owner : OwnerUids(obj)) {
      auto it = dependents.find(owner);
      if (it == dependents.end()) continue;
      it->second.erase({d.type, key});
      if (it->second.empty()) dependents.erase(it);
    }
    if (IsCorePods(d)) {
      auto it = d.by_node.find(NodeNameOf(obj));
      if (it != d.by_node.end()) {
        it->second.erase(key);
        if (it->second.empty()) d.by_node.erase(it);
      }
    }
  }

  // Stores a new version of an existing object (which already carries its new resourceVersion).
  // `status_only`: a write to the status subresource, which keeps the metadata (but for the
  // resourceVersion and managedFields) and the spec of the version before: owners and node are
  // as they were, so neither is compared.
  kube::ObjectPtr Replace(ResourceData& d, const std::string& key, json obj, const char* verb,
                          bool status_only = false) {
    auto it = d.objects.find(key);
    kube::ObjectPtr old = it->second;
    auto next = kube::ShareObject(std::move(obj));
    it->second = next;
    const bool owners_changed = !status_only && OwnersDiffer(*next, *old);
    // An update keeps the uid; the indexes change only where owners or the node did (a bind).
    if (owners_changed || (!status_only && IsCorePods(d) && NodeNameView(*next) != NodeNameView(*old))) {
      IndexRemove(d, key, *old);
      IndexAdd(d, key, *next);
    }
    stats.stored_bytes += Bytes(*next) - Bytes(*old);
    orphaned = owners_changed && NamesMissingOwner(*next);
    Record(verb, d, key, kube::WatchEventType::kModified);
    Publish(d, kube::WatchEventType::kModified, next, old, status_only);
    // Owners, finalizers and deletion state may have changed: let the collector look again.
    if (HasDeletionTimestamp(*next)) gc_queue.push_back({GcKind::kOwnerDeleting, kube::UidOf(*next)});
    if (owners_changed) gc_queue.push_back({GcKind::kDependent, kube::UidOf(*next)});
    return next;
  }

  // Removes an object for good: the DELETED event carries its last state at a new version.
  kube::ObjectPtr Remove(ResourceData& d, const std::string& key, const char* verb) {
    auto it = d.objects.find(key);
    json last = *it->second;
    if (const json* g = Find(last, "metadata", "generation");
        IsCorePods(d) && !HasDeletionTimestamp(last) && g && g->is_number_integer()) {
      // A pod is deleted gracefully even with no grace: its last state says when, and counts the
      // deletion as a change of it, as kube-apiserver 1.34's does. Only for a pod that has a
      // generation (written over HTTP, WriteOptions::track_generation): the simulation's own pods
      // end as they were.
      const std::int64_t generation = g->get<std::int64_t>() + 1;
      last["metadata"]["deletionTimestamp"] = kube::FormatTime(options.clock->Now());
      last["metadata"]["deletionGracePeriodSeconds"] = 0;
      last["metadata"]["generation"] = generation;
    }
    last["metadata"]["resourceVersion"] = NextRv();
    auto final_state = kube::ShareObject(std::move(last));
    kube::ObjectPtr before = it->second;  // kept in the history: lists at older versions restore it
    IndexRemove(d, key, *before);
    d.objects.erase(it);
    --stats.objects;
    stats.stored_bytes -= Bytes(*before);
    Record(verb, d, key, kube::WatchEventType::kDeleted);
    Publish(d, kube::WatchEventType::kDeleted, final_state, before);
    const std::string& uid = kube::UidOf(*final_state);
    gc_queue.push_back({GcKind::kOwnerGone, uid});
    for (const auto& owner : OwnerUids(*final_state)) gc_queue.push_back({GcKind::kOwnerDeleting, owner});
    if (d.type->namespaced) {
      kube::ObjectPtr ns = NamespaceObject(kube::NamespaceOf(*final_state));
      if (ns && HasDeletionTimestamp(*ns)) gc_queue.push_back({GcKind::kNamespace, kube::NameOf(*ns)});
    }
    return final_state;
  }

  // An object whose deletion is complete once nothing holds it any more.
  bool ReadyToRemove(const json& obj) {
    if (!HasDeletionTimestamp(obj) || !FinalizersOf(obj).empty()) return false;
    const json* grace = Find(obj, "metadata", "deletionGracePeriodSeconds");
    if (grace && grace->is_number_integer() && grace->get<std::int64_t>() > 0) return false;
    const json* ns_finalizers = Find(obj, "spec", "finalizers");
    return !(ns_finalizers && ns_finalizers->is_array() && !ns_finalizers->empty());
  }

  void RunAdmission(ResourceData& d, Operation op, const std::string& subresource, json& obj, const json* old,
                    std::vector<kube::StatusCause>& causes) {
    AdmissionRequest request{op, d.type, subresource, &obj, old};
    if (subresource.empty())
      for (auto& defaulter : d.defaulters) defaulter(request);
    for (auto& validator : d.validators) {
      auto found = validator(request);
      causes.insert(causes.end(), found.begin(), found.end());
    }
  }

  static std::string KindOf(const ResourceData& d) {
    return d.type->group.empty() ? d.type->kind : d.type->kind + "." + d.type->group;
  }

  kube::Result<kube::ObjectPtr> CreateLocked(ResourceData& d, json obj, const std::string& ns_arg) {
    if (!obj.is_object()) return kube::Status::BadRequest("the object to create must be a JSON object");
    const kube::ResourceType& type = *d.type;
    if (obj.contains("kind") && obj["kind"] != type.kind)
      return kube::Status::BadRequest(StringOr(Find(obj, "kind")) + " in version \"" + type.version +
                                      "\" cannot be handled as a " + type.kind + ": converting (" + type.version + "." +
                                      StringOr(Find(obj, "kind")) + ") to (" + InternalGroup(type) + "." + type.kind +
                                      "): unknown conversion");
    obj["apiVersion"] = type.ApiVersion();
    obj["kind"] = type.kind;
    json& meta = obj["metadata"];
    if (!meta.is_object()) meta = json::object();

    std::string ns;
    if (type.namespaced) {
      ns = StringOr(Find(meta, "namespace"));
      if (!ns_arg.empty()) {
        if (!ns.empty() && ns != ns_arg)
          return kube::Status::BadRequest("the namespace of the provided object does not match the namespace sent on the request");
        ns = ns_arg;
      }
      if (ns.empty()) ns = "default";
      meta["namespace"] = ns;
      kube::ObjectPtr ns_obj = NamespaceObject(ns);
      if (!ns_obj) return kube::Status::NotFound("namespaces", ns);
      if (HasDeletionTimestamp(*ns_obj)) {
        const std::string name = StringOr(Find(meta, "name"));
        return kube::Status::FromJson(
            {{"status", "Failure"}, {"code", 403}, {"reason", "Forbidden"},
             {"message", type.plural + (name.empty() ? "" : " \"" + name + "\"") +
                             " is forbidden: unable to create new content in namespace " + ns + " because it is being terminated"},
             {"details", {{"kind", type.plural}, {"name", name},
                          {"causes", {{{"reason", "NamespaceTerminating"}, {"field", "metadata.namespace"},
                                       {"message", "namespace " + ns + " is being terminated"}}}}}}});
      }
    } else {
      meta.erase("namespace");
    }

    std::string name = StringOr(Find(meta, "name"));
    std::string generate = StringOr(Find(meta, "generateName"));
    if (name.empty() && !generate.empty()) {
      for (int attempt = 0; attempt < 8 && name.empty(); ++attempt) {
        std::string candidate = generate + GeneratedSuffix();
        if (!d.objects.count(MakeKey(type, ns, candidate))) name = candidate;
      }
      if (name.empty()) return kube::Status::AlreadyExists(type.plural, generate);
    }
    meta["name"] = name;

    std::vector<kube::StatusCause> causes;
    bool label = type.plural == "namespaces" || type.plural == "services";
    if (std::string why = CheckName(name, label); !why.empty())
      causes.push_back({why.rfind("Required", 0) == 0 ? "FieldValueRequired" : "FieldValueInvalid", "metadata.name", why});
    if (causes.empty()) RunAdmission(d, Operation::kCreate, "", obj, nullptr, causes);
    if (!causes.empty()) return kube::Status::Invalid(KindOf(d), name, std::move(causes));

    std::string key = MakeKey(type, ns, name);
    if (d.objects.count(key)) return kube::Status::AlreadyExists(type.plural, name);

    // Server-owned metadata: whatever the client sent is replaced.
    json& m = obj["metadata"];
    m["creationTimestamp"] = kube::FormatTime(options.clock->Now());
    if (type.has_generation || track_generation) m["generation"] = 1;
    else m.erase("generation");
    m.erase("deletionTimestamp");
    m.erase("deletionGracePeriodSeconds");
    m.erase("resourceVersion");
    if (dry_run) {
      // A uid as kube-apiserver's dry run answers with one, from a counter of its own: the uids of
      // real creates stay what they would be without the dry run. No version is used.
      const std::uint64_t saved = uid_counter;
      uid_counter = (1ULL << 63) | ++dry_run_uids;
      m["uid"] = NewUid();
      uid_counter = saved;
      return kube::ShareObject(std::move(obj));
    }
    if (kube::Status s = Fits(Bytes(obj)); !s.ok()) return s;
    m["uid"] = NewUid();
    m["resourceVersion"] = NextRv();
    auto stored = kube::ShareObject(std::move(obj));
    d.objects.emplace(key, stored);
    ++stats.objects;
    stats.stored_bytes += Bytes(*stored);
    IndexAdd(d, key, *stored);
    // A dependent created after its owner is gone is collected like any other orphan.
    const bool missing_owner = NamesMissingOwner(*stored);
    orphaned = missing_owner;
    Record("create", d, key, kube::WatchEventType::kAdded);
    Publish(d, kube::WatchEventType::kAdded, stored, nullptr);
    if (missing_owner) gc_queue.push_back({GcKind::kDependent, kube::UidOf(*stored)});
    return stored;
  }

  // Shared by update, status update and the merge patch: `incoming` is the full desired object.
  // `managed_fields`: a status update's new managedFields (WriteOptions::managed_fields);
  // `status_metadata`: a status update writes labels and annotations too (WriteOptions).
  kube::Result<kube::ObjectPtr> UpdateLocked(ResourceData& d, json incoming, bool status_only, const char* verb,
                                             const json* managed_fields = nullptr, bool status_metadata = false) {
    if (!incoming.is_object()) return kube::Status::BadRequest("the object to update must be a JSON object");
    const kube::ResourceType& type = *d.type;
    std::string name = StringOr(Find(incoming, "metadata", "name"));
    if (status_only && !type.has_status) return kube::Status::NotFound(type.plural + "/status", name);
    std::string ns = type.namespaced ? StringOr(Find(incoming, "metadata", "namespace"), "default") : "";
    if (name.empty())
      return kube::Status::Invalid(KindOf(d), name, {{"FieldValueRequired", "metadata.name", "Required value: name is required"}});
    std::string key = MakeKey(type, ns, name);
    kube::ObjectPtr old = Lookup(d, key);
    if (!old) return kube::Status::NotFound(type.plural, name);
    const json& current = *old;

    std::string want_rv = StringOr(Find(incoming, "metadata", "resourceVersion"));
    if (!want_rv.empty() && want_rv != kube::ResourceVersionOf(current))
      return StaleVersion(type, name);
    std::string want_uid = StringOr(Find(incoming, "metadata", "uid"));
    if (!want_uid.empty() && want_uid != kube::UidOf(current))
      return kube::Status::Conflict(type.plural, name, StorageError(type, ns, name) + "Precondition failed: UID in precondition: " +
                                                     want_uid + ", UID in object meta: " + kube::UidOf(current));

    json next;
    if (status_only) {
      next = current;
      if (incoming.contains("status"))
        next["status"] = std::move(incoming["status"]);
      else
        next.erase("status");
      if (managed_fields) next["metadata"]["managedFields"] = *managed_fields;
      if (status_metadata)
        for (const char* member : {"labels", "annotations"}) {
          const json* value = Find(incoming, "metadata", member);
          if (value && value->is_object() && !value->empty()) next["metadata"][member] = *value;
          else next["metadata"].erase(member);
        }
    } else {
      next = std::move(incoming);
      next["apiVersion"] = type.ApiVersion();
      next["kind"] = type.kind;
      if (type.has_status) {
        if (const json* s = Find(current, "status"))
          next["status"] = *s;
        else
          next.erase("status");
      }
      json& m = next["metadata"];
      if (!m.is_object()) m = json::object();
      const json& cm = current["metadata"];
      // Fields only the server sets.
      for (const char* field : {"uid", "creationTimestamp", "generation", "deletionTimestamp",
                                "deletionGracePeriodSeconds", "namespace", "name"}) {
        auto it = cm.find(field);
        if (it != cm.end())
          m[field] = *it;
        else
          m.erase(field);
      }
      if (HasDeletionTimestamp(current)) {
        auto before = FinalizersOf(current);
        for (const auto& f : FinalizersOf(next))
          if (std::find(before.begin(), before.end(), f) == before.end())
          {
            // kube-apiserver checks this twice (object meta and the update's), and says so twice.
            const kube::StatusCause cause{"FieldValueForbidden", "metadata.finalizers",
                                          "Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{\"" +
                                              f + "\"}"};
            json twice = kube::Status::Invalid(KindOf(d), name, {cause}).ToJson();
            twice["details"]["causes"].push_back(twice["details"]["causes"][0]);
            return kube::Status::FromJson(twice);
          }
      }
    }

    return CommitUpdateLocked(d, key, old, std::move(next), status_only, verb);
  }

  // The second half of every update: admission, the generation, the no-op check and the write.
  // `old` is the stored version under `key`, `next` the whole new object (its resourceVersion is
  // replaced here); `status_only`: a write to the status subresource.
  kube::Result<kube::ObjectPtr> CommitUpdateLocked(ResourceData& d, const std::string& key, const kube::ObjectPtr& old,
                                                   json next, bool status_only, const char* verb) {
    const kube::ResourceType& type = *d.type;
    const json& current = *old;
    std::vector<kube::StatusCause> causes;
    if (IsCorePods(d) && !status_only) CheckPodSpecUpdate(current, next, causes);
    if (causes.empty())
      RunAdmission(d, Operation::kUpdate, status_only ? "status" : "", next, &current, causes);
    if (!causes.empty()) return kube::Status::Invalid(KindOf(d), kube::NameOf(current), std::move(causes));

    if (!status_only && (type.has_generation || track_generation) && SpecChanged(current, next)) {
      const json* g = Find(current, "metadata", "generation");
      next["metadata"]["generation"] = (g && g->is_number_integer() ? g->get<std::int64_t>() : 0) + 1;
    }
    // An update that changes nothing is not a write: no new version, no event (as kube-apiserver).
    // (A status update leaves the rest as it was, so comparing the status is enough there.)
    if (!status_only) next["metadata"]["resourceVersion"] = current["metadata"]["resourceVersion"];
    if (status_only ? StatusOf(next) == StatusOf(current) && SameLabels(next, current) : next == current) return old;
    if (dry_run) return kube::ShareObject(std::move(next));
    if (kube::Status s = Fits(Bytes(next) - Bytes(current)); !s.ok()) return s;
    next["metadata"]["resourceVersion"] = NextRv();
    if (ReadyToRemove(next)) {
      Replace(d, key, std::move(next), verb, status_only);
      return Remove(d, key, "delete");
    }
    return Replace(d, key, std::move(next), verb, status_only);
  }

  // Real pods are immutable apart from a few fields; binding goes through pods/binding.
  static void CheckPodSpecUpdate(const json& current, const json& next, std::vector<kube::StatusCause>& causes) {
    const json* a = Find(current, "spec");
    const json* b = Find(next, "spec");
    if (!a || !b || *a == *b) return;
    json ma = *a, mb = *b;
    for (json* spec : {&ma, &mb}) {
      spec->erase("activeDeadlineSeconds");
      spec->erase("tolerations");
      for (const char* list : {"containers", "initContainers"}) {
        auto it = spec->find(list);
        if (it == spec->end() || !it->is_array()) continue;
        for (auto& c : *it)
          if (c.is_object()) c.erase("image");
      }
    }
    if (ma != mb)
      causes.push_back({"FieldValueForbidden", "spec",
                        "Forbidden: pod updates may not change fields other than `spec.containers[*].image`, "
                        "`spec.initContainers[*].image`, `spec.activeDeadlineSeconds` or `spec.tolerations`"});
  }

  kube::Result<kube::ObjectPtr> BindLocked(const json& binding, const std::string& ns_arg) {
    ResourceData& pods = DataOf("pods");
    std::string name = StringOr(Find(binding, "metadata", "name"));
    std::string ns = !ns_arg.empty() ? ns_arg : StringOr(Find(binding, "metadata", "namespace"), "default");
    std::string node = StringOr(Find(binding, "target", "name"));
    if (node.empty())
      return kube::Status::Invalid("Binding", name, {{"FieldValueRequired", "target.name", "Required value"}});
    std::string key = MakeKey(*pods.type, ns, name);
    kube::ObjectPtr pod = Lookup(pods, key);
    if (!pod) return kube::Status::NotFound("pods", name);
    if (HasDeletionTimestamp(*pod))
      return kube::Status::Conflict("pods/binding", name, "pod " + name + " is being deleted, cannot be assigned to a host");
    if (!NodeNameOf(*pod).empty())
      return kube::Status::Conflict("pods/binding", name, "pod " + name + " is already assigned to node \"" + NodeNameOf(*pod) + "\"");
    json next = *pod;
    next["spec"]["nodeName"] = node;
    json condition = kube::MakeObject("lastTransitionTime", kube::FormatTime(options.clock->Now()), "status", "True",
                                      "type", "PodScheduled");
    json& conditions = next["status"]["conditions"];
    if (!conditions.is_array()) conditions = json::array();
    bool replaced = false;
    for (auto& c : conditions)
      if (kube::JsonString(c, {"type"}) == "PodScheduled") c = condition, replaced = true;
    if (!replaced) conditions.push_back(condition);
    next["metadata"]["resourceVersion"] = NextRv();
    return Replace(pods, key, std::move(next), "bind");
  }

  kube::Result<kube::ObjectPtr> DeleteLocked(ResourceData& d, const std::string& ns_arg, const std::string& name,
                                 const kube::DeleteOptions& options_in, const char* verb) {
    const kube::ResourceType& type = *d.type;
    std::string ns = type.namespaced ? (ns_arg.empty() ? "default" : ns_arg) : "";
    std::string key = MakeKey(type, ns, name);
    kube::ObjectPtr current = Lookup(d, key);
    if (!current) return kube::Status::NotFound(type.plural, name);
    // kube-apiserver checks a delete's preconditions before storage, naming the kind.
    if (options_in.precondition_uid && *options_in.precondition_uid != kube::UidOf(*current))
      return kube::Status::Conflict(type.kind, name, "the UID in the precondition (" + *options_in.precondition_uid +
                                                         ") does not match the UID in record (" + kube::UidOf(*current) +
                                                         "). The object might have been deleted and then recreated");
    if (options_in.precondition_resource_version &&
        *options_in.precondition_resource_version != kube::ResourceVersionOf(*current))
      return kube::Status::Conflict(type.kind, name, "the ResourceVersion in the precondition (" +
                                                         *options_in.precondition_resource_version +
                                                         ") does not match the ResourceVersion in record (" +
                                                         kube::ResourceVersionOf(*current) + "). The object might have been modified");

    bool is_pod = type.plural == "pods" && type.group.empty();
    bool is_namespace = type.plural == "namespaces" && type.group.empty();
    // kube-apiserver's NamespaceLifecycle admission keeps the namespaces it made itself.
    if (is_namespace && (name == "default" || name == "kube-system" || name == "kube-public")) {
      kube::Status forbidden = kube::Status::Forbidden("namespaces \"" + name + "\" is forbidden: this namespace may not be deleted");
      return forbidden.WithDetail("name", name).WithDetail("kind", "namespaces");
    }
    if (HasDeletionTimestamp(*current)) {
      // Already being deleted: only a shorter grace period (the kubelet's confirmation, or a force
      // delete) changes anything.
      if (is_pod && options_in.grace_period_seconds) return ShortenGrace(d, key, current, *options_in.grace_period_seconds, verb);
      return current;
    }
    // The grace period and the finalizers are read from the stored object: a delete that removes
    // it at once (most of them) copies nothing here.
    kube::PropagationPolicy policy = options_in.propagation.value_or(kube::PropagationPolicy::kBackground);
    std::int64_t grace = 0;
    if (is_pod) {
      std::string phase = StringOr(Find(*current, "status", "phase"));
      const json* spec_grace = Find(*current, "spec", "terminationGracePeriodSeconds");
      grace = options_in.grace_period_seconds.value_or(
          spec_grace && spec_grace->is_number_integer() ? spec_grace->get<std::int64_t>() : 30);
      // Unscheduled and finished pods have no kubelet to wait for.
      if (NodeNameOf(*current).empty() || phase == "Succeeded" || phase == "Failed") grace = 0;
      grace = std::max<std::int64_t>(0, grace);
    }
    const bool adds_finalizer = policy == kube::PropagationPolicy::kForeground || policy == kube::PropagationPolicy::kOrphan;
    bool held = grace > 0 || adds_finalizer || !FinalizersOf(*current).empty() || is_namespace;
    if (!held) return dry_run ? current : Remove(d, key, verb);

    json next = *current;
    if (policy == kube::PropagationPolicy::kForeground) AddFinalizer(next, kForegroundFinalizer);
    if (policy == kube::PropagationPolicy::kOrphan) AddFinalizer(next, kOrphanFinalizer);
    if (is_namespace) next["status"]["phase"] = "Terminating";
    json& meta = next["metadata"];  // after the inserts into `next`, which may move its members
    meta["deletionTimestamp"] = kube::FormatTime(options.clock->Now() + grace * kube::kSecond);
    if (!is_namespace) meta["deletionGracePeriodSeconds"] = grace;  // kube-apiserver gives a namespace none
    if (const json* g = Find(next, "metadata", "generation"); is_pod && g && g->is_number_integer())
      meta["generation"] = g->get<std::int64_t>() + 1;  // a pod's graceful deletion is a change of it
    if (dry_run) return kube::ShareObject(std::move(next));
    if (is_namespace) gc_queue.push_back({GcKind::kNamespace, name});
    meta["resourceVersion"] = NextRv();
    return Replace(d, key, std::move(next), verb);
  }

  // A pod already being deleted gets a shorter grace period (the kubelet's confirmation, or a
  // force delete); at 0 it is removed.
  kube::Result<kube::ObjectPtr> ShortenGrace(ResourceData& d, const std::string& key, const kube::ObjectPtr& current,
                                             std::int64_t grace_seconds, const char* verb) {
    const json* g = Find(*current, "metadata", "deletionGracePeriodSeconds");
    std::int64_t was = g && g->is_number_integer() ? g->get<std::int64_t>() : 0;
    std::int64_t now = std::max<std::int64_t>(0, grace_seconds);
    if (now >= was) return current;
    json next = *current;
    json& meta = next["metadata"];
    meta["deletionGracePeriodSeconds"] = now;
    meta["deletionTimestamp"] = kube::FormatTime(options.clock->Now() + now * kube::kSecond);
    if (dry_run) return kube::ShareObject(std::move(next));
    meta["resourceVersion"] = NextRv();
    if (ReadyToRemove(next)) {
      Replace(d, key, std::move(next), verb);
      return Remove(d, key, verb);
    }
    return Replace(d, key, std::move(next), verb);
  }

  // ---- lists at a version, in pages ------------------------------------------------------------

  // The version a list reads at and the first key it lists (from a continue token), or why not.
  kube::Status PlanList(ResourceData& d, const kube::ListOptions& o, std::int64_t* snapshot, std::string* start) {
    if (kube::Status s = ValidateListOptions(o); !s.ok()) return s;
    *snapshot = rv;
    if (!o.continue_.empty()) {
      if (!o.resource_version.empty() && o.resource_version != "0")
        return kube::Status::BadRequest("specifying resource version is not allowed when using continue");
      std::int64_t token_rv = 0;
      if (kube::Status s = DecodeContinue(o.continue_, &token_rv, start); !s.ok()) return s;
      if (token_rv == -1) return kube::Status::Ok();  // the rest at the latest version
      if (token_rv < d.compacted_rv || token_rv > rv)
        return kube::Status::Expired(
                   "The provided continue parameter is too old to display a consistent list result. You can start a new "
                   "list without the continue parameter, or use the continue token in this response to retrieve the "
                   "remainder of the results. Continuing with the provided token results in an inconsistent list - "
                   "objects that were created, modified, or deleted between the time the first chunk was returned and "
                   "now may show up in the list.")
            .WithListMeta("continue", EncodeContinue(-1, *start));
      *snapshot = token_rv;
      return kube::Status::Ok();
    }
    auto wanted = ParseResourceVersion(o.resource_version);
    // kube-apiserver 1.34 refuses a list's unparsable version as a bad request (a watch's stays 500).
    if (!wanted.ok()) return kube::Status::BadRequest("invalid resource version: " + wanted.status().message());
    if (*wanted > rv) return kube::Status::TooLargeResourceVersion(*wanted, rv);
    if (o.resource_version_match == "Exact") {
      if (*wanted < d.compacted_rv) return kube::Status::Expired("The resourceVersion for the provided list is too old.");
      *snapshot = *wanted;
    }
    return kube::Status::Ok();
  }

  // The objects of a resource as they were at version `at` (no older than the history): the
  // current ones with every later event undone. False when the history cannot undo one.
  bool SnapshotAt(ResourceData& d, std::int64_t at, std::map<std::string, kube::ObjectPtr>* out) {
    *out = d.objects;
    for (auto it = d.history.rbegin(); it != d.history.rend() && it->rv > at; ++it) {
      const json& obj = it->type == kube::WatchEventType::kAdded || !it->old ? *it->object : *it->old;
      const std::string key = MakeKey(*d.type, kube::NamespaceOf(obj), kube::NameOf(obj));
      if (it->type == kube::WatchEventType::kAdded) {
        out->erase(key);
      } else if (it->old) {
        (*out)[key] = it->old;
      } else {
        return false;
      }
    }
    return true;
  }

  // One page of `source` from `start` under `prefix`: up to `limit` matching items (0 = all), the
  // continue token and the count of what remains.
  void ListPage(const std::map<std::string, kube::ObjectPtr>& source, const std::string& prefix, const std::string& start,
                const kube::ListOptions& o, const std::function<bool(const json&)>& matches, std::int64_t snapshot,
                kube::ListResult* out) {
    auto it = source.lower_bound(std::max(prefix, start));
    auto in_prefix = [&](decltype(it) at) { return at != source.end() && at->first.compare(0, prefix.size(), prefix) == 0; };
    std::string last_key;
    for (; in_prefix(it); ++it) {
      if (!matches(*it->second)) continue;
      if (o.limit > 0 && static_cast<std::int64_t>(out->items.size()) == o.limit) break;
      out->items.push_back(it->second);
      last_key = it->first;
    }
    if (!in_prefix(it) || out->items.empty()) return;
    out->continue_ = EncodeContinue(snapshot, last_key + std::string(1, '\0'));
    if (o.label_selector.empty() && o.field_selector.empty()) {
      std::int64_t remaining = 0;
      for (; in_prefix(it); ++it) ++remaining;
      out->remaining_item_count = remaining;
    }
  }

  // ---- garbage collection and namespace cleanup --------------------------------------------------

  std::size_t CollectLocked() {
    std::size_t changed = 0;
    // Bounded: every item is finite work and new items come only from actual changes.
    while (!gc_queue.empty()) {
      GcItem item = std::move(gc_queue.front());
      gc_queue.pop_front();
      switch (item.kind) {
        case GcKind::kOwnerGone: changed += CollectDependentsOf(item.id); break;
        case GcKind::kDependent: changed += CollectDependent(item.id); break;
        case GcKind::kOwnerDeleting: changed += ProgressOwnerDeletion(item.id); break;
        case GcKind::kNamespace: changed += CleanNamespace(item.id); break;
      }
    }
    return changed;
  }

  std::vector<std::pair<const kube::ResourceType*, std::string>> DependentsOf(const std::string& uid) {
    auto it = dependents.find(uid);
    if (it == dependents.end()) return {};
    return {it->second.begin(), it->second.end()};
  }

  std::size_t CollectDependentsOf(const std::string& owner_uid) {
    std::size_t changed = 0;
    for (const auto& [type, key] : DependentsOf(owner_uid)) {
      kube::ObjectPtr obj = Lookup(data.at(type), key);
      if (obj) changed += CollectDependent(kube::UidOf(*obj));
    }
    return changed;
  }

  // A dependent all of whose owners are gone is deleted; one that lost only some owners forgets them.
  std::size_t CollectDependent(const std::string& uid) {
    auto where = by_uid.find(uid);
    if (where == by_uid.end()) return 0;
    ResourceData& d = *where->second.data;
    std::string key = where->second.key;
    kube::ObjectPtr obj = Lookup(d, key);
    auto owners = OwnerUids(*obj);
    if (owners.empty()) return 0;
    std::vector<std::string> gone;
    for (const auto& owner : owners)
      if (!by_uid.count(owner)) gone.push_back(owner);
    if (gone.empty()) return 0;
    if (gone.size() == owners.size()) {
      if (HasDeletionTimestamp(*obj)) return 0;
      ++stats.gc_deletes;
      DeleteLocked(d, kube::NamespaceOf(*obj), kube::NameOf(*obj), kube::DeleteOptions{}, "gc");
      return 1;
    }
    json next = *obj;
    json kept = json::array();
    for (const auto& ref : next["metadata"]["ownerReferences"])
      if (std::find(gone.begin(), gone.end(), StringOr(Find(ref, "uid"))) == gone.end()) kept.push_back(ref);
    next["metadata"]["ownerReferences"] = std::move(kept);
    for (const std::string& owner : gone) ForgetOwnerFields(next, owner);
    next["metadata"]["resourceVersion"] = NextRv();
    Replace(d, key, std::move(next), "gc");
    return 1;
  }

  // An owner being deleted with the orphan or foregroundDeletion finalizer.
  std::size_t ProgressOwnerDeletion(const std::string& uid) {
    auto where = by_uid.find(uid);
    if (where == by_uid.end()) return 0;
    ResourceData& d = *where->second.data;
    std::string key = where->second.key;
    kube::ObjectPtr owner = Lookup(d, key);
    if (!HasDeletionTimestamp(*owner)) return 0;
    std::size_t changed = 0;
    if (HasFinalizer(*owner, kOrphanFinalizer)) {
      for (const auto& [type, dep_key] : DependentsOf(uid)) {
        ResourceData& dd = data.at(type);
        json next = *Lookup(dd, dep_key);
        json kept = json::array();
        for (const auto& ref : next["metadata"]["ownerReferences"])
          if (StringOr(Find(ref, "uid")) != uid) kept.push_back(ref);
        if (kept.empty())
          next["metadata"].erase("ownerReferences");
        else
          next["metadata"]["ownerReferences"] = std::move(kept);
        ForgetOwnerFields(next, uid);
        next["metadata"]["resourceVersion"] = NextRv();
        Replace(dd, dep_key, std::move(next), "gc");
        ++changed;
      }
      changed += DropFinalizer(d, key, kOrphanFinalizer);
      return changed;
    }
    if (HasFinalizer(*owner, kForegroundFinalizer)) {
      bool blocked = false;
      for (const auto& [type, dep_key] : DependentsOf(uid)) {
        ResourceData& dd = data.at(type);
        kube::ObjectPtr dep = Lookup(dd, dep_key);
        if (!HasDeletionTimestamp(*dep)) {
          ++stats.gc_deletes;
          ++changed;
          auto result = DeleteLocked(dd, kube::NamespaceOf(*dep), kube::NameOf(*dep),
                                     kube::DeleteOptions{.propagation = kube::PropagationPolicy::kForeground}, "gc");
          dep = result.ok() ? Lookup(dd, dep_key) : nullptr;
        }
        if (dep && BlocksOwnerDeletion(*dep, uid)) blocked = true;
      }
      if (!blocked) changed += DropFinalizer(d, key, kForegroundFinalizer);
    }
    return changed;
  }

  std::size_t DropFinalizer(ResourceData& d, const std::string& key, const char* finalizer) {
    kube::ObjectPtr obj = Lookup(d, key);
    if (!obj || !HasFinalizer(*obj, finalizer)) return 0;
    json next = *obj;
    RemoveFinalizer(next, finalizer);
    next["metadata"]["resourceVersion"] = NextRv();
    if (ReadyToRemove(next)) {
      Replace(d, key, std::move(next), "gc");
      Remove(d, key, "gc");
    } else {
      Replace(d, key, std::move(next), "gc");
    }
    return 1;
  }

  // The namespace controller: delete everything in a terminating namespace, then the namespace.
  std::size_t CleanNamespace(const std::string& ns) {
    ResourceData& namespaces = DataOf("namespaces");
    kube::ObjectPtr ns_obj = Lookup(namespaces, ns);
    if (!ns_obj || !HasDeletionTimestamp(*ns_obj)) return 0;
    std::size_t changed = 0;
    bool empty = true;
    for (auto& [type, d] : data) {
      if (!type->namespaced) continue;
      std::string prefix = ns + "/";
      std::vector<std::string> keys;
      for (auto it = d.objects.lower_bound(prefix); it != d.objects.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it)
        keys.push_back(it->first);
      for (const auto& key : keys) {
        empty = false;
        kube::ObjectPtr obj = Lookup(d, key);
        if (HasDeletionTimestamp(*obj)) continue;
        ++changed;
        DeleteLocked(d, ns, kube::NameOf(*obj), kube::DeleteOptions{}, "gc");
      }
    }
    if (!empty) {
      // Check again: what was just deleted may be gone already.
      for (auto& [type, d] : data) {
        if (!type->namespaced) continue;
        auto it = d.objects.lower_bound(ns + "/");
        if (it != d.objects.end() && it->first.compare(0, ns.size() + 1, ns + "/") == 0) return changed;
      }
    }
    json next = *ns_obj;
    json& finalizers = next["spec"]["finalizers"];
    if (finalizers.is_array() && !finalizers.empty()) {
      json kept = json::array();
      for (auto& f : finalizers)
        if (!(f.is_string() && f.get<std::string>() == kNamespaceFinalizer)) kept.push_back(f);
      finalizers = std::move(kept);
    }
    if (finalizers.empty()) next["spec"].erase("finalizers");
    if (next == *ns_obj) return changed;
    next["metadata"]["resourceVersion"] = NextRv();
    if (ReadyToRemove(next)) {
      Replace(namespaces, ns, std::move(next), "gc");
      Remove(namespaces, ns, "gc");
    } else {
      Replace(namespaces, ns, std::move(next), "gc");
    }
    return changed + 1;
  }

  // ---- built-in admission ------------------------------------------------------------------------

  void InstallBuiltins() {
    auto& pods = DataOf("pods");
    pods.defaulters.push_back([](AdmissionRequest& r) {
      json& pod = *r.object;
      if (r.operation != Operation::kCreate) return;
      json& spec = pod["spec"];
      if (!spec.is_object()) return;
      if (!spec.contains("restartPolicy")) spec["restartPolicy"] = "Always";
      if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 30;
      if (!spec.contains("schedulerName")) spec["schedulerName"] = "default-scheduler";
      if (!spec.contains("dnsPolicy")) spec["dnsPolicy"] = "ClusterFirst";
      if (!spec.contains("serviceAccountName")) spec["serviceAccountName"] = "default";
      for (const char* list : {"initContainers", "containers"}) {
        auto it = spec.find(list);
        if (it == spec.end() || !it->is_array()) continue;
        for (auto& c : *it) {
          if (!c.is_object() || c.contains("imagePullPolicy")) continue;
          std::string image = kube::JsonString(c, {"image"});
          auto slash = image.rfind('/');
          std::string last = slash == std::string::npos ? image : image.substr(slash + 1);
          bool latest = last.find(':') == std::string::npos || last.ends_with(":latest");
          c["imagePullPolicy"] = latest && last.find('@') == std::string::npos ? "Always" : "IfNotPresent";
        }
      }
      if (!pod["status"].is_object()) pod["status"] = json::object();
      if (!pod["status"].contains("phase")) pod["status"]["phase"] = "Pending";
    });
    pods.validators.push_back([](const AdmissionRequest& r) {
      std::vector<kube::StatusCause> causes;
      if (r.subresource == "status") return causes;
      const json* containers = Find(*r.object, "spec", "containers");
      if (!containers || !containers->is_array() || containers->empty()) {
        causes.push_back({"FieldValueRequired", "spec.containers", "Required value"});
        return causes;
      }
      for (std::size_t i = 0; i < containers->size(); ++i) {
        const json& c = (*containers)[i];
        std::string path = "spec.containers[" + std::to_string(i) + "]";
        if (StringOr(Find(c, "name")).empty()) causes.push_back({"FieldValueRequired", path + ".name", "Required value"});
        if (StringOr(Find(c, "image")).empty()) causes.push_back({"FieldValueRequired", path + ".image", "Required value"});
      }
      return causes;
    });
    InstallNamespaceAdmission();
    InstallConfigMapAdmission();
    InstallLeaseAndEventValidation();
    DataOf("services").defaulters.push_back([this](AdmissionRequest& r) {
      if (r.operation != Operation::kCreate) return;
      json& spec = (*r.object)["spec"];
      if (!spec.is_object()) return;
      if (!spec.contains("type")) spec["type"] = "ClusterIP";
      if (!spec.contains("clusterIP")) {
        std::uint64_t n = ++service_ips;  // 10.96.0.0/12, skipping .0 and .1 (the API service)
        spec["clusterIP"] = "10.96." + std::to_string((n + 1) / 256) + "." + std::to_string((n + 1) % 256);
      }
      if (spec["ports"].is_array())
        for (auto& p : spec["ports"])
          if (p.is_object() && !p.contains("protocol")) p["protocol"] = "TCP";
    });
  }
  std::uint64_t service_ips = 0;

  void InstallNamespaceAdmission() {
    DataOf("namespaces").defaulters.push_back([](AdmissionRequest& r) {
      json& ns = *r.object;
      // kube-apiserver sets this label on every namespace, on create and on update, so that
      // namespace selectors can name one.
      json& labels = ns["metadata"]["labels"];
      if (!labels.is_object()) labels = json::object();
      labels["kubernetes.io/metadata.name"] = kube::NameOf(ns);
      if (r.operation != Operation::kCreate) return;
      if (!ns["spec"].is_object()) ns["spec"] = json::object();
      if (!ns["spec"].contains("finalizers")) ns["spec"]["finalizers"] = json::array({kNamespaceFinalizer});
      if (!ns["status"].is_object()) ns["status"] = json::object();
      ns["status"]["phase"] = "Active";
    });
  }

  // A ConfigMap holds at most 1 MiB of keys and values, as kube-apiserver validates.
  void InstallConfigMapAdmission() {
    DataOf("configmaps").validators.push_back([](const AdmissionRequest& r) {
      constexpr std::size_t kMaxConfigMapBytes = 1024 * 1024;
      std::vector<kube::StatusCause> causes;
      std::size_t total = 0;
      for (const char* field : {"data", "binaryData"}) {
        const json* map = Find(*r.object, field);
        if (!map || !map->is_object()) continue;
        for (auto it = map->begin(); it != map->end(); ++it)
          total += it.key().size() + (it.value().is_string() ? it.value().get_ref<const std::string&>().size() : 0);
      }
      if (total > kMaxConfigMapBytes)
        causes.push_back({"FieldValueTooLong", "[]", "Too long: must have at most " + std::to_string(kMaxConfigMapBytes) + " bytes"});
      for (const char* field : {"data", "binaryData"}) {
        const json* map = Find(*r.object, field);
        if (!map || !map->is_object()) continue;
        for (auto it = map->begin(); it != map->end(); ++it)
          if (std::string why = CheckConfigMapKey(it.key()); !why.empty())
            causes.push_back({"FieldValueInvalid", std::string(field) + "[" + it.key() + "]", why});
      }
      return causes;
    });
  }

  // kube-apiserver's validation of Leases (durations) and core v1 Events (an Event about a namespaced
  // object lives in that object's namespace).
  void InstallLeaseAndEventValidation() {
    if (registry.Find("leases.coordination.k8s.io"))
      DataOf("leases.coordination.k8s.io").validators.push_back([](const AdmissionRequest& r) {
        std::vector<kube::StatusCause> causes;
        if (r.subresource == "status") return causes;
        const json* duration = Find(*r.object, "spec", "leaseDurationSeconds");
        if (duration && duration->is_number_integer() && duration->get<std::int64_t>() <= 0)
          causes.push_back({"FieldValueInvalid", "spec.leaseDurationSeconds",
                            "Invalid value: " + duration->dump() + ": must be greater than 0"});
        const json* transitions = Find(*r.object, "spec", "leaseTransitions");
        if (transitions && transitions->is_number_integer() && transitions->get<std::int64_t>() < 0)
          causes.push_back({"FieldValueInvalid", "spec.leaseTransitions",
                            "Invalid value: " + transitions->dump() + ": must be greater than or equal to 0"});
        return causes;
      });
    if (registry.Find("events"))
      DataOf("events").validators.push_back([](const AdmissionRequest& r) {
        std::vector<kube::StatusCause> causes;
        const std::string involved = StringOr(Find(*r.object, "involvedObject", "namespace"));
        const std::string own = StringOr(Find(*r.object, "metadata", "namespace"));
        if (!involved.empty() && !own.empty() && involved != own)
          causes.push_back({"FieldValueInvalid", "involvedObject.namespace",
                            "Invalid value: \"" + involved + "\": does not match event.namespace"});
        return causes;
      });
  }

  void FireNotifications(std::unique_lock<std::mutex>& lock) {
    std::vector<std::function<void()>> fire;
    fire.swap(pending_notifications);
    lock.unlock();
    for (auto& notify : fire) notify();
  }

  void AfterWrite() {
    if (options.synchronous_gc) CollectLocked();
  }
};

Store::Store(StoreOptions options, kube::Registry registry) : impl_(std::make_unique<Impl>(options, std::move(registry))) {
  impl_->InstallBuiltins();
  if (!impl_->registry.Find("namespaces")) return;  // a registry without namespaces: nothing to seed
  for (const char* ns : {"default", "kube-system", "kube-public", "kube-node-lease"})
    impl_->CreateLocked(impl_->DataOf("namespaces"), json{{"metadata", {{"name", ns}}}}, "");
  impl_->pending_notifications.clear();
}

Store::~Store() {
  for (auto& [type, d] : impl_->data) {
    for (auto& w : d.watchers) w->End(kube::Status::Internal("the API server stopped"));
    for (auto& [node, list] : d.node_watchers)
      for (auto& w : list) w->End(kube::Status::Internal("the API server stopped"));
  }
}

kube::Result<kube::ObjectPtr> Store::Create(const std::string& resource, kube::Json object, const std::string& ns) {
  return Create(resource, std::move(object), ns, WriteOptions{});
}

kube::Result<kube::ObjectPtr> Store::Create(const std::string& resource, kube::Json object, const std::string& ns,
                                            const WriteOptions& write) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  Impl::DryRun scope(*impl_, write.dry_run);
  Impl::TrackGeneration generation(*impl_, write.track_generation);
  kube::Result<kube::ObjectPtr> result = kube::Status::Ok();
  if (resource == "pods/binding" || resource == "bindings") {
    if (write.dry_run) return kube::Status::BadRequest("dryRun is not supported for pods/binding");
    result = impl_->BindLocked(object, ns);
  } else {
    auto d = impl_->Resolve(resource);
    if (!d.ok()) return d.status();
    result = impl_->CreateLocked(**d, std::move(object), ns);
  }
  if (result.ok() && !write.dry_run) impl_->AfterWrite();
  impl_->FireNotifications(lock);
  return result;
}

kube::Result<kube::ObjectPtr> Store::Get(const std::string& resource, const std::string& ns, const std::string& name) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto d = impl_->Resolve(resource);
  if (!d.ok()) return d.status();
  const kube::ResourceType& type = *(*d)->type;
  kube::ObjectPtr obj = impl_->Lookup(**d, MakeKey(type, ns.empty() ? "default" : ns, name));
  if (!obj) return kube::Status::NotFound(type.plural, name);
  return obj;
}

kube::Result<kube::ListResult> Store::List(const std::string& resource, const kube::ListOptions& options) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto dr = impl_->Resolve(resource);
  if (!dr.ok()) return dr.status();
  ResourceData& d = **dr;
  auto labels = kube::LabelSelector::Parse(options.label_selector);
  if (!labels.ok()) return labels.status();
  auto fields = kube::FieldSelector::Parse(options.field_selector, d.type->plural);
  if (!fields.ok()) return fields.status();
  std::int64_t snapshot = 0;
  std::string start;
  if (kube::Status s = impl_->PlanList(d, options, &snapshot, &start); !s.ok()) return s;
  auto matches = [&](const json& obj) {
    if (!labels->Empty()) {
      static const json kNoLabels;
      const json* l = Find(obj, "metadata", "labels");
      if (!labels->Matches(l ? *l : kNoLabels)) return false;
    }
    return fields->Empty() || fields->Matches(obj);
  };
  kube::ListResult out;
  out.resource_version = std::to_string(snapshot);
  const std::string ns = d.type->namespaced ? options.namespace_ : "";
  auto node = d.type->plural == "pods" ? fields->ExactValue("spec.nodeName") : std::nullopt;
  const bool paged = options.limit > 0 || !start.empty();
  if (node && !node->empty() && snapshot == impl_->rv && !paged) {
    // The kubelets' hot path: their node's pods from the index, without looking at the others.
    auto it = d.by_node.find(*node);
    if (it != d.by_node.end())
      for (const auto& key : it->second) {
        kube::ObjectPtr obj = d.objects.at(key);
        if ((ns.empty() || kube::NamespaceOf(*obj) == ns) && matches(*obj)) out.items.push_back(obj);
      }
    return out;
  }
  std::map<std::string, kube::ObjectPtr> past;
  if (snapshot != impl_->rv && !impl_->SnapshotAt(d, snapshot, &past))
    return kube::Status::Expired("The resourceVersion for the provided list is too old.");
  impl_->ListPage(snapshot == impl_->rv ? d.objects : past, ns.empty() ? "" : ns + "/", start, options, matches, snapshot, &out);
  return out;
}

kube::Result<kube::ObjectPtr> Store::Update(const std::string& resource, kube::Json object) {
  return Update(resource, std::move(object), WriteOptions{});
}

kube::Result<kube::ObjectPtr> Store::UpdateStatus(const std::string& resource, kube::Json object) {
  return UpdateStatus(resource, std::move(object), WriteOptions{});
}

kube::Result<kube::ObjectPtr> Store::Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                           const kube::Json& patch, kube::PatchType, const std::string& subresource) {
  return Patch(resource, ns, name, patch, subresource, WriteOptions{});
}

kube::Result<kube::ObjectPtr> Store::Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                            const kube::DeleteOptions& options) {
  return Delete(resource, ns, name, options, WriteOptions{});
}

kube::Result<kube::ObjectPtr> Store::Update(const std::string& resource, kube::Json object, const WriteOptions& write) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  Impl::DryRun scope(*impl_, write.dry_run);
  Impl::TrackGeneration generation(*impl_, write.track_generation);
  auto d = impl_->Resolve(resource);
  if (!d.ok()) return d.status();
  auto result = impl_->UpdateLocked(**d, std::move(object), false, "update");
  if (result.ok() && !write.dry_run) impl_->AfterWrite();
  impl_->FireNotifications(lock);
  return result;
}

kube::Result<kube::ObjectPtr> Store::UpdateStatus(const std::string& resource, kube::Json object,
                                                  const WriteOptions& write) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  Impl::DryRun scope(*impl_, write.dry_run);
  auto d = impl_->Resolve(resource);
  if (!d.ok()) return d.status();
  auto result = impl_->UpdateLocked(**d, std::move(object), true, "updateStatus", write.managed_fields, write.status_metadata);
  if (result.ok() && !write.dry_run) impl_->AfterWrite();
  impl_->FireNotifications(lock);
  return result;
}

kube::Result<kube::ObjectPtr> Store::Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                           const kube::Json& patch, const std::string& subresource,
                                           const WriteOptions& write) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  Impl::DryRun scope(*impl_, write.dry_run);
  auto d = impl_->Resolve(resource);
  if (!d.ok()) return d.status();
  if (!patch.is_object()) return kube::Status::BadRequest("a merge patch must be a JSON object");
  if (!subresource.empty() && subresource != "status")
    return kube::Status::NotFound((*d)->type->plural + "/" + subresource, name);
  const kube::ResourceType& type = *(*d)->type;
  const std::string key = MakeKey(type, type.namespaced ? (ns.empty() ? "default" : ns) : "", name);
  kube::ObjectPtr current = impl_->Lookup(**d, key);
  if (!current) return kube::Status::NotFound(type.plural, name);
  if (subresource == "status" && !type.has_status) return kube::Status::NotFound(type.plural + "/status", name);
  const json* want = Find(patch, "metadata", "resourceVersion");
  kube::Result<kube::ObjectPtr> result = kube::Status::Ok();
  if (subresource == "status") {
    // The hot path of kubelets: the stored object with its status patched (sharing the rest),
    // committed under the key and version just looked up.
    if (want && want->is_string() && *want != (*current)["metadata"]["resourceVersion"])
      return StaleVersion(type, name);
    result = impl_->CommitUpdateLocked(**d, key, current, StatusPatched(*current, patch), true, "patch");
  } else {
    json next = MergePatched(*current, patch);
    // The patch may carry a resourceVersion precondition; without one it applies to the current version.
    next["metadata"]["resourceVersion"] = want && want->is_string() ? *want : (*current)["metadata"]["resourceVersion"];
    next["metadata"]["name"] = name;
    if (type.namespaced) next["metadata"]["namespace"] = kube::NamespaceOf(*current);
    result = impl_->UpdateLocked(**d, std::move(next), false, "patch");
  }
  if (result.ok() && !write.dry_run) impl_->AfterWrite();
  impl_->FireNotifications(lock);
  return result;
}

kube::Result<kube::ObjectPtr> Store::Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                            const kube::DeleteOptions& options, const WriteOptions& write) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  Impl::DryRun scope(*impl_, write.dry_run);
  auto d = impl_->Resolve(resource);
  if (!d.ok()) return d.status();
  auto result = impl_->DeleteLocked(**d, ns, name, options, "delete");
  if (result.ok() && !write.dry_run) impl_->AfterWrite();
  impl_->FireNotifications(lock);
  return result;
}

kube::Result<kube::WatchPtr> Store::Watch(const std::string& resource, const kube::WatchOptions& options) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  auto dr = impl_->Resolve(resource);
  if (!dr.ok()) return dr.status();
  ResourceData& d = **dr;
  if (kube::Status s = ValidateWatchOptions(options); !s.ok()) return s;
  auto labels = kube::LabelSelector::Parse(options.label_selector);
  if (!labels.ok()) return labels.status();
  auto fields = kube::FieldSelector::Parse(options.field_selector, d.type->plural);
  if (!fields.ok()) return fields.status();
  auto since = ParseResourceVersion(options.resource_version);
  if (!since.ok()) return since.status();
  if (*since > impl_->rv) return kube::Status::TooLargeResourceVersion(*since, impl_->rv);
  const std::string ns = d.type->namespaced ? options.namespace_ : "";
  auto watch = std::make_shared<StoreWatch>(ns, *labels, *fields, impl_->options.watch_queue_limit, d.type,
                                            options.allow_bookmarks);
  const std::string& from = options.resource_version;
  const bool initial = options.send_initial_events.value_or(from.empty() || from == "0");
  if (initial) {
    // The current state as synthetic ADDED events (at least as new as `from`: it is the latest).
    for (const auto& [key, obj] : d.objects)
      if (watch->Matches(*obj)) watch->Push(kube::WatchEventType::kAdded, obj);
    if (options.send_initial_events) watch->PushBookmark(impl_->rv, /*initial_end=*/true);
  } else if (*since > 0) {
    if (*since < d.compacted_rv)
      return kube::Status::Expired("too old resource version: " + from + " (" + std::to_string(d.compacted_rv) + ")");
    auto first = std::upper_bound(d.history.begin(), d.history.end(), *since,
                                  [](std::int64_t v, const HistoryEvent& e) { return v < e.rv; });
    for (auto it = first; it != d.history.end(); ++it) impl_->Deliver(*watch, it->type, it->object, it->old);
  }
  auto node = d.type->plural == "pods" ? fields->ExactValue("spec.nodeName") : std::nullopt;
  if (node)
    d.node_watchers[*node].push_back(watch);
  else
    d.watchers.push_back(watch);
  ++impl_->stats.watchers;
  return kube::WatchPtr(watch);
}

void Store::Bookmark(const kube::WatchPtr& watch) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  auto* store_watch = dynamic_cast<StoreWatch*>(watch.get());
  if (!store_watch) return;
  if (auto notify = store_watch->PushBookmark(impl_->rv)) impl_->pending_notifications.push_back(std::move(notify));
  impl_->FireNotifications(lock);
}

void Store::SetStorageQuota(std::size_t bytes) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->quota = bytes;
  impl_->stats.stored_bytes = impl_->stats.history_bytes = 0;
  if (bytes == 0) return;
  for (const auto& [type, d] : impl_->data) {
    for (const auto& [key, obj] : d.objects) impl_->stats.stored_bytes += impl_->Bytes(*obj);
    for (const auto& e : d.history) impl_->stats.history_bytes += impl_->Bytes(*e.object);
  }
}

void Store::SetHistoryLimit(std::size_t events) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->options.history_limit = std::max<std::size_t>(events, 1);
  for (auto& [type, d] : impl_->data) {
    d.history_capacity = std::min(d.history_capacity, impl_->options.history_limit);
    while (d.history.size() > impl_->HistoryCapacity(d)) impl_->Compact(d);
  }
}

void Store::AddDefaulter(const std::string& resource, Defaulter defaulter) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto d = impl_->Resolve(resource);
  if (d.ok()) (*d)->defaulters.push_back(std::move(defaulter));
}

void Store::AddValidator(const std::string& resource, Validator validator) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto d = impl_->Resolve(resource);
  if (d.ok()) (*d)->validators.push_back(std::move(validator));
}

std::size_t Store::CollectGarbage() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  std::size_t changed = impl_->CollectLocked();
  impl_->FireNotifications(lock);
  return changed;
}

bool Store::HasPendingGarbage() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return !impl_->gc_queue.empty();
}

void Store::DropWatches() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  for (auto& [type, d] : impl_->data) {
    auto end = [&](std::vector<std::shared_ptr<StoreWatch>>& list) {
      for (auto& w : list)
        if (auto notify = w->End(kube::Status::Internal("watch dropped: the connection to the API server was lost")))
          impl_->pending_notifications.push_back(std::move(notify));
      list.clear();
    };
    end(d.watchers);
    for (auto& [node, list] : d.node_watchers) end(list);
    d.node_watchers.clear();
  }
  impl_->FireNotifications(lock);
}

void Store::SetWriteObserver(std::function<void(const WriteRecord&)> observer) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->observer = std::move(observer);
}

const kube::Registry& Store::registry() const { return impl_->registry; }

std::int64_t Store::CurrentResourceVersion() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->rv;
}

StoreStats Store::Stats() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  StoreStats s = impl_->stats;
  if (impl_->quota == 0) s.stored_bytes = s.history_bytes = 0;
  s.watchers = 0;
  for (const auto& [type, d] : impl_->data) {
    for (const auto& w : d.watchers) s.watchers += !w->EndedUnlocked();
    for (const auto& [node, list] : d.node_watchers)
      for (const auto& w : list) s.watchers += !w->EndedUnlocked();
  }
  return s;
}

}  // namespace fakeapi
