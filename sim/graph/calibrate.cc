// Measuring METIS on this machine and fitting the partitioner model. See calibrate.h.
#include "sim/graph/calibrate.h"

#include "sim/graph/csr_graph.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <time.h>
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

namespace sim::graph {

LineFit FitLine(const std::vector<double>& x, const std::vector<double>& y) {
  LineFit fit;
  if (x.size() != y.size() || x.size() < 2) {
    fit.error = "need at least two points to fit a line";
    return fit;
  }
  const double n = static_cast<double>(x.size());
  double mean_x = 0, mean_y = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    mean_x += x[i];
    mean_y += y[i];
  }
  mean_x /= n;
  mean_y /= n;
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxx += (x[i] - mean_x) * (x[i] - mean_x);
    sxy += (x[i] - mean_x) * (y[i] - mean_y);
  }
  if (!(sxx > 0)) {
    fit.error = "need at least two different sizes to fit a line";
    return fit;
  }
  fit.slope = sxy / sxx;
  fit.intercept = mean_y - fit.slope * mean_x;
  if (fit.intercept < 0) {
    // The constrained optimum lies on the boundary intercept = 0: least squares through the origin.
    double xx = 0, xy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      xx += x[i] * x[i];
      xy += x[i] * y[i];
    }
    fit.intercept = 0;
    fit.slope = xy / xx;
  }
  return fit;
}

CalibrationFit FitCalibration(const std::vector<CalibrationPoint>& points, int parts) {
  CalibrationFit fit;
  std::vector<double> edges, seconds, bytes;
  for (const CalibrationPoint& p : points) {
    if (parts > 0 && p.parts != parts) continue;
    edges.push_back(static_cast<double>(p.edges));
    seconds.push_back(p.seconds);
    bytes.push_back(static_cast<double>(p.peak_bytes));
  }
  LineFit time = FitLine(edges, seconds);
  if (!time.error.empty()) {
    fit.error = time.error;
    return fit;
  }
  if (!(time.slope > 0)) {
    fit.error = "the partitioning time does not grow with the number of edges; measure larger graphs";
    return fit;
  }
  LineFit memory = FitLine(edges, bytes);
  if (!(memory.slope > 0)) {
    fit.error = "the peak memory does not grow with the number of edges; measure larger graphs";
    return fit;
  }
  fit.edges_per_second = 1.0 / time.slope;
  fit.fixed_seconds = time.intercept;
  fit.bytes_per_edge = memory.slope;
  fit.fixed_bytes = memory.intercept;
  return fit;
}

std::vector<std::int64_t> DefaultCalibrationSizes() {
  return {std::int64_t{1} << 12, std::int64_t{1} << 13, std::int64_t{1} << 14, std::int64_t{1} << 15,
          std::int64_t{1} << 16, std::int64_t{1} << 17};
}

std::vector<std::int64_t> QuickCalibrationSizes() {
  return {std::int64_t{1} << 10, std::int64_t{1} << 11, std::int64_t{1} << 12, std::int64_t{1} << 13};
}

namespace {

// A field of /proc/self/status in bytes ("VmRSS:     1234 kB"); -1 if it cannot be read.
std::int64_t StatusBytes(const std::string& key) {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.compare(0, key.size() + 1, key + ":") != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    std::int64_t kb = -1;
    fields >> kb;
    return kb < 0 ? -1 : kb * 1024;
  }
  return -1;
}

// Resets the process's resident-set high-water mark (VmHWM) to its current size (Linux >= 4.0).
bool ResetHighWaterMark() {
  int fd = ::open("/proc/self/clear_refs", O_WRONLY | O_CLOEXEC);
  if (fd < 0) return false;
  bool ok = ::write(fd, "5", 1) == 1;
  ::close(fd);
  return ok;
}

double ProcessCpuSeconds() {
  timespec now{};
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now);
  return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) * 1e-9;
}

std::int64_t RoundUpToPowerOfTwo(std::int64_t n, int* scale) {
  *scale = 0;
  while ((std::int64_t{1} << *scale) < n) ++*scale;
  return std::int64_t{1} << *scale;
}

}  // namespace

