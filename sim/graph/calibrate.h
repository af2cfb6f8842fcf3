// Calibration of the partitioner model on this machine: generate synthetic graphs of growing size,
// partition each with METIS for real into one or more part counts, measure wall time, CPU time,
// peak memory and the edge cut, and fit
//   seconds = fixedSeconds + symmetrisedEdges / edgesPerSecond
//   bytes   = fixedBytes   + bytesPerEdge * symmetrisedEdges
// by least squares over the points of the first part count (the other part counts show how time,
// memory and cut grow with the parts; sim/dgl/laws.h uses them). `dglsim calibrate` (sim/cli/calibrate.cc) prints the points and writes the fit
// as a Calibration YAML file that scenarios load in place of the published defaults
// (docs/models.md, Partitioning).
//
// "Symmetrised edges" counts each undirected edge in both directions, as docs/models.md does
// (papers100M: about 3.2 B symmetrised edges, about 0.67 M of them per second in METIS).
//
// This is the one place in the simulator that reads the wall clock and the process's memory: its
// outputs are measurements of the machine, never inputs of a deterministic run. The fit itself
// (FitLine, FitCalibration) is pure and deterministic.
//
// REQUIRES: RunCalibration measures the whole process's resident memory, so nothing else should
// run in the process at the same time.
#pragma once

#include "sim/graph/graph.h"

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace sim::graph {

struct CalibrationPoint {
  std::int64_t nodes = 0;
  std::int64_t edges = 0;  // symmetrised edges (twice the undirected edges)
  int parts = 0;
  double seconds = 0;           // wall time of PartitionGraph (METIS, its input arrays, the statistics)
  std::int64_t edge_cut = 0;    // undirected edges METIS left between parts
  std::int64_t peak_bytes = 0;  // resident memory added at the peak of PartitionGraph
  // CPU time of the same run: shown next to the wall time so that a busy machine is noticed (wall
  // well above CPU); not written to the calibration file.
  double cpu_seconds = 0;
};

// y = intercept + slope * x.
struct LineFit {
  double intercept = 0;
  double slope = 0;
  std::string error;  // "" on success
};

// Least squares with the intercept held non-negative (a fixed cost cannot be negative): when the
// unconstrained intercept comes out below zero, the best fit through the origin. Needs at least
// two distinct x values.
LineFit FitLine(const std::vector<double>& x, const std::vector<double>& y);

struct CalibrationFit {
  double edges_per_second = 0;  // 1 / slope of seconds over symmetrised edges
  double bytes_per_edge = 0;    // slope of peak bytes over symmetrised edges
  double fixed_seconds = 0;
  double fixed_bytes = 0;
  std::string error;  // "" on success; e.g. "time does not grow with the edges"
};

// Fits both models over the points with `parts` parts (0: every point); an error if fewer than two
// sizes or if time or memory does not grow with size.
CalibrationFit FitCalibration(const std::vector<CalibrationPoint>& points, int parts = 0);

enum class Generator { kRmat, kPowerLaw };

struct CalibrationOptions {
  // Node counts of the graphs, measured in this order (R-MAT rounds each up to a power of two).
  std::vector<std::int64_t> sizes;
  // Part counts, each size partitioned into each (in this order); the fit uses the first.
  std::vector<int> parts = {4};
  Generator generator = Generator::kRmat;
  int edge_factor = 16;  // undirected edges drawn per node (Graph500's 16); power law: half per new node
  std::uint64_t seed = 1;
  // Each point is partitioned this many times at most, stopping early once 0.25 s have been spent;
  // the fastest run counts (the others only add noise from the rest of the machine).
  int max_repeats = 3;
};

// The defaults of `dglsim calibrate`: well under a minute on one core; and --quick, about a second.
std::vector<std::int64_t> DefaultCalibrationSizes();
std::vector<std::int64_t> QuickCalibrationSizes();

// How a point's peak memory was measured.
enum class PeakMethod {
  kClearRefs,   // /proc/self/clear_refs reset VmHWM before the run; VmHWM after minus VmRSS before
  kHighWater,   // clear_refs not writable: VmHWM after minus max(VmHWM, VmRSS) before, a lower bound
  kUnavailable  // no /proc/self/status: peak bytes are 0 and the memory fit is skipped
};

struct CalibrationProgress {
  int point = 0;   // 0-based index of the point being worked on
  int points = 0;  // how many there are
  std::string step;  // "generating" or "partitioning"
  std::int64_t nodes = 0;
};

struct CalibrationResult {
  std::vector<CalibrationPoint> points;
  CalibrationFit fit;
  PeakMethod peak_method = PeakMethod::kClearRefs;
  std::string error;  // "" on success (a bad option, a METIS failure or a failed fit)
};

// What is wrong with `options` ("" if nothing): fewer than two different sizes, a size below the
// largest part count or above 2^30, more than 2^30 edges (size times edge factor), no part count or
// one below 2, an edge factor outside 1..1024.
std::string ValidateCalibrationOptions(const CalibrationOptions& options);

// Generates each size, partitions and measures it into every part count, then fits. `progress` (may
// be empty) is called before each step; `point`/`points` count (size, part count) pairs.
CalibrationResult RunCalibration(const CalibrationOptions& options,
                                 const std::function<void(const CalibrationProgress&)>& progress);

// The Calibration YAML document (apiVersion dglsim/v1, kind Calibration) for `name`.
std::string CalibrationYaml(const std::string& name, const CalibrationResult& result,
                            const CalibrationOptions& options);

}  // namespace sim::graph
