#include "sim/dgl/fits.h"

#include <algorithm>
#include <cmath>

namespace sim::dglmodels {

const std::vector<MeasuredRun>& MeasuredRuns() {
  // reports/metis-measured/*.yaml, in file order: nodes, symmetrised edges, parts, CPU seconds
  // (the .txt files' "cpu s" column), peakBytes, edgeCut.
  static const std::vector<MeasuredRun> kRuns = {
      {"Barabasi-Albert", "powerlaw", 262144, 4194232, 16, 6.4353, 290004992, 1493380},
      {"Barabasi-Albert", "powerlaw", 262144, 4194232, 64, 10.1226, 321208320, 1655544},
      {"Barabasi-Albert", "powerlaw", 1048576, 16777144, 16, 43.3447, 1174831104, 5972181},
      {"Barabasi-Albert", "powerlaw", 1048576, 16777144, 64, 83.3008, 1256275968, 6619365},
      {"R-MAT", "rmat-ef32", 131072, 7045060, 16, 5.0965, 393240576, 2256474},
      {"R-MAT", "rmat-ef32", 524288, 29729340, 16, 32.7213, 1807941632, 10740765},
      {"R-MAT", "rmat-ef4", 131072, 999564, 16, 0.8101, 74469376, 358280},
      {"R-MAT", "rmat-ef4", 524288, 4063960, 16, 6.1346, 323235840, 1466422},
      {"R-MAT", "rmat-ef8", 131072, 1942500, 16, 1.6716, 140926976, 675467},
      {"R-MAT", "rmat-ef8", 524288, 7968202, 16, 12.7775, 599056384, 2944331},
      {"R-MAT", "rmat-parts", 131072, 3728360, 2, 1.7963, 203841536, 615927},
      {"R-MAT", "rmat-parts", 131072, 3728360, 8, 2.7180, 249843712, 1083896},
      {"R-MAT", "rmat-parts", 131072, 3728360, 64, 3.0137, 243687424, 1689594},
      {"R-MAT", "rmat-parts", 131072, 3728360, 256, 7.0784, 252076032, 1706008},
      {"R-MAT", "rmat-parts", 131072, 3728360, 1024, 15.4141, 260456448, 1763437},
      {"R-MAT", "rmat-parts", 131072, 3728360, 4096, 15.2056, 245121024, 1823038},
      {"R-MAT", "rmat-parts", 262144, 7610396, 2, 4.4701, 455704576, 1260362},
      {"R-MAT", "rmat-parts", 262144, 7610396, 8, 6.5974, 549343232, 2260884},
      {"R-MAT", "rmat-parts", 262144, 7610396, 64, 5.3778, 521981952, 3449869},
      {"R-MAT", "rmat-parts", 262144, 7610396, 256, 16.4447, 519024640, 3551344},
      {"R-MAT", "rmat-parts", 262144, 7610396, 1024, 30.9878, 471367680, 3596157},
      {"R-MAT", "rmat-parts", 262144, 7610396, 4096, 55.0583, 537378816, 3642097},
      {"R-MAT", "rmat-sizes", 65536, 1819208, 16, 1.5539, 123809792, 610892},
      {"R-MAT", "rmat-sizes", 65536, 1819208, 64, 2.2554, 109260800, 749693},
      {"R-MAT", "rmat-sizes", 262144, 7610396, 16, 9.1671, 504901632, 2727129},
      {"R-MAT", "rmat-sizes", 262144, 7610396, 64, 6.4098, 521531392, 3449869},
      {"R-MAT", "rmat-sizes", 1048576, 31399660, 16, 61.0478, 2130771968, 11027160},
      {"R-MAT", "rmat-sizes", 1048576, 31399660, 64, 36.4404, 2165817344, 14328611},
      {"R-MAT", "rmat-sizes", 2097152, 63543364, 16, 110.2582, 4526755840, 22986447},
      {"R-MAT", "rmat-sizes", 2097152, 63543364, 64, 87.5627, 4628033536, 29068585},
  };
  return kRuns;
}

double StudentT95(int dof) {
  // Exact for 1 - 4 degrees of freedom; beyond, the Cornish-Fisher expansion around the normal's
  // quantile (within 0.001 from 5 degrees of freedom on).
  static const double kSmall[] = {6.3138, 2.9200, 2.3534, 2.1318};
  if (dof < 1) dof = 1;
  if (dof <= 4) return kSmall[dof - 1];
  const double z = 1.6448536, v = dof;
  const double z3 = z * z * z, z5 = z3 * z * z, z7 = z5 * z * z;
  return z + (z3 + z) / (4 * v) + (5 * z5 + 16 * z3 + 3 * z) / (96 * v * v) +
         (3 * z7 + 19 * z5 + 17 * z3 - 15 * z) / (384 * v * v * v);
}

LooBand BandOf(const std::vector<double>& loo_log_errors) {
  LooBand b;
  b.points = static_cast<int>(loo_log_errors.size());
  if (b.points == 0) return b;
  double squares = 0, absolute = 0;
  for (double e : loo_log_errors) squares += e * e, absolute += std::abs(e);
  b.rms = std::sqrt(squares / b.points);
  b.mean_abs = absolute / b.points;
  b.half_width = StudentT95(b.points - 1) * b.rms;
  return b;
}

MemoryFit FitMetis32Memory(const std::vector<MeasuredRun>& runs, std::size_t skip) {
  // Minimise sum ((a E + b N) / P - 1)^2: normal equations in x1 = E / P, x2 = N / P, y = 1.
  double s11 = 0, s12 = 0, s22 = 0, s1 = 0, s2 = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == skip) continue;
    const double x1 = runs[i].edges / runs[i].peak_bytes, x2 = runs[i].nodes / runs[i].peak_bytes;
    s11 += x1 * x1, s12 += x1 * x2, s22 += x2 * x2, s1 += x1, s2 += x2;
  }
  const double det = s11 * s22 - s12 * s12;
  if (!(std::abs(det) > 0)) return {};
  return {(s1 * s22 - s2 * s12) / det, (s2 * s11 - s1 * s12) / det};
}

