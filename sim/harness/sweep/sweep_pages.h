// The human outputs of a sweep, built from its SweepResult only (so a merge gives the same):
//
// - SweepCharts: for each swept parameter (but lineBy), each figure the sweep file's `plots:` lists
//   against it (by default makespan and cost, and, when points run several jobs (fleet sizing), the
//   queueing percentile and GPU utilisation), one line per partition mode (or per value of `lineBy`)
//   and per combination of the other parameters, failed points as red crosses with their reason
//   (not on the utilisation charts); and the Pareto front of makespan against cost.
// - SweepHtml: one self-contained page (inline CSS and SVG): the objective, the recommendation, the
//   runner-up and why the others lost, the charts, the cheapest configuration per deadline (the
//   Pareto front), crossovers, and a table of every point (with its time per epoch, GPU utilisation
//   and share of GPU time training).
// - SweepMarkdown: the same as a Markdown section whose charts are SVG files beside it.
// - SweepTable: the terminal's table, one line per point.
#pragma once

#include "sim/harness/sweep/results.h"
#include "sim/harness/sweep/svg_chart.h"

#include <string>
#include <utility>
#include <vector>

namespace harness::sweep {

struct NamedChart {
  std::string id;  // "makespan-vs-workers": the SVG file's name without .svg
  Chart chart;
};

std::vector<NamedChart> SweepCharts(const SweepResult& result);

// Where two lines of a makespan chart cross: "SSP is faster up to workers=8, SMP from workers=16".
std::vector<std::string> Crossovers(const SweepResult& result);

std::string SweepHtml(const SweepResult& result);

// The Markdown and its SVG files (name, content); `svg_prefix` starts each file's name.
struct MarkdownReport {
  std::string markdown;
  std::vector<std::pair<std::string, std::string>> svgs;
};
MarkdownReport SweepMarkdown(const SweepResult& result, const std::string& svg_prefix);

std::string SweepTable(const SweepResult& result);

}  // namespace harness::sweep
