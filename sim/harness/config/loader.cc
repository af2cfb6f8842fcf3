// The scenario loader: the document, reporting and typed access. See loader.h.
#include "sim/harness/config/loader.h"

#include "sim/harness/config/calibration_file.h"
#include "sim/kernel/input_file.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <utility>

namespace harness::loading {

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

std::string JoinPath(const std::string& base, std::string_view path) { return JoinFieldPath(base, path); }

std::string Join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const std::string& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

bool Contains(const std::vector<std::string>& items, std::string_view item) {
  return std::find(items.begin(), items.end(), item) != items.end();
}

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

Loader::Loader(std::string file, std::string base_dir, ScenarioLoad* out, std::optional<std::uint64_t> seed)
    : file_(std::move(file)), base_dir_(std::move(base_dir)), out_(out), seed_override_(seed) {}

void Loader::Load(const YamlLoad& load) {
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

// ---- reporting -------------------------------------------------------------------------------------

void Loader::Problem(const std::string& path, const std::string& message) {
  out_->problems.push_back(FormatProblem(file_, *positions_, path, message));
}
void Loader::Warning(const std::string& path, const std::string& message) {
  out_->warnings.push_back(FormatLocation(file_, *positions_, path) + ": warning: " + message);
}

// ---- typed access ------------------------------------------------------------------------------------

const json* Loader::Get(const json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

void Loader::CheckFields(const json& object, const std::string& path, const std::vector<std::string>& allowed,
                         const std::vector<std::string>& suggest_from) {
  if (!object.is_object()) return;
  for (const auto& [key, value] : object.items()) {
    if (Contains(allowed, key)) continue;
    const std::string field = Child(path, key);
    const auto& retired = RetiredFields();
    auto it = std::find_if(retired.begin(), retired.end(), [&](const RetiredField& r) { return r.path == field; });
    if (it != retired.end()) {
      Problem(field, "refused: " + std::string(it->reason));
      continue;
    }
    Problem(field, WithSuggestion("unknown field " + Quoted(key), key, suggest_from.empty() ? allowed : suggest_from));
  }
}

void Loader::CheckSchemaFields(const json& object, const std::string& path, std::string_view schema_parent) {
  CheckFields(object, path, SchemaChildren(schema_parent));
}

bool Loader::ExpectObject(const json& value, const std::string& path, std::string_view what) {
  if (value.is_object()) return true;
  Problem(path, "must be " + std::string(what) + ", got " + TypeName(value));
  return false;
}

std::optional<std::string> Loader::String(const json& object, const char* key, const std::string& path, bool required) {
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

std::optional<std::int64_t> Loader::Integer(const json& object, const char* key, const std::string& path, std::int64_t min,
                                    std::int64_t max, bool required) {
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

std::optional<double> Loader::Number(const json& object, const char* key, const std::string& path, double min, double max,
                             bool min_exclusive, bool required) {
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

std::optional<bool> Loader::Bool(const json& object, const char* key, const std::string& path) {
  const json* value = Get(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_boolean()) {
    Problem(Child(path, key), "must be true or false, got " + (value->is_string() ? Quoted(value->get<std::string>()) : TypeName(*value)));
    return std::nullopt;
  }
  return value->get<bool>();
}

std::optional<Micros> Loader::Duration(const json& object, const char* key, const std::string& path, bool positive,
                               bool required) {
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

std::optional<double> Loader::Bandwidth(const json& object, const char* key, const std::string& path) {
  const json* value = Get(object, key);
  if (value == nullptr) return std::nullopt;
  Parsed<double> b = ParseBandwidthValue(*value);
  if (!b.ok()) {
    Problem(Child(path, key), b.error);
    return std::nullopt;
  }
  return b.value;
}

std::optional<std::int64_t> Loader::Size(const json& value, const std::string& path) {
  Parsed<std::int64_t> s = ParseSizeValue(value);
  if (!s.ok()) {
    Problem(path, s.error);
    return std::nullopt;
  }
  return s.value;
}

std::optional<std::string> Loader::Enum(const json& object, const char* key, const std::string& path,
                                const std::vector<std::string>& values, bool required) {
  std::optional<std::string> s = String(object, key, path, required);
  if (!s) return std::nullopt;
  if (!Contains(values, *s)) {
    Problem(Child(path, key), WithSuggestion("unsupported value " + Quoted(*s) + ": one of " + Join(values), *s, values));
    return std::nullopt;
  }
  return s;
}

// A sequence member: each item is handed to `each(item, item_path, index)`.
std::string Loader::Resolve(const std::string& relative) const {
  std::filesystem::path p(relative);
  if (p.is_absolute() || base_dir_.empty()) return p.lexically_normal().string();
  return (std::filesystem::path(base_dir_) / p).lexically_normal().string();
}

// ---- the document ------------------------------------------------------------------------------------

void Loader::LoadTop(const json& top, Scenario& s) {
  if (!ExpectObject(top, "", "a mapping (apiVersion, kind, metadata, cluster, jobs, ...)")) return;
  CheckSchemaFields(top, "", "");
  if (std::optional<std::string> v = String(top, "apiVersion", "", true); v && *v != kScenarioApiVersion) {
    Problem("apiVersion", "unsupported value " + Quoted(*v) + ": must be " + Quoted(kScenarioApiVersion));
  }
  if (std::optional<std::string> k = String(top, "kind", "", true); k && *k != kScenarioKind) {
    Problem("kind", "unsupported value " + Quoted(*k) + ": must be " + Quoted(kScenarioKind));
  }
  LoadMetadata(top, s);
  if (auto seed = Integer(top, "seed", "", 0, std::numeric_limits<std::int64_t>::max())) s.seed = static_cast<std::uint64_t>(*seed);
  if (seed_override_) s.seed = *seed_override_;
  if (auto until = Duration(top, "until", "", true)) s.until = *until;
  seed_ = s.seed;  // the generators (node failures, arrivals) draw from these
  until_ = s.until;
  if (const json* cluster = Get(top, "cluster"); cluster == nullptr) {
    Problem("cluster", "required field is missing: a scenario needs cluster.nodes");
  } else if (ExpectObject(*cluster, "cluster")) {
    LoadCluster(*cluster, s.cluster);
  }
  LoadSettings(top, s);
  LoadCalibration(top, s);
  Sequence(top, "datasets", "", [&](const json& item, const std::string& path) { LoadDataset(item, path, s); });
  Sequence(top, "jobs", "", [&](const json& item, const std::string& path) { LoadJob(item, path, s); });
  Sequence(top, "arrivals", "", [&](const json& item, const std::string& path) { LoadArrival(item, path, s); });
  CheckJobOrder(s);
  // Placements name the jobs' pods: read once the jobs are.
  if (const json* cluster = Get(top, "cluster"); cluster != nullptr && cluster->is_object()) LoadPlacements(*cluster, s.cluster);
  Sequence(top, "faults", "", [&](const json& item, const std::string& path) { LoadFault(item, path, s); });
  for (FaultSpec& fault : generated_faults_) s.faults.push_back(std::move(fault));
  Sequence(top, "expect", "", [&](const json& item, const std::string& path) { LoadExpectation(item, path, s); });

  std::set<std::string> namespaces;
  for (const JobKey& key : s.job_keys) namespaces.insert(key.ns);
  s.namespaces.assign(namespaces.begin(), namespaces.end());
  s.job_pods = pods_;
}

void Loader::LoadMetadata(const json& top, Scenario& s) {
  s.name = std::filesystem::path(file_).stem().string();
  const json* metadata = Get(top, "metadata");
  if (metadata == nullptr || !ExpectObject(*metadata, "metadata")) return;
  CheckSchemaFields(*metadata, "metadata", "metadata");
  if (auto name = String(*metadata, "name", "metadata"); name && !name->empty()) s.name = *name;
  if (auto description = String(*metadata, "description", "metadata")) s.description = *description;
  for (auto [key, into] : {std::pair{"labels", &s.labels}, std::pair{"annotations", &s.annotations}}) {
    const json* map = Get(*metadata, key);
    const std::string path = Child("metadata", key);
    if (map == nullptr || !ExpectObject(*map, path)) continue;
    for (const auto& [k, v] : map->items()) {
      if (v.is_string()) (*into)[k] = v.get<std::string>();
      else Problem(Child(path, k), "must be a string, got " + TypeName(v));
    }
  }
}

// api: and operator:.
void Loader::LoadSettings(const json& top, Scenario& s) {
  if (const json* api = Get(top, "api"); api != nullptr && ExpectObject(*api, "api")) {
    CheckSchemaFields(*api, "api", "api");
    if (auto d = Duration(*api, "watchLatency", "api")) s.api.watch_latency = *d;
    if (auto d = Duration(*api, "requestLatency", "api")) s.api.request_latency = *d;
  }
  if (const json* op = Get(top, "operator"); op != nullptr && ExpectObject(*op, "operator")) {
    CheckSchemaFields(*op, "operator", "operator");
    if (auto b = Bool(*op, "enabled", "operator")) s.operator_settings.enabled = *b;
    if (auto d = Duration(*op, "reconcileLatency", "operator")) s.operator_settings.reconcile_latency = *d;
    if (auto b = Bool(*op, "gangScheduling", "operator")) s.operator_settings.gang_scheduling = *b;
    if (auto file = String(*op, "rbac", "operator")) {
      s.operator_settings.rbac_file = Resolve(*file);
      auto text = sim::ReadInputFile(s.operator_settings.rbac_file, sim::kMaxDocumentBytes);
      if (!text.ok()) {
        Problem(Child("operator", "rbac"), "cannot load " + Quoted(s.operator_settings.rbac_file) + ": " + text.error);
        return;
      }
      RbacObjects loaded = LoadRbacObjects(text.text, s.operator_settings.rbac_file);
      for (std::string& p : loaded.problems) out_->problems.push_back(std::move(p));
      s.operator_settings.rbac = std::move(loaded.objects);
      return;
    }
  }
  s.operator_settings.rbac = LoadRbacObjects(DefaultOperatorRbac(), "deploy/rbac.yaml").objects;
}

void Loader::LoadCalibration(const json& top, Scenario& s) {
  auto file = String(top, "calibration", "");
  if (!file) return;
  s.calibration_file = Resolve(*file);
  sim::InputFile text = sim::ReadInputFile(s.calibration_file, sim::kMaxDocumentBytes);
  if (!text.ok()) {
    Problem("calibration", "cannot read " + Quoted(s.calibration_file) + ": " + text.error);
    return;
  }
  // Problems inside the calibration file name that file's own lines and columns.
  CalibrationLoad calibration = LoadCalibrationString(text.text, s.calibration_file);
  if (calibration.ok()) s.calibration = *calibration.calibration;
  for (const auto& problem : calibration.problems) out_->problems.push_back(problem);
}

}  // namespace harness::loading
