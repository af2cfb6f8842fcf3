// Every published figure of docs/models.md, and the METIS measurements made here
// with `dglsim calibrate` (reports/metis-measured/), with the models' prediction of each and its
// range. `dglsim models validate` writes them as reports/model-validation.md; the tests and CI hold
// every point marked `fitted` within its tolerance (10 %).
//
// A point is one quantity in one configuration: a time, a size, a count, a ratio, or an outcome
// (1 = fails, 0 = works). Published ranges ("1.29-1.42 s") are kept as ranges: a prediction inside
// is exact. Points the models do not cover (Libra, a vertex-cut partitioner the operator never runs;
// out-of-memory on an unknown machine) are listed with the reason.
//
// The runs measured here (sim/dgl/fits.h) were timed on a shared machine, so their speed against the
// reference machine is unknown: it is fitted over the runs (the geometric mean of law over
// measurement). Each run is predicted *left out*: by its law fitted over the other runs (this
// machine's speed, the 32-bit memory law, the random-structure cut), so it is a check, not a
// fitted point.
//
// Every prediction has a 90 % band (sim/dgl/uncertainty.h); the table reports how many checks fall
// inside it (a published figure stands for the range of its rounding, at least +-0.5 %: "53 GiB"
// covers 52.96) against that claim, and the mean absolute log error, |log(prediction / published)| (0
// inside a published range), overall and per law.
#pragma once

#include "sim/dgl/calibration.h"
#include "sim/dgl/uncertainty.h"

#include <functional>
#include <string>
#include <vector>

namespace sim::dglmodels {

struct PublishedPoint {
  std::string id;       // stable, kebab-case: "papers-metis-seconds"
  std::string group;    // section of the table: "Dataset preparation", "partition_graph log", ...
  const char* law;      // the law it checks, for coverage per law: "METIS time", "edge cut", ...
  std::string what;     // "METIS step, ogbn-papers100M, 64 parts, 4 constraints"
  std::string source;   // where the figure comes from
  std::string unit;     // "s", "GB", "B/edge", "share", "x", "fails"
  double low = 0;       // the published value, or its range
  double high = 0;
  bool fitted = false;  // the models were fitted to it (CI keeps it within tolerance)
  std::function<double(const Calibration&)> model;  // in `unit`; empty: not modelled
  std::string note;     // why not modelled, or what the comparison assumes
  bool left_out = false;  // a measured run predicted by its law fitted over the other runs
};
const std::vector<PublishedPoint>& PublishedPoints();

struct PointCheck {
  const PublishedPoint* point = nullptr;
  Estimate prediction;   // meaningless without a model
  double ratio = 0;      // prediction / the published value (its nearest end for a range; 1 inside)
  bool within = false;   // the ratio within 1 +- tolerance
  bool covered = false;  // the published value (range) overlaps the prediction's range
  double log_error = 0;  // |log(prediction / published)|, 0 inside a published range
};

// Coverage of the checks (modelled, not fitted) of one law, or of all of them (law "all").
struct Coverage {
  std::string law;
  int checks = 0;
  int covered = 0;
  double mean_log_error = 0;
  double share() const { return checks > 0 ? static_cast<double>(covered) / checks : 0.0; }
};

// Every point evaluated with `calibration` and its ranges.
std::vector<PointCheck> ValidatePoints(const Calibration& calibration, double tolerance = 0.10);
// The fitted points outside the tolerance.
std::vector<const PointCheck*> DriftedPoints(const std::vector<PointCheck>& checks);
// Coverage of all checks first, then per law in the order the laws first appear.
std::vector<Coverage> CoverageByLaw(const std::vector<PointCheck>& checks);
// reports/model-validation.md: a header, a summary line, one table per group, the list of
// uncertain parameters with their ranges.
// `calibration` names the values and ranges listed (the one the checks were made with).
std::string ValidationMarkdown(const std::vector<PointCheck>& checks, const Calibration& calibration,
                               double tolerance = 0.10);

}  // namespace sim::dglmodels