CutFit FitRandomCut(const std::vector<MeasuredRun>& runs, std::size_t skip) {
  // y = log(share / (1 - 1/k)) = log q64 + growth x, x = log(log2 k / 6): ordinary least squares.
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == skip || runs[i].parts < 2) continue;
    const double x = std::log(std::log2(runs[i].parts) / 6.0);
    const double y = std::log(runs[i].cut_share() / RandomCutFraction(runs[i].parts));
    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
  }
  const double det = n * sxx - sx * sx;
  if (!(det > 0)) return {};
  const double growth = (n * sxy - sx * sy) / det;
  return {std::exp((sy - growth * sx) / n), growth};
}

Calibration WithMemoryFit(Calibration c, const MemoryFit& fit) {
  c.metis32_bytes_per_edge = fit.per_edge;
  c.metis32_bytes_per_node = fit.per_node;
  return c;
}

Calibration WithRandomCutFit(Calibration c, const CutFit& fit) {
  c.metis_random_cut_q64 = fit.q64;
  c.metis_random_cut_growth = fit.growth;
  return c;
}

namespace {

// The law's seconds of a run at the reference machine, without its error factor.
double LawSeconds(const Calibration& c, const MeasuredRun& r) {
  Calibration shape = c;
  shape.metis_time_error = 1.0;
  shape.metis_machine_speed = 1.0;
  return MetisSeconds(shape, r.shape(), r.parts, 1);
}

// Sum of squared log errors of the runs' times with the speed fitted (the variance about the mean).
double TimeSquaredError(const Calibration& c, const std::vector<MeasuredRun>& runs) {
  std::vector<double> logs;
  double mean = 0;
  for (const MeasuredRun& r : runs) logs.push_back(std::log(r.cpu_seconds / LawSeconds(c, r))), mean += logs.back();
  mean /= static_cast<double>(logs.size());
  double sum = 0;
  for (double l : logs) sum += (l - mean) * (l - mean);
  return sum;
}

}  // namespace

