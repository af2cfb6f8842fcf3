#include "sim/harness/sweep/sweep_file.h"

#include "sim/harness/config/units.h"
#include "sim/harness/sweep/metrics.h"
#include "sim/harness/sweep/point_document.h"

#include <cmath>
#include <filesystem>
#include <set>

namespace harness::sweep {
namespace {

using json = kube::Json;

constexpr std::size_t kMaxPoints = 100000;
constexpr std::int64_t kMaxSeeds = 10000;

std::string Child(const std::string& path, const std::string& key) {
  std::vector<PathSegment> s = ParseFieldPath(path);
  s.emplace_back(key);
  return FormatFieldPath(s);
}
std::string Item(const std::string& path, std::size_t i) {
  std::vector<PathSegment> s = ParseFieldPath(path);
  s.emplace_back(i);
  return FormatFieldPath(s);
}

std::string ValueText(const json& value) { return value.is_string() ? value.get<std::string>() : value.dump(); }

// Reads one sweep document into a SweepSpec, collecting problems.
class SweepReader {
 public:
  SweepReader(std::string file, std::string dir, SweepLoad* out) : file_(std::move(file)), dir_(std::move(dir)), out_(out) {}

  void Read(const YamlLoad& load) {
    if (!load.ok()) return out_->problems.push_back(load.error->ToString());
    const YamlDocument* document = nullptr;
    for (const YamlDocument& d : load.documents) {
      if (!d.value.is_null()) {
        document = &d;
        break;
      }
    }
    if (document == nullptr) return out_->problems.push_back(file_ + ":1:1: the file holds no sweep (expected kind: Sweep)");
    positions_ = &document->positions;
    SweepSpec spec;
    spec.file = file_;
    if (!ReadTop(document->value, spec) || !out_->problems.empty()) return;
    CheckPoints(spec);
    if (out_->problems.empty()) out_->spec = std::move(spec);
  }

 private:
  void Problem(const std::string& path, const std::string& message) {
    out_->problems.push_back(FormatProblem(file_, *positions_, path, message));
  }

  void CheckFields(const json& object, const std::string& path, const std::vector<std::string>& allowed) {
    for (const auto& [key, value] : object.items()) {
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string message = "unknown field " + Quoted(key);
      const std::string near = SuggestName(key, allowed);
      if (!near.empty()) message += " (did you mean " + Quoted(near) + "?)";
      Problem(Child(path, key), message);
    }
  }

  const json* Mapping(const json& parent, const char* key, const std::string& path, bool required = false) {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) {
      if (required) Problem(Child(path, key), "required field is missing");
      return nullptr;
    }
    if (!it->is_object()) {
      Problem(Child(path, key), "must be a mapping, got " + TypeName(*it));
      return nullptr;
    }
    return &*it;
  }

