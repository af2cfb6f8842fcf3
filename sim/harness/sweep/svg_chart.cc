#include "sim/harness/sweep/svg_chart.h"

#include "sim/harness/report/report_html.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

namespace harness::sweep {
namespace {

constexpr double kWidth = 640, kHeight = 360;
constexpr double kLeft = 70, kRight = 150, kTop = 58, kBottom = 48;  // margins; the legend sits right
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                    "#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#393b79"};

std::string Num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f", x);
  return buffer;
}

// "1.5k", "250", "0.25": a short tick label.
std::string Tick(double v) {
  char buffer[32];
  const double a = std::fabs(v);
  if (a >= 1e6) std::snprintf(buffer, sizeof buffer, "%gM", v / 1e6);
  else if (a >= 1e4) std::snprintf(buffer, sizeof buffer, "%gk", v / 1e3);
  else std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

// About five round steps covering [lo, hi].
std::vector<double> Ticks(double lo, double hi) {
  if (!(hi > lo)) return {lo};
  const double raw = (hi - lo) / 5, mag = std::pow(10, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  std::vector<double> out;
  for (double v = std::ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push_back(std::fabs(v) < step * 1e-9 ? 0 : v);
  return out;
}

struct Scale {
  double lo, hi, from, to;
  bool log;
  double operator()(double v) const {
    const double a = log ? std::log2(v) : v, l = log ? std::log2(lo) : lo, h = log ? std::log2(hi) : hi;
    return h > l ? from + (a - l) / (h - l) * (to - from) : (from + to) / 2;
  }
};

}  // namespace

std::string ChartSvg(const Chart& chart) {
  double x_lo = std::numeric_limits<double>::max(), x_hi = -x_lo, y_hi = 0;
  auto see_x = [&](double x) { x_lo = std::min(x_lo, x), x_hi = std::max(x_hi, x); };
  for (const ChartSeries& s : chart.series)
    for (const auto& [x, y] : s.points) see_x(x), y_hi = std::max(y_hi, y);
  for (const ChartFailure& f : chart.failures) see_x(f.x);
  if (!chart.categories.empty()) x_lo = -0.5, x_hi = static_cast<double>(chart.categories.size()) - 0.5;
  if (x_lo > x_hi) x_lo = 0, x_hi = 1;
  if (x_lo == x_hi) x_lo -= 1, x_hi += 1;
  const bool log_x = chart.log_x && chart.categories.empty() && x_lo > 0;
  if (log_x) x_lo /= 1.25, x_hi *= 1.25;
  const std::vector<double> y_ticks = Ticks(0, y_hi > 0 ? y_hi * 1.05 : 1);
  const double y_top = y_ticks.back() > 0 ? std::max(y_ticks.back(), y_hi) : 1;
  const Scale sx{x_lo, x_hi, kLeft, kWidth - kRight, log_x};
  const Scale sy{0, y_top, kHeight - kBottom, kTop, false};

  std::string out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) + "\" height=\"" + Num(kHeight) +
                    "\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(kHeight) + "\" font-family=\"sans-serif\" font-size=\"11\">\n";
  out += "<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n";
  out += "<text x=\"" + Num(kLeft) + "\" y=\"16\" font-size=\"13\" font-weight=\"bold\">" + HtmlEscape(chart.title) + "</text>\n";
  // Axes, grid and ticks.
  for (double v : y_ticks) {
    out += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kWidth - kRight) + "\" y1=\"" + Num(sy(v)) + "\" y2=\"" + Num(sy(v)) +
           "\" stroke=\"#e5e5e5\"/><text x=\"" + Num(kLeft - 6) + "\" y=\"" + Num(sy(v) + 4) + "\" text-anchor=\"end\">" + Tick(v) + "</text>\n";
  }
  std::vector<std::pair<double, std::string>> x_ticks;
  if (!chart.categories.empty()) {
    for (std::size_t i = 0; i < chart.categories.size(); ++i) x_ticks.emplace_back(static_cast<double>(i), chart.categories[i]);
  } else if (log_x) {
    for (double v = std::pow(2, std::ceil(std::log2(x_lo))); v <= x_hi; v *= 2) x_ticks.emplace_back(v, Tick(v));
  } else {
    for (double v : Ticks(x_lo, x_hi)) x_ticks.emplace_back(v, Tick(v));
  }
  for (const auto& [v, label] : x_ticks) {
    out += "<line x1=\"" + Num(sx(v)) + "\" x2=\"" + Num(sx(v)) + "\" y1=\"" + Num(kHeight - kBottom) + "\" y2=\"" +
           Num(kHeight - kBottom + 4) + "\" stroke=\"#333\"/><text x=\"" + Num(sx(v)) + "\" y=\"" + Num(kHeight - kBottom + 16) +
           "\" text-anchor=\"middle\">" + HtmlEscape(label) + "</text>\n";
  }
  out += "<line x1=\"" + Num(kLeft) + "\" x2=\"" + Num(kWidth - kRight) + "\" y1=\"" + Num(kHeight - kBottom) + "\" y2=\"" +
         Num(kHeight - kBottom) + "\" stroke=\"#333\"/>\n";
  out += "<text x=\"" + Num((kLeft + kWidth - kRight) / 2) + "\" y=\"" + Num(kHeight - 10) + "\" text-anchor=\"middle\">" +
         HtmlEscape(chart.x_label) + "</text>\n";
  out += "<text transform=\"translate(16," + Num((kTop + kHeight - kBottom) / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         HtmlEscape(chart.y_label) + "</text>\n";
  // Series.
  for (std::size_t s = 0; s < chart.series.size(); ++s) {
    const ChartSeries& series = chart.series[s];
    const std::string colour = kColours[s % std::size(kColours)];
    std::vector<std::size_t> order(series.points.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return series.points[a].first < series.points[b].first; });
    if (!chart.scatter && order.size() > 1) {
      out += "<polyline fill=\"none\" stroke=\"" + colour + "\" stroke-width=\"2\" points=\"";
      for (std::size_t i : order) out += Num(sx(series.points[i].first)) + "," + Num(sy(series.points[i].second)) + " ";
      out += "\"/>\n";
    }
    for (std::size_t i : order) {
      out += "<circle cx=\"" + Num(sx(series.points[i].first)) + "\" cy=\"" + Num(sy(series.points[i].second)) + "\" r=\"3.5\" fill=\"" + colour + "\">";
      if (i < series.titles.size() && !series.titles[i].empty()) out += "<title>" + HtmlEscape(series.titles[i]) + "</title>";
      out += "</circle>\n";
    }
    const double ly = kTop + 14.0 * static_cast<double>(s);
    out += "<rect x=\"" + Num(kWidth - kRight + 10) + "\" y=\"" + Num(ly - 8) + "\" width=\"10\" height=\"10\" fill=\"" + colour +
           "\"/><text x=\"" + Num(kWidth - kRight + 24) + "\" y=\"" + Num(ly + 1) + "\">" + HtmlEscape(series.name) + "</text>\n";
  }
  if (chart.front.size() > 1) {
    out += "<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" stroke-dasharray=\"5,3\" points=\"";
    for (const auto& [x, y] : chart.front) out += Num(sx(x)) + "," + Num(sy(y)) + " ";
    out += "\"><title>Pareto front</title></polyline>\n";
  }
  // Failed points: a band above the plot, one cross per (x, reason), stacked.
  std::map<long, int> stacked;
  for (const ChartFailure& f : chart.failures) {
    const double x = sx(f.x);
    const int level = stacked[std::lround(x)]++;
    const double y = 30 + 11.0 * level;
    out += "<g><title>" + HtmlEscape(f.title) + "</title><text x=\"" + Num(x) + "\" y=\"" + Num(y) +
           "\" text-anchor=\"middle\" fill=\"#d62728\" font-weight=\"bold\">&#215;</text><text x=\"" + Num(x + 6) + "\" y=\"" + Num(y) +
           "\" fill=\"#d62728\" font-size=\"9\">" + HtmlEscape(f.label) + "</text></g>\n";
  }
  out += "</svg>\n";
  return out;
}

}  // namespace harness::sweep
