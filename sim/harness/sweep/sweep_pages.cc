#include "sim/harness/sweep/sweep_pages.h"

#include "sim/harness/config/units.h"
#include "sim/harness/report/report_html.h"
#include "sim/harness/sweep/recommend.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

namespace harness::sweep {
namespace {

using json = kube::Json;

std::string Fixed(double x, int digits) {
  char buffer[48];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, x);
  return buffer;
}

std::string Id(std::string text) {
  for (char& c : text)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '-';
  return text;
}

// What the charts read: the points, the recommendation and the parameters.
struct View {
  std::vector<json> points;
  Recommendation r;
  const json& header;
  bool fleet = false;  // points run several jobs
  bool pools = false;  // points scale node pools
  explicit View(const SweepResult& result)
      : points(PointSummaries(result)), r(Recommend(points, ObjectiveFromJson(result.header["objective"]))), header(result.header) {
    for (const json& row : result.rows) {
      fleet = fleet || row.value("jobs", 0) > 1;
      pools = pools || row.value("poolNodes", 0) > 0;
    }
  }
  const json& Parameter(std::size_t p) const { return header["parameters"][p]; }
  std::string Label(const json& point, std::size_t p) const { return point["parameters"].value(Parameter(p)["name"].get<std::string>(), ""); }
  // The parameter's place on the x axis at this point, or nullopt when the point leaves it as in the base.
  std::optional<double> X(const json& point, std::size_t p) const {
    const std::string label = Label(point, p);
    const json& values = Parameter(p)["values"];
    for (std::size_t v = 0; v < values.size(); ++v) {
      if (values[v]["label"] != label) continue;
      if (Parameter(p)["numeric"].get<bool>()) return values[v]["x"].get<double>();
      return static_cast<double>(v);
    }
    return std::nullopt;
  }
  // The line a point belongs to on a chart against parameter `x`.
  std::string Line(const json& point, std::size_t x) const {
    const std::string line_by = header.value("lineBy", "");
    std::string key = line_by.empty() ? point["partitionMode"].get<std::string>() : point["parameters"].value(line_by, "");
    for (std::size_t p = 0; p < header["parameters"].size(); ++p) {
      const std::string name = Parameter(p)["name"].get<std::string>();
      if (p == x || name == line_by) continue;
      key += " " + name + "=" + Label(point, p);
    }
    return key;
  }
  std::string CostBasis() const { return r.cost_basis; }
};

std::string Short(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", x);
  return buffer;
}

double Figure(const json& point, const std::string& figure, double scale) {
  const json::json_pointer pointer(figure);
  if (!point.contains(pointer) || !point[pointer].is_number()) return 0;
  return point[pointer].get<double>() / scale;
}

// One chart of `figure` (a JSON pointer into a point) against parameter `p`.
Chart FigureChart(const View& view, std::size_t p, const std::string& figure, const std::string& y_label, double scale,
                  bool failures) {
  Chart chart;
  const json& parameter = view.Parameter(p);
  const std::string name = parameter["name"].get<std::string>();
  chart.title = y_label + " against " + name;
  chart.x_label = name;
  chart.y_label = y_label;
  if (!parameter["numeric"].get<bool>()) {
    for (const json& v : parameter["values"]) chart.categories.push_back(v["label"].get<std::string>());
  } else {
    double lo = 1e300, hi = 0;
    for (const json& v : parameter["values"]) lo = std::min(lo, v["x"].get<double>()), hi = std::max(hi, v["x"].get<double>());
    chart.log_x = lo > 0 && hi / lo >= 8;
  }
  std::map<std::string, std::size_t> series;
  std::set<std::pair<long, std::string>> failed;
  for (const json& point : view.points) {
    const std::optional<double> x = view.X(point, p);
    if (!x) continue;
    const std::string line = view.Line(point, p);
    if (point["outcome"] != "Succeeded") {
      if (failures && failed.insert({std::lround(*x * 1000), point["lostTo"].get<std::string>()}).second)
        chart.failures.push_back({*x, point["lostTo"].get<std::string>(), line + ": " + point["reason"].get<std::string>()});
      continue;
    }
    const json::json_pointer pointer(figure);
    if (!point.contains(pointer) || !point[pointer].is_number()) continue;
    const json& v = point[pointer];
    auto [it, fresh] = series.emplace(line, chart.series.size());
    if (fresh) chart.series.push_back({line, {}, {}});
    chart.series[it->second].points.emplace_back(*x, v.get<double>() / scale);
    chart.series[it->second].titles.push_back(point["label"].get<std::string>() + ": " + Fixed(v.get<double>() / scale, 2));
  }
  return chart;
}

double MakespanScale(const View& view) {
  double hi = 0;
  for (const json& p : view.points) hi = std::max(hi, Figure(p, "/makespanSeconds", 1));
  return hi >= 7200 ? 3600 : 60;
}

Chart ParetoChart(const View& view) {
  Chart chart;
  const double scale = MakespanScale(view);
  const std::string cost = CostLabel(view.CostBasis());
  chart.title = "Pareto front: makespan against " + cost;
  chart.x_label = std::string("makespan (") + (scale == 3600 ? "hours" : "minutes") + ")";
  chart.y_label = cost;
  chart.scatter = true;
  std::map<std::string, std::size_t> series;
  for (const json& point : view.points) {
    if (point["outcome"] != "Succeeded" || !point["makespanSeconds"].is_number()) continue;
    const std::string line = point["partitionMode"].get<std::string>();
    auto [it, fresh] = series.emplace(line, chart.series.size());
    if (fresh) chart.series.push_back({line, {}, {}});
    chart.series[it->second].points.emplace_back(Figure(point, "/makespanSeconds", scale), Figure(point, "/" + view.CostBasis(), 1));
    chart.series[it->second].titles.push_back(point["label"].get<std::string>() + ": " + FiguresText(point, view.CostBasis()));
  }
  for (std::size_t i : view.r.pareto)
    chart.front.emplace_back(Figure(view.points[i], "/makespanSeconds", scale), Figure(view.points[i], "/" + view.CostBasis(), 1));
  return chart;
}

std::string Row(const std::vector<std::string>& cells, const char* tag = "td") {
  std::string out = "<tr>";
  for (const std::string& c : cells) out += std::string("<") + tag + ">" + HtmlEscape(c) + "</" + tag + ">";
  return out + "</tr>\n";
}

std::string Maybe(const json& v, double scale, int digits) { return v.is_number() ? Fixed(v.get<double>() / scale, digits) : "-"; }

std::string Percent(const json& share) { return share.is_number() ? Fixed(100 * share.get<double>(), 1) + "%" : "-"; }

// The points table's columns: the figures every sweep has, the GPU-hours the cluster provides when
// they are the cost (no prices), and the node figures when points scale node pools.
std::vector<std::string> PointColumns(const View& view) {
  std::vector<std::string> columns = {"point", "configuration", "partition mode", "outcome", "makespan", "cost", "busy cost", "GPU-hours"};
  if (view.CostBasis() != "cost") columns.push_back("GPU-hours provided");
  columns.insert(columns.end(), {"idle GPU-hours", "lost GPU-hours", "restarts", "queueing p95"});
  if (view.pools) columns.insert(columns.end(), {"peak nodes", "node-hours", "interruptions"});
  columns.insert(columns.end(), {"time per epoch", "GPU utilisation", "GPU time training", "why it lost"});
  return columns;
}

std::vector<std::string> PointCells(const View& view, const json& p) {
  std::string queue = view.fleet ? FormatSeconds(Figure(p, "/queueingSeconds/p95", 1)) : "-";
  std::vector<std::string> cells = {p["point"].dump(), p["label"].get<std::string>(), p["partitionMode"].get<std::string>(),
                                    p["outcome"] == "Succeeded" ? "Succeeded" : p["lostTo"].get<std::string>(),
                                    p["makespanSeconds"].is_number() ? FormatSeconds(p["makespanSeconds"].get<double>()) : "-",
                                    Maybe(p["cost"], 1, 2), Maybe(p["busyCost"], 1, 2), Maybe(p["gpuHours"], 1, 2)};
  if (view.CostBasis() != "cost") cells.push_back(Maybe(p.value("providedGpuHours", json()), 1, 2));
  cells.insert(cells.end(), {Maybe(p["idleGpuHours"], 1, 2), Maybe(p["lostGpuHours"], 1, 2), Maybe(p["restarts"], 1, 1), queue});
  if (view.pools)
    cells.insert(cells.end(), {Maybe(p.value("peakNodes", json()), 1, 1), Maybe(p.value("nodeHours", json()), 1, 2),
                               Maybe(p.value("interruptions", json()), 1, 1)});
  cells.insert(cells.end(), {p["epochSeconds"].is_number() ? Fixed(p["epochSeconds"].get<double>(), 2) + "s" : "-",
                             Percent(p["gpuUtilization"]), Percent(p["trainingGpuUtilization"]),
                             view.r.why_lost[p["point"].get<std::size_t>()]});
  return cells;
}

// "from 1h5m: point 3 workers=8 (cost 32.10)" per Pareto point, fastest first.
std::vector<std::vector<std::string>> DeadlineRows(const View& view) {
  std::vector<std::vector<std::string>> rows;
  for (std::size_t k = view.r.pareto.size(); k-- > 0;) {
    const json& p = view.points[view.r.pareto[k]];
    rows.push_back({"from " + FormatSeconds(p["makespanSeconds"].get<double>()), "point " + p["point"].dump() + " " + p["label"].get<std::string>(),
                    FiguresText(p, view.CostBasis())});
  }
  return rows;
}

std::vector<std::string> RecommendationLines(const View& view) {
  std::vector<std::string> lines;
  std::string text = FormatRecommendation(view.r, view.points);
  for (std::size_t start = 0, end; start < text.size(); start = end + 1) {
    end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    lines.push_back(text.substr(start, end - start));
  }
  return lines;
}

// The figures charted against each parameter: `plots:` when the sweep file lists them, else
// makespan and cost, plus queueing and GPU utilisation when points run several jobs.
std::vector<std::string> PlottedFigures(const View& view) {
  if (view.header.contains("plots")) return view.header["plots"].get<std::vector<std::string>>();
  std::vector<std::string> figures = {"makespan", "cost"};
  if (view.fleet) figures.insert(figures.end(), {"queueing", "gpuUtilization"});
  return figures;
}

// One chart of a kPlotFigures figure against parameter `p`: its file id and the chart.
NamedChart PlotOf(const View& view, const std::string& figure, std::size_t p) {
  const std::string name = Id(view.Parameter(p)["name"].get<std::string>());
  if (figure == "makespan") {
    const double scale = MakespanScale(view);
    return {"makespan-vs-" + name,
            FigureChart(view, p, "/makespanSeconds", std::string("makespan (") + (scale == 3600 ? "hours" : "minutes") + ")", scale, true)};
  }
  if (figure == "cost")
    return {"cost-vs-" + name, FigureChart(view, p, "/" + view.CostBasis(), CostLabel(view.CostBasis()), 1, true)};
  if (figure == "busyCost") return {"busy-cost-vs-" + name, FigureChart(view, p, "/busyCost", "cost, nodes paid while busy", 1, true)};
  if (figure == "queueing") {
    const std::string q = std::to_string(ObjectiveFromJson(view.header["objective"]).queueing_percentile.value_or(95));
    return {"queueing-vs-" + name, FigureChart(view, p, "/queueingSeconds/p" + q, "queueing p" + q + " (minutes)", 60, true)};
  }
  if (figure == "epochTime") return {"epoch-vs-" + name, FigureChart(view, p, "/epochSeconds", "time per epoch (seconds)", 1, true)};
  if (figure == "trainingGpuUtilization")
    return {"training-utilisation-vs-" + name,
            FigureChart(view, p, "/trainingGpuUtilization", "share of GPU time training", 1, false)};
  return {"utilisation-vs-" + name, FigureChart(view, p, "/gpuUtilization", "GPU utilisation", 1, false)};
}

}  // namespace

