#include "sim/harness/sweep/results.h"

#include "sim/harness/config/scenario.h"
#include "sim/harness/sweep/metrics.h"
#include "sim/harness/sweep/recommend.h"

#include <cstdio>
#include <map>
#include <set>

namespace harness::sweep {
namespace {

using json = kube::Json;

std::string CsvField(const json& value) {
  std::string text;
  if (value.is_null()) return "";
  if (value.is_number_float()) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.10g", value.get<double>());
    text = buffer;
  } else {
    text = value.is_string() ? value.get<std::string>() : value.dump();
  }
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

// The mean of a figure over rows; null when any row has none.
json Mean(const std::vector<const json*>& rows, const json::json_pointer& pointer) {
  double sum = 0;
  for (const json* row : rows) {
    if (!row->contains(pointer) || !(*row)[pointer].is_number()) return nullptr;
    sum += (*row)[pointer].get<double>();
  }
  return rows.empty() ? json(nullptr) : json(sum / static_cast<double>(rows.size()));
}

}  // namespace

json SweepHeader(const SweepSpec& spec) {
  json header = json::object();
  header["name"] = spec.name;
  header["description"] = spec.description;
  header["base"] = spec.base_as_written;
  json parameters = json::array();
  for (const SweepParameter& p : spec.parameters) {
    json values = json::array();
    for (const SweepValue& v : p.values) values.push_back({{"label", v.label}, {"x", v.x ? json(*v.x) : json(nullptr)}});
    parameters.push_back({{"name", p.name}, {"numeric", p.numeric}, {"values", values}});
  }
  header["parameters"] = parameters;
  json points = json::array();
  for (std::size_t i = 0; i < spec.points.size(); ++i) {
    json values = json::object();
    for (std::size_t p = 0; p < spec.parameters.size(); ++p) values[spec.parameters[p].name] = spec.ValueLabel(i, p);
    points.push_back({{"point", i}, {"label", spec.PointLabel(i)}, {"parameters", values}});
  }
  header["points"] = points;
  header["seeds"] = spec.seeds;
  header["objective"] = ObjectiveToJson(spec.objective);
  header["lineBy"] = spec.line_by;
  if (!spec.plots.empty()) header["plots"] = spec.plots;  // absent: the default charts
  header["runs"] = RunCount(spec);
  header["fingerprint"] = Fingerprint(header, spec.point_texts);
  return header;
}

json SliceJson(const json& header, const Shard& shard, const std::vector<json>& rows) {
  return {{"apiVersion", kScenarioApiVersion}, {"kind", kSliceKind}, {"sweep", header},
          {"shard", {{"index", shard.index}, {"count", shard.count}}}, {"rows", rows}};
}

SweepResult ResultOf(const json& header, const std::vector<json>& rows) {
  // Through text and back, as a merge reads its slices: both paths then hold the same numbers.
  return {json::parse(header.dump()), json::parse(json(rows).dump()).get<std::vector<json>>()};
}

std::optional<SweepResult> MergeSlices(const std::vector<json>& slices, const std::vector<std::string>& names,
                                       std::vector<std::string>* problems) {
  const SliceFormat format{.kind = kSliceKind, .header = "sweep", .rows = "rows", .batch = "sweep",
                           .writer = "dglsim sweep --shard", .changed = "the sweep file, its base or its manifests changed"};
  const std::optional<json> header = CheckSlices(slices, names, format, problems);
  if (!header) return std::nullopt;
  std::map<std::size_t, json> rows;  // run -> row
  for (const json& s : slices)
    for (const json& row : s["rows"]) rows[row.value("run", 0u)] = row;
  const std::size_t runs = header->value("runs", 0u);
  if (rows.size() != runs) {
    problems->push_back("the slices hold " + std::to_string(rows.size()) + " runs of " + std::to_string(runs));
    return std::nullopt;
  }
  std::vector<json> ordered;
  for (auto& [run, row] : rows) ordered.push_back(std::move(row));
  return ResultOf(*header, ordered);
}

std::vector<json> PointSummaries(const SweepResult& result) {
  std::vector<json> points;
  const json& header = result.header;
  std::map<std::size_t, std::vector<const json*>> by_point;
  for (const json& row : result.rows) by_point[row.value("point", 0u)].push_back(&row);
  for (const json& p : header["points"]) {
    const std::vector<const json*>& rows = by_point[p.value("point", 0u)];
    json point = {{"point", p["point"]}, {"label", p["label"]}, {"parameters", p["parameters"]}};
    point["outcome"] = "Succeeded";
    point["reason"] = "";
    point["lostTo"] = "";
    int failed = 0;
    for (const json* row : rows) {
      if ((*row)["outcome"] == "Succeeded") continue;
      if (failed++ == 0) {
        point["outcome"] = (*row)["outcome"];
        point["reason"] = (*row)["reason"];
        point["lostTo"] = (*row).value("lostTo", "");
      }
    }
    point["failedSeeds"] = failed;
    point["seeds"] = rows.size();
    point["partitionMode"] = rows.empty() ? json("") : (*rows.front()).value("partitionMode", json(""));
    for (const char* figure : {"makespanSeconds", "spanSeconds", "cost", "busyCost", "gpuHours", "providedGpuHours", "idleGpuHours", "lostGpuHours", "restarts",
                               "gpuUtilization", "trainingGpuUtilization", "epochSeconds", "nodeHours", "peakNodes", "poolNodes",
                               "interruptions"}) {
      // std::string first: `"/" + std::string(figure)` draws g++ 12's false -Wrestrict (ResultCsv).
      point[figure] = Mean(rows, json::json_pointer(std::string("/") + figure));
    }
    json breakdown = json::object();
    for (const char* stage : kBreakdownStages) breakdown[stage] = Mean(rows, json::json_pointer("/breakdownSeconds/" + std::string(stage)));
    point["breakdownSeconds"] = breakdown;
    if (failed > 0) point["makespanSeconds"] = nullptr;
    json queueing = json::object();
    for (int q : kQueueingPercentiles) queueing["p" + std::to_string(q)] = Mean(rows, json::json_pointer("/queueingSeconds/p" + std::to_string(q)));
    point["queueingSeconds"] = queueing;
    json peaks = json::object();
    for (const json* row : rows) {
      if (!row->contains("peakMemoryBytes")) continue;
      for (const auto& [role, bytes] : (*row)["peakMemoryBytes"].items()) peaks[role] = std::max(peaks.value(role, 0.0), bytes.get<double>());
    }
    point["peakMemoryBytes"] = peaks;
    points.push_back(std::move(point));
  }
  return points;
}

std::string ResultCsv(const SweepResult& result) {
  std::vector<std::string> names;
  for (const json& p : result.header["parameters"]) names.push_back(p["name"].get<std::string>());
  std::vector<std::pair<std::string, std::string>> columns = {
      {"outcome", "/outcome"}, {"lostTo", "/lostTo"}, {"reason", "/reason"}, {"partitionMode", "/partitionMode"},
      {"makespanSeconds", "/makespanSeconds"}, {"spanSeconds", "/spanSeconds"}};
  for (const char* stage : kBreakdownStages) columns.push_back({std::string(stage) + "Seconds", "/breakdownSeconds/" + std::string(stage)});
  for (const char* figure : {"gpuHours", "providedGpuHours", "idleGpuHours", "lostGpuHours"}) columns.push_back({figure, std::string("/") + figure});
  for (const char* role : kMemoryRoles) columns.push_back({std::string(role) + "PeakMemoryBytes", "/peakMemoryBytes/" + std::string(role)});
  columns.push_back({"restarts", "/restarts"});
  columns.push_back({"cost", "/cost"});
  columns.push_back({"busyCost", "/busyCost"});
  for (int q : kQueueingPercentiles) columns.push_back({"queueingP" + std::to_string(q) + "Seconds", "/queueingSeconds/p" + std::to_string(q)});
  columns.push_back({"queueingMaxSeconds", "/queueingSeconds/max"});
  for (const char* figure : {"gpuUtilization", "trainingGpuUtilization", "epochSeconds", "jobs", "nodes", "nodeHours", "peakNodes",
                             "poolNodes", "interruptions", "gpus", "simulatedSeconds", "traceHash"})
    columns.push_back({figure, std::string("/") + figure});

  std::string out = "run,point,seed";
  // `"," + CsvField(...)` (operator+(const char*, string&&)) draws g++ 12's false -Wrestrict at
  // -O3 (GCC bug 105329): the fields are appended after the comma instead, here and below.
  for (const std::string& name : names) out.append(",").append(CsvField(name));
  for (const auto& [column, pointer] : columns) out += "," + column;
  out += "\n";
  for (const json& row : result.rows) {
    out += CsvField(row["run"]) + "," + CsvField(row["point"]) + "," + CsvField(row["seed"]);
    for (const std::string& name : names) out.append(",").append(CsvField(row["parameters"].value(name, json(""))));
    for (const auto& [column, pointer] : columns) {
      const json::json_pointer p(pointer);
      out.append(",").append(row.contains(p) ? CsvField(row[p]) : std::string());
    }
    out += "\n";
  }
  return out;
}

std::string ResultJsonText(const SweepResult& result) {
  const std::vector<json> points = PointSummaries(result);
  const Recommendation r = Recommend(points, ObjectiveFromJson(result.header["objective"]));
  json out = {{"apiVersion", kScenarioApiVersion}, {"kind", kResultKind}, {"sweep", result.header}, {"rows", result.rows},
              {"points", points}, {"recommendation", RecommendationJson(r, points)}};
  return out.dump(2) + "\n";
}

}  // namespace harness::sweep
