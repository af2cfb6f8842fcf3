#include "sim/harness/config/scenario.h"

#include "sim/harness/config/calibration_file.h"

#include "fakeapi/client/quantity.h"
#include "fakeapi/client/selector.h"
#include "operator/api/dgljob_api.h"
#include "sim/harness/config/units.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <filesystem>
#include <fstream>
#include <limits>
#include <regex>
#include <set>
#include <utility>

namespace harness {
namespace {

using nlohmann::json;

constexpr const char* kDatasetAnnotation = "dglsim.io/dataset";

std::string Child(const std::string& path, std::string_view key) {
  std::vector<PathSegment> segments = ParseFieldPath(path);
  segments.emplace_back(std::string(key));
  return FormatFieldPath(segments);
}

std::string Index(const std::string& path, std::size_t i) {
  std::vector<PathSegment> segments = ParseFieldPath(path);
  segments.emplace_back(i);
  return FormatFieldPath(segments);
}

std::string JoinPath(const std::string& base, std::string_view path) {
  std::vector<PathSegment> segments = ParseFieldPath(base);
  for (PathSegment& s : ParseFieldPath(path)) segments.push_back(std::move(s));
  return FormatFieldPath(segments);
}

std::string Join(const std::vector<std::string>& items, std::string_view separator = ", ") {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

template <std::size_t N>
std::vector<std::string> Names(const char* const (&names)[N]) {
  return std::vector<std::string>(std::begin(names), std::end(names));
}

bool Contains(const std::vector<std::string>& items, std::string_view item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

// Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps.
std::size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// `name` with " (did you mean "x"?)" when a candidate is close.
std::string WithSuggestion(std::string message, std::string_view word, const std::vector<std::string>& candidates) {
  const std::string suggestion = SuggestName(word, candidates);
  if (!suggestion.empty()) message += " (did you mean " + Quoted(suggestion) + "?)";
  return message;
}

bool IsDns1123Label(std::string_view s) {
  if (s.empty() || s.size() > 63) return false;
  for (char c : s) {
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  }
  return s.front() != '-' && s.back() != '-';
}

// The pods a (defaulted) DGLJob named `name` creates.
std::vector<std::string> PodNamesOf(json job, const std::string& name) {
  if (!job.is_object() || !job["metadata"].is_object()) return {};
  job["metadata"]["name"] = name;
  return dgl::JobPodNames(job);
}

// "big-partitioner, big-launcher, big-worker-0 .. big-worker-7".
std::string PodSummary(const std::string& job, const std::vector<std::string>& pods) {
  std::vector<std::string> parts;
  std::vector<std::string> workers;
  for (const std::string& pod : pods) (pod.starts_with(job + "-worker-") ? workers : parts).push_back(pod);
  if (workers.size() == 1) parts.push_back(workers[0]);
  if (workers.size() > 1) parts.push_back(workers.front() + " .. " + workers.back());
  return Join(parts);
}

// Reads one scenario file (and the files it names) into a Scenario, collecting problems.
class Loader {
 public:
  Loader(std::string file, std::string base_dir, ScenarioLoad* out) : file_(std::move(file)), base_dir_(std::move(base_dir)), out_(out) {}

  void Load(const YamlLoad& load) {
    if (!load.ok()) {
      out_->problems.push_back(load.error->ToString());
      return;
    }
    const YamlDocument* document = nullptr;
    int non_empty = 0;
    for (const YamlDocument& d : load.documents) {
      if (d.value.is_null()) continue;
      if (++non_empty == 1) document = &d;
    }
    if (document == nullptr) {
      out_->problems.push_back(file_ + ":1:1: the file holds no scenario (expected apiVersion: dglsim/v1, kind: Scenario)");
      return;
    }
    positions_ = &document->positions;
    if (non_empty > 1) Problem("", "a scenario file holds one document; found " + std::to_string(non_empty));
    Scenario scenario;
    scenario.file = file_;
    scenario.base_dir = base_dir_;
    LoadTop(document->value, scenario);
    if (out_->problems.empty()) out_->scenario = std::move(scenario);
  }

 private:
  // ---- reporting -------------------------------------------------------------------------------
  void Problem(const std::string& path, const std::string& message) {
    out_->problems.push_back(FormatProblem(file_, *positions_, path, message));
  }
  void Warning(const std::string& path, const std::string& message) {
    out_->warnings.push_back(FormatLocation(file_, *positions_, path) + ": warning: " + message);
  }

  // ---- typed access ------------------------------------------------------------------------------
  // The member, or nullptr when absent or null.
  static const json* Get(const json& object, const char* key) {
    if (!object.is_object()) return nullptr;
    auto it = object.find(key);
    if (it == object.end() || it->is_null()) return nullptr;
    return &*it;
  }

  // Reports every key of `object` that is not in `allowed`, suggesting a close name.
  void CheckFields(const json& object, const std::string& path, const std::vector<std::string>& allowed,
                   const std::vector<std::string>& suggest_from = {}) {
    if (!object.is_object()) return;
    for (const auto& [key, value] : object.items()) {
      if (Contains(allowed, key)) continue;
      Problem(Child(path, key), WithSuggestion("unknown field " + Quoted(key), key, suggest_from.empty() ? allowed : suggest_from));
    }
  }

  bool ExpectObject(const json& value, const std::string& path, std::string_view what = "a mapping") {
    if (value.is_object()) return true;
    Problem(path, "must be " + std::string(what) + ", got " + TypeName(value));
    return false;
  }

  std::optional<std::string> String(const json& object, const char* key, const std::string& path, bool required = false) {
    const json* value = Get(object, key);
    const std::string field = Child(path, key);
    if (value == nullptr) {
      if (required) Problem(field, "required field is missing");
      return std::nullopt;
    }
    if (!value->is_string()) {
      Problem(field, "must be a string, got " + TypeName(*value));
      return std::nullopt;
    }
    const std::string& s = value->get_ref<const std::string&>();
    if (required && s.empty()) {
      Problem(field, "must not be empty");
      return std::nullopt;
    }
    return s;
  }

  std::optional<std::int64_t> Integer(const json& object, const char* key, const std::string& path, std::int64_t min,
                                      std::int64_t max, bool required = false) {
    const json* value = Get(object, key);
    const std::string field = Child(path, key);
    if (value == nullptr) {
      if (required) Problem(field, "required field is missing");
      return std::nullopt;
    }
    std::int64_t n = 0;
    if (value->is_number_unsigned() && value->get<std::uint64_t>() > static_cast<std::uint64_t>(max)) {
      Problem(field, "must be at most " + std::to_string(max) + ", got " + value->dump());
      return std::nullopt;
    }
    if (value->is_number_integer()) {
      n = value->get<std::int64_t>();
    } else if (value->is_number_float() && std::isfinite(value->get<double>()) &&
               value->get<double>() == std::floor(value->get<double>()) && std::fabs(value->get<double>()) < 9e15) {
      n = static_cast<std::int64_t>(value->get<double>());
    } else {
      Problem(field, "must be an integer, got " + (value->is_number() ? value->dump() : TypeName(*value)));
      return std::nullopt;
    }
    if (n < min) {
      Problem(field, "must be at least " + std::to_string(min) + ", got " + std::to_string(n));
      return std::nullopt;
    }
    if (n > max) {
      Problem(field, "must be at most " + std::to_string(max) + ", got " + std::to_string(n));
      return std::nullopt;
    }
    return n;
  }

  std::optional<double> Number(const json& object, const char* key, const std::string& path, double min, double max,
                               bool min_exclusive = false, bool required = false) {
    const json* value = Get(object, key);
    const std::string field = Child(path, key);
    if (value == nullptr) {
      if (required) Problem(field, "required field is missing");
      return std::nullopt;
    }
    if (!value->is_number() || !std::isfinite(value->get<double>())) {
      Problem(field, "must be a number, got " + (value->is_number() ? value->dump() : TypeName(*value)));
      return std::nullopt;
    }
    const double x = value->get<double>();
    if (min_exclusive ? !(x > min) : !(x >= min)) {
      Problem(field, std::string("must be ") + (min_exclusive ? "greater than " : "at least ") + json(min).dump() + ", got " +
                         value->dump());
      return std::nullopt;
    }
    if (x > max) {
      Problem(field, "must be at most " + json(max).dump() + ", got " + value->dump());
      return std::nullopt;
    }
    return x;
  }

  std::optional<bool> Bool(const json& object, const char* key, const std::string& path) {
    const json* value = Get(object, key);
    if (value == nullptr) return std::nullopt;
    if (!value->is_boolean()) {
      Problem(Child(path, key), "must be true or false, got " + (value->is_string() ? Quoted(value->get<std::string>()) : TypeName(*value)));
      return std::nullopt;
    }
    return value->get<bool>();
  }

  std::optional<Micros> Duration(const json& object, const char* key, const std::string& path, bool positive = false,
                                 bool required = false) {
    const json* value = Get(object, key);
    const std::string field = Child(path, key);
    if (value == nullptr) {
      if (required) Problem(field, "required field is missing");
      return std::nullopt;
    }
    Parsed<Micros> d = ParseDurationValue(*value);
    if (!d.ok()) {
      Problem(field, d.error);
      return std::nullopt;
    }
    if (positive && *d.value <= 0) {
      Problem(field, "must be longer than 0s");
      return std::nullopt;
    }
    return d.value;
  }

  std::optional<double> Bandwidth(const json& object, const char* key, const std::string& path) {
    const json* value = Get(object, key);
    if (value == nullptr) return std::nullopt;
    Parsed<double> b = ParseBandwidthValue(*value);
    if (!b.ok()) {
      Problem(Child(path, key), b.error);
      return std::nullopt;
    }
    return b.value;
  }

  std::optional<std::int64_t> Size(const json& value, const std::string& path) {
    Parsed<std::int64_t> s = ParseSizeValue(value);
    if (!s.ok()) {
      Problem(path, s.error);
      return std::nullopt;
    }
    return s.value;
  }

  std::optional<std::string> Enum(const json& object, const char* key, const std::string& path,
                                  const std::vector<std::string>& values, bool required = false) {
    std::optional<std::string> s = String(object, key, path, required);
    if (!s) return std::nullopt;
    if (!Contains(values, *s)) {
      Problem(Child(path, key), WithSuggestion("unsupported value " + Quoted(*s) + ": one of " + Join(values), *s, values));
      return std::nullopt;
    }
    return s;
  }

  // A sequence member: each item is handed to `each(item, item_path, index)`.
  template <class F>
  void Sequence(const json& object, const char* key, const std::string& path, F each) {
    const json* value = Get(object, key);
    if (value == nullptr) return;
    const std::string field = Child(path, key);
    if (!value->is_array()) {
      Problem(field, "must be a sequence, got " + TypeName(*value));
      return;
    }
    for (std::size_t i = 0; i < value->size(); ++i) each((*value)[i], Index(field, i), i);
  }

  std::string Resolve(const std::string& relative) const {
    std::filesystem::path p(relative);
    if (p.is_absolute() || base_dir_.empty()) return p.lexically_normal().string();
    return (std::filesystem::path(base_dir_) / p).lexically_normal().string();
  }

  // ---- the document --------------------------------------------------------------------------------
  void LoadTop(const json& top, Scenario& s) {
    if (!ExpectObject(top, "", "a mapping (apiVersion, kind, metadata, cluster, jobs, ...)")) return;
    CheckFields(top, "", {"apiVersion", "kind", "metadata", "seed", "until", "cluster", "api", "operator", "datasets",
                          "jobs", "faults", "expect", "calibration"});
    if (std::optional<std::string> v = String(top, "apiVersion", "", true); v && *v != kScenarioApiVersion) {
      Problem("apiVersion", "unsupported value " + Quoted(*v) + ": must be " + Quoted(kScenarioApiVersion));
    }
    if (std::optional<std::string> k = String(top, "kind", "", true); k && *k != kScenarioKind) {
      Problem("kind", "unsupported value " + Quoted(*k) + ": must be " + Quoted(kScenarioKind));
    }
    s.name = std::filesystem::path(file_).stem().string();
    if (const json* metadata = Get(top, "metadata"); metadata != nullptr && ExpectObject(*metadata, "metadata")) {
      CheckFields(*metadata, "metadata", {"name", "description", "labels", "annotations"});
      if (auto name = String(*metadata, "name", "metadata"); name && !name->empty()) s.name = *name;
      if (auto description = String(*metadata, "description", "metadata")) s.description = *description;
    }
    if (auto seed = Integer(top, "seed", "", 0, std::numeric_limits<std::int64_t>::max())) s.seed = static_cast<std::uint64_t>(*seed);
    if (auto until = Duration(top, "until", "", true)) s.until = *until;

    if (const json* cluster = Get(top, "cluster"); cluster == nullptr) {
      Problem("cluster", "required field is missing: a scenario needs cluster.nodes");
    } else if (ExpectObject(*cluster, "cluster")) {
      LoadCluster(*cluster, s.cluster);
    }
    if (const json* api = Get(top, "api"); api != nullptr && ExpectObject(*api, "api")) {
      CheckFields(*api, "api", {"watchLatency", "requestLatency"});
      if (auto d = Duration(*api, "watchLatency", "api")) s.api.watch_latency = *d;
      if (auto d = Duration(*api, "requestLatency", "api")) s.api.request_latency = *d;
    }
    if (const json* op = Get(top, "operator"); op != nullptr && ExpectObject(*op, "operator")) {
      CheckFields(*op, "operator", {"enabled", "reconcileLatency", "gangScheduling"});
      if (auto b = Bool(*op, "enabled", "operator")) s.operator_settings.enabled = *b;
      if (auto d = Duration(*op, "reconcileLatency", "operator")) s.operator_settings.reconcile_latency = *d;
      if (auto b = Bool(*op, "gangScheduling", "operator")) s.operator_settings.gang_scheduling = *b;
    }
    if (auto file = String(top, "calibration", "")) {
      s.calibration_file = Resolve(*file);
      std::ifstream in(s.calibration_file);
      if (!in || std::filesystem::is_directory(s.calibration_file)) {
        Problem("calibration", "cannot open " + Quoted(s.calibration_file));
      } else {
        // Problems inside the calibration file name that file's own lines and columns.
        CalibrationLoad calibration = LoadCalibrationFile(s.calibration_file);
        if (calibration.ok()) s.calibration = *calibration.calibration;
        for (const auto& problem : calibration.problems) out_->problems.push_back(problem);
      }
    }
    Sequence(top, "datasets", "", [&](const json& item, const std::string& path, std::size_t) { LoadDataset(item, path, s); });
    Sequence(top, "jobs", "", [&](const json& item, const std::string& path, std::size_t) { LoadJob(item, path, s); });
    CheckJobOrder(s);
    Sequence(top, "faults", "", [&](const json& item, const std::string& path, std::size_t) { LoadFault(item, path, s); });
    Sequence(top, "expect", "", [&](const json& item, const std::string& path, std::size_t) { LoadExpectation(item, path, s); });

    std::set<std::string> namespaces;
    for (const JobKey& key : s.job_keys) namespaces.insert(key.ns);
    s.namespaces.assign(namespaces.begin(), namespaces.end());
  }

  // ---- cluster ----------------------------------------------------------------------------------
  void LoadCluster(const json& cluster, ClusterSpec& c) {
    CheckFields(cluster, "cluster", {"nodes", "storage", "scheduler", "images", "timings"});
    const json* nodes = Get(cluster, "nodes");
    if (nodes == nullptr || (nodes->is_array() && nodes->empty())) {
      Problem("cluster.nodes", "at least one node (a template or a manifest) is required");
    }
    Sequence(cluster, "nodes", "cluster", [&](const json& item, const std::string& path, std::size_t) { LoadNodeGroup(item, path, c); });
    if (const json* storage = Get(cluster, "storage"); storage != nullptr && ExpectObject(*storage, "cluster.storage")) {
      CheckFields(*storage, "cluster.storage", {"bandwidth"});
      if (auto b = Bandwidth(*storage, "bandwidth", "cluster.storage")) c.storage_bytes_per_second = *b;
    }
    if (const json* sched = Get(cluster, "scheduler"); sched != nullptr && ExpectObject(*sched, "cluster.scheduler")) {
      CheckFields(*sched, "cluster.scheduler", {"scoring", "gang"});
      if (auto scoring = Enum(*sched, "scoring", "cluster.scheduler", {"LeastAllocated", "MostAllocated"})) {
        c.scheduler.scoring = *scoring == "MostAllocated" ? Scoring::kMostAllocated : Scoring::kLeastAllocated;
      }
      if (auto gang = Bool(*sched, "gang", "cluster.scheduler")) c.scheduler.gang = *gang;
    }
    if (const json* images = Get(cluster, "images"); images != nullptr && ExpectObject(*images, "cluster.images")) {
      const std::string path = "cluster.images";
      CheckFields(*images, path, {"pullBandwidth", "defaultSize", "sizes"});
      if (auto b = Bandwidth(*images, "pullBandwidth", path)) c.images.pull_bytes_per_second = *b;
      if (const json* size = Get(*images, "defaultSize")) {
        if (auto bytes = Size(*size, Child(path, "defaultSize"))) c.images.default_size = *bytes;
      }
      if (const json* sizes = Get(*images, "sizes"); sizes != nullptr && ExpectObject(*sizes, Child(path, "sizes"))) {
        for (const auto& [image, size] : sizes->items()) {
          if (auto bytes = Size(size, Child(Child(path, "sizes"), image))) c.images.sizes[image] = *bytes;
        }
      }
    }
    if (const json* t = Get(cluster, "timings"); t != nullptr && ExpectObject(*t, "cluster.timings")) {
      const std::string path = "cluster.timings";
      CheckFields(*t, path, {"podStartup", "nodeMonitorGracePeriod", "tolerationSeconds", "nodeStatusUpdateFrequency",
                             "terminationGracePeriod", "podRestartBackoff", "podRestartBackoffMax"});
      Timings& timings = c.timings;
      if (auto d = Duration(*t, "podStartup", path)) timings.pod_startup = *d;
      if (auto d = Duration(*t, "nodeMonitorGracePeriod", path, true)) timings.node_monitor_grace_period = *d;
      if (auto d = Duration(*t, "tolerationSeconds", path)) timings.toleration_seconds = *d;
      if (auto d = Duration(*t, "nodeStatusUpdateFrequency", path, true)) timings.node_status_update_frequency = *d;
      if (auto d = Duration(*t, "terminationGracePeriod", path)) timings.termination_grace_period = *d;
      if (auto d = Duration(*t, "podRestartBackoff", path)) timings.pod_restart_backoff = *d;
      if (auto d = Duration(*t, "podRestartBackoffMax", path)) timings.pod_restart_backoff_max = *d;
    }
  }

  void AddNodeName(const std::string& name, const std::string& path) {
    if (!node_names_.insert(name).second) {
      Problem(path, "node " + Quoted(name) + " is defined twice");
      return;
    }
    node_order_.push_back(name);
  }

  void LoadNodeGroup(const json& item, const std::string& path, ClusterSpec& c) {
    if (!ExpectObject(item, path, "a node template (name, count, capacity, ...) or {manifest: FILE}")) return;
    NodeGroup group;
    group.field_path = path;
    if (Get(item, "manifest") != nullptr) {
      CheckFields(item, path, {"manifest"}, {"manifest", "name", "count", "capacity", "labels", "taints", "network", "disk", "cpuSpeed"});
      auto relative = String(item, "manifest", path, true);
      if (!relative) return;
      NodeManifestSpec manifest;
      manifest.path = Resolve(*relative);
      LoadNodeManifest(manifest, Child(path, "manifest"));
      group.manifest = std::move(manifest);
      c.nodes.push_back(std::move(group));
      return;
    }
    CheckFields(item, path, {"name", "count", "capacity", "labels", "taints", "network", "disk", "cpuSpeed"},
                {"name", "count", "capacity", "labels", "taints", "network", "disk", "cpuSpeed", "manifest"});
    NodeTemplateSpec t;
    auto name = String(item, "name", path, true);
    if (name && !IsDns1123Label(*name)) {
      Problem(Child(path, "name"), "invalid node name " + Quoted(*name) +
                                       ": lower-case letters, digits and '-', starting and ending with a letter or digit");
      name.reset();
    }
    if (auto count = Integer(item, "count", path, 1, 100000)) t.count = static_cast<int>(*count);
    if (const json* capacity = Get(item, "capacity"); capacity != nullptr && ExpectObject(*capacity, Child(path, "capacity"))) {
      for (const auto& [resource, value] : capacity->items()) {
        const std::string field = Child(Child(path, "capacity"), resource);
        std::string text;
        if (value.is_string()) {
          text = value.get<std::string>();
        } else if (value.is_number()) {
          text = value.dump();
        } else {
          Problem(field, "must be a quantity such as \"96\" or \"768Gi\", got " + TypeName(value));
          continue;
        }
        auto milli = kube::ParseQuantityMilli(text);
        auto units = kube::ParseQuantity(text);
        if (!milli || !units || *milli < 0) {
          Problem(field, "invalid quantity " + Quoted(text));
          continue;
        }
        t.capacity[resource] = ResourceQuantity{text, *milli, *units};
      }
    }
    if (const json* labels = Get(item, "labels"); labels != nullptr && ExpectObject(*labels, Child(path, "labels"))) {
      for (const auto& [key, value] : labels->items()) {
        if (value.is_string()) {
          t.labels[key] = value.get<std::string>();
        } else if (value.is_number() || value.is_boolean()) {
          Problem(Child(Child(path, "labels"), key), "label values are strings: quote " + value.dump());
        } else {
          Problem(Child(Child(path, "labels"), key), "must be a string, got " + TypeName(value));
        }
      }
    }
    Sequence(item, "taints", path, [&](const json& taint, const std::string& taint_path, std::size_t) {
      if (!ExpectObject(taint, taint_path, "a taint {key, value, effect}")) return;
      CheckFields(taint, taint_path, {"key", "value", "effect"});
      NodeTaint nt;
      if (auto key = String(taint, "key", taint_path, true)) nt.key = *key;
      if (auto value = String(taint, "value", taint_path)) nt.value = *value;
      if (auto effect = Enum(taint, "effect", taint_path, {"NoSchedule", "PreferNoSchedule", "NoExecute"}, true)) nt.effect = *effect;
      t.taints.push_back(nt);
    });
    if (auto b = Bandwidth(item, "network", path)) t.network_bytes_per_second = *b;
    if (auto b = Bandwidth(item, "disk", path)) t.disk_bytes_per_second = *b;
    if (auto speed = Number(item, "cpuSpeed", path, 0, 1000, true)) t.cpu_speed = *speed;
    if (!name) return;
    t.name = *name;
    for (int i = 0; i < t.count; ++i) AddNodeName(t.name + "-" + std::to_string(i), Child(path, "name"));
    group.node_template = std::move(t);
    c.nodes.push_back(std::move(group));
  }

  // Nodes from a v1 Node / NodeList / List file, reported against that file.
  void LoadNodeManifest(NodeManifestSpec& manifest, const std::string& field) {
    YamlLoad load = LoadYamlFile(manifest.path);
    if (!load.ok()) {
      Problem(field, "cannot load " + Quoted(manifest.path) + ": " + load.error->message);
      if (load.error->pos.known()) out_->problems.push_back(load.error->ToString());
      return;
    }
    for (const YamlDocument& document : load.documents) {
      if (document.value.is_null()) continue;
      auto problem = [&](const std::string& path, const std::string& message) {
        out_->problems.push_back(FormatProblem(manifest.path, document.positions, path, message));
      };
      auto add = [&](json node, const std::string& path) {
        if (!node.is_object()) {
          problem(path, "expected a v1 Node, got " + TypeName(node));
          return;
        }
        if (!node.contains("apiVersion")) node["apiVersion"] = "v1";
        if (!node.contains("kind")) node["kind"] = "Node";
        if (node["apiVersion"] != "v1" || node["kind"] != "Node") {
          problem(path, "expected a v1 Node, got " + node["apiVersion"].dump() + " " + node["kind"].dump());
          return;
        }
        const json* metadata = Get(node, "metadata");
        const json* name = metadata != nullptr ? Get(*metadata, "name") : nullptr;
        if (name == nullptr || !name->is_string() || name->get_ref<const std::string&>().empty()) {
          problem(JoinPath(path, "metadata.name"), "required field is missing");
          return;
        }
        const std::string node_name = name->get<std::string>();
        if (!node_names_.insert(node_name).second) {
          problem(JoinPath(path, "metadata.name"), "node " + Quoted(node_name) + " is defined twice");
          return;
        }
        node_order_.push_back(node_name);
        // Bandwidth annotations must parse, so the runner can trust them.
        if (const json* annotations = Get(*metadata, "annotations"); annotations != nullptr && annotations->is_object()) {
          for (const char* key : {"dglsim.io/network", "dglsim.io/disk"}) {
            if (const json* a = Get(*annotations, key)) {
              Parsed<double> b = ParseBandwidthValue(*a);
              if (!b.ok()) problem(JoinPath(path, std::string("metadata.annotations[") + key + "]"), b.error);
            }
          }
        }
        manifest.nodes.push_back(std::move(node));
      };
      const json& v = document.value;
      const std::string kind = v.is_object() && v.contains("kind") && v["kind"].is_string() ? v["kind"].get<std::string>() : "";
      if (kind == "NodeList" || kind == "List") {
        const json* items = Get(v, "items");
        if (items == nullptr) continue;
        if (!items->is_array()) {
          problem("items", "must be a sequence, got " + TypeName(*items));
          continue;
        }
        for (std::size_t i = 0; i < items->size(); ++i) add((*items)[i], "items[" + std::to_string(i) + "]");
      } else {
        add(v, "");
      }
    }
    if (manifest.nodes.empty() && load.documents.size() <= 1 && out_->problems.empty()) {
      Problem(field, "no nodes in " + Quoted(manifest.path));
    }
  }

  // ---- datasets -------------------------------------------------------------------------------------
  void LoadDataset(const json& item, const std::string& path, Scenario& s) {
    if (!ExpectObject(item, path, "a dataset {name, preset | nodes, edges, featureDim | edgeList}")) return;
    CheckFields(item, path, {"name", "preset", "nodes", "edges", "featureDim", "url", "edgeList"});
    DatasetSpec d;
    d.field_path = path;
    auto name = String(item, "name", path, true);
    if (!name) return;
    d.name = *name;
    if (std::any_of(s.datasets.begin(), s.datasets.end(), [&](const DatasetSpec& o) { return o.name == d.name; })) {
      Problem(Child(path, "name"), "dataset " + Quoted(d.name) + " is defined twice");
      return;
    }
    const bool has_preset = Get(item, "preset") != nullptr;
    const bool has_edge_list = Get(item, "edgeList") != nullptr;
    const bool has_sizes = Get(item, "nodes") != nullptr || Get(item, "edges") != nullptr;
    if (has_preset + has_edge_list + has_sizes > 1) {
      Problem(path, "give one of preset, edgeList or nodes/edges, not several");
    } else if (!has_preset && !has_edge_list && !has_sizes) {
      Problem(path, "a dataset needs preset, edgeList or nodes and edges");
    }
    if (has_preset) {
      std::vector<std::string> presets;
      for (const DatasetPreset& p : DatasetPresets()) presets.push_back(p.name);
      if (auto preset = Enum(item, "preset", path, presets)) {
        for (const DatasetPreset& p : DatasetPresets()) {
          if (p.name == *preset) {
            d.preset = p.name;
            d.nodes = p.nodes;
            d.edges = p.edges;
            d.feature_dim = p.feature_dim;
            d.url = p.url;
          }
        }
      }
    }
    constexpr std::int64_t kMax = std::int64_t{1} << 50;
    if (has_sizes) {
      if (auto n = Integer(item, "nodes", path, 1, kMax, true)) d.nodes = *n;
      if (auto e = Integer(item, "edges", path, 0, kMax, true)) d.edges = *e;
    }
    if (auto f = Integer(item, "featureDim", path, 0, 1 << 20)) d.feature_dim = *f;
    if (auto url = String(item, "url", path)) d.url = *url;
    if (has_edge_list) {
      if (auto file = String(item, "edgeList", path, true)) {
        d.edge_list = Resolve(*file);
        std::ifstream in(d.edge_list);
        if (!in || std::filesystem::is_directory(d.edge_list)) {
          Problem(Child(path, "edgeList"), "cannot open " + Quoted(d.edge_list));
        }
      }
    }
    s.datasets.push_back(std::move(d));
  }

  bool DatasetKnown(const Scenario& s, const std::string& name) const {
    return std::any_of(s.datasets.begin(), s.datasets.end(), [&](const DatasetSpec& d) { return d.name == name; });
  }
  std::vector<std::string> DatasetNames(const Scenario& s) const {
    std::vector<std::string> names;
    for (const DatasetSpec& d : s.datasets) names.push_back(d.name);
    return names;
  }

  // ---- jobs -------------------------------------------------------------------------------------------
  void LoadJob(const json& item, const std::string& path, Scenario& s) {
    if (!ExpectObject(item, path, "a job {at, manifest | inline | delete | suspend | resume}")) return;
    CheckFields(item, path, {"at", "manifest", "inline", "dataset", "delete", "suspend", "resume"});
    JobEntry job;
    job.field_path = path;
    if (auto at = Duration(item, "at", path)) job.at = *at;
    if (job.at > s.until) Warning(Child(path, "at"), "at " + FormatDuration(job.at) + " is after until (" + FormatDuration(s.until) + "): it never happens");
    std::vector<std::string> given;
    for (const char* key : {"manifest", "inline", "delete", "suspend", "resume"}) {
      if (Get(item, key) != nullptr) given.push_back(key);
    }
    if (given.empty()) {
      Problem(path, "a job needs one of manifest, inline, delete, suspend, resume");
      return;
    }
    if (given.size() > 1) {
      Problem(path, "a job entry does one thing: found both " + given[0] + " and " + given[1]);
      return;
    }
    const std::string& what = given[0];
    if (auto dataset = String(item, "dataset", path)) {
      if (what != "manifest" && what != "inline") {
        Problem(Child(path, "dataset"), "dataset only goes with manifest or inline");
      } else if (!DatasetKnown(s, *dataset)) {
        Problem(Child(path, "dataset"), WithSuggestion("no dataset named " + Quoted(*dataset) + " in datasets", *dataset, DatasetNames(s)));
      } else {
        job.dataset = *dataset;
      }
    }
    if (what == "manifest") {
      auto relative = String(item, "manifest", path, true);
      if (!relative) return;
      job.manifest_path = Resolve(*relative);
      YamlLoad load = LoadYamlFile(job.manifest_path);
      if (!load.ok()) {
        if (load.error->pos.known()) {
          out_->problems.push_back(load.error->ToString());
        } else {
          Problem(Child(path, "manifest"), "cannot load " + Quoted(job.manifest_path) + ": " + load.error->message);
        }
        return;
      }
      int documents = 0;
      for (const YamlDocument& document : load.documents) {
        if (document.value.is_null()) continue;
        ++documents;
        AddJobObject(document.value, job.manifest_path, document.positions, "", job, s);
      }
      if (documents == 0) Problem(Child(path, "manifest"), "no DGLJob in " + Quoted(job.manifest_path));
    } else if (what == "inline") {
      AddJobObject(item["inline"], file_, *positions_, Child(path, "inline"), job, s);
    } else {
      job.action = what == "delete" ? JobAction::kDelete : what == "suspend" ? JobAction::kSuspend : JobAction::kResume;
      pending_actions_.push_back({s.jobs.size(), Child(path, what), item[what]});
    }
    s.jobs.push_back(std::move(job));
  }

  // Checks one DGLJob (`object`, at `base` in `file`), as admission would, and records it.
  void AddJobObject(const json& object, const std::string& file, const SourceMap& positions, const std::string& base,
                    JobEntry& job, Scenario& s) {
    auto problem = [&](const std::string& path, const std::string& message) {
      out_->problems.push_back(FormatProblem(file, positions, JoinPath(base, path), message));
    };
    if (!object.is_object()) {
      problem("", "expected a DGLJob manifest, got " + TypeName(object));
      return;
    }
    const json* api_version = Get(object, "apiVersion");
    const json* kind = Get(object, "kind");
    if (kind == nullptr || *kind != dgl::kKind) {
      problem("kind", kind == nullptr ? "required field is missing: jobs are DGLJobs"
                                      : "unsupported value " + kind->dump() + ": jobs are DGLJobs (kind: DGLJob)");
      return;
    }
    if (api_version == nullptr || (*api_version != dgl::kApiVersion && *api_version != dgl::kLegacyApiVersion)) {
      problem("apiVersion", api_version == nullptr ? "required field is missing"
                                                   : "unsupported value " + api_version->dump() + ": must be \"" +
                                                         dgl::kApiVersion + "\" (or the original \"" + dgl::kLegacyApiVersion + "\")");
      return;
    }
    json converted = object;
    json defaulted;
    bool valid = true;
    try {
      const bool legacy = *api_version == dgl::kLegacyApiVersion;
      for (const std::string& warning : dgl::ConvertLegacy(converted)) {
        out_->warnings.push_back(FormatLocation(file, positions, JoinPath(base, "apiVersion")) + ": warning: " + warning);
      }
      defaulted = converted;
      dgl::DefaultDGLJob(defaulted);
      for (const kube::StatusCause& cause : dgl::ValidateDGLJob(defaulted)) {
        valid = false;
        const std::string path = JoinPath(base, cause.field);
        std::string located = path;
        const std::string moved = JoinPath(base, "spec.runPolicy.cleanPodPolicy");
        if (legacy && path.starts_with(moved) && !positions.Contains(moved)) {
          located = JoinPath(base, "spec.cleanPodPolicy") + path.substr(moved.size());
        }
        std::string line = FormatLocation(file, positions, located) + ": ";
        if (!path.empty()) line += path + ": ";
        out_->problems.push_back(line + cause.message);
      }
    } catch (const std::exception& e) {
      problem("", std::string("internal error while checking the DGLJob: ") + e.what());
      return;
    }
    if (!valid) return;
    const json& metadata = converted["metadata"];
    if (!metadata.contains("name") || !metadata["name"].is_string()) {
      problem("metadata.name", "a scenario's job needs metadata.name (not generateName) so faults and expectations can name it");
      return;
    }
    if (!metadata.contains("namespace") || metadata["namespace"].is_null()) converted["metadata"]["namespace"] = "default";
    JobKey key{converted["metadata"]["namespace"].get<std::string>(), metadata["name"].get<std::string>()};
    if (!IsDns1123Label(key.ns)) {
      problem("metadata.namespace", "invalid namespace " + Quoted(key.ns));
      return;
    }
    if (const json* annotations = Get(metadata, "annotations"); annotations != nullptr && annotations->is_object()) {
      if (const json* dataset = Get(*annotations, kDatasetAnnotation); dataset != nullptr && dataset->is_string()) {
        const std::string name = dataset->get<std::string>();
        const std::string field = std::string("metadata.annotations[") + kDatasetAnnotation + "]";
        if (!DatasetKnown(s, name)) {
          problem(field, WithSuggestion("no dataset named " + Quoted(name) + " in datasets", name, DatasetNames(s)));
        } else if (!job.dataset.empty() && job.dataset != name) {
          problem(field, "names dataset " + Quoted(name) + " but the job entry says " + Quoted(job.dataset));
        } else {
          job.dataset = name;
        }
      }
    }
    if (submitted_.count(key) == 0) {
      s.job_keys.push_back(key);
      pods_[key] = PodNamesOf(defaulted, key.name);
    }
    submitted_[key].push_back({job.at, s.jobs.size(), FormatLocation(file, positions, JoinPath(base, "metadata.name"))});
    job.targets.push_back(key);
    job.objects.push_back(std::move(converted));
  }

  // Resolves `job:` text (a name, or namespace/name) against the jobs the scenario submits.
  std::optional<JobKey> ResolveJob(const json& value, const std::string& path) {
    if (!value.is_string()) {
      Problem(path, "must be a job name or namespace/name, got " + TypeName(value));
      return std::nullopt;
    }
    const std::string text = value.get<std::string>();
    std::vector<std::string> known;
    for (const JobKey& k : job_keys_) known.push_back(k.name);
    if (const std::size_t slash = text.find('/'); slash != std::string::npos) {
      JobKey key{text.substr(0, slash), text.substr(slash + 1)};
      if (std::find(job_keys_.begin(), job_keys_.end(), key) != job_keys_.end()) return key;
      std::vector<std::string> full;
      for (const JobKey& k : job_keys_) full.push_back(k.ToString());
      Problem(path, WithSuggestion("no job " + Quoted(text) + " in the scenario's jobs", text, full));
      return std::nullopt;
    }
    std::vector<JobKey> matches;
    for (const JobKey& k : job_keys_) {
      if (k.name == text) matches.push_back(k);
    }
    if (matches.size() == 1) return matches[0];
    if (matches.empty()) {
      std::string message = "no job named " + Quoted(text) + " in the scenario's jobs";
      message = WithSuggestion(message, text, known);
      if (known.empty()) message += " (the scenario submits no jobs)";
      Problem(path, message);
    } else {
      Problem(path, "ambiguous: " + matches[0].ToString() + " and " + matches[1].ToString() + "; write namespace/name");
    }
    return std::nullopt;
  }

  // Resolves a pod (a name, or namespace/name) to one that a job of the scenario creates.
  std::optional<JobKey> ResolvePod(const json& value, const std::string& path) {
    if (!value.is_string() || value.get_ref<const std::string&>().empty()) {
      Problem(path, "must be a pod name or namespace/name, got " + (value.is_string() ? std::string("\"\"") : TypeName(value)));
      return std::nullopt;
    }
    const std::string text = value.get<std::string>();
    std::optional<std::string> ns;
    std::string name = text;
    if (const std::size_t slash = text.find('/'); slash != std::string::npos) {
      ns = text.substr(0, slash);
      name = text.substr(slash + 1);
    }
    std::vector<JobKey> found;
    std::vector<std::string> all;
    for (const auto& [job, pods] : pods_) {
      for (const std::string& pod : pods) {
        if (ns && job.ns != *ns) continue;
        all.push_back(ns ? job.ns + "/" + pod : pod);
        if (pod == name) found.push_back({job.ns, pod});
      }
    }
    if (found.size() == 1) return found[0];
    if (found.empty()) {
      std::string message = "no job of the scenario creates a pod " + Quoted(text);
      // Say which pods the job the name points at does create.
      for (const auto& [job, pods] : pods_) {
        if ((ns && job.ns != *ns) || !name.starts_with(job.name + "-")) continue;
        message += " (job " + job.ToString() + " creates " + PodSummary(job.name, pods) + ")";
        Problem(path, message);
        return std::nullopt;
      }
      if (all.size() > 5000) all.resize(5000);  // suggestions stay fast for jobs with many workers
      Problem(path, WithSuggestion(message, text, all));
    } else {
      Problem(path, "ambiguous: pod " + Quoted(name) + " exists in " + found[0].ns + " and " + found[1].ns + "; write namespace/name");
    }
    return std::nullopt;
  }

  // After every job is read: actions name submitted jobs, come after their submission, and a job is
  // not submitted twice while it exists.
  void CheckJobOrder(Scenario& s) {
    job_keys_ = s.job_keys;
    for (const auto& [key, submissions] : submitted_) {
      for (std::size_t i = 1; i < submissions.size(); ++i) {
        const Submission& previous = submissions[i - 1];
        const Submission& current = submissions[i];
        bool deleted_between = false;
        for (const PendingAction& a : pending_actions_) {
          const JobEntry& entry = s.jobs[a.job_index];
          if (entry.action != JobAction::kDelete) continue;
          auto target = PeekActionTarget(a.value);
          if (target && (*target == key || (target->ns.empty() && target->name == key.name)) && entry.at >= previous.at &&
              entry.at <= current.at) {
            deleted_between = true;
          }
        }
        if (!deleted_between) {
          const JobEntry& entry = s.jobs[current.job_index];
          out_->problems.push_back(current.location + ": " + entry.field_path + ": job " + key.ToString() +
                                   " is submitted again while it exists (first submitted at " + previous.location +
                                   "); delete it in between");
        }
      }
    }
    for (const PendingAction& a : pending_actions_) {
      JobEntry& entry = s.jobs[a.job_index];
      std::optional<JobKey> key;
      if (a.value.is_object()) {
        CheckFields(a.value, a.path, {"namespace", "name"});
        auto name = String(a.value, "name", a.path, true);
        auto ns = String(a.value, "namespace", a.path);
        if (!name) continue;
        key = ResolveJob(json(ns ? *ns + "/" + *name : *name), Child(a.path, "name"));
      } else {
        key = ResolveJob(a.value, a.path);
      }
      if (!key) continue;
      entry.targets.push_back(*key);
      const auto& submissions = submitted_[*key];
      if (!submissions.empty() && entry.at < submissions.front().at) {
        Problem(Child(entry.field_path, "at"), std::string(ToString(entry.action)) + " of " + key->ToString() + " at " +
                                                   FormatDuration(entry.at) + " comes before the job is submitted (at " +
                                                   FormatDuration(submissions.front().at) + ")");
      }
    }
  }

  static std::optional<JobKey> PeekActionTarget(const json& value) {
    std::string text;
    if (value.is_string()) {
      text = value.get<std::string>();
    } else if (value.is_object() && value.contains("name") && value["name"].is_string()) {
      text = value["name"].get<std::string>();
      if (value.contains("namespace") && value["namespace"].is_string()) text = value["namespace"].get<std::string>() + "/" + text;
    } else {
      return std::nullopt;
    }
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) return JobKey{"", text};
    return JobKey{text.substr(0, slash), text.substr(slash + 1)};
  }

  // ---- faults ------------------------------------------------------------------------------------
  void LoadFault(const json& item, const std::string& path, Scenario& s) {
    if (!ExpectObject(item, path, "a fault {at | when, kind, ...}")) return;
    static const std::vector<std::string> kKinds = {"NodeDown", "NodeUp", "PodKill", "OOM", "ImagePullError", "NetworkSlow",
                                                    "ApiFaults", "WatchDrop", "OperatorRestart"};
    static const std::map<std::string, std::vector<std::string>> kFields = {
        {"NodeDown", {"node", "nodeOf", "for"}},
        {"NodeUp", {"node"}},
        {"PodKill", {"pod", "container", "exitCode"}},
        {"OOM", {"pod", "container"}},
        {"ImagePullError", {"image", "node", "for"}},
        {"NetworkSlow", {"node", "factor", "for"}},
        {"ApiFaults", {"for", "conflictRate", "errorRate", "timeoutRate", "latency"}},
        {"WatchDrop", {}},
        {"OperatorRestart", {"for"}},
    };
    const std::vector<std::string> common = {"at", "when", "after", "kind"};
    std::vector<std::string> every = common;
    for (const auto& [kind, fields] : kFields) every.insert(every.end(), fields.begin(), fields.end());
    CheckFields(item, path, every);
    FaultSpec f;
    f.field_path = path;
    auto kind = Enum(item, "kind", path, kKinds, true);
    if (!kind) return;
    f.kind = static_cast<FaultKind>(std::find(kKinds.begin(), kKinds.end(), *kind) - kKinds.begin());
    const std::vector<std::string>& fields = kFields.at(*kind);
    for (const auto& [key, value] : item.items()) {
      if (Contains(common, key) || Contains(fields, key) || !Contains(every, key)) continue;
      std::string owners;
      for (const auto& [other, other_fields] : kFields) {
        if (Contains(other_fields, key)) owners += owners.empty() ? other : ", " + other;
      }
      Problem(Child(path, key), "field " + Quoted(key) + " is not used by a " + *kind + " fault (it belongs to " + owners + ")");
    }
    // When.
    const bool has_at = Get(item, "at") != nullptr;
    const json* when = Get(item, "when");
    if (has_at && when != nullptr) {
      Problem(path, "give at or when, not both");
    } else if (!has_at && when == nullptr) {
      Problem(path, "a fault needs at (a time) or when ({job, phase})");
    }
    if (has_at) {
      f.trigger.at = Duration(item, "at", path);
      if (Get(item, "after") != nullptr) Problem(Child(path, "after"), "after goes with when; with at, add the delay to at");
      if (f.trigger.at && *f.trigger.at > s.until) {
        Warning(Child(path, "at"), "at " + FormatDuration(*f.trigger.at) + " is after until (" + FormatDuration(s.until) + "): it never happens");
      }
    }
    if (when != nullptr) {
      const std::string when_path = Child(path, "when");
      if (ExpectObject(*when, when_path, "a trigger {job, phase}")) {
        CheckFields(*when, when_path, {"job", "phase"});
        if (const json* job = Get(*when, "job")) {
          f.trigger.job = ResolveJob(*job, Child(when_path, "job"));
        } else {
          Problem(Child(when_path, "job"), "required field is missing");
        }
        if (auto phase = Enum(*when, "phase", when_path, Names(kJobPhases), true)) f.trigger.phase = *phase;
      }
      if (auto after = Duration(item, "after", path)) f.trigger.after = *after;
    }
    if (Contains(fields, "for")) f.duration = Duration(item, "for", path, true);
    auto node = [&](bool required) {
      if (auto name = String(item, "node", path, required)) {
        if (node_names_.count(*name) == 0) {
          std::string message = "no node " + Quoted(*name) + " in the cluster";
          if (!node_order_.empty()) {
            message += " (nodes: " +
                       (node_order_.size() <= 8 ? Join(node_order_) : node_order_.front() + ", ... " + node_order_.back()) + ")";
          }
          Problem(Child(path, "node"), message);
        } else {
          f.node = *name;
        }
      }
    };
    switch (f.kind) {
      case FaultKind::kNodeDown: {
        const json* of = Get(item, "nodeOf");
        if ((Get(item, "node") != nullptr) == (of != nullptr)) {
          Problem(path, "a NodeDown fault names node or nodeOf (a pod), exactly one");
        } else if (of != nullptr) {
          f.node_of = ResolvePod(*of, Child(path, "nodeOf"));
        } else {
          node(true);
        }
        break;
      }
      case FaultKind::kNodeUp: node(true); break;
      case FaultKind::kPodKill:
      case FaultKind::kOOM:
        if (const json* pod = Get(item, "pod")) {
          f.pod = ResolvePod(*pod, Child(path, "pod"));
        } else {
          Problem(Child(path, "pod"), "required field is missing");
        }
        if (auto c = String(item, "container", path)) f.container = *c;
        if (f.kind == FaultKind::kPodKill) {
          if (auto code = Integer(item, "exitCode", path, 0, 255)) f.exit_code = static_cast<int>(*code);
        }
        break;
      case FaultKind::kImagePullError:
        if (auto image = String(item, "image", path, true)) f.image = *image;
        node(false);
        break;
      case FaultKind::kNetworkSlow:
        node(false);
        if (auto factor = Number(item, "factor", path, 0, 1, true, true)) f.factor = *factor;
        break;
      case FaultKind::kApiFaults: {
        if (auto r = Number(item, "conflictRate", path, 0, 1)) f.conflict_rate = *r;
        if (auto r = Number(item, "errorRate", path, 0, 1)) f.error_rate = *r;
        if (auto r = Number(item, "timeoutRate", path, 0, 1)) f.timeout_rate = *r;
        if (auto d = Duration(item, "latency", path)) f.latency = *d;
        bool any = false;
        for (const char* key : {"conflictRate", "errorRate", "timeoutRate", "latency"}) any = any || Get(item, key) != nullptr;
        if (!any) Warning(path, "this ApiFaults fault sets no conflictRate, errorRate, timeoutRate or latency: it does nothing");
        break;
      }
      case FaultKind::kWatchDrop:
      case FaultKind::kOperatorRestart: break;
    }
    s.faults.push_back(std::move(f));
  }

  // ---- expectations ----------------------------------------------------------------------------------
  void LoadExpectation(const json& item, const std::string& path, Scenario& s) {
    if (!ExpectObject(item, path, "an expectation such as {job: NAME, phase: Succeeded}")) return;
    // The field that says what an expectation checks, and the fields each kind takes.
    static const std::vector<std::pair<std::string, std::vector<std::string>>> kKinds = {
        {"phase", {"job", "phase"}},
        {"phases", {"job", "phases"}},
        {"condition", {"job", "condition", "reason", "status"}},
        {"within", {"job", "within"}},
        {"restarts", {"job", "restarts"}},
        {"configMap", {"configMap", "key", "lines", "line", "matches"}},
        {"breakdown", {"job", "breakdown", "between"}},
        {"peakMemory", {"job", "peakMemory", "between"}},
        {"pods", {"pods", "count", "at"}},
        {"invariants", {"invariants"}},
    };
    std::vector<std::string> every;
    for (const auto& [kind, fields] : kKinds) {
      for (const std::string& f : fields) {
        if (!Contains(every, f)) every.push_back(f);
      }
    }
    const std::size_t before = out_->problems.size();
    CheckFields(item, path, every);
    std::vector<std::string> present;
    for (const auto& [kind, fields] : kKinds) {
      if (item.contains(kind)) present.push_back(kind);
    }
    if (present.size() > 1) {
      Problem(path, "an expectation checks one thing: found both " + present[0] + " and " + present[1] + "; split it in two");
      return;
    }
    if (present.empty()) {
      if (out_->problems.size() == before) {
        std::vector<std::string> kinds;
        for (const auto& [kind, fields] : kKinds) kinds.push_back(kind);
        Problem(path, "unknown expectation: it needs one of " + Join(kinds));
      }
      return;
    }
    const std::string kind = present[0];
    const std::vector<std::string>& fields =
        std::find_if(kKinds.begin(), kKinds.end(), [&](const auto& k) { return k.first == kind; })->second;
    for (const auto& [key, value] : item.items()) {
      if (!Contains(fields, key) && Contains(every, key)) {
        Problem(Child(path, key), "field " + Quoted(key) + " does not go with a " + kind + " expectation");
      }
    }
    ExpectationSpec e;
    e.field_path = path;
    std::string job_text;
    if (Contains(fields, "job")) {
      if (const json* job = Get(item, "job")) {
        e.job = ResolveJob(*job, Child(path, "job"));
        if (job->is_string()) job_text = job->get<std::string>();
      } else {
        Problem(Child(path, "job"), "required field is missing");
      }
    }
    const std::string subject = "job " + job_text;
    if (kind == "phase") {
      e.kind = ExpectKind::kPhase;
      if (auto p = Enum(item, "phase", path, Names(kJobPhases), true)) e.phase = *p;
      e.text = subject + " phase " + e.phase;
    } else if (kind == "phases") {
      e.kind = ExpectKind::kPhases;
      const json& phases = item["phases"];
      if (!phases.is_array() || phases.empty()) {
        Problem(Child(path, "phases"), "must be a non-empty sequence of phases, got " + TypeName(phases));
      } else {
        for (std::size_t i = 0; i < phases.size(); ++i) {
          const std::string p_path = Index(Child(path, "phases"), i);
          if (!phases[i].is_string()) {
            Problem(p_path, "must be a phase, got " + TypeName(phases[i]));
          } else if (!Contains(Names(kJobPhases), phases[i].get<std::string>())) {
            Problem(p_path, WithSuggestion("unsupported value " + Quoted(phases[i].get<std::string>()) + ": one of " + Join(Names(kJobPhases)),
                                           phases[i].get<std::string>(), Names(kJobPhases)));
          } else {
            e.phases.push_back(phases[i].get<std::string>());
          }
        }
      }
      e.text = subject + " phases " + Join(e.phases, " -> ");
    } else if (kind == "condition") {
      e.kind = ExpectKind::kCondition;
      if (auto c = Enum(item, "condition", path, Names(dgl::kConditionTypes), true)) e.condition = *c;
      if (auto r = String(item, "reason", path)) e.reason = *r;
      if (auto st = Enum(item, "status", path, {"True", "False", "Unknown"})) e.status = *st;
      e.text = subject + " condition " + e.condition + (e.reason.empty() ? "" : " reason " + e.reason);
    } else if (kind == "within") {
      e.kind = ExpectKind::kWithin;
      if (auto d = Duration(item, "within", path, true, true)) e.within = *d;
      e.text = subject + " terminal within " + FormatDuration(e.within);
    } else if (kind == "restarts") {
      e.kind = ExpectKind::kRestarts;
      if (auto r = Integer(item, "restarts", path, 0, 1'000'000, true)) e.restarts = *r;
      e.text = subject + " restarts " + std::to_string(e.restarts);
    } else if (kind == "configMap") {
      LoadConfigMapExpectation(item, path, e);
    } else if (kind == "breakdown" || kind == "peakMemory") {
      const bool breakdown = kind == "breakdown";
      e.kind = breakdown ? ExpectKind::kBreakdown : ExpectKind::kPeakMemory;
      if (breakdown) {
        if (auto st = Enum(item, "breakdown", path, Names(kBreakdownStages), true)) e.stage = *st;
      } else {
        if (auto role = Enum(item, "peakMemory", path, Names(kMemoryRoles), true)) e.memory_role = *role;
      }
      const std::string b_path = Child(path, "between");
      const json* between = Get(item, "between");
      if (between == nullptr) {
        Problem(b_path, "required field is missing: [low, high]");
      } else if (!between->is_array() || between->size() != 2) {
        Problem(b_path, "must be [low, high], got " + (between->is_array() ? std::to_string(between->size()) + " items" : TypeName(*between)));
      } else if (breakdown) {
        Parsed<Micros> lo = ParseDurationValue((*between)[0]);
        Parsed<Micros> hi = ParseDurationValue((*between)[1]);
        if (!lo.ok()) Problem(Index(b_path, 0), lo.error);
        if (!hi.ok()) Problem(Index(b_path, 1), hi.error);
        if (lo.ok() && hi.ok()) {
          if (*lo.value > *hi.value) Problem(b_path, "low " + FormatDuration(*lo.value) + " is above high " + FormatDuration(*hi.value));
          e.time_between = {*lo.value, *hi.value};
        }
        e.text = subject + " " + e.stage + " between " + FormatDuration(e.time_between.first) + " and " + FormatDuration(e.time_between.second);
      } else {
        auto lo = Size((*between)[0], Index(b_path, 0));
        auto hi = Size((*between)[1], Index(b_path, 1));
        if (lo && hi) {
          if (*lo > *hi) Problem(b_path, "low " + kube::FormatBytes(*lo) + " is above high " + kube::FormatBytes(*hi));
          e.bytes_between = {*lo, *hi};
        }
        e.text = subject + " peak memory of " + e.memory_role + " between " + kube::FormatBytes(e.bytes_between.first) + " and " +
                 kube::FormatBytes(e.bytes_between.second);
      }
    } else if (kind == "pods") {
      e.kind = ExpectKind::kPodCount;
      const std::string p_path = Child(path, "pods");
      const json& pods = item["pods"];
      if (ExpectObject(pods, p_path, "{namespace, selector}")) {
        CheckFields(pods, p_path, {"namespace", "selector"});
        if (auto ns = String(pods, "namespace", p_path)) e.pods_namespace = *ns;
        if (auto selector = String(pods, "selector", p_path)) {
          auto parsed = kube::LabelSelector::Parse(*selector);
          if (!parsed.ok()) {
            Problem(Child(p_path, "selector"), "invalid label selector " + Quoted(*selector) + ": " + parsed.status().message());
          } else {
            e.pods_selector = *selector;
          }
        }
      }
      if (auto count = Integer(item, "count", path, 0, 10'000'000, true)) e.count = *count;
      if (const json* at = Get(item, "at")) {
        if (at->is_string() && at->get<std::string>() == "end") {
          e.at = "end";
        } else {
          Parsed<Micros> d = ParseDurationValue(*at);
          if (!d.ok()) {
            Problem(Child(path, "at"), d.error + " (at is \"end\" or a time)");
          } else {
            e.at = FormatDuration(*d.value);
            e.at_time = d.value;
          }
        }
      }
      e.text = "pods " + (e.pods_namespace.empty() ? std::string() : e.pods_namespace + " ") + e.pods_selector + " count " +
               std::to_string(e.count) + " at " + e.at;
    } else if (kind == "invariants") {
      e.kind = ExpectKind::kInvariants;
      const json& inv = item["invariants"];
      const std::vector<std::string> names = Names(kInvariantNames);
      if (inv.is_string() && inv.get<std::string>() == "all") {
        e.invariants = names;
      } else if (inv.is_array()) {
        for (std::size_t i = 0; i < inv.size(); ++i) {
          if (!inv[i].is_string() || !Contains(names, inv[i].get<std::string>())) {
            const std::string name = inv[i].is_string() ? inv[i].get<std::string>() : inv[i].dump();
            Problem(Index(Child(path, "invariants"), i),
                    WithSuggestion("unknown invariant " + Quoted(name) + ": one of " + Join(names), name, names));
          } else {
            e.invariants.push_back(inv[i].get<std::string>());
          }
        }
      } else {
        Problem(Child(path, "invariants"), "must be \"all\" or a list of invariant names, got " +
                                               (inv.is_string() ? Quoted(inv.get<std::string>()) : TypeName(inv)));
      }
      e.text = "invariants " + (e.invariants.size() == names.size() ? std::string("all") : Join(e.invariants));
    }
    s.expectations.push_back(std::move(e));
  }

  void LoadConfigMapExpectation(const json& item, const std::string& path, ExpectationSpec& e) {
    const std::string cm_path = Child(path, "configMap");
    if (auto text = String(item, "configMap", path, true)) {
      std::string ns = "default";
      std::string name = *text;
      if (const std::size_t slash = text->find('/'); slash != std::string::npos) {
        ns = text->substr(0, slash);
        name = text->substr(slash + 1);
      }
      std::vector<std::string> known;
      bool found = false;
      for (const JobKey& k : job_keys_) {
        known.push_back(k.ns + "/" + dgl::ConfigMapName(k.name));
        found = found || (k.ns == ns && dgl::ConfigMapName(k.name) == name);
      }
      if (!found) {
        Problem(cm_path, WithSuggestion("no job of the scenario creates ConfigMap " + Quoted(ns + "/" + name) +
                                            " (a job J makes J-config)", ns + "/" + name, known));
      } else {
        e.config_map = JobKey{ns, name};
      }
    }
    const std::vector<std::string> keys(std::begin(dgl::kConfigMapKeys), std::end(dgl::kConfigMapKeys));
    if (auto key = Enum(item, "key", path, keys, true)) e.key = *key;
    const bool has_lines = Get(item, "lines") != nullptr;
    const bool has_line = Get(item, "line") != nullptr || Get(item, "matches") != nullptr;
    if (has_lines == has_line) {
      Problem(path, "a configMap expectation gives lines (a count) or line and matches");
      return;
    }
    const std::string where = (e.config_map ? e.config_map->ToString() : std::string("?")) + " key " + e.key;
    if (has_lines) {
      e.kind = ExpectKind::kConfigMapLines;
      if (auto n = Integer(item, "lines", path, 0, 10'000'000, true)) e.lines = *n;
      e.text = "configMap " + where + " lines " + std::to_string(e.lines);
      return;
    }
    e.kind = ExpectKind::kConfigMapLine;
    if (auto n = Integer(item, "line", path, 0, 10'000'000, true)) e.line = *n;
    if (auto pattern = String(item, "matches", path, true)) {
      try {
        std::regex compiled(*pattern, std::regex::ECMAScript);
        e.matches = *pattern;
      } catch (const std::regex_error& err) {
        Problem(Child(path, "matches"), "invalid regular expression " + Quoted(*pattern) + ": " + err.what());
      } catch (const std::exception& err) {
        Problem(Child(path, "matches"), "invalid regular expression " + Quoted(*pattern) + ": " + err.what());
      }
    }
    e.text = "configMap " + where + " line " + std::to_string(e.line) + " matches " + e.matches;
  }

  struct Submission {
    Micros at;
    std::size_t job_index;
    std::string location;  // "file:line:col" of the job's metadata.name
  };
  struct PendingAction {
    std::size_t job_index;
    std::string path;  // "jobs[3].delete"
    json value;
  };

  std::string file_;
  std::string base_dir_;
  ScenarioLoad* out_;
  const SourceMap* positions_ = nullptr;
  std::set<std::string> node_names_;
  std::vector<std::string> node_order_;
  std::map<JobKey, std::vector<Submission>> submitted_;
  std::map<JobKey, std::vector<std::string>> pods_;
  std::vector<JobKey> job_keys_;
  std::vector<PendingAction> pending_actions_;
};

ScenarioLoad LoadFrom(const YamlLoad& load, const std::string& file, const std::string& base_dir) {
  ScenarioLoad out;
  try {
    Loader(file, base_dir, &out).Load(load);
  } catch (const std::exception& e) {
    // Every check above is written not to throw; should one ever do, it is a problem line, not a crash.
    out.problems.push_back(file + ": internal error while loading the scenario: " + e.what());
  }
  if (!out.problems.empty()) out.scenario.reset();
  return out;
}

}  // namespace

const char* ToString(Scoring scoring) { return scoring == Scoring::kMostAllocated ? "MostAllocated" : "LeastAllocated"; }

const char* ToString(JobAction action) {
  switch (action) {
    case JobAction::kSubmit: return "submit";
    case JobAction::kDelete: return "delete";
    case JobAction::kSuspend: return "suspend";
    case JobAction::kResume: return "resume";
  }
  return "?";
}

const char* ToString(FaultKind kind) {
  switch (kind) {
    case FaultKind::kNodeDown: return "NodeDown";
    case FaultKind::kNodeUp: return "NodeUp";
    case FaultKind::kPodKill: return "PodKill";
    case FaultKind::kOOM: return "OOM";
    case FaultKind::kImagePullError: return "ImagePullError";
    case FaultKind::kNetworkSlow: return "NetworkSlow";
    case FaultKind::kApiFaults: return "ApiFaults";
    case FaultKind::kWatchDrop: return "WatchDrop";
    case FaultKind::kOperatorRestart: return "OperatorRestart";
  }
  return "?";
}

const char* ToString(ExpectKind kind) {
  switch (kind) {
    case ExpectKind::kPhase: return "phase";
    case ExpectKind::kPhases: return "phases";
    case ExpectKind::kCondition: return "condition";
    case ExpectKind::kWithin: return "within";
    case ExpectKind::kRestarts: return "restarts";
    case ExpectKind::kConfigMapLines: return "configMap lines";
    case ExpectKind::kConfigMapLine: return "configMap line";
    case ExpectKind::kBreakdown: return "breakdown";
    case ExpectKind::kPeakMemory: return "peakMemory";
    case ExpectKind::kPodCount: return "pods";
    case ExpectKind::kInvariants: return "invariants";
  }
  return "?";
}

const std::vector<DatasetPreset>& DatasetPresets() {
  // Node and edge counts as OGB publishes them (calibration.md, "Datasets"); edges as stored, not
  // symmetrised.
  static const std::vector<DatasetPreset> kPresets = {
      {"ogbn-products", 2'449'029, 61'859'140, 100, "http://snap.stanford.edu/ogb/data/nodeproppred/products.zip"},
      {"ogbn-papers100M", 111'059'956, 1'615'685'872, 128, "http://snap.stanford.edu/ogb/data/nodeproppred/papers100M-bin.zip"},
      {"ogbn-arxiv", 169'343, 1'166'243, 128, "http://snap.stanford.edu/ogb/data/nodeproppred/arxiv.zip"},
      {"ogbn-proteins", 132'534, 39'561'252, 8, "http://snap.stanford.edu/ogb/data/nodeproppred/proteins.zip"},
  };
  return kPresets;
}

std::vector<std::string> ClusterSpec::NodeNames() const {
  std::vector<std::string> names;
  for (const NodeGroup& group : nodes) {
    if (group.node_template) {
      for (int i = 0; i < group.node_template->count; ++i) names.push_back(group.node_template->name + "-" + std::to_string(i));
    }
    if (group.manifest) {
      for (const json& node : group.manifest->nodes) names.push_back(node["metadata"]["name"].get<std::string>());
    }
  }
  return names;
}

std::string SuggestName(std::string_view word, const std::vector<std::string>& candidates) {
  if (word.empty() || word.size() > 200) return "";
  const std::string lower = Lower(word);
  std::string best;
  std::size_t best_distance = std::numeric_limits<std::size_t>::max();
  for (const std::string& candidate : candidates) {
    if (candidate == word || candidate.size() > 200) continue;
    const std::size_t d = Lower(candidate) == lower ? 0 : EditDistance(word, candidate);
    const std::size_t limit = std::min(word.size(), candidate.size()) <= 3 ? 1 : 2;
    if (d <= limit && d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

ScenarioLoad LoadScenario(const std::string& path) {
  const std::string base = std::filesystem::path(path).parent_path().string();
  return LoadFrom(LoadYamlFile(path), path, base);
}

ScenarioLoad LoadScenarioString(std::string_view text, std::string_view file, std::string_view base_dir) {
  return LoadFrom(LoadYamlString(text, file), std::string(file), std::string(base_dir));
}

ManifestReport ValidateScenarioFile(const std::string& path) {
  ScenarioLoad load = LoadScenario(path);
  ManifestReport report;
  report.file = path;
  report.documents = load.scenario ? 1 : 0;
  report.problems = std::move(load.problems);
  report.warnings = std::move(load.warnings);
  if (load.scenario) {
    const Scenario& s = *load.scenario;
    std::size_t nodes = s.cluster.NodeNames().size();
    report.notes.push_back(path + ": note: scenario " + s.name + ": " + std::to_string(nodes) + " nodes, " +
                           std::to_string(s.job_keys.size()) + " jobs, " + std::to_string(s.faults.size()) + " faults, " +
                           std::to_string(s.expectations.size()) + " expectations, until " + FormatDuration(s.until));
  }
  return report;
}

}  // namespace harness
