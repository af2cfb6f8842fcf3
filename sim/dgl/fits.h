// The fits behind the laws that have data enough to fit: the METIS runs measured here with
// `dglsim calibrate` (reports/metis-measured/), the least-squares fits made over them, and the
// leave-one-out errors the laws' bands are derived from.
//
// How a band is derived (reports/model-validation.md states the same):
//   1. fit the law over every run but one and predict the one left out; log(measured / predicted)
//      is its leave-one-out (LOO) error; do it for every run;
//   2. the band's half-width in log space is t x rms(LOO errors), t Student's 95 % quantile with
//      (runs - 1) degrees of freedom: a two-sided 90 % prediction band (kBandCoverage) that widens
//      when the runs are few;
//   3. the law's error factor (calibration.h: metis_time_error, metis_memory_error,
//      metis_cut_error) carries the range exp(-half-width) .. exp(+half-width) around 1, so the
//      band reaches every prediction made with the law (sim/dgl/uncertainty.h).
// The constants of calibration.h are these fits, rounded; tests/sim/dgl/dgl_fits_test.cc holds
// them to it.
//
// Pure functions of the runs and a Calibration; no clock, no randomness.
#pragma once

#include "sim/dgl/calibration.h"
#include "sim/dgl/laws.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace sim::dglmodels {

// One METIS_PartGraphKway run measured here (reports/metis-measured/<file>.yaml): CPU seconds, as
// the machine was shared; the resident memory partitioning added; undirected edges cut.
struct MeasuredRun {
  const char* generator;  // "R-MAT" or "Barabasi-Albert"
  const char* file;       // reports/metis-measured/<file>.yaml
  double nodes = 0;
  double edges = 0;  // symmetrised
  int parts = 0;
  double cpu_seconds = 0;
  double peak_bytes = 0;
  double edge_cut = 0;
  GraphShape shape() const { return {nodes, edges, 0, Structure::kRandom}; }
  double cut_share() const { return 2 * edge_cut / edges; }  // of the symmetrised edges
};
// Every run of reports/metis-measured/ (30: R-MAT at 65 K - 2.1 M nodes, edge factors 4 - 32,
// 2 - 4,096 parts; Barabasi-Albert at 262 K and 1 M nodes).
const std::vector<MeasuredRun>& MeasuredRuns();

inline constexpr std::size_t kKeepAll = std::numeric_limits<std::size_t>::max();

// ---- bands ------------------------------------------------------------------------------------------

// The coverage every band claims: two-sided 90 %.
inline constexpr double kBandCoverage = 0.90;
// Student's t quantile at 95 % (one-sided) for `dof` degrees of freedom; the normal's 1.645 as
// dof grows. dof < 1 counts as 1.
double StudentT95(int dof);
struct LooBand {
  int points = 0;
  double rms = 0;         // of the LOO log errors
  double half_width = 0;  // StudentT95(points - 1) x rms
  double mean_abs = 0;    // mean |LOO log error|
};
LooBand BandOf(const std::vector<double>& loo_log_errors);

// ---- the fits ---------------------------------------------------------------------------------------

// Debian's 32-bit METIS: peak = per_edge x E + per_node x N, least squares on the relative error,
// over `runs` without the one at index `skip`.
struct MemoryFit {
  double per_edge = 0;
  double per_node = 0;
};
MemoryFit FitMetis32Memory(const std::vector<MeasuredRun>& runs, std::size_t skip = kKeepAll);

// METIS's cut on graphs without locality, as a share of random assignment's (1 - 1/k):
// q = q64 x (log2 k / 6)^growth, least squares in log space (a straight line in log log2 k).
struct CutFit {
  double q64 = 0;
  double growth = 0;
};
CutFit FitRandomCut(const std::vector<MeasuredRun>& runs, std::size_t skip = kKeepAll);
// `c` with a fit's constants, so that the laws themselves (Metis32Bytes, MetisCutFraction) predict.
Calibration WithMemoryFit(Calibration c, const MemoryFit& fit);
Calibration WithRandomCutFit(Calibration c, const CutFit& fit);

// This machine's METIS speed against the reference machine: the geometric mean over `runs` (but
// `skip`) of the METIS law's seconds (without its error factor) over the measured CPU seconds.
double MeasuredMachineSpeed(const Calibration& c, const std::vector<MeasuredRun>& runs, std::size_t skip = kKeepAll);

