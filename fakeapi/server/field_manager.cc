// See field_manager.h. Field sets are FieldsV1 trees held as JSON: a member whose value is {} is a
// field owned; "." inside a node marks the node itself (a list item) as owned. Paths are the
// sequences of tree keys down to an owned field.
#include "fakeapi/server/field_manager.h"

#include "fakeapi/client/client.h"
#include "fakeapi/client/json_path.h"
#include "fakeapi/server/merge_patch.h"
#include "fakeapi/server/strategic_merge.h"

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace fakeapi {
namespace {

using json = kube::Json;
using Path = std::vector<std::string>;

// ---- fields of an object ----------------------------------------------------------------------

json ValueFields(const json& value, const FieldWrite& w, bool keyed_lists);

// A list as a field: items by key, members of a set by value, or one atomic field ({}).
json ListFields(const json& list, const char* key, bool set, const FieldWrite& w, bool keyed_lists) {
  json node = json::object();
  if (key) {
    for (const json& item : list) {
      json item_fields = ValueFields(item, w, keyed_lists);
      item_fields["."] = json::object();
      node["k:" + json{{key, item[key]}}.dump()] = std::move(item_fields);
    }
  } else if (set) {
    for (const json& item : list) node["v:" + item.dump()] = json::object();
  }
  return node;
}

// The field node of one member's value: its own fields for a map, its items for a keyed list, {}
// (one atomic field) for anything else.
json MemberFields(const json& v, const FieldWrite& w, bool keyed_lists) {
  if (v.is_object()) return ValueFields(v, w, keyed_lists);
  if (v.is_array() && !v.empty()) return ListFields(v, keyed_lists ? MergeKeyOf(v, v) : nullptr, false, w, keyed_lists);
  return json::object();
}

// Object references of built-in kinds that are atomic structs (+structType=atomic): owned whole,
// one field, as an Event's involvedObject, regarding and related are.
bool AtomicStruct(const std::string& member) {
  return member == "involvedObject" || member == "regarding" || member == "related";
}

json ValueFields(const json& value, const FieldWrite& w, bool keyed_lists) {
  json node = json::object();
  if (!value.is_object()) return node;
  for (auto it = value.begin(); it != value.end(); ++it)
    node["f:" + it.key()] = keyed_lists && AtomicStruct(it.key()) ? json::object() : MemberFields(it.value(), w, keyed_lists);
  return node;
}

// Members of built-in kinds that are Go maps (map[string]...): an added one is owned in itself.
// Every other object member of a built-in kind is a Go struct, which is not.
bool BuiltinMap(const std::string& member) {
  static const std::set<std::string> kMaps = {"data",       "binaryData", "stringData", "labels",   "annotations",
                                              "nodeSelector", "selector", "limits",     "requests", "capacity",
                                              "allocatable", "matchLabels", "hard",     "used",     "overhead"};
  return kMaps.count(member) > 0;
}

// The metadata a client owns: generateName, labels, annotations, finalizers (a set),
// ownerReferences (by uid, each item atomic).
json MetadataFields(const json& meta, const FieldWrite& w) {
  json node = json::object();
  if (!meta.is_object()) return node;
  if (auto gen = meta.find("generateName"); gen != meta.end() && gen->is_string()) node["f:generateName"] = json::object();
  for (const char* map : {"labels", "annotations"}) {
    auto it = meta.find(map);
    if (it != meta.end() && it->is_object() && !it->empty()) node[std::string("f:") + map] = ValueFields(*it, w, false);
  }
  auto finalizers = meta.find("finalizers");
  if (finalizers != meta.end() && finalizers->is_array() && !finalizers->empty())
    node["f:finalizers"] = ListFields(*finalizers, nullptr, true, w, false);
  auto owners = meta.find("ownerReferences");
  if (owners != meta.end() && owners->is_array() && !owners->empty()) {
    bool keyed = std::all_of(owners->begin(), owners->end(), [](const json& o) { return o.is_object() && o.contains("uid"); });
    node["f:ownerReferences"] = ListFields(*owners, keyed ? "uid" : nullptr, false, w, false);
    // An owner reference is an atomic struct: its item is owned whole, not member by member.
    if (keyed)
      for (auto& item : node["f:ownerReferences"]) item = json::object();
  }
  return node;
}

// ---- paths in trees and objects ----------------------------------------------------------------

void Leaves(const json& tree, Path& prefix, std::vector<Path>* out) {
  for (auto it = tree.begin(); it != tree.end(); ++it) {
    if (it.key() == ".") {
      out->push_back(prefix);
      continue;
    }
    prefix.push_back(it.key());
    if (it.value().empty()) out->push_back(prefix);
    else Leaves(it.value(), prefix, out);
    prefix.pop_back();
  }
}

std::vector<Path> LeavesOf(const json& tree) {
  std::vector<Path> out;
  Path prefix;
  Leaves(tree, prefix, &out);
  return out;
}

const json* NodeAt(const json& tree, const Path& path) {
  const json* at = &tree;
  for (const std::string& step : path) {
    auto it = at->find(step);
    if (it == at->end()) return nullptr;
    at = &*it;
  }
  return at;
}

// Whether the tree owns exactly this field (a leaf, or a node marked ".").
bool OwnsField(const json& tree, const Path& path) {
  const json* node = NodeAt(tree, path);
  return node && (node->empty() || node->contains("."));
}

void InsertField(json& tree, const Path& path) {
  json* at = &tree;
  for (const std::string& step : path) at = &(*at)[step];
  if (at->is_null()) *at = json::object();
  else if (!at->empty()) (*at)["."] = json::object();
}

// Removes a field, and the nodes it leaves empty (an empty node would read as a field).
void RemoveField(json& tree, const Path& path) {
  if (path.empty()) return;
  std::vector<json*> nodes = {&tree};
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    auto it = nodes.back()->find(path[i]);
    if (it == nodes.back()->end()) return;
    nodes.push_back(&*it);
  }
  json& parent = *nodes.back();
  auto it = parent.find(path.back());
  if (it == parent.end()) return;
  if (!it->empty() && it->contains(".")) {
    it->erase(".");
    if (!it->empty()) return;
  }
  parent.erase(it);
  // Nodes left empty go (an empty node would read as a field); a node left owning only itself is
  // written as a plain field ({}), as kube-apiserver writes it.
  for (std::size_t i = nodes.size() - 1; i > 0; --i) {
    if (nodes[i]->empty()) {
      nodes[i - 1]->erase(path[i - 1]);
      continue;
    }
    if (nodes[i]->size() == 1 && nodes[i]->contains(".")) *nodes[i] = json::object();
    break;
  }
}

// The element a path step names inside `at` (an object member, a keyed list item, a set member).
template <class J>  // json, or const json for a read (a write would make shared members its own)
J* Step(J& at, const std::string& step) {
  if (step.rfind("f:", 0) == 0) {
    if (!at.is_object()) return nullptr;
    auto it = at.find(step.substr(2));
    return it == at.end() ? nullptr : &*it;
  }
  if (!at.is_array() || step.size() < 2) return nullptr;
  json wanted = json::parse(step.substr(2), nullptr, false);
  for (J& item : at) {
    if (step[0] == 'v' && item == wanted) return &item;
    if (step[0] == 'k' && item.is_object() && wanted.is_object()) {
      bool same = true;
      for (auto it = wanted.begin(); it != wanted.end() && same; ++it) same = item.contains(it.key()) && item[it.key()] == *it;
      if (same) return &item;
    }
  }
  return nullptr;
}

const json* ValueAt(const json& object, const Path& path) {
  const json* at = &object;
  for (const std::string& step : path) {
    at = Step(*at, step);
    if (!at) return nullptr;
  }
  return at;
}

void RemoveValueAt(json& object, const Path& path) {
  if (path.empty()) return;
  json* parent = &object;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    parent = Step(*parent, path[i]);
    if (!parent) return;
  }
  json* target = Step(*parent, path.back());
  if (!target) return;
  if (parent->is_object()) {
    parent->erase(path.back().substr(2));
  } else {
    for (auto it = parent->begin(); it != parent->end(); ++it)
      if (&*it == target) {
        parent->erase(it);
        break;
      }
  }
}