double MeasuredMachineSpeed(const Calibration& c, const std::vector<MeasuredRun>& runs, std::size_t skip) {
  double log_sum = 0;
  int count = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == skip) continue;
    log_sum += std::log(LawSeconds(c, runs[i]) / runs[i].cpu_seconds);
    ++count;
  }
  return count > 0 ? std::exp(log_sum / count) : 1.0;
}

double FitRandomPartsShare(const Calibration& c, const std::vector<MeasuredRun>& runs) {
  auto error = [&](double share) {
    Calibration trial = c;
    trial.metis_random_parts_share = share;
    return TimeSquaredError(trial, runs);
  };
  const double golden = (std::sqrt(5.0) - 1) / 2;
  double a = 0.05, b = 5.0;
  double x1 = b - golden * (b - a), x2 = a + golden * (b - a);
  double f1 = error(x1), f2 = error(x2);
  for (int i = 0; i < 80; ++i) {
    if (f1 < f2) {
      b = x2, x2 = x1, f2 = f1, x1 = b - golden * (b - a), f1 = error(x1);
    } else {
      a = x1, x1 = x2, f1 = f2, x2 = a + golden * (b - a), f2 = error(x2);
    }
  }
  return (a + b) / 2;
}

std::vector<double> MetisTimeLooErrors(const Calibration& c) {
  const auto& runs = MeasuredRuns();
  std::vector<double> out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    out.push_back(std::log(runs[i].cpu_seconds * MeasuredMachineSpeed(c, runs, i) / LawSeconds(c, runs[i])));
  return out;
}

std::vector<double> Metis32MemoryLooErrors() {
  const auto& runs = MeasuredRuns();
  const Calibration c;
  std::vector<double> out;
  for (std::size_t i = 0; i < runs.size(); ++i)
    out.push_back(
        std::log(runs[i].peak_bytes / Metis32Bytes(WithMemoryFit(c, FitMetis32Memory(runs, i)), runs[i].shape())));
  return out;
}

std::vector<double> RandomCutLooErrors() {
  const auto& runs = MeasuredRuns();
  const Calibration c;
  std::vector<double> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const Calibration fit = WithRandomCutFit(c, FitRandomCut(runs, i));
    out.push_back(std::log(runs[i].cut_share() / MetisCutFraction(fit, runs[i].parts, Structure::kRandom)));
  }
  return out;
}

const std::vector<MeasuredDglRun>& DispatchRuns() {
  // reports/dgl-measured/*.yaml, the chunked records: data_proc_pipeline.py's CPU seconds summed
  // over its ranks and divided by them, the largest rank's ru_maxrss. size = edges per rank. The
  // uniform random graph of 16 M edges counts: every rank finished the pipeline, one crashed at
  // exit in gloo's teardown (its record's note).
  static const std::vector<MeasuredDglRun> kRuns = [] {
    std::vector<MeasuredDglRun> runs = {
        {"community", 62500, 1000000, 4, 7.0300, 668336128},
        {"community", 250000, 4000000, 4, 9.8803, 851501056},
        {"random", 62500, 1000000, 4, 7.4515, 663670784},
        {"random", 250000, 4000000, 4, 9.3650, 842698752},
        {"random", 1000000, 16000000, 4, 18.3017, 1647341568},
        {"rmat", 65536, 1000000, 4, 7.3033, 660369408},
        {"rmat", 262144, 4000000, 4, 10.4080, 858673152},
        {"rmat", 1048576, 16000000, 4, 19.0673, 1660067840},
    };
    for (MeasuredDglRun& r : runs) r.size = r.edges / r.ranks;
    return runs;
  }();
  return kRuns;
}

