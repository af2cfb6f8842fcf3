#include "fakeapi/client/informer.h"

#include "fakeapi/client/json_path.h"

#include <string_view>
#include <utility>

namespace kube {

namespace {

// A watch that ends again right after being re-opened (a flapping connection, a fault plan that
// drops every poll) must not keep one Pump() busy forever: after this many resumes the rest waits
// for the next Pump(), and NeedsResync() says so.
constexpr int kMaxResumesPerPump = 3;

std::string KeyFor(std::string_view ns, std::string_view name) {
  if (ns.empty()) return std::string(name);
  std::string key;
  key.reserve(ns.size() + 1 + name.size());
  key.append(ns).append("/").append(name);
  return key;
}

}  // namespace

IndexFunc IndexByControllerUid() {
  return [](const kube::Json& object) -> std::vector<std::string> {
    const kube::Json* ref = ControllerRefOf(object);
    if (ref == nullptr) return {};
    auto uid = ref->find("uid");
    if (uid == ref->end() || !uid->is_string()) return {};
    return {uid->get<std::string>()};
  };
}

IndexFunc IndexByNodeName() {
  return [](const kube::Json& object) -> std::vector<std::string> {
    auto spec = object.find("spec");
    if (spec == object.end() || !spec->is_object()) return {};
    auto node = spec->find("nodeName");
    if (node == spec->end() || !node->is_string() || node->get_ref<const std::string&>().empty()) return {};
    return {node->get<std::string>()};
  };
}

IndexFunc IndexByLabel(std::string key) {
  return [key = std::move(key)](const kube::Json& object) -> std::vector<std::string> {
    auto metadata = object.find("metadata");
    if (metadata == object.end() || !metadata->is_object()) return {};
    auto labels = metadata->find("labels");
    if (labels == metadata->end() || !labels->is_object()) return {};
    auto value = labels->find(key);
    if (value == labels->end() || !value->is_string()) return {};
    return {value->get<std::string>()};
  };
}

Informer::Informer(Client& client, std::string resource, ListOptions filter)
    : client_(client), resource_(std::move(resource)), filter_(std::move(filter)) {}

Informer::~Informer() {
  if (watch_) watch_->Stop();
}

void Informer::AddEventHandler(InformerHandlers handlers) {
  if (handlers.on_add) {
    for (const auto& [key, object] : cache_) handlers.on_add(object);
  }
  handlers_.push_back(std::move(handlers));
}

Status Informer::AddIndex(const std::string& name, IndexFunc func) {
  if (indexes_.contains(name)) return Status::BadRequest("informer index already registered: " + name);
  Index& index = indexes_[name];
  index.func = std::move(func);
  for (const CacheEntry& entry : cache_) IndexObject(index, entry);
  return Status::Ok();
}

Status Informer::Start() {
  started_ = true;
  pending_ = Pending::kRelist;
  Pump();
  return last_error_;
}

void Informer::Stop() {
  started_ = false;
  pending_ = Pending::kNone;
  if (watch_) {
    watch_->Stop();
    watch_.reset();
  }
}

void Informer::SetNotifier(std::function<void()> notify) {
  notifier_ = std::move(notify);
  if (watch_) watch_->SetNotifier(notifier_);
}

std::size_t Informer::Pump() {
  std::size_t processed = 0;
  int resumes = 0;
  std::vector<WatchEvent> events;
  while (started_) {
    if (watch_) {
      events.clear();
      const bool open = watch_->Poll(&events);
      for (const WatchEvent& event : events) {
        // An ERROR event ends the stream; whatever follows it is not to be trusted.
        if (pending_ != Pending::kNone) break;
        Apply(event);
        ++processed;
      }
      if (open && pending_ == Pending::kNone) return processed;
      if (!open && pending_ == Pending::kNone) {
        pending_ = watch_->status().IsExpired() ? Pending::kRelist : Pending::kRewatch;
      }
      watch_->Stop();
      watch_.reset();
    }
    if (pending_ == Pending::kNone) return processed;
    if (resumes == kMaxResumesPerPump) return processed;
    ++resumes;
    if (!Resume(&processed)) return processed;
  }
  return processed;
}

bool Informer::Resume(std::size_t* processed) {
  if (pending_ == Pending::kRewatch) {
    if (OpenWatch()) {
      ++stats_.rewatches;
      return true;
    }
    // A resourceVersion older than the server's history: only a relist can catch up.
    if (!last_error_.IsExpired()) return false;
    pending_ = Pending::kRelist;
  }
  if (!Relist(processed)) return false;
  // The cache now matches the list; the watch continues from the list's resourceVersion.
  pending_ = Pending::kRewatch;
  return OpenWatch();
}

bool Informer::Relist(std::size_t* processed) {
  Result<ListResult> listed = client_.List(resource_, filter_);
  if (!listed.ok()) {
    last_error_ = listed.status();
    ++stats_.resync_failures;
    return false;
  }
  last_error_ = Status::Ok();
  if (stats_.lists > 0) ++stats_.relists;
  ++stats_.lists;

  std::map<std::string, ObjectPtr, std::less<>> fresh;
  for (const ObjectPtr& object : listed->items) fresh.emplace(KeyOf(*object), object);

  // Differences in key order; collected first because applying them changes cache_.
  struct Change {
    std::string key;
    ObjectPtr old_object;  // null: added
    ObjectPtr new_object;  // null: deleted
  };
  std::vector<Change> changes;
  auto old_it = cache_.begin();
  auto new_it = fresh.begin();
  while (old_it != cache_.end() || new_it != fresh.end()) {
    if (new_it == fresh.end() || (old_it != cache_.end() && old_it->first < new_it->first)) {
      changes.push_back({old_it->first, old_it->second, nullptr});
      ++old_it;
    } else if (old_it == cache_.end() || new_it->first < old_it->first) {
      changes.push_back({new_it->first, nullptr, new_it->second});
      ++new_it;
    } else {
      if (old_it->second != new_it->second &&
          ResourceVersionOf(*old_it->second) != ResourceVersionOf(*new_it->second)) {
        changes.push_back({new_it->first, old_it->second, new_it->second});
      }
      ++old_it;
      ++new_it;
    }
  }

  last_resource_version_ = listed->resource_version;
  for (const Change& change : changes) {
    if (!change.new_object) {
      Remove(change.key, change.old_object);
      NotifyDelete(change.old_object);
    } else if (!change.old_object) {
      Put(change.key, nullptr, change.new_object);
      NotifyAdd(change.new_object);
    } else {
      Put(change.key, change.old_object, change.new_object);
      NotifyUpdate(change.old_object, change.new_object);
    }
  }
  *processed += changes.size();
  return true;
}

bool Informer::OpenWatch() {
  WatchOptions options;
  options.namespace_ = filter_.namespace_;
  options.label_selector = filter_.label_selector;
  options.field_selector = filter_.field_selector;
  options.resource_version = last_resource_version_;
  Result<WatchPtr> opened = client_.Watch(resource_, options);
  if (!opened.ok()) {
    last_error_ = opened.status();
    ++stats_.resync_failures;
    return false;
  }
  last_error_ = Status::Ok();
  pending_ = Pending::kNone;
  watch_ = opened.value();
  if (notifier_) watch_->SetNotifier(notifier_);
  return true;
}

void Informer::Apply(const WatchEvent& event) {
  switch (event.type) {
    case WatchEventType::kError: {
      Status status = event.object ? Status::FromJson(*event.object) : Status::Internal("watch error");
      pending_ = (status.IsExpired() || status.code() == 410) ? Pending::kRelist : Pending::kRewatch;
      last_error_ = std::move(status);
      return;
    }
    case WatchEventType::kBookmark:
      ++stats_.events;
      NoteResourceVersion(Member(*event.object, "metadata"));
      return;
    case WatchEventType::kAdded:
    case WatchEventType::kModified: {
      ++stats_.events;
      // One lookup of the metadata serves the resourceVersion and the key.
      const kube::Json* meta = Member(*event.object, "metadata");
      NoteResourceVersion(meta);
      // One walk of the cache: its position serves the insertion or the replacement.
      auto it = cache_.lower_bound(ScratchKey(meta));
      if (it == cache_.end() || it->first != key_scratch_) {
        it = cache_.emplace_hint(it, key_scratch_, event.object);
        Reindex(*it, nullptr, *event.object);
        ++changes_;
        NotifyAdd(event.object);
      } else {
        ObjectPtr old_object = std::move(it->second);
        it->second = event.object;
        Reindex(*it, old_object.get(), *event.object);
        ++changes_;
        NotifyUpdate(old_object, event.object);
      }
      return;
    }
    case WatchEventType::kDeleted: {
      ++stats_.events;
      const kube::Json* meta = Member(*event.object, "metadata");
      NoteResourceVersion(meta);
      auto it = cache_.find(ScratchKey(meta));
      if (it == cache_.end()) return;  // never seen, nothing to forget
      ObjectPtr old_object = it->second;
      Remove(key_scratch_, old_object);
      NotifyDelete(event.object);
      return;
    }
  }
}

namespace {
// The string member `key` of an object's metadata (nullptr: none); "" when absent or not a string.
std::string_view MetaString(const kube::Json* meta, std::string_view key) {
  const kube::Json* value = meta != nullptr ? Member(*meta, key) : nullptr;
  return value != nullptr && value->is_string() ? std::string_view(value->get_ref<const std::string&>())
                                                : std::string_view();
}
}  // namespace

const std::string& Informer::ScratchKey(const kube::Json* meta) {
  const std::string_view ns = MetaString(meta, "namespace");
  key_scratch_.clear();
  if (!ns.empty()) key_scratch_.append(ns).push_back('/');
  key_scratch_.append(MetaString(meta, "name"));
  return key_scratch_;
}

void Informer::NoteResourceVersion(const kube::Json* meta) {
  const std::string_view rv = MetaString(meta, "resourceVersion");
  if (!rv.empty()) last_resource_version_ = rv;
}

void Informer::Put(const std::string& key, const ObjectPtr& old_object, const ObjectPtr& new_object) {
  auto it = cache_.insert_or_assign(key, new_object).first;
  Reindex(*it, old_object.get(), *new_object);
  ++changes_;
}

void Informer::Reindex(const CacheEntry& entry, const kube::Json* old_object, const kube::Json& new_object) {
  for (auto& [name, index] : indexes_) {
    std::vector<std::string> values = index.func(new_object);
    if (old_object) {
      // Most updates (a status change) leave every index value as it was: nothing to move.
      std::vector<std::string> before = index.func(*old_object);
      if (before == values) continue;
      Unindex(index, entry.first, before);
    }
    for (std::string& value : values) index.entries_by_value[std::move(value)].emplace(entry.first, &entry);
  }
}

void Informer::Remove(const std::string& key, const ObjectPtr& old_object) {
  for (auto& [name, index] : indexes_) UnindexObject(index, key, *old_object);
  cache_.erase(key);
  ++changes_;
}

void Informer::IndexObject(Index& index, const CacheEntry& entry) {
  for (std::string& value : index.func(*entry.second)) index.entries_by_value[std::move(value)].emplace(entry.first, &entry);
}

void Informer::UnindexObject(Index& index, std::string_view key, const kube::Json& object) {
  Unindex(index, key, index.func(object));
}

void Informer::Unindex(Index& index, std::string_view key, const std::vector<std::string>& values) {
  for (const std::string& value : values) {
    auto it = index.entries_by_value.find(value);
    if (it == index.entries_by_value.end()) continue;
    it->second.erase(key);
    if (it->second.empty()) index.entries_by_value.erase(it);
  }
}

void Informer::NotifyAdd(const ObjectPtr& object) {
  for (const InformerHandlers& h : handlers_) {
    if (h.on_add) h.on_add(object);
  }
}

void Informer::NotifyUpdate(const ObjectPtr& old_object, const ObjectPtr& new_object) {
  for (const InformerHandlers& h : handlers_) {
    if (h.on_update) h.on_update(old_object, new_object);
  }
}

void Informer::NotifyDelete(const ObjectPtr& object) {
  for (const InformerHandlers& h : handlers_) {
    if (h.on_delete) h.on_delete(object);
  }
}

ObjectPtr Informer::Get(std::string_view ns, std::string_view name) const {
  return GetByKey(KeyFor(ns, name));
}

ObjectPtr Informer::GetByKey(std::string_view key) const {
  auto it = cache_.find(key);
  return it == cache_.end() ? nullptr : it->second;
}

std::vector<ObjectPtr> Informer::List(std::string_view ns) const {
  std::vector<ObjectPtr> out;
  if (ns.empty()) {
    out.reserve(cache_.size());
    for (const auto& [key, object] : cache_) out.push_back(object);
    return out;
  }
  const std::string prefix = KeyFor(ns, "");
  for (auto it = cache_.lower_bound(prefix); it != cache_.end() && it->first.starts_with(prefix); ++it) {
    out.push_back(it->second);
  }
  return out;
}

std::vector<ObjectPtr> Informer::ListBySelector(const LabelSelector& selector, std::string_view ns) const {
  std::vector<ObjectPtr> out;
  for (ObjectPtr& object : List(ns)) {
    static const kube::Json kNoLabels;
    const kube::Json* labels = &kNoLabels;
    auto metadata = object->find("metadata");
    if (metadata != object->end() && metadata->is_object()) {
      auto found = metadata->find("labels");
      if (found != metadata->end()) labels = &*found;
    }
    if (selector.Matches(*labels)) out.push_back(std::move(object));
  }
  return out;
}

std::vector<ObjectPtr> Informer::ByIndex(std::string_view index_name, std::string_view value) const {
  std::vector<ObjectPtr> out;
  auto index = indexes_.find(index_name);
  if (index == indexes_.end()) return out;
  auto entries = index->second.entries_by_value.find(value);
  if (entries == index->second.entries_by_value.end()) return out;
  out.reserve(entries->second.size());
  for (const auto& [key, entry] : entries->second) out.push_back(entry->second);
  return out;
}

std::vector<std::string> Informer::Keys() const {
  std::vector<std::string> keys;
  keys.reserve(cache_.size());
  for (const auto& [key, object] : cache_) keys.push_back(key);
  return keys;
}

}  // namespace kube