// ".spec.containers[name=\"c\"].image", as kube-apiserver names fields in conflicts.
std::string Render(const Path& path) {
  std::string out;
  for (const std::string& step : path) {
    if (step.rfind("f:", 0) == 0) {
      out += "." + step.substr(2);
    } else if (step.rfind("k:", 0) == 0) {
      json key = json::parse(step.substr(2), nullptr, false);
      std::string inside;
      if (key.is_object())
        for (auto it = key.begin(); it != key.end(); ++it) inside += (inside.empty() ? "" : ",") + it.key() + "=" + it->dump();
      out += "[" + inside + "]";
    } else if (step.rfind("v:", 0) == 0) {
      out += "[=" + step.substr(2) + "]";
    }
  }
  return out;
}

// ---- managedFields entries ---------------------------------------------------------------------

json ManagedOf(const json& object) {
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return json::array();
  auto managed = meta->find("managedFields");
  return managed != meta->end() && managed->is_array() ? *managed : json::array();
}

bool IsEntry(const json& e, const std::string& manager, const std::string& operation, const std::string& subresource) {
  return e.is_object() && kube::JsonString(e, {"manager"}) == manager && kube::JsonString(e, {"operation"}) == operation &&
         kube::JsonString(e, {"subresource"}) == subresource;
}

