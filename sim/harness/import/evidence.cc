// Reading a cluster's evidence. See evidence.h.
#include "sim/harness/import/evidence.h"

#include "fakeapi/client/json_path.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"
#include "sim/kernel/input_file.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

namespace harness::evidence {
namespace {

using json = kube::Json;
using kube::JsonString;

// Kinds read for the scenario.
const std::set<std::string> kUsedKinds = {"Node", "Pod", "DGLJob", "Event", "Lease"};

// Kinds known, and why each is not used.
const std::map<std::string, std::string>& UnusedKinds() {
  static const std::map<std::string, std::string> kinds = {
      {"Namespace", "namespaces are created from the jobs' own"},
      {"ConfigMap", "the operator writes its ConfigMaps itself in the replay"},
      {"Service", "the operator creates its Services itself in the replay"},
      {"Endpoints", "derived by the cluster from Services and pods"},
      {"EndpointSlice", "derived by the cluster from Services and pods"},
      {"PodGroup", "the operator creates PodGroups itself (operator.gangScheduling)"},
      {"PersistentVolumeClaim", "the operator creates the launcher's claim itself in the replay"},
      {"PersistentVolume", "storage is modelled as one shared bandwidth (cluster.storage)"},
      {"StorageClass", "storage is modelled as one shared bandwidth (cluster.storage)"},
      {"ServiceAccount", "the simulation has no authentication"},
      {"Role", "the simulation has no authorization"},
      {"RoleBinding", "the simulation has no authorization"},
      {"ClusterRole", "the simulation has no authorization"},
      {"ClusterRoleBinding", "the simulation has no authorization"},
      {"Secret", "never read: secrets stay out of scenarios"},
      {"Deployment", "the operator runs inside the simulation"},
      {"ReplicaSet", "the operator runs inside the simulation"},
      {"StatefulSet", "not a DGLJob's"},
      {"DaemonSet", "not a DGLJob's"},
      {"Job", "not a DGLJob's"},
      {"CronJob", "not a DGLJob's"},
      {"ControllerRevision", "not a DGLJob's"},
      {"CustomResourceDefinition", "the DGLJob CRD is built into the simulation"},
      {"PriorityClass", "pod priority is not simulated"},
      {"ResourceQuota", "quotas are not simulated"},
      {"LimitRange", "limit ranges are not simulated"},
      {"PodDisruptionBudget", "voluntary disruptions are not simulated"},
      {"APIService", "the simulation serves its own API"},
      {"ValidatingWebhookConfiguration", "the DGLJob admission is built into the simulation"},
      {"MutatingWebhookConfiguration", "the DGLJob admission is built into the simulation"},
      {"CSIDriver", "storage is modelled as one shared bandwidth (cluster.storage)"},
      {"CSINode", "storage is modelled as one shared bandwidth (cluster.storage)"},
      {"VolumeAttachment", "storage is modelled as one shared bandwidth (cluster.storage)"},
      {"RuntimeClass", "container runtimes are not simulated"},
      {"FlowSchema", "API priority and fairness is not simulated"},
      {"PriorityLevelConfiguration", "API priority and fairness is not simulated"},
      {"ComponentStatus", "the simulation's components are its own"},
  };
  return kinds;
}

bool IsList(const std::string& kind) { return kind == "List" || (kind.size() > 4 && kind.ends_with("List")); }

struct DumpReader {
  Evidence& out;
  // "kind/ns/name" -> index in out.items, for deduplication.
  std::map<std::string, std::size_t> seen;
  // Unused items of one kind, counted per file for one line each.
  std::map<std::pair<std::string, std::string>, int> unused_counts;

  void Problem(const std::string& file, const SourceMap& positions, const std::string& path, const std::string& message) {
    out.problems.push_back(FormatProblem(file, positions, path, message));
  }

  void ReadItem(const std::string& file, const SourceMap& positions, const std::string& path, const json& item,
                const std::string& list_kind) {
    if (!item.is_object()) return Problem(file, positions, path, "a List item must be an object, got " + TypeName(item));
    std::string kind = JsonString(item, {"kind"});
    if (kind.empty() && list_kind != "List") kind = list_kind.substr(0, list_kind.size() - 4);
    if (kind.empty()) return Problem(file, positions, JoinFieldPath(path, "kind"), "required field is missing");
    if (JsonString(item, {"apiVersion"}).empty() && list_kind == "List")
      return Problem(file, positions, JoinFieldPath(path, "apiVersion"), "required field is missing");
    const std::string name = JsonString(item, {"metadata", "name"});
    if (name.empty()) return Problem(file, positions, JoinFieldPath(path, "metadata.name"), "required field is missing");
    if (!kUsedKinds.contains(kind)) {
      if (!UnusedKinds().contains(kind)) {
        return Problem(file, positions, JoinFieldPath(path, "kind"),
                       "unknown kind " + Quoted(kind) +
                           ": dump Nodes, Pods, DGLJobs, Events and Leases (kubectl get dgljobs,pods,nodes,events,leases -A)");
      }
      ++unused_counts[{file, kind}];
      return;
    }
    if (kind == "Event" && JsonString(item, {"involvedObject", "kind"}).empty() &&
        JsonString(item, {"regarding", "kind"}).empty())
      return Problem(file, positions, JoinFieldPath(path, "involvedObject"), "an Event names the object it is about");
    Item read{FormatLocation(file, positions, path), kind, item};
    const std::string key = kind + "/" + JsonString(item, {"metadata", "namespace"}) + "/" + name;
    if (auto it = seen.find(key); it != seen.end()) {
      Item& before = out.items[it->second];
      const auto version = [](const json& o) {
        const std::string rv = JsonString(o, {"metadata", "resourceVersion"});
        return std::make_pair(rv.size(), rv);  // resourceVersions are decimal: longer is later
      };
      if (version(item) >= version(before.object)) before = std::move(read);
      return;
    }
    seen[key] = out.items.size();
    out.items.push_back(std::move(read));
  }