const std::vector<MeasuredDglRun>& RandomPartitionRuns() {
  // reports/dgl-measured/*.yaml, the chunked records' random_partition.py: one process; size = nodes.
  static const std::vector<MeasuredDglRun> kRuns = [] {
    std::vector<MeasuredDglRun> runs = {
        {"community", 62500, 1000000, 1, 3.5580, 595009536},
        {"community", 250000, 4000000, 1, 4.1050, 593162240},
        {"random", 62500, 1000000, 1, 4.7250, 594612224},
        {"random", 250000, 4000000, 1, 4.5260, 591876096},
        {"random", 1000000, 16000000, 1, 4.3590, 592752640},
        {"rmat", 65536, 1000000, 1, 3.9380, 594583552},
        {"rmat", 262144, 4000000, 1, 3.5650, 594169856},
        {"rmat", 1048576, 16000000, 1, 4.7260, 593207296},
    };
    for (MeasuredDglRun& r : runs) r.size = r.nodes;
    return runs;
  }();
  return kRuns;
}

LineFit FitLine(const std::vector<MeasuredDglRun>& runs, std::size_t skip, double below) {
  // Minimise sum ((a + b x) / y - 1)^2: normal equations in u = 1 / y, v = x / y.
  double suu = 0, suv = 0, svv = 0, su = 0, sv = 0;
  int n = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (i == skip || runs[i].size >= below) continue;
    const double u = 1 / runs[i].cpu_seconds, v = runs[i].size / runs[i].cpu_seconds;
    suu += u * u, suv += u * v, svv += v * v, su += u, sv += v, ++n;
  }
  const double det = suu * svv - suv * suv;
  LineFit f;
  if (n >= 2 && std::abs(det) > 1e-9 * suu * svv) f = {(su * svv - sv * suv) / det, (sv * suu - su * suv) / det};
  if (f.fixed < 0 || n < 2) f = {0, svv > 0 ? sv / svv : 0};  // through the origin
  if (f.per_unit < 0 || !(std::abs(det) > 1e-9 * suu * svv)) f = {suu > 0 ? su / suu : 0, 0};  // a constant
  return f;
}

std::vector<double> LineLooErrors(const std::vector<MeasuredDglRun>& runs) {
  std::vector<double> out;
  for (std::size_t i = 0; i < runs.size(); ++i) out.push_back(std::log(runs[i].cpu_seconds / FitLine(runs, i).at(runs[i].size)));
  return out;
}

namespace {

// rms / sqrt(sum (ln x - mean)^2).
double SlopeRate(const std::vector<double>& sizes, double rms) {
  double mean = 0, sxx = 0;
  for (double x : sizes) mean += std::log(x);
  mean /= std::max<std::size_t>(1, sizes.size());
  for (double x : sizes) sxx += (std::log(x) - mean) * (std::log(x) - mean);
  return sxx > 0 ? rms / std::sqrt(sxx) : 0;
}

// Sizes within this ratio of each other are one scale: leave-one-scale-out predicts a scale from
// sizes at least this much smaller.
constexpr double kScaleRatio = 1.5;

// The scales, largest first: each the smallest size of its group (sizes within kScaleRatio of the
// group's largest).
std::vector<double> Scales(const std::vector<double>& sizes) {
  std::vector<double> s = sizes, out;
  std::sort(s.begin(), s.end(), std::greater<>());
  double top = 0;
  for (double x : s) {
    if (out.empty() || x * kScaleRatio < top)
      out.push_back(x), top = x;
    else
      out.back() = x;
  }
  return out;
}

// What leave-one-scale-out adds to the in-sample error, per e-fold.
double LosoRate(const std::vector<ScaleOut>& outs, double rms) {
  double e2 = 0, d2 = 0;
  for (const ScaleOut& o : outs) e2 += o.log_error * o.log_error, d2 += o.distance * o.distance;
  if (outs.empty() || !(d2 > 0)) return 0;
  return std::sqrt(std::max(0.0, e2 / outs.size() - rms * rms) / (d2 / outs.size()));
}

}  // namespace