  std::optional<std::string> String(const json& parent, const char* key, const std::string& path, bool required = false) {
    auto it = parent.find(key);
    if (it == parent.end() || it->is_null()) {
      if (required) Problem(Child(path, key), "required field is missing");
      return std::nullopt;
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
      Problem(Child(path, key), "must be a non-empty string, got " + (it->is_string() ? std::string("\"\"") : TypeName(*it)));
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  bool ReadTop(const json& top, SweepSpec& spec) {
    if (!top.is_object()) {
      Problem("", "must be a mapping (apiVersion, kind, base, parameters, ...), got " + TypeName(top));
      return false;
    }
    CheckFields(top, "", {"apiVersion", "kind", "metadata", "base", "seeds", "parameters", "points", "objective", "lineBy", "plots"});
    if (auto v = String(top, "apiVersion", "", true); v && *v != kScenarioApiVersion)
      Problem("apiVersion", "unsupported value " + Quoted(*v) + ": must be " + Quoted(kScenarioApiVersion));
    if (auto k = String(top, "kind", "", true); k && *k != kSweepKind)
      Problem("kind", "unsupported value " + Quoted(*k) + ": must be " + Quoted(kSweepKind));
    spec.name = std::filesystem::path(file_).stem().string();
    if (const json* metadata = Mapping(top, "metadata", "")) {
      CheckFields(*metadata, "metadata", {"name", "description"});
      if (auto name = String(*metadata, "name", "metadata")) spec.name = *name;
      if (auto description = String(*metadata, "description", "metadata")) spec.description = *description;
    }
    auto base = String(top, "base", "", true);
    if (!base) return false;
    spec.base_as_written = *base;
    std::filesystem::path base_path(*base);
    if (!base_path.is_absolute() && !dir_.empty()) base_path = std::filesystem::path(dir_) / base_path;
    spec.base_file = base_path.lexically_normal().string();
    spec.base_dir = base_path.lexically_normal().parent_path().string();
    if (!ReadBase(spec)) return false;
    ReadParameters(top, spec);
    ReadSeeds(top, spec);
    if (const json* objective = Mapping(top, "objective", "")) ReadObjective(*objective, spec.objective);
    if (auto line_by = String(top, "lineBy", "")) {
      bool known = false;
      for (const SweepParameter& p : spec.parameters) known = known || p.name == *line_by;
      if (!known) Problem("lineBy", "no parameter named " + Quoted(*line_by));
      spec.line_by = *line_by;
    }
    ReadPlots(top, spec);
    if (out_->problems.empty()) ReadPoints(top, spec);
    return true;
  }

  void ReadPlots(const json& top, SweepSpec& spec) {
    auto it = top.find("plots");
    if (it == top.end() || it->is_null()) return;
    std::vector<std::string> known(std::begin(kPlotFigures), std::end(kPlotFigures));
    std::string list;
    for (const std::string& k : known) list += (list.empty() ? "" : ", ") + k;
    if (!it->is_array() || it->empty()) return Problem("plots", "must be a non-empty list of figures (" + list + "), got " + it->dump());
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& figure = (*it)[i];
      const std::string name = figure.is_string() ? figure.get<std::string>() : figure.dump();
      if (std::find(known.begin(), known.end(), name) == known.end()) {
        const std::string near = SuggestName(name, known);
        Problem(Item("plots", i), "unknown figure " + Quoted(name) + (near.empty() ? ": one of " + list : " (did you mean " + Quoted(near) + "?)"));
      } else if (std::find(spec.plots.begin(), spec.plots.end(), name) != spec.plots.end()) {
        Problem(Item("plots", i), "figure " + Quoted(name) + " is listed twice");
      } else {
        spec.plots.push_back(name);
      }
    }
  }

  // The base scenario must load on its own: its problems are reported as the loader words them.
  bool ReadBase(SweepSpec& spec) {
    ScenarioLoad scenario = LoadScenario(spec.base_file);
    for (const std::string& warning : scenario.warnings) out_->warnings.push_back(warning);
    if (!scenario.ok()) {
      if (scenario.problems.empty()) Problem("base", "cannot load the base scenario " + Quoted(spec.base_file));
      for (const std::string& problem : scenario.problems) out_->problems.push_back(problem);
      return false;
    }
    YamlLoad load = LoadYamlFile(spec.base_file);
    for (const YamlDocument& d : load.documents) {
      if (!d.value.is_null()) {
        spec.base = d.value;
        break;
      }
    }
    // A sweep judges points by its objective; the base's expectations would be about the base.
    spec.base.erase("expect");
    if (!spec.seeds.empty()) return true;
    spec.seeds.push_back(scenario.scenario->seed);
    return true;
  }

  // A path into the base: checked, manifests inlined, canonical.
  std::optional<std::string> Target(const json& path_value, const std::string& field, SweepSpec& spec) {
    if (!path_value.is_string() || path_value.get<std::string>().empty()) {
      Problem(field, "must be a field path such as cluster.nodes[0].count, got " + TypeName(path_value));
      return std::nullopt;
    }
    std::vector<PathSegment> path = ParseFieldPath(path_value.get<std::string>());
    if (path.empty() || path[0] == PathSegment(std::string("seed"))) {
      Problem(field, "the seed is set by `seeds:`, not by a parameter");
      return std::nullopt;
    }
    if (std::string error = InlineManifest(spec.base, path, spec.base_dir); !error.empty()) {
      Problem(field, error);
      return std::nullopt;
    }
    if (std::string missing = MissingPart(spec.base, path); !missing.empty()) {
      Problem(field, missing);
      return std::nullopt;
    }
    return FormatFieldPath(path);
  }

  void ReadParameters(const json& top, SweepSpec& spec) {
    auto it = top.find("parameters");
    if (it == top.end() || !it->is_array() || it->empty()) {
      Problem("parameters", it == top.end() ? "required field is missing: a sweep varies at least one parameter"
                                            : "must be a non-empty sequence of parameters");
      return;
    }
    std::set<std::string> names;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string path = Item("parameters", i);
      const json& item = (*it)[i];
      if (!item.is_object()) {
        Problem(path, "must be a parameter {name, set, values}, got " + TypeName(item));
        continue;
      }
      CheckFields(item, path, {"name", "set", "values"});
      SweepParameter parameter;
      parameter.field_path = path;
      if (auto name = String(item, "name", path, true)) {
        parameter.name = *name;
        if (!names.insert(*name).second) Problem(Child(path, "name"), "parameter " + Quoted(*name) + " is named twice");
      }
      std::vector<SweepTarget> targets = ReadTargets(item, path, spec);
      ReadValues(item, path, targets, parameter, spec);
      parameter.numeric = !parameter.values.empty();
      for (const SweepValue& v : parameter.values) parameter.numeric = parameter.numeric && v.x.has_value();
      spec.parameters.push_back(std::move(parameter));
    }
  }