std::string ValidateCalibrationOptions(const CalibrationOptions& options) {
  std::vector<std::int64_t> sizes = options.sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  if (sizes.size() < 2) return "need at least two different sizes to fit the model";
  if (options.parts.empty()) return "calibration needs a part count";
  int most_parts = 0;
  for (int parts : options.parts) {
    if (parts < 2) return "calibration needs at least 2 parts (1 part never calls METIS)";
    most_parts = std::max(most_parts, parts);
  }
  if (options.edge_factor < 1 || options.edge_factor > 1024) return "the edge factor must be between 1 and 1024";
  for (std::int64_t size : sizes) {
    if (size < most_parts || size > (std::int64_t{1} << 30)) {
      return "size " + std::to_string(size) + " is out of range: sizes must be between the number of parts (" +
             std::to_string(most_parts) + ") and 2^30 nodes";
    }
    // METIS here uses 32-bit indices: the symmetrised edges must stay below 2^31.
    if (size * options.edge_factor > (std::int64_t{1} << 30)) {
      return "size " + std::to_string(size) + " with edge factor " + std::to_string(options.edge_factor) +
             " is too large: METIS with 32-bit indices takes at most 2^30 undirected edges";
    }
  }
  return "";
}

namespace {

// Partitions `graph` into `parts` up to `max_repeats` times (stopping once 0.25 s were spent) and
// keeps the fastest run's times and the largest peak. "" or the METIS error.
std::string MeasurePoint(const Graph& graph, int parts, const CalibrationOptions& options, PeakMethod peak_method,
                         CalibrationPoint* point) {
  *point = CalibrationPoint{.nodes = graph.nodes(), .edges = 2 * graph.edges(), .parts = parts};
  double spent = 0;
  for (int run = 0; run < std::max(1, options.max_repeats) && (run == 0 || spent < 0.25); ++run) {
    // Give freed heap pages back first so that they neither hide nor inflate this run's growth.
    ::malloc_trim(0);
    std::int64_t before = StatusBytes("VmRSS");
    if (peak_method == PeakMethod::kClearRefs) {
      ResetHighWaterMark();
    } else if (peak_method == PeakMethod::kHighWater) {
      before = std::max(before, StatusBytes("VmHWM"));
    }
    const double cpu_start = ProcessCpuSeconds();
    const auto start = std::chrono::steady_clock::now();
    Partition partition = PartitionGraph(graph, parts, Method::kMetis, options.seed);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    const double cpu_seconds = ProcessCpuSeconds() - cpu_start;
    const std::int64_t peak = peak_method == PeakMethod::kUnavailable ? 0 : StatusBytes("VmHWM") - before;
    if (!partition.error.empty()) return std::to_string(graph.nodes()) + " nodes: " + partition.error;
    spent += seconds;
    if (run == 0 || seconds < point->seconds) {
      point->seconds = seconds;
      point->cpu_seconds = cpu_seconds;
    }
    point->edge_cut = partition.edge_cut;
    point->peak_bytes = std::max(point->peak_bytes, std::max<std::int64_t>(peak, 0));
  }
  return "";
}

}  // namespace