Extrapolation LineExtrapolation(const std::vector<MeasuredDglRun>& runs, int scales) {
  Extrapolation x;
  std::vector<double> sizes;
  for (const MeasuredDglRun& r : runs) sizes.push_back(r.size);
  const LooBand band = BandOf(LineLooErrors(runs));
  x.points = band.points, x.rms = band.rms;
  x.slope_rate = SlopeRate(sizes, band.rms);
  const std::vector<double> scale = Scales(sizes);
  for (int k = 0; k < scales && k + 1 < static_cast<int>(scale.size()); ++k) {
    // Fit below this scale only; its band from those runs alone (their LOO rms, their slope term).
    std::vector<MeasuredDglRun> small;
    for (const MeasuredDglRun& r : runs)
      if (r.size < scale[k] * (1 - 1e-9)) small.push_back(r);
    std::vector<double> distinct;
    for (const MeasuredDglRun& r : small) distinct.push_back(r.size);
    if (Scales(distinct).size() < 2) continue;  // a line needs two sizes
    const LineFit fit = FitLine(small);
    const LooBand b = BandOf(LineLooErrors(small));
    std::vector<double> small_sizes;
    for (const MeasuredDglRun& r : small) small_sizes.push_back(r.size);
    const double rate = SlopeRate(small_sizes, b.rms), t = StudentT95(b.points - 1);
    const double largest = *std::max_element(small_sizes.begin(), small_sizes.end());
    for (const MeasuredDglRun& r : runs) {
      if (r.size < scale[k] * (1 - 1e-9) || (k > 0 && r.size >= scale[k - 1] * (1 - 1e-9))) continue;
      const double d = std::log(r.size / largest);
      x.scale_outs.push_back({r.size, d, std::log(r.cpu_seconds / fit.at(r.size)),
                              std::sqrt(b.half_width * b.half_width + (t * rate * d) * (t * rate * d))});
    }
  }
  x.loso_rate = LosoRate(x.scale_outs, band.rms);
  return x;
}

Extrapolation MetisTimeExtrapolation(const Calibration& c, int scales) {
  const auto& runs = MeasuredRuns();
  Extrapolation x;
  std::vector<double> sizes;
  for (const MeasuredRun& r : runs) sizes.push_back(r.edges);
  const LooBand band = BandOf(MetisTimeLooErrors(c));
  x.points = band.points, x.rms = band.rms;
  x.slope_rate = SlopeRate(sizes, band.rms);
  const std::vector<double> scale = Scales(sizes);
  for (int k = 0; k < scales && k + 1 < static_cast<int>(scale.size()); ++k) {
    std::vector<MeasuredRun> small;
    std::vector<double> small_sizes;
    for (const MeasuredRun& r : runs)
      if (r.edges < scale[k] * (1 - 1e-9)) small.push_back(r), small_sizes.push_back(r.edges);
    Calibration here = c;
    here.metis_time_error = 1.0;
    here.metis_machine_speed = MeasuredMachineSpeed(c, small);
    // The small runs' own in-sample band: their speed's log errors (the law's shape is fixed).
    std::vector<double> errors;
    for (const MeasuredRun& r : small)
      errors.push_back(std::log(r.cpu_seconds / MetisSeconds(here, r.shape(), r.parts, 1)));
    const LooBand b = BandOf(errors);
    const double rate = SlopeRate(small_sizes, b.rms), t = StudentT95(b.points - 1);
    const double largest = *std::max_element(small_sizes.begin(), small_sizes.end());
    for (const MeasuredRun& r : runs) {
      if (r.edges < scale[k] * (1 - 1e-9) || (k > 0 && r.edges >= scale[k - 1] * (1 - 1e-9))) continue;
      const double d = std::log(r.edges / largest);
      x.scale_outs.push_back({r.edges, d, std::log(r.cpu_seconds / MetisSeconds(here, r.shape(), r.parts, 1)),
                              std::sqrt(b.half_width * b.half_width + (t * rate * d) * (t * rate * d))});
    }
  }
  x.loso_rate = LosoRate(x.scale_outs, band.rms);
  return x;
}

}  // namespace sim::dglmodels