std::vector<NamedChart> SweepCharts(const SweepResult& result) {
  const View view(result);
  std::vector<NamedChart> charts;
  const std::vector<std::string> figures = PlottedFigures(view);
  const std::size_t n = result.header["parameters"].size();
  for (std::size_t p = 0; p < n; ++p) {
    const std::string name = view.Parameter(p)["name"].get<std::string>();
    if (n > 1 && name == result.header.value("lineBy", "")) continue;
    for (const std::string& figure : figures) charts.push_back(PlotOf(view, figure, p));
  }
  charts.push_back({"pareto", ParetoChart(view)});
  return charts;
}

std::vector<std::string> Crossovers(const SweepResult& result) {
  const View view(result);
  std::vector<std::string> out;
  for (std::size_t p = 0; p < result.header["parameters"].size(); ++p) {
    if (!view.Parameter(p)["numeric"].get<bool>()) continue;
    const Chart chart = FigureChart(view, p, "/makespanSeconds", "", 1, false);
    const std::string name = view.Parameter(p)["name"].get<std::string>();
    for (std::size_t a = 0; a < chart.series.size(); ++a) {
      for (std::size_t b = a + 1; b < chart.series.size(); ++b) {
        std::map<double, std::pair<double, double>> common;
        for (const auto& [x, y] : chart.series[a].points) common[x].first = y;
        for (const auto& [x, y] : chart.series[b].points)
          if (common.contains(x)) common[x].second = y;
        std::optional<std::pair<double, int>> last;  // x and the sign of a - b
        for (const auto& [x, ys] : common) {
          if (ys.second == 0 || ys.first == ys.second) continue;
          const int sign = ys.first < ys.second ? -1 : 1;
          if (last && last->second != sign) {
            const std::string& faster_before = sign < 0 ? chart.series[b].name : chart.series[a].name;
            const std::string& faster_after = sign < 0 ? chart.series[a].name : chart.series[b].name;
            out.push_back(faster_before + " is faster at " + name + "=" + Short(last->first) + ", " + faster_after + " at " + name + "=" + Short(x));
          }
          last = {x, sign};
        }
      }
    }
  }
  return out;
}