json& EntryFor(json& managed, const std::string& operation, const FieldWrite& w) {
  for (json& e : managed)
    if (IsEntry(e, w.manager, operation, w.subresource)) return e;
  json entry = {{"manager", w.manager}, {"operation", operation}, {"apiVersion", w.type->ApiVersion()},
                {"fieldsType", "FieldsV1"}, {"fieldsV1", json::object()}};
  if (!w.subresource.empty()) entry["subresource"] = w.subresource;
  managed.push_back(std::move(entry));
  return managed.back();
}

json& FieldsOfEntry(json& entry) {
  json& fields = entry["fieldsV1"];
  if (!fields.is_object()) fields = json::object();
  return fields;
}

// Drops from every entry the fields the object no longer has, then the entries left owning nothing.
void Prune(json& managed, const json& object) {
  json kept = json::array();
  for (json& e : managed) {
    if (!e.is_object()) continue;
    json& fields = FieldsOfEntry(e);
    for (const Path& p : LeavesOf(fields))
      if (!ValueAt(object, p)) RemoveField(fields, p);
    if (!fields.empty()) kept.push_back(std::move(e));
  }
  managed = std::move(kept);
}

void SetManaged(json& object, json managed) {
  // An object without metadata, or with metadata that is not a mapping (a create that got it wrong),
  // is left as it is for the store to refuse.
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return;
  if (managed.empty()) {
    meta->erase("managedFields");
  } else {
    (*meta)["managedFields"] = std::move(managed);
  }
}

// ---- apply ------------------------------------------------------------------------------------

struct Conflict {
  std::string manager;
  std::string api_version;
  std::string subresource;
  Path field;
  std::string operation;  // "Apply" or "Update"
  std::string time;       // the entry's time, RFC 3339
};

// Fields the applied configuration sets to another value than the object has, owned by others.
std::vector<Conflict> ConflictsOf(const json& current, const json& applied, const json& applied_set, const json& managed,
                                  const FieldWrite& w) {
  std::vector<Conflict> out;
  for (const Path& p : LeavesOf(applied_set)) {
    const json* now = ValueAt(current, p);
    const json* wanted = ValueAt(applied, p);
    if (!now || !wanted) continue;
    const json* node = NodeAt(applied_set, p);
    const bool item = node && node->contains(".");  // a list item: owning it is not a value
    if (item || *now == *wanted) continue;
    for (const json& e : managed) {
      if (!e.is_object() || kube::JsonString(e, {"manager"}) == w.manager) continue;
      if (OwnsField(e.value("fieldsV1", json::object()), p))
        out.push_back({kube::JsonString(e, {"manager"}), kube::JsonString(e, {"apiVersion"}), kube::JsonString(e, {"subresource"}), p,
                       kube::JsonString(e, {"operation"}), kube::JsonString(e, {"time"})});
    }
  }
  return out;
}