// The random-structure part-count share (Calibration::metis_random_parts_share) that fits the
// runs' times best in log space, the machine's speed fitted with it (golden-section search over
// 0.05 - 5).
double FitRandomPartsShare(const Calibration& c, const std::vector<MeasuredRun>& runs);

// ---- leave-one-out errors, log(measured / predicted), one per run ------------------------------------

// METIS time: the machine's speed fitted without the run (the law's shape is the calibration's).
std::vector<double> MetisTimeLooErrors(const Calibration& c);
// The 32-bit memory law fitted without the run.
std::vector<double> Metis32MemoryLooErrors();
// The random-structure cut fitted without the run.
std::vector<double> RandomCutLooErrors();

// ---- the real DGL pipeline measured here (reports/dgl-measured/, scripts/measure-dgl.py) ---------------

// One measurement of a step of DGL's chunked pipeline on this machine: dispatch_data.py's
// data_proc_pipeline.py (one rank per part, all on this machine) or random_partition.py (one process).
struct MeasuredDglRun {
  const char* generator;  // "rmat", "random", "community"
  double nodes = 0;
  double edges = 0;        // directed edges as generated (DGL's chunked format keeps them directed)
  int ranks = 1;           // processes the step ran as
  double cpu_seconds = 0;  // user + sys of every process, divided by the ranks: one rank's share
  double peak_bytes = 0;   // the largest rank's resident high-water mark
  // The size the law scales with: edges per rank (dispatch) or nodes (random assignment).
  double size = 0;
};
const std::vector<MeasuredDglRun>& DispatchRuns();
const std::vector<MeasuredDglRun>& RandomPartitionRuns();

// seconds = fixed + per_unit x size, least squares on the relative error, over `runs` without the
// one at index `skip` and without those whose size is `below` or more (leave-one-scale-out). A
// negative intercept is held at 0; a negative slope, or runs of one size, give a constant.
struct LineFit {
  double fixed = 0;
  double per_unit = 0;
  double at(double size) const { return fixed + per_unit * size; }
};
LineFit FitLine(const std::vector<MeasuredDglRun>& runs, std::size_t skip = kKeepAll,
                double below = std::numeric_limits<double>::infinity());
// log(measured / predicted) of each run under the line fitted without it.
std::vector<double> LineLooErrors(const std::vector<MeasuredDglRun>& runs);

// ---- extrapolation: bands that widen beyond the sizes a law was checked on --------------------------------

// A law's error per e-fold of extrapolation: the larger of
//   the slope's standard error, rms / sqrt(sum (ln size - mean)^2) over the sizes it was fitted on
//     (what a least-squares prediction interval adds away from the data's centre), and
//   what leave-one-scale-out shows beyond the in-sample error: sqrt(max(0, mean(e^2) - rms^2) /
//     mean(d^2)) over the errors e of each scale predicted from the smaller ones, d their distance.
// Its 90 % band per e-fold is t x rate: the law's `...Extrapolation` parameter (calibration.h)
// ranges over exp(+-t x rate) and multiplies the prediction by itself to the power of the distance,
// so the band's half-width is sqrt(in-sample^2 + (t x rate x d)^2): exactly the in-sample band
// inside the checked range, widening linearly in log size outside it.
struct ScaleOut {
  double size = 0;       // the run predicted
  double distance = 0;   // e-folds beyond the largest size it was fitted on
  double log_error = 0;  // log(measured / predicted)
  double half_width = 0; // the band it was given, from the smaller sizes alone
  bool inside() const { return std::abs(log_error) <= half_width; }
};
struct Extrapolation {
  double rms = 0;         // in-sample (leave-one-out) rms log error
  double slope_rate = 0;  // rms / sqrt(Sxx)
  double loso_rate = 0;   // from leave-one-scale-out
  double rate() const { return std::max(slope_rate, loso_rate); }
  int points = 0;
  std::vector<ScaleOut> scale_outs;  // every run of the largest sizes predicted from the smaller ones
};
// For a straight-line law over `runs` (dispatch, random assignment): scale_outs predict the runs at
// each of the `scales` largest sizes from the runs below it.
Extrapolation LineExtrapolation(const std::vector<MeasuredDglRun>& runs, int scales = 2);
// For the METIS time law over MeasuredRuns() (this machine's speed refitted below each scale).
Extrapolation MetisTimeExtrapolation(const Calibration& c, int scales = 2);

}  // namespace sim::dglmodels