  std::vector<SweepTarget> ReadTargets(const json& item, const std::string& path, SweepSpec& spec) {
    std::vector<SweepTarget> targets;
    auto it = item.find("set");
    if (it == item.end()) return targets;
    const std::string field = Child(path, "set");
    const json list = it->is_array() ? *it : json::array({*it});
    for (std::size_t j = 0; j < list.size(); ++j) {
      const std::string target_field = it->is_array() ? Item(field, j) : field;
      SweepTarget target;
      target.field_path = target_field;
      json path_value = list[j];
      if (list[j].is_object()) {
        CheckFields(list[j], target_field, {"path", "format"});
        path_value = list[j].value("path", json());
        if (auto format = String(list[j], "format", target_field)) target.format = *format;
        if (!target.format.empty() && target.format.find("{}") == std::string::npos)
          Problem(Child(target_field, "format"), "must contain {} where the value goes");
      }
      if (auto canonical = Target(path_value, list[j].is_object() ? Child(target_field, "path") : target_field, spec)) {
        target.path = *canonical;
        targets.push_back(std::move(target));
      }
    }
    return targets;
  }

  void ReadValues(const json& item, const std::string& path, const std::vector<SweepTarget>& targets,
                  SweepParameter& parameter, SweepSpec& spec) {
    auto it = item.find("values");
    const std::string field = Child(path, "values");
    if (it == item.end() || !it->is_array() || it->empty()) {
      Problem(field, it == item.end() ? "required field is missing" : "must be a non-empty sequence");
      return;
    }
    const bool bundles = item.find("set") == item.end();
    std::set<std::string> labels;
    for (std::size_t j = 0; j < it->size(); ++j) {
      const json& v = (*it)[j];
      SweepValue value;
      value.field_path = Item(field, j);
      if (!bundles) {
        value.label = ValueText(v);
        if (v.is_number()) value.x = v.get<double>();
        for (const SweepTarget& target : targets) value.writes.emplace_back(target, v);
      } else if (!ReadBundle(v, value, spec)) {
        continue;
      }
      if (!labels.insert(value.label).second) Problem(value.field_path, "the value " + Quoted(value.label) + " is listed twice");
      parameter.values.push_back(std::move(value));
    }
  }

  // {label, value, set: {path: value, ...}}: a value that writes several fields.
  bool ReadBundle(const json& v, SweepValue& value, SweepSpec& spec) {
    if (!v.is_object()) {
      Problem(value.field_path, "a parameter without `set` lists values as {label, set: {path: value, ...}}, got " + TypeName(v));
      return false;
    }
    CheckFields(v, value.field_path, {"label", "value", "set"});
    auto label = String(v, "label", value.field_path, true);
    if (label) value.label = *label;
    if (auto x = v.find("value"); x != v.end()) {
      if (x->is_number()) value.x = x->get<double>();
      else Problem(Child(value.field_path, "value"), "must be a number (the value's place on the plots' axis), got " + TypeName(*x));
    }
    const json* writes = Mapping(v, "set", value.field_path, true);
    if (writes == nullptr) return false;
    if (writes->empty()) Problem(Child(value.field_path, "set"), "must write at least one field");
    for (const auto& [path, written] : writes->items()) {
      SweepTarget target;
      target.field_path = Child(Child(value.field_path, "set"), path);
      if (auto canonical = Target(json(path), target.field_path, spec)) {
        target.path = *canonical;
        value.writes.emplace_back(std::move(target), written);
      }
    }
    return label.has_value();
  }