kube::Status ConflictStatus(const std::vector<Conflict>& conflicts, const std::string& name, const FieldWrite& w) {
  // Grouped by manager, worded as structured-merge-diff words them.
  std::map<std::string, std::vector<const Conflict*>> by_manager;
  for (const Conflict& c : conflicts) by_manager[c.manager].push_back(&c);
  std::string message = "Apply failed with " + std::to_string(conflicts.size()) + " conflict" +
                        (conflicts.size() == 1 ? "" : "s") + ": ";
  std::vector<kube::StatusCause> causes;
  bool first = true;
  for (const auto& [manager, list] : by_manager) {
    const Conflict& c = *list.front();
    // kube-apiserver names an Update manager with its version and time, an Apply manager alone.
    std::string who = "\"" + manager + "\"" + (c.subresource.empty() ? "" : " with subresource \"" + c.subresource + "\"");
    if (c.operation == "Update") who += " using " + c.api_version + (c.time.empty() ? "" : " at " + c.time);
    message += (first ? "" : "\n") + std::string(list.size() == 1 ? "conflict with " : "conflicts with ") + who + ":";
    first = false;
    for (const Conflict* each : list) {
      message += (list.size() == 1 ? " " : "\n- ") + Render(each->field);
      causes.push_back({"FieldManagerConflict", Render(each->field), "conflict with " + who});
    }
  }
  // Its details hold the causes alone, as kube-apiserver's do.
  (void)name;
  (void)w;
  json status = {{"status", "Failure"}, {"code", 409}, {"reason", "Conflict"}, {"message", message}, {"details", json::object()}};
  json causes_json = json::array();
  for (const auto& c : causes) causes_json.push_back({{"reason", c.type}, {"message", c.message}, {"field", c.field}});
  status["details"]["causes"] = causes_json;
  return kube::Status::FromJson(status);
}

// Merges the applied configuration into the object: what it sets replaces, maps merge, keyed lists
// of built-in kinds merge item by item.
void MergeApplied(json& object, json applied, const FieldWrite& w) {
  applied.erase("apiVersion");
  applied.erase("kind");
  if (applied["metadata"].is_object()) {
    for (const char* server : {"name", "namespace", "uid", "resourceVersion", "generation", "creationTimestamp",
                               "deletionTimestamp", "deletionGracePeriodSeconds", "managedFields", "selfLink"})
      applied["metadata"].erase(server);
  }
  if (w.subresource == "status") {
    json status = applied.contains("status") ? applied["status"] : json::object();
    applied = {{"status", status}};
  } else if (w.type->has_status) {
    applied.erase("status");
  }
  if (TakesStrategicMerge(*w.type)) ApplyStrategicPatch(object, applied);
  else ApplyMergePatch(object, applied);
}

// A map or a list of items a write adds (absent before, present now, with members) is owned in
// itself too ("." in its node), as kube-apiserver's field manager records an added map: data,
// labels, finalizers, ownerReferences, and every object of a custom resource. A built-in kind's
// Go structs are not (metadata, spec, status, an Event's source, a container's resources): only its
// Go maps (BuiltinMap) are. A built-in kind's list of items is owned in itself when an update adds
// it to the status (a pod's conditions), not when a create brings it. Keyed list items carry "."
// already.
void MarkAddedMaps(json& node, const json* before, const json& after, bool builtin, Path& prefix) {
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it.key() == "." || !it.value().is_object() || it.value().empty()) continue;
    prefix.push_back(it.key());
    MarkAddedMaps(it.value(), before, after, builtin, prefix);
    const bool always_there = prefix.size() == 1 && (it.key() == "f:metadata" ||
                                                     (builtin && (it.key() == "f:spec" || it.key() == "f:status")));
    const json* now = ValueAt(after, prefix);
    // Lists: metadata's (finalizers, ownerReferences) and a custom resource's; a built-in kind's
    // lists of items in its spec (containers, ...) are Go fields there even when empty.
    const bool list = now && now->is_array() &&
                      (!builtin || prefix.front() == "f:metadata" || (before && prefix.front() == "f:status"));
    const bool map = now && now->is_object() && (!builtin || BuiltinMap(it.key().substr(2)));
    if (it.key().rfind("f:", 0) == 0 && !always_there && now && (map || list) && !(before && ValueAt(*before, prefix)))
      it.value()["."] = json::object();
    prefix.pop_back();
  }
}

json AddedMapsMarked(json set, const json* before, const json& after, const FieldWrite& w) {
  Path prefix;
  MarkAddedMaps(set, before, after, TakesStrategicMerge(*w.type), prefix);
  return set;
}

}  // namespace

json FieldsOf(const json& object, const FieldWrite& w) {
  const bool keyed = TakesStrategicMerge(*w.type);
  json fields = json::object();
  if (!object.is_object()) return fields;
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& k = it.key();
    if (k == "apiVersion" || k == "kind") continue;
    const bool status = k == "status";
    // A built-in kind's status write writes labels and annotations too (store.h).
    const bool status_meta = w.subresource == "status" && k == "metadata" && keyed;
    if (w.subresource == "status" ? !(status || status_meta) : (status && w.type->has_status)) continue;
    if (k == "metadata") {
      json meta = MetadataFields(*it, w);
      if (status_meta)
        for (auto m = meta.begin(); m != meta.end();) m = m.key() == "f:labels" || m.key() == "f:annotations" ? std::next(m) : meta.erase(m);
      if (!meta.empty()) fields["f:metadata"] = std::move(meta);
      continue;
    }
    fields["f:" + k] = keyed && AtomicStruct(k) ? json::object() : MemberFields(*it, w, keyed);
  }
  return fields;
}