CalibrationResult RunCalibration(const CalibrationOptions& options,
                                 const std::function<void(const CalibrationProgress&)>& progress) {
  CalibrationResult result;
  result.error = ValidateCalibrationOptions(options);
  if (!result.error.empty()) return result;
  std::vector<std::int64_t> sizes = options.sizes;
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  const bool have_status = StatusBytes("VmHWM") >= 0;
  result.peak_method = !have_status ? PeakMethod::kUnavailable
                       : ResetHighWaterMark() ? PeakMethod::kClearRefs
                                              : PeakMethod::kHighWater;
  // A warm-up run, so that one-time costs (pages of the METIS library touched for the first time,
  // the allocator's first arenas) do not land in the first point.
  if (auto warm_up = GenerateRmat(8, 16 << 8, options.seed)) {
    PartitionGraph(*warm_up, options.parts.front(), Method::kMetis, options.seed);
  }
  const int count = static_cast<int>(sizes.size() * options.parts.size());
  int index = 0;
  for (std::int64_t size : sizes) {
    if (progress) progress({.point = index, .points = count, .step = "generating", .nodes = size});
    std::shared_ptr<const Graph> graph;
    if (options.generator == Generator::kRmat) {
      int scale = 0;
      std::int64_t nodes = RoundUpToPowerOfTwo(size, &scale);
      graph = GenerateRmat(scale, nodes * options.edge_factor, options.seed);
    } else {
      graph = GeneratePowerLaw(size, std::max(1, options.edge_factor / 2), options.seed);
    }
    if (graph == nullptr) {
      result.error = "cannot generate a graph of " + std::to_string(size) + " nodes";
      return result;
    }
    for (int parts : options.parts) {
      if (progress) progress({.point = index, .points = count, .step = "partitioning", .nodes = graph->nodes()});
      CalibrationPoint point;
      result.error = MeasurePoint(*graph, parts, options, result.peak_method, &point);
      if (!result.error.empty()) return result;
      result.points.push_back(point);
      if (progress) progress({.point = index, .points = count, .step = "measured", .nodes = graph->nodes()});
      ++index;
    }
  }
  if (result.peak_method == PeakMethod::kUnavailable) {
    result.error = "cannot read the peak memory (/proc/self/status is not available)";
    return result;
  }
  result.fit = FitCalibration(result.points, options.parts.front());
  result.error = result.fit.error;
  return result;
}

namespace {

std::string Format(const char* format, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, format, value);
  return buffer;
}

std::string PartList(const std::vector<int>& parts) {
  std::string out;
  for (int p : parts) out += (out.empty() ? "" : ", ") + std::to_string(p);
  return out;
}

}  // namespace

std::string CalibrationYaml(const std::string& name, const CalibrationResult& result,
                            const CalibrationOptions& options) {
  std::ostringstream out;
  out << "# dglsim calibrate: METIS_PartGraphKway measured on this machine, "
      << (options.generator == Generator::kRmat ? "R-MAT" : "power-law") << " graphs (edge factor "
      << options.edge_factor << "), " << PartList(options.parts) << " parts (the fit: " << options.parts.front()
      << " parts), seed " << options.seed << ".\n"
      << "# edges are symmetrised (each undirected edge counted in both directions, as in docs/models.md);\n"
      << "# peakBytes is the resident memory partitioning added to the process ("
      << (result.peak_method == PeakMethod::kClearRefs
              ? "VmHWM after a clear_refs reset minus VmRSS before"
              : "VmHWM after minus the larger of VmHWM and VmRSS before: a lower bound")
      << ").\n";
  out << "apiVersion: dglsim/v1\n";
  out << "kind: Calibration\n";
  // A JSON string is a valid YAML double-quoted scalar, whatever the name holds.
  out << "metadata: {name: " << nlohmann::json(name).dump() << "}\n";
  out << "partition:\n";
  out << "  metisEdgesPerSecond: " << Format("%.0f", result.fit.edges_per_second) << "\n";
  out << "  metisBytesPerEdge: " << Format("%.2f", result.fit.bytes_per_edge) << "\n";
  out << "  metisFixedSeconds: " << Format("%.6f", result.fit.fixed_seconds) << "\n";
  out << "  metisFixedBytes: " << Format("%.0f", result.fit.fixed_bytes) << "\n";
  out << "  structure: random   # synthetic graphs: no locality (sim/dgl/laws.h)\n";
  out << "points:\n";
  for (const CalibrationPoint& p : result.points) {
    out << "  - {nodes: " << p.nodes << ", edges: " << p.edges << ", parts: " << p.parts
        << ", seconds: " << Format("%.6f", p.seconds) << ", peakBytes: " << p.peak_bytes << ", edgeCut: " << p.edge_cut
        << "}\n";
  }
  return out.str();
}

}  // namespace sim::graph