  void ReadSeeds(const json& top, SweepSpec& spec) {
    auto it = top.find("seeds");
    if (it == top.end() || it->is_null()) return;
    if (it->is_number_integer() && it->get<std::int64_t>() >= 1 && it->get<std::int64_t>() <= kMaxSeeds) {
      spec.seeds.clear();  // a count N: seeds 1..N, whatever the base's seed
      for (std::int64_t i = 1; i <= it->get<std::int64_t>(); ++i) spec.seeds.push_back(static_cast<std::uint64_t>(i));
      return;
    }
    if (!it->is_array() || it->empty()) {
      Problem("seeds", "must be a count (1 to " + std::to_string(kMaxSeeds) + ") or a non-empty list of seeds, got " + it->dump());
      return;
    }
    spec.seeds.clear();
    std::set<std::uint64_t> seen;
    for (std::size_t i = 0; i < it->size(); ++i) {
      const json& s = (*it)[i];
      if (!s.is_number_integer() || s.get<std::int64_t>() < 0) {
        Problem(Item("seeds", i), "must be a non-negative integer, got " + s.dump());
      } else if (!seen.insert(s.get<std::uint64_t>()).second) {
        Problem(Item("seeds", i), "seed " + s.dump() + " is listed twice");
      } else {
        spec.seeds.push_back(s.get<std::uint64_t>());
      }
    }
  }

  void ReadObjective(const json& o, Objective& objective) {
    CheckFields(o, "objective", {"goal", "deadline", "budget", "queueing"});
    if (auto goal = String(o, "goal", "objective")) {
      if (*goal == "fastest") objective.goal = Goal::kFastest;
      else if (*goal == "cheapest") objective.goal = Goal::kCheapest;
      else Problem("objective.goal", "unsupported value " + Quoted(*goal) + ": one of fastest, cheapest");
    }
    if (auto it = o.find("deadline"); it != o.end()) {
      Parsed<kube::Micros> d = ParseDurationValue(*it);
      if (!d.ok() || *d.value <= 0) Problem("objective.deadline", d.ok() ? "must be longer than 0s" : d.error);
      else objective.deadline_seconds = static_cast<double>(*d.value) / kube::kSecond;
    }
    if (auto it = o.find("budget"); it != o.end()) {
      if (!it->is_number() || it->get<double>() <= 0 || !std::isfinite(it->get<double>()))
        Problem("objective.budget", "must be a positive number (the cost's unit: pricePerHour x hours), got " + it->dump());
      else objective.budget = it->get<double>();
    }
    if (const json* q = Mapping(o, "queueing", "objective")) {
      CheckFields(*q, "objective.queueing", {"percentile", "under"});
      auto p = q->find("percentile");
      const bool known = p != q->end() && p->is_number_integer() &&
                         std::find(std::begin(kQueueingPercentiles), std::end(kQueueingPercentiles), p->get<int>()) != std::end(kQueueingPercentiles);
      if (!known)
        Problem("objective.queueing.percentile", p == q->end() ? "required field is missing" : "must be one of 50, 90, 95, 99, got " + p->dump());
      else objective.queueing_percentile = p->get<int>();
      auto u = q->find("under");
      Parsed<kube::Micros> d = u == q->end() ? Parsed<kube::Micros>::Error("required field is missing") : ParseDurationValue(*u);
      if (!d.ok()) Problem("objective.queueing.under", d.error);
      else objective.queueing_under_seconds = static_cast<double>(*d.value) / kube::kSecond;
    }
  }

  void ReadPoints(const json& top, SweepSpec& spec) {
    auto it = top.find("points");
    if (it == top.end() || it->is_null() || *it == "grid") return Grid(spec);
    if (!it->is_array() || it->empty()) return Problem("points", "must be \"grid\" or a non-empty list of points");
    for (std::size_t i = 0; i < it->size(); ++i) {
      const std::string path = Item("points", i);
      const json& item = (*it)[i];
      if (!item.is_object()) {
        Problem(path, "must be a mapping of parameter names to values, got " + TypeName(item));
        continue;
      }
      SweepPoint point{std::vector<int>(spec.parameters.size(), -1), path};
      std::vector<std::string> names;
      for (const SweepParameter& p : spec.parameters) names.push_back(p.name);
      for (const auto& [name, value] : item.items()) {
        auto p = std::find(names.begin(), names.end(), name);
        if (p == names.end()) {
          const std::string near = SuggestName(name, names);
          Problem(Child(path, name), "no parameter named " + Quoted(name) + (near.empty() ? "" : " (did you mean " + Quoted(near) + "?)"));
          continue;
        }
        const SweepParameter& parameter = spec.parameters[static_cast<std::size_t>(p - names.begin())];
        const std::string label = ValueText(value);
        int found = -1;
        for (std::size_t v = 0; v < parameter.values.size(); ++v)
          if (parameter.values[v].label == label) found = static_cast<int>(v);
        if (found < 0) Problem(Child(path, name), "parameter " + Quoted(name) + " has no value " + Quoted(label));
        point.values[static_cast<std::size_t>(p - names.begin())] = found;
      }
      spec.points.push_back(std::move(point));
    }
  }