void RecordUpdate(const json* before, json& after, const FieldWrite& w) {
  if (!after.is_object()) return;
  json after_set = AddedMapsMarked(FieldsOf(after, w), before, after, w);
  if (!before) {
    json managed = json::array();
    json& entry = EntryFor(managed, "Update", w);
    entry["time"] = w.time;
    entry["fieldsV1"] = std::move(after_set);
    Prune(managed, after);
    SetManaged(after, std::move(managed));
    return;
  }
  json managed = ManagedOf(*before);
  std::vector<Path> changed, removed;
  for (const Path& p : LeavesOf(after_set)) {
    const json* was = ValueAt(*before, p);
    const json* now = ValueAt(after, p);
    const json* node = NodeAt(after_set, p);
    if (!was || (!(node && node->contains(".")) && *was != *now)) changed.push_back(p);
  }
  for (const Path& p : LeavesOf(FieldsOf(*before, w)))
    if (!ValueAt(after, p)) removed.push_back(p);
  if (changed.empty() && removed.empty()) {
    SetManaged(after, std::move(managed));  // nothing changed: ownership and times stay as they were
    return;
  }
  for (json& e : managed) {
    if (IsEntry(e, w.manager, "Update", w.subresource)) continue;
    for (const auto* list : {&changed, &removed})
      for (const Path& p : *list) RemoveField(FieldsOfEntry(e), p);
  }
  json& entry = EntryFor(managed, "Update", w);
  entry["time"] = w.time;
  // Members before their map: inserting an added map's own path into a node with members marks it ".".
  std::stable_sort(changed.begin(), changed.end(), [](const Path& a, const Path& b) { return a.size() > b.size(); });
  for (const Path& p : changed) InsertField(FieldsOfEntry(entry), p);
  Prune(managed, after);
  SetManaged(after, std::move(managed));
}

kube::Result<json> Apply(const json* current, const json& applied, bool force, const FieldWrite& w) {
  const json applied_set = FieldsOf(applied, w);
  if (!current) {
    json created = applied;
    if (w.type->has_status && w.subresource.empty()) created.erase("status");
    json managed = json::array();
    json& entry = EntryFor(managed, "Apply", w);
    entry["time"] = w.time;
    entry["fieldsV1"] = applied_set;
    Prune(managed, created);
    SetManaged(created, std::move(managed));
    return created;
  }
  json managed = ManagedOf(*current);
  if (managed.empty()) {
    // An object no one has applied to: whoever wrote it owns what it has.
    FieldWrite before = w;
    before.manager = "before-first-apply";
    json& entry = EntryFor(managed, "Update", before);
    entry["time"] = w.time;
    entry["fieldsV1"] = FieldsOf(*current, w);
  }
  std::vector<Conflict> conflicts = ConflictsOf(*current, applied, applied_set, managed, w);
  if (!conflicts.empty() && !force) return ConflictStatus(conflicts, kube::NameOf(*current), w);
  for (const Conflict& c : conflicts)
    for (json& e : managed)
      if (IsEntry(e, c.manager, kube::JsonString(e, {"operation"}), c.subresource)) RemoveField(FieldsOfEntry(e), c.field);
  json result = *current;
  // What this manager applied before and leaves out now goes, unless someone else owns it too.
  for (const json& e : managed) {
    if (!IsEntry(e, w.manager, "Apply", w.subresource)) continue;
    for (const Path& p : LeavesOf(e.value("fieldsV1", json::object()))) {
      if (OwnsField(applied_set, p)) continue;
      bool shared = std::any_of(managed.begin(), managed.end(), [&](const json& other) {
        return !IsEntry(other, w.manager, "Apply", w.subresource) && NodeAt(other.value("fieldsV1", json::object()), p);
      });
      if (!shared) RemoveValueAt(result, p);
    }
  }
  MergeApplied(result, applied, w);
  json& entry = EntryFor(managed, "Apply", w);
  entry["time"] = w.time;
  entry["fieldsV1"] = applied_set;
  Prune(managed, result);
  SetManaged(result, std::move(managed));
  return result;
}

}  // namespace fakeapi
