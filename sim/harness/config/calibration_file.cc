#include "sim/harness/config/calibration_file.h"

#include "sim/harness/config/yaml_json.h"

#include <algorithm>
#include <cmath>

namespace harness {

using json = kube::Json;

namespace {

class Reader {
 public:
  Reader(const std::string& file, const SourceMap& positions, CalibrationLoad& out)
      : file_(file), positions_(positions), out_(out) {}

  void Problem(const std::string& path, const std::string& message) {
    out_.problems.push_back(FormatProblem(file_, positions_, path, message));
  }
  // A number >= 0 at `key` of `obj` (absent: nullopt, no problem).
  std::optional<double> Number(const json& obj, const std::string& key, const std::string& path) {
    auto it = obj.find(key);
    if (it == obj.end() || it->is_null()) return std::nullopt;
    const std::string field = path.empty() ? key : path + "." + key;
    if (!it->is_number() || !std::isfinite(it->get<double>())) {
      Problem(field, "must be a number, got " + it->dump());
      return std::nullopt;
    }
    double v = it->get<double>();
    if (v < 0) {
      Problem(field, "must be at least 0, got " + it->dump());
      return std::nullopt;
    }
    return v;
  }

 private:
  const std::string& file_;
  const SourceMap& positions_;
  CalibrationLoad& out_;
};

void ReadPartition(Reader& r, const json& top, sim::dglmodels::MetisLine& line) {
  auto p = top.find("partition");
  if (p == top.end()) return r.Problem("partition", "required field is missing");
  if (!p->is_object()) return r.Problem("partition", "must be a mapping");
  for (const auto& [key, value] : p->items()) {
    if (key != "metisEdgesPerSecond" && key != "metisBytesPerEdge" && key != "metisFixedSeconds" &&
        key != "metisFixedBytes" && key != "structure")
      r.Problem("partition." + key, "unknown field \"" + key + "\"");
  }
  if (auto v = r.Number(*p, "metisEdgesPerSecond", "partition")) {
    if (*v <= 0) r.Problem("partition.metisEdgesPerSecond", "must be greater than 0");
    else line.edges_per_second = *v;
  }
  if (auto v = r.Number(*p, "metisBytesPerEdge", "partition")) line.bytes_per_edge = *v;
  if (auto v = r.Number(*p, "metisFixedSeconds", "partition")) line.fixed_seconds = *v;
  if (auto v = r.Number(*p, "metisFixedBytes", "partition")) line.fixed_bytes = *v;
  if (auto s = p->find("structure"); s != p->end()) {
    if (*s == "random" || *s == "real") line.real_structure = *s == "real";
    else r.Problem("partition.structure", "must be \"random\" (synthetic graphs) or \"real\", got " + s->dump());
  }
}

void ReadPoints(Reader& r, const json& top, std::vector<CalibrationPoint>& points) {
  auto pts = top.find("points");
  if (pts == top.end() || pts->is_null()) return;
  if (!pts->is_array()) return r.Problem("points", "must be a sequence");
  for (std::size_t i = 0; i < pts->size(); ++i) {
    const json& item = (*pts)[i];
    const std::string path = "points[" + std::to_string(i) + "]";
    if (!item.is_object()) {
      r.Problem(path, "must be a mapping {nodes, edges, parts, seconds, peakBytes, edgeCut}");
      continue;
    }
    for (const auto& [key, value] : item.items())
      if (key != "nodes" && key != "edges" && key != "parts" && key != "seconds" && key != "peakBytes" && key != "edgeCut")
        r.Problem(path + "." + key, "unknown field \"" + key + "\"");
    CalibrationPoint point;
    point.nodes = static_cast<std::int64_t>(r.Number(item, "nodes", path).value_or(0));
    point.edges = static_cast<std::int64_t>(r.Number(item, "edges", path).value_or(0));
    point.parts = static_cast<int>(std::min(1e9, r.Number(item, "parts", path).value_or(0)));
    point.seconds = r.Number(item, "seconds", path).value_or(0);
    point.peak_bytes = static_cast<std::int64_t>(std::min(9e18, r.Number(item, "peakBytes", path).value_or(0)));
    if (auto cut = r.Number(item, "edgeCut", path)) point.edge_cut = static_cast<std::int64_t>(std::min(9e18, *cut));
    points.push_back(point);
  }
}

CalibrationLoad FromYaml(const YamlLoad& load, const std::string& file) {
  CalibrationLoad out;
  if (!load.ok()) {
    out.problems.push_back(load.error->ToString());
    return out;
  }
  if (load.documents.size() != 1 || !load.documents[0].value.is_object()) {
    SourceMap none;
    out.problems.push_back(FormatProblem(
        file, load.documents.empty() ? none : load.documents[0].positions, "",
        "a calibration file holds one mapping (apiVersion: dglsim/v1, kind: Calibration, partition: ...)"));
    return out;
  }
  const json& top = load.documents[0].value;
  Reader r(file, load.documents[0].positions, out);
  Calibration c;
  for (const auto& [key, value] : top.items()) {
    if (key != "apiVersion" && key != "kind" && key != "metadata" && key != "partition" && key != "points")
      r.Problem(key, "unknown field \"" + key + "\"");
  }
  if (top.value("apiVersion", json()) != "dglsim/v1") r.Problem("apiVersion", "must be \"dglsim/v1\"");
  if (top.value("kind", json()) != "Calibration") r.Problem("kind", "must be \"Calibration\"");
  if (auto m = top.find("metadata"); m != top.end() && m->is_object())
    if (auto n = m->find("name"); n != m->end() && n->is_string()) c.name = n->get<std::string>();
  sim::dglmodels::MetisLine line;
  ReadPartition(r, top, line);
  ReadPoints(r, top, out.points);
  if (!out.problems.empty()) return out;
  out.calibration = sim::dglmodels::WithMeasuredMachine(c, line, out.points);
  return out;
}

}  // namespace

CalibrationLoad LoadCalibrationFile(const std::string& path) { return FromYaml(LoadYamlFile(path), path); }

CalibrationLoad LoadCalibrationString(const std::string& text, const std::string& file) {
  return FromYaml(LoadYamlString(text, file), file);
}

}  // namespace harness