  void Grid(SweepSpec& spec) {
    std::size_t total = 1;
    for (const SweepParameter& p : spec.parameters) {
      total *= std::max<std::size_t>(1, p.values.size());
      if (total > kMaxPoints) return Problem("parameters", "the grid has more than " + std::to_string(kMaxPoints) + " points");
    }
    std::vector<int> index(spec.parameters.size(), 0);
    for (std::size_t n = 0; n < total; ++n) {
      spec.points.push_back({index, "parameters"});
      for (std::size_t i = spec.parameters.size(); i-- > 0;) {
        if (++index[i] < static_cast<int>(spec.parameters[i].values.size())) break;
        index[i] = 0;
      }
    }
  }

  // Every point loads as a scenario; a problem is located at the value that caused it.
  void CheckPoints(SweepSpec& spec) {
    std::set<std::string> reported;
    for (std::size_t i = 0; i < spec.points.size(); ++i) {
      spec.point_texts.push_back(PointScenarioText(spec, i, spec.seeds.front()));
      ScenarioLoad load = LoadScenarioString(spec.point_texts.back(), kPointFile, spec.base_dir);
      for (const std::string& problem : load.problems) {
        const std::string rest = StripPointLocation(problem);
        std::string location = spec.points[i].field_path;
        for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
          if (spec.points[i].values[p] < 0) continue;
          const SweepValue& value = spec.parameters[p].values[static_cast<std::size_t>(spec.points[i].values[p])];
          for (const auto& [target, written] : value.writes) {
            if (rest.starts_with(target.path) && rest.size() > target.path.size() &&
                std::string_view(":.[").find(rest[target.path.size()]) != std::string_view::npos) {
              location = value.field_path;
            }
          }
        }
        const std::string line = rest == problem ? problem
                                                 : FormatProblem(file_, *positions_, location,
                                                                 "point " + std::to_string(i) + " (" + spec.PointLabel(i) + "): " + rest);
        if (reported.insert(location + "\n" + rest).second) out_->problems.push_back(line);
      }
    }
  }

  std::string file_;
  std::string dir_;
  SweepLoad* out_;
  const SourceMap* positions_ = nullptr;
};

}  // namespace

std::string SweepSpec::ValueLabel(std::size_t i, std::size_t p) const {
  const int v = points[i].values[p];
  return v < 0 ? std::string("base") : parameters[p].values[static_cast<std::size_t>(v)].label;
}

std::optional<double> SweepSpec::ValueX(std::size_t i, std::size_t p) const {
  const int v = points[i].values[p];
  return v < 0 ? std::nullopt : parameters[p].values[static_cast<std::size_t>(v)].x;
}

std::string SweepSpec::PointLabel(std::size_t i) const {
  std::string out;
  for (std::size_t p = 0; p < parameters.size(); ++p) {
    if (points[i].values[p] < 0) continue;
    if (!out.empty()) out += " ";
    out += parameters[p].name + "=" + ValueLabel(i, p);
  }
  return out.empty() ? "base" : out;
}

SweepLoad LoadSweepString(std::string_view text, const std::string& file, const std::string& base_dir) {
  SweepLoad out;
  SweepReader(file, base_dir, &out).Read(LoadYamlString(text, file));
  return out;
}

SweepLoad LoadSweepFile(const std::string& path) {
  SweepLoad out;
  SweepReader(path, std::filesystem::path(path).parent_path().string(), &out).Read(LoadYamlFile(path));
  return out;
}

std::string Describe(const Objective& objective) {
  std::string out = objective.goal == Goal::kFastest ? "fastest" : "cheapest";
  if (objective.deadline_seconds) out += " within a deadline of " + FormatDuration(static_cast<kube::Micros>(*objective.deadline_seconds * kube::kSecond));
  if (objective.budget) {
    json budget = *objective.budget;
    out += std::string(objective.deadline_seconds ? " and" : "") + " within a budget of " + budget.dump();
  }
  if (objective.queueing_percentile) {
    out += " keeping the " + std::to_string(*objective.queueing_percentile) + "th-percentile queueing delay under " +
           FormatDuration(static_cast<kube::Micros>(*objective.queueing_under_seconds * kube::kSecond));
  }
  return out;
}

}  // namespace harness::sweep
