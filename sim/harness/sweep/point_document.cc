#include "sim/harness/sweep/point_document.h"

#include "sim/harness/config/scenario.h"
#include "sim/harness/config/units.h"
#include "sim/harness/sweep/sweep_file.h"

#include <filesystem>

namespace harness::sweep {
namespace {

using json = kube::Json;

std::string Prefix(const std::vector<PathSegment>& path, std::size_t n) {
  return FormatFieldPath(std::vector<PathSegment>(path.begin(), path.begin() + static_cast<std::ptrdiff_t>(n)));
}

std::string Where(const std::vector<PathSegment>& path, std::size_t n) {
  return n == 0 ? std::string("the base scenario") : Prefix(path, n);
}

}  // namespace

std::string MissingPart(const json& document, const std::vector<PathSegment>& path) {
  const json* at = &document;
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!at->is_object()) return Where(path, i) + " is " + TypeName(*at) + ", not a mapping with " + Quoted(*key);
      auto it = at->find(*key);
      if (it == at->end()) {
        std::vector<std::string> keys;
        for (const auto& [k, v] : at->items()) keys.push_back(k);
        std::string message = "no " + Quoted(*key) + " in " + Where(path, i);
        const std::string near = SuggestName(*key, keys);
        if (!near.empty()) message += " (did you mean " + Quoted(near) + "?)";
        return message + ": a sweep writes only fields the base scenario has";
      }
      at = &*it;
    } else {
      const std::size_t index = std::get<std::size_t>(path[i]);
      if (!at->is_array()) return Where(path, i) + " is " + TypeName(*at) + ", not a sequence";
      if (index >= at->size()) {
        return Where(path, i) + " has " + std::to_string(at->size()) + " items; there is no [" + std::to_string(index) + "]";
      }
      at = &(*at)[index];
    }
  }
  return "";
}

std::string InlineManifest(json& document, std::vector<PathSegment>& path, const std::string& base_dir) {
  // jobs [N] manifest <more...>
  if (path.size() < 4 || path[0] != PathSegment(std::string("jobs")) || !std::holds_alternative<std::size_t>(path[1]) ||
      path[2] != PathSegment(std::string("manifest"))) {
    return "";
  }
  const std::size_t n = std::get<std::size_t>(path[1]);
  if (!document.contains("jobs") || !document["jobs"].is_array() || n >= document["jobs"].size()) return "";
  json& job = document["jobs"][n];
  path[2] = std::string("inline");
  if (job.contains("inline")) return "";  // inlined already for an earlier path
  if (!job.is_object() || !job.contains("manifest") || !job["manifest"].is_string()) {
    return "jobs[" + std::to_string(n) + "] names no manifest file";
  }
  std::filesystem::path file(job["manifest"].get<std::string>());
  if (!file.is_absolute()) file = std::filesystem::path(base_dir) / file;
  YamlLoad load = LoadYamlFile(file.lexically_normal().string());
  if (!load.ok()) return "cannot load the manifest: " + load.error->ToString();
  const json* object = nullptr;
  int documents = 0;
  for (const YamlDocument& d : load.documents) {
    if (d.value.is_null()) continue;
    if (++documents == 1) object = &d.value;
  }
  if (documents != 1) {
    return "the manifest " + Quoted(file.string()) + " holds " + std::to_string(documents) +
           " documents; a sweep can write into a manifest of one DGLJob";
  }
  job["inline"] = *object;
  job.erase("manifest");
  return "";
}

void WriteAt(json& document, const std::vector<PathSegment>& path, const json& value) {
  if (path.empty()) {
    document = value;
    return;
  }
  json* at = &document;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    if (const auto* key = std::get_if<std::string>(&path[i])) {
      if (!at->is_object() || !at->contains(*key)) return;  // removed by an earlier write
      at = &(*at)[*key];
    } else {
      if (!at->is_array() || std::get<std::size_t>(path[i]) >= at->size()) return;
      at = &(*at)[std::get<std::size_t>(path[i])];
    }
  }
  if (const auto* key = std::get_if<std::string>(&path.back()); key != nullptr && !at->is_object()) return;
  if (std::holds_alternative<std::size_t>(path.back()) && (!at->is_array() || std::get<std::size_t>(path.back()) >= at->size())) return;
  if (const auto* key = std::get_if<std::string>(&path.back())) {
    if (value.is_null()) {
      at->erase(*key);
    } else {
      (*at)[*key] = value;
    }
  } else {
    const std::size_t index = std::get<std::size_t>(path.back());
    if (value.is_null()) {
      at->erase(index);
    } else {
      (*at)[index] = value;
    }
  }
}

json Formatted(const json& value, const std::string& format) {
  if (format.empty()) return value;
  const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
  std::string out;
  for (std::size_t i = 0; i < format.size(); ++i) {
    if (format.compare(i, 2, "{}") == 0) {
      out += text;
      ++i;
    } else {
      out += format[i];
    }
  }
  return out;
}

std::string PointScenarioText(const SweepSpec& spec, std::size_t point, std::uint64_t seed) {
  json document = spec.base;
  const SweepPoint& p = spec.points[point];
  for (std::size_t i = 0; i < spec.parameters.size(); ++i) {
    if (p.values[i] < 0) continue;
    for (const auto& [target, value] : spec.parameters[i].values[static_cast<std::size_t>(p.values[i])].writes) {
      WriteAt(document, ParseFieldPath(target.path), Formatted(value, target.format));
    }
  }
  document["seed"] = seed;
  // JSON is YAML (flow style); an indented dump keeps any message's line and column meaningful to
  // someone reading `dglsim sweep --scenario-of N`.
  return document.dump(2) + "\n";
}

std::string StripPointLocation(const std::string& problem) {
  const std::string prefix = std::string(kPointFile) + ":";
  if (!problem.starts_with(prefix)) return problem;
  std::size_t i = prefix.size();
  // ":LINE:COL: " or " "
  for (int field = 0; field < 2 && i < problem.size() && std::isdigit(static_cast<unsigned char>(problem[i])); ++field) {
    while (i < problem.size() && std::isdigit(static_cast<unsigned char>(problem[i]))) ++i;
    if (i < problem.size() && problem[i] == ':') ++i;
  }
  while (i < problem.size() && problem[i] == ' ') ++i;
  return problem.substr(i);
}

}  // namespace harness::sweep