  void ReadDocument(const std::string& file, const YamlDocument& doc) {
    const json& list = doc.value;
    if (list.is_null()) return;  // an empty document (a trailing "---")
    if (!list.is_object()) return Problem(file, doc.positions, "", "not a List: a " + TypeName(list));
    const std::string kind = JsonString(list, {"kind"});
    if (!IsList(kind)) {
      return Problem(file, doc.positions, kind.empty() ? "" : "kind",
                     "not a List (kind " + Quoted(kind) + "): dump with kubectl get ... -o yaml or -o json, which writes a List");
    }
    if (!JsonString(list, {"metadata", "continue"}).empty())
      return Problem(file, doc.positions, "metadata.continue",
                     "one page of a longer list (truncated): dump without --chunk-size limits, or every page");
    const json* items = kube::Member(list, "items");
    if (items == nullptr) return Problem(file, doc.positions, "items", "required field is missing");
    if (items->is_null()) return;  // an empty list, as kubectl writes "items: null" at times
    if (!items->is_array()) return Problem(file, doc.positions, "items", "must be a list, got " + TypeName(*items));
    for (std::size_t i = 0; i < items->size(); ++i)
      ReadItem(file, doc.positions, "items[" + std::to_string(i) + "]", (*items)[i], kind);
  }

  void ReadDump(const std::string& file) {
    YamlLoad load = LoadYamlFile(file);
    if (!load.ok()) {
      out.problems.push_back(load.error->ToString() + " (not YAML or JSON, or truncated)");
      return;
    }
    bool any = false;
    for (const YamlDocument& doc : load.documents) {
      any = any || !doc.value.is_null();
      ReadDocument(file, doc);
    }
    if (!any) out.problems.push_back(file + ": empty: no List in it");
  }
};

std::string LineOf(const std::string& file, std::size_t line) { return file + ":" + std::to_string(line); }

}  // namespace

bool IsUsedKind(const std::string& kind) { return kUsedKinds.contains(kind); }

void ReadAuditLog(const std::string& text, const std::string& file, Evidence& out) {
  std::size_t start = 0, line = 0, other_stages = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    const bool last = end == std::string::npos;
    if (last) end = text.size();
    ++line;
    std::string_view raw(text.data() + start, end - start);
    start = end + 1;
    if (raw.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    json event = json::parse(raw, nullptr, false);
    const std::string where = LineOf(file, line);
    if (event.is_discarded()) {
      out.problems.push_back(where + ": not one JSON object" + std::string(last ? " (a truncated last line?)" : "") +
                             ": an audit log has one audit.k8s.io/v1 Event per line");
      continue;
    }
    if (!event.is_object() || JsonString(event, {"kind"}) != "Event" ||
        !JsonString(event, {"apiVersion"}).starts_with("audit.k8s.io/")) {
      out.problems.push_back(where + ": kind: not an audit.k8s.io/v1 Event");
      continue;
    }
    if (JsonString(event, {"stage"}) != "ResponseComplete") {
      ++other_stages;
      continue;
    }
    std::string stamp = JsonString(event, {"requestReceivedTimestamp"});
    if (stamp.empty()) stamp = JsonString(event, {"stageTimestamp"});
    auto time = kube::ParseTime(stamp);
    if (!time) {
      out.problems.push_back(where + ": requestReceivedTimestamp: not a timestamp: " + Quoted(stamp));
      continue;
    }
    if (JsonString(event, {"verb"}).empty()) {
      out.problems.push_back(where + ": verb: required field is missing");
      continue;
    }
    out.audit.push_back({where, *time, std::move(event)});
  }
  if (other_stages > 0)
    out.unused.push_back(file + ": " + std::to_string(other_stages) +
                         " audit events of stages other than ResponseComplete: the same requests' ResponseComplete "
                         "events say all they say");
}

Evidence LoadEvidence(const std::vector<std::string>& dumps, const std::vector<std::string>& audit_logs) {
  Evidence out;
  DumpReader reader{out, {}, {}};
  for (const std::string& file : dumps) reader.ReadDump(file);
  for (const auto& [key, count] : reader.unused_counts)
    out.unused.push_back(key.first + ": " + std::to_string(count) + " " + key.second + (count == 1 ? "" : "s") +
                         ": " + UnusedKinds().at(key.second));
  for (const std::string& file : audit_logs) {
    sim::InputFile read = sim::ReadInputFile(file, std::size_t{1} << 30);
    if (!read.ok()) {
      out.problems.push_back(file + ": " + read.error);
      continue;
    }
    ReadAuditLog(read.text, file, out);
  }
  std::stable_sort(out.audit.begin(), out.audit.end(),
                   [](const AuditRecord& a, const AuditRecord& b) { return a.time < b.time; });
  return out;
}

}  // namespace harness::evidence