std::string SweepHtml(const SweepResult& result) {
  const View view(result);
  const json& h = result.header;
  std::string out = "<!doctype html>\n<html><head><meta charset=\"utf-8\"><title>dglsim sweep " + HtmlEscape(h["name"].get<std::string>()) +
                    "</title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:12px}"
                    "td,th{border:1px solid #ccc;padding:3px 6px;text-align:left}th{background:#f3f3f3}.rec{background:#eef7ee;padding:8px 12px;"
                    "border-left:4px solid #2ca02c}.charts svg{margin:6px;border:1px solid #eee}</style></head><body>\n";
  out += "<h1>Sweep " + HtmlEscape(h["name"].get<std::string>()) + "</h1>\n";
  if (!h["description"].get<std::string>().empty()) out += "<p>" + HtmlEscape(h["description"].get<std::string>()) + "</p>\n";
  out += "<p>base scenario <code>" + HtmlEscape(h["base"].get<std::string>()) + "</code>; " + std::to_string(h["points"].size()) +
         " points &#215; " + std::to_string(h["seeds"].size()) + " seeds = " + h["runs"].dump() + " runs; fingerprint " +
         HtmlEscape(h["fingerprint"].get<std::string>()) + "</p>\n<h2>Recommendation</h2>\n<div class=\"rec\">\n";
  for (const std::string& line : RecommendationLines(view)) out += "<div>" + HtmlEscape(line) + "</div>\n";
  out += "</div>\n<h2>Charts</h2>\n<div class=\"charts\">\n";
  for (const NamedChart& chart : SweepCharts(result)) out += ChartSvg(chart.chart);
  out += "</div>\n<h2>Cheapest configuration per deadline</h2>\n<table>\n" + Row({"deadline", "configuration", "figures"}, "th");
  for (const auto& row : DeadlineRows(view)) out += Row(row);
  out += "</table>\n";
  const std::vector<std::string> crossovers = Crossovers(result);
  if (!crossovers.empty()) {
    out += "<h2>Crossovers</h2>\n<ul>\n";
    for (const std::string& c : crossovers) out += "<li>" + HtmlEscape(c) + "</li>\n";
    out += "</ul>\n";
  }
  out += "<h2>Points</h2>\n<table>\n" + Row(PointColumns(view), "th");
  for (const json& p : view.points) out += Row(PointCells(view, p));
  out += "</table>\n<p>Every run of every seed is in the CSV and JSON outputs; figures here are means over the seeds.</p>\n</body></html>\n";
  return out;
}

