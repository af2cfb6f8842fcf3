// Small self-contained SVG charts for the sweep's page and report: lines (one per series) over a
// numeric axis (linear or log 2) or over categories, failed points as red crosses in a band above
// the plot (hover: the reason), and a scatter with a highlighted front (the Pareto front). No
// script, no font files, nothing fetched: the SVG text is the whole chart.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace harness::sweep {

struct ChartSeries {
  std::string name;
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
  std::vector<std::string> titles;                // per point, shown on hover ("" = none)
};

struct ChartFailure {
  double x = 0;
  std::string label;  // short: "OOMKilled"
  std::string title;  // on hover: the series and the full reason
};

struct Chart {
  std::string title;
  std::string x_label;
  std::string y_label;
  std::vector<std::string> categories;  // non-empty: x is an index into these
  bool log_x = false;
  bool scatter = false;                 // points only; `front` joins the highlighted ones
  std::vector<ChartSeries> series;
  std::vector<ChartFailure> failures;
  std::vector<std::pair<double, double>> front;
};

std::string ChartSvg(const Chart& chart);

}  // namespace harness::sweep
