// Tables as kubectl's printers lay them out (k8s.io/kubernetes/pkg/printers/internalversion): the
// columns, and cells computed the way kubectl would compute them from the objects.
#include "fakeapi/server/table.h"

#include "fakeapi/client/json_path.h"
#include "fakeapi/server/wire.h"

#include <cstdint>

namespace fakeapi {
namespace {

using json = kube::Json;


// The OpenAPI descriptions kube-apiserver's printers copy into the columns every kind has.
const char* const kNameDescription =
    "Name must be unique within a namespace. Is required when creating resources, although some resources may allow a "
    "client to request the generation of an appropriate name automatically. Name is primarily intended for creation "
    "idempotence and configuration definition. Cannot be updated. More info: "
    "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names";
const char* const kAgeDescription =
    "CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed "
    "to be set in happens-before order across separate operations. Clients may not set this value. It is represented in "
    "RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
    "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata";

TableColumn Column(std::string name, int priority = 0, std::string type = "string", std::string description = "") {
  TableColumn c;
  c.name = std::move(name);
  c.type = std::move(type);
  c.priority = priority;
  c.description = std::move(description);
  if (c.name == "Name") c.format = "name";
  if (c.name == "Name" && c.description.empty()) c.description = kNameDescription;
  if (c.name == "Age" && c.description.empty()) c.description = kAgeDescription;
  return c;
}

std::string OrNone(const std::string& s) { return s.empty() ? "<none>" : s; }

std::string TimestampAge(const json& obj, std::initializer_list<std::string_view> path, kube::Micros now) {
  auto t = kube::ParseTime(kube::JsonString(obj, path));
  return t ? HumanAge(now - *t) : "<unknown>";
}

// The pod's STATUS column as kubectl's printer derives it: the phase, overridden by the first
// unfinished init container, then by a waiting or terminated app container, then by deletion.
std::string PodStatusText(const json& pod, int* ready, int* restarts) {
  std::string reason = kube::JsonString(pod, {"status", "phase"});
  if (std::string r = kube::JsonString(pod, {"status", "reason"}); !r.empty()) reason = r;
  bool initializing = false;
  const json& inits = kube::JsonArray(pod, {"status", "initContainerStatuses"});
  for (std::size_t i = 0; i < inits.size(); ++i) {
    const json& c = inits[i];
    *restarts += static_cast<int>(kube::JsonInt(c, {"restartCount"}));
    if (kube::JsonAt(c, {"state", "terminated"})) {
      if (kube::JsonInt(c, {"state", "terminated", "exitCode"}) == 0) continue;
      std::string why = kube::JsonString(c, {"state", "terminated", "reason"});
      reason = "Init:" + (why.empty() ? "ExitCode:" + std::to_string(kube::JsonInt(c, {"state", "terminated", "exitCode"})) : why);
    } else if (std::string why = kube::JsonString(c, {"state", "waiting", "reason"}); !why.empty() && why != "PodInitializing") {
      reason = "Init:" + why;
    } else {
      reason = "Init:" + std::to_string(i) + "/" + std::to_string(kube::JsonArray(pod, {"spec", "initContainers"}).size());
    }
    initializing = true;
    break;
  }
  const json& containers = kube::JsonArray(pod, {"status", "containerStatuses"});
  bool running = false;
  for (auto it = containers.rbegin(); it != containers.rend(); ++it) {
    const json& c = *it;
    *restarts += static_cast<int>(kube::JsonInt(c, {"restartCount"}));
    if (initializing) continue;
    if (std::string why = kube::JsonString(c, {"state", "waiting", "reason"}); !why.empty()) {
      reason = why;
    } else if (kube::JsonAt(c, {"state", "terminated"})) {
      std::string why = kube::JsonString(c, {"state", "terminated", "reason"});
      reason = why.empty() ? "ExitCode:" + std::to_string(kube::JsonInt(c, {"state", "terminated", "exitCode"})) : why;
    } else if (kube::JsonAt(c, {"state", "running"})) {
      const json* r = kube::JsonAt(c, {"ready"});
      if (r && r->is_boolean() && r->get<bool>()) {
        ++*ready;
        running = true;
      }
    }
  }
  if (!initializing && reason == "Completed" && running) reason = "Running";
  if (kube::JsonAt(pod, {"metadata", "deletionTimestamp"})) reason = reason == "NodeLost" ? "Unknown" : "Terminating";
  return reason.empty() ? "Pending" : reason;
}

TableConverter PodTable() {
  TableConverter t;
  t.columns = {Column("Name"), Column("Ready"), Column("Status"), Column("Restarts", 0, "integer"), Column("Age"),
               Column("IP", 1), Column("Node", 1)};
  t.cells = [](const json& pod, kube::Micros now) {
    int ready = 0, restarts = 0;
    std::string status = PodStatusText(pod, &ready, &restarts);
    std::string total = std::to_string(kube::JsonArray(pod, {"spec", "containers"}).size());
    return json::array({kube::NameOf(pod), std::to_string(ready) + "/" + total, status, restarts, AgeOf(pod, now),
                        OrNone(kube::JsonString(pod, {"status", "podIP"})), OrNone(kube::JsonString(pod, {"spec", "nodeName"}))});
  };
  return t;
}

std::string NodeStatusText(const json& node) {
  std::string status = "Unknown";
  for (const json& c : kube::JsonArray(node, {"status", "conditions"}))
    if (kube::JsonString(c, {"type"}) == "Ready") status = kube::JsonString(c, {"status"}) == "True" ? "Ready" : "NotReady";
  const json* unschedulable = kube::JsonAt(node, {"spec", "unschedulable"});
  if (unschedulable && unschedulable->is_boolean() && unschedulable->get<bool>()) status += ",SchedulingDisabled";
  return status;
}

std::string NodeRoles(const json& node) {
  std::string roles;
  if (const json* labels = kube::JsonAt(node, {"metadata", "labels"}); labels && labels->is_object())
    for (const auto& [key, value] : labels->items()) {
      const std::string prefix = "node-role.kubernetes.io/";
      if (key.rfind(prefix, 0) == 0) roles += (roles.empty() ? "" : ",") + key.substr(prefix.size());
    }
  return roles;
}

TableConverter NodeTable() {
  TableConverter t;
  t.columns = {Column("Name"),           Column("Status"),           Column("Roles"),
               Column("Age"),            Column("Version"),          Column("Internal-IP", 1),
               Column("External-IP", 1), Column("OS-Image", 1),      Column("Kernel-Version", 1),
               Column("Container-Runtime", 1)};
  t.cells = [](const json& node, kube::Micros now) {
    std::string internal, external;
    for (const json& a : kube::JsonArray(node, {"status", "addresses"})) {
      if (kube::JsonString(a, {"type"}) == "InternalIP" && internal.empty()) internal = kube::JsonString(a, {"address"});
      if (kube::JsonString(a, {"type"}) == "ExternalIP" && external.empty()) external = kube::JsonString(a, {"address"});
    }
    auto info = [&](const char* key) { return kube::JsonString(node, {"status", "nodeInfo", key}, "<unknown>"); };
    return json::array({kube::NameOf(node), NodeStatusText(node), OrNone(NodeRoles(node)), AgeOf(node, now),
                        info("kubeletVersion"), OrNone(internal), OrNone(external), info("osImage"),
                        info("kernelVersion"), info("containerRuntimeVersion")});
  };
  return t;
}

// kubectl's event columns: the name is there but only with -o wide.
TableConverter EventTable() {
  TableConverter t;
  t.columns = {Column("Last Seen"),  Column("Type"),          Column("Reason"),      Column("Object"),
               Column("Subobject", 1), Column("Source", 1),   Column("Message"),     Column("First Seen", 1),
               Column("Count", 1, "integer"), Column("Name", 1)};
  t.cells = [](const json& ev, kube::Micros now) {
    auto seen = [&](std::initializer_list<std::string_view> path) { return TimestampAge(ev, path, now); };
    std::string last = !kube::JsonString(ev, {"lastTimestamp"}).empty() ? seen({"lastTimestamp"})
                       : !kube::JsonString(ev, {"eventTime"}).empty()   ? seen({"eventTime"})
                                                           : seen({"metadata", "creationTimestamp"});
    std::string first = kube::JsonString(ev, {"firstTimestamp"}).empty() ? last : seen({"firstTimestamp"});
    std::string source = kube::JsonString(ev, {"source", "component"}, kube::JsonString(ev, {"reportingComponent"}));
    if (std::string host = kube::JsonString(ev, {"source", "host"}); !host.empty()) source += ", " + host;
    std::int64_t count = kube::JsonInt(ev, {"count"});
    return json::array({last, kube::JsonString(ev, {"type"}), kube::JsonString(ev, {"reason"}),
                        wire::Lower(kube::JsonString(ev, {"involvedObject", "kind"})) + "/" + kube::JsonString(ev, {"involvedObject", "name"}),
                        kube::JsonString(ev, {"involvedObject", "fieldPath"}), source, kube::JsonString(ev, {"message"}), first,
                        count > 0 ? count : 1, kube::NameOf(ev)});
  };
  return t;
}

TableConverter NamespaceTable() {
  TableConverter t;
  t.columns = {Column("Name"), Column("Status", 0, "string", "The status of the namespace"), Column("Age")};
  t.cells = [](const json& ns, kube::Micros now) {
    std::string phase = kube::JsonString(ns, {"status", "phase"}, "Active");
    if (kube::JsonAt(ns, {"metadata", "deletionTimestamp"})) phase = "Terminating";
    return json::array({kube::NameOf(ns), phase, AgeOf(ns, now)});
  };
  return t;
}

TableConverter ServiceTable() {
  TableConverter t;
  t.columns = {Column("Name"), Column("Type"), Column("Cluster-IP"), Column("External-IP"), Column("Port(s)"),
               Column("Age"),  Column("Selector", 1)};
  t.cells = [](const json& svc, kube::Micros now) {
    std::string ports;
    for (const json& p : kube::JsonArray(svc, {"spec", "ports"})) {
      const json* port = kube::JsonAt(p, {"port"});
      // Appended piece by piece: `"," + std::string(...)` draws g++ 12's false -Wrestrict at -O3
      // (libstdc++'s operator+(const char*, string&&), GCC bug 105329).
      if (!ports.empty()) ports += ',';
      ports.append(port ? wire::Dump(*port) : std::string("?")).append("/").append(kube::JsonString(p, {"protocol"}, "TCP"));
    }
    std::string selector;
    if (const json* sel = kube::JsonAt(svc, {"spec", "selector"}); sel && sel->is_object())
      for (const auto& [k, v] : sel->items())
        selector += (selector.empty() ? "" : ",") + k + "=" + (v.is_string() ? v.get<std::string>() : wire::Dump(v));
    return json::array({kube::NameOf(svc), kube::JsonString(svc, {"spec", "type"}, "ClusterIP"), OrNone(kube::JsonString(svc, {"spec", "clusterIP"})),
                        "<none>", OrNone(ports), AgeOf(svc, now), OrNone(selector)});
  };
  return t;
}

TableConverter ConfigMapTable() {
  TableConverter t;
  // kube-apiserver types the Data column string, though its cells are counts.
  t.columns = {Column("Name"),
               Column("Data", 0, "string",
                      "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'. "
                      "Values with non-UTF-8 byte sequences must use the BinaryData field. The keys stored in Data must not "
                      "overlap with the keys in the BinaryData field, this is enforced during validation process."),
               Column("Age")};
  t.cells = [](const json& cm, kube::Micros now) {
    std::size_t n = 0;
    for (const char* key : {"data", "binaryData"})
      if (const json* d = kube::JsonAt(cm, {key}); d && d->is_object()) n += d->size();
    return json::array({kube::NameOf(cm), n, AgeOf(cm, now)});
  };
  return t;
}

json TableRow(const TableConverter& conv, const json& obj, kube::Micros now, const std::string& include) {
  json cells = conv.cells ? conv.cells(obj, now) : json::array({kube::NameOf(obj)});
  if (!cells.is_array()) cells = json::array({kube::NameOf(obj)});
  while (cells.size() < conv.columns.size()) cells.push_back("");
  json row = {{"cells", cells}};
  if (include == "Object") {
    row["object"] = obj;
  } else if (include == "None") {
    row["object"] = nullptr;  // kube-apiserver writes the member, empty
  } else {
    row["object"] = PartialObjectMetadata(obj);
  }
  return row;
}

}  // namespace

std::string HumanAge(kube::Micros elapsed) {
  // Whole units only, the finer unit shown while it still says something (kubectl's rules).
  const std::int64_t s = elapsed / kube::kSecond;
  if (s < -1) return "<invalid>";
  if (s < 0) return "0s";
  if (s < 120) return std::to_string(s) + "s";
  const std::int64_t m = s / 60;
  if (m < 10) return s % 60 == 0 ? std::to_string(m) + "m" : std::to_string(m) + "m" + std::to_string(s % 60) + "s";
  if (m < 180) return std::to_string(m) + "m";
  const std::int64_t h = m / 60;
  if (h < 8) return m % 60 == 0 ? std::to_string(h) + "h" : std::to_string(h) + "h" + std::to_string(m % 60) + "m";
  if (h < 48) return std::to_string(h) + "h";
  const std::int64_t d = h / 24;
  if (h < 24 * 8) return h % 24 == 0 ? std::to_string(d) + "d" : std::to_string(d) + "d" + std::to_string(h % 24) + "h";
  if (d < 365 * 2) return std::to_string(d) + "d";
  const std::int64_t y = d / 365;
  if (d < 365 * 8) return d % 365 == 0 ? std::to_string(y) + "y" : std::to_string(y) + "y" + std::to_string(d % 365) + "d";
  return std::to_string(y) + "y";
}

std::string AgeOf(const json& object, kube::Micros now) { return TimestampAge(object, {"metadata", "creationTimestamp"}, now); }

// kube-apiserver's columns for coordination.k8s.io Leases: who holds it.
TableConverter LeaseTable() {
  TableConverter t;
  t.columns = {Column("Name"), Column("Holder"), Column("Age")};
  t.cells = [](const json& lease, kube::Micros now) {
    return json::array({kube::NameOf(lease), kube::JsonString(lease, {"spec", "holderIdentity"}), AgeOf(lease, now)});
  };
  return t;
}

TableConverter DefaultTableConverter(const std::string& plural) {
  if (plural == "pods") return PodTable();
  if (plural == "nodes") return NodeTable();
  if (plural == "events") return EventTable();
  if (plural == "namespaces") return NamespaceTable();
  if (plural == "services") return ServiceTable();
  if (plural == "configmaps") return ConfigMapTable();
  if (plural == "leases") return LeaseTable();
  TableConverter t;
  t.columns = {Column("Name"), Column("Age")};
  t.cells = [](const json& obj, kube::Micros now) { return json::array({kube::NameOf(obj), AgeOf(obj, now)}); };
  return t;
}

json PartialObjectMetadata(const json& object) {
  const json* meta = kube::JsonAt(object, {"metadata"});
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", meta && meta->is_object() ? *meta : json::object()}};
}

json BuildTable(const TableConverter& converter, const std::vector<kube::ObjectPtr>& objects, const std::string& rv,
                const std::string& version, const std::string& include, kube::Micros now) {
  json columns = json::array();
  for (const TableColumn& c : converter.columns)
    columns.push_back({{"name", c.name}, {"type", c.type}, {"format", c.format}, {"description", c.description},
                       {"priority", c.priority}});
  if (columns.empty())
    columns.push_back({{"name", "Name"}, {"type", "string"}, {"format", "name"}, {"priority", 0},
                       {"description", "Name must be unique within a namespace."}});
  json rows = json::array();
  for (const auto& obj : objects) rows.push_back(TableRow(converter, *obj, now, include));
  json meta = json::object();
  if (!rv.empty()) meta["resourceVersion"] = rv;
  return {{"kind", "Table"}, {"apiVersion", "meta.k8s.io/" + version}, {"metadata", meta},
          {"columnDefinitions", columns}, {"rows", rows}};
}

}  // namespace fakeapi