MarkdownReport SweepMarkdown(const SweepResult& result, const std::string& svg_prefix) {
  const View view(result);
  MarkdownReport report;
  const json& h = result.header;
  std::string& md = report.markdown;
  md += "### " + h["name"].get<std::string>() + "\n\n";
  if (!h["description"].get<std::string>().empty()) md += h["description"].get<std::string>() + "\n\n";
  md += "Base scenario `" + h["base"].get<std::string>() + "`, " + std::to_string(h["points"].size()) + " points, seeds " +
        h["seeds"].dump() + ".\n\n```\n";
  for (const std::string& line : RecommendationLines(view)) md += line + "\n";
  md += "```\n\n";
  for (const NamedChart& chart : SweepCharts(result)) {
    const std::string file = svg_prefix + chart.id + ".svg";
    report.svgs.emplace_back(file, ChartSvg(chart.chart));
    md += "![" + chart.chart.title + "](" + file + ")\n";
  }
  md += "\n**Cheapest configuration per deadline** (the Pareto front of makespan against cost):\n\n| deadline | configuration | figures |\n|---|---|---|\n";
  for (const auto& row : DeadlineRows(view)) md += "| " + row[0] + " | " + row[1] + " | " + row[2] + " |\n";
  const std::vector<std::string> crossovers = Crossovers(result);
  if (!crossovers.empty()) {
    md += "\n**Crossovers**:\n\n";
    for (const std::string& c : crossovers) md += "- " + c + "\n";
  }
  md += "\n**Points** (means over the seeds):\n\n|";
  const std::vector<std::string> columns = PointColumns(view);
  for (const std::string& c : columns) md += " " + c + " |";
  md += "\n|";
  for (std::size_t i = 0; i < columns.size(); ++i) md += "---|";
  md += "\n";
  for (const json& p : view.points) {
    md += "|";
    for (std::string cell : PointCells(view, p)) {
      for (char& c : cell)
        if (c == '|' || c == '\n') c = c == '|' ? '/' : ' ';
      md += " " + cell + " |";
    }
    md += "\n";
  }
  return report;
}

std::string SweepTable(const SweepResult& result) {
  const View view(result);
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-5s %-44s %-12s %-13s %12s %10s %9s%s\n", "point", "configuration", "mode", "outcome", "makespan",
                CostLabel(view.CostBasis()).c_str(), "restarts", view.fleet ? "  queue p95  util" : "");
  out += line;
  for (const json& p : view.points) {
    const std::string cost = Maybe(p[view.CostBasis()], 1, 2);
    const std::string fleet = view.fleet ? "  " + FormatSeconds(Figure(p, "/queueingSeconds/p95", 1)) + "  " +
                                               Fixed(100 * Figure(p, "/gpuUtilization", 1), 0) + "%"
                                         : "";
    std::snprintf(line, sizeof line, "%-5s %-44s %-12s %-13s %12s %10s %9s%s\n", p["point"].dump().c_str(), p["label"].get<std::string>().c_str(),
                  p["partitionMode"].get<std::string>().c_str(),
                  (p["outcome"] == "Succeeded" ? std::string("Succeeded") : p["lostTo"].get<std::string>()).c_str(),
                  p["makespanSeconds"].is_number() ? FormatSeconds(p["makespanSeconds"].get<double>()).c_str() : "-", cost.c_str(),
                  Maybe(p["restarts"], 1, 1).c_str(), fleet.c_str());
    out += line;
  }
  return out + FormatRecommendation(view.r, view.points);
}

}  // namespace harness::sweep
