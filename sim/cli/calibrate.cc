// `dglsim calibrate`: measure METIS on this machine and write a Calibration file for the
// partitioner model (the fitting and measuring live in sim/graph/calibrate.h).
//
// Output: a table of the measured points and the fit on stdout; a progress bar on stderr while it
// runs when stderr is a terminal, otherwise one line per measured point. The Calibration YAML goes
// to --out, or after the table on stdout without it. An --out that cannot be written is refused
// (exit 2) before anything is measured.
#include "sim/cli/commands.h"
#include "sim/graph/calibrate.h"
#include "sim/harness/output_file.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace dglsim_cli {
namespace {

using sim::graph::CalibrationOptions;
using sim::graph::CalibrationProgress;
using sim::graph::CalibrationResult;

struct CalibrateArgs {
  std::string out;
  std::vector<std::int64_t> sizes;
  std::vector<int> parts = {4};
  std::string generator = "rmat";
  std::uint64_t seed = 1;
  int edge_factor = 16;
  bool quick = false;
  std::string name;
};

std::string Megabytes(std::int64_t bytes) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.1f MB", static_cast<double>(bytes) / 1e6);
  return buffer;
}

// Redraws one line on a terminal: "[#######.............] 3/6 65536 nodes: partitioning".
void DrawBar(const CalibrationProgress& p) {
  constexpr int kWidth = 24;
  const int done = p.step == "measured" ? p.point + 1 : p.point;
  const int filled = p.points > 0 ? done * kWidth / p.points : 0;
  std::string bar(filled, '#');
  bar.append(kWidth - filled, '.');
  std::fprintf(stderr, "\r[%s] %d/%d %lld nodes: %-12s", bar.c_str(), done, p.points,
               static_cast<long long>(p.nodes), p.step.c_str());
  if (p.step == "measured" && done == p.points) std::fprintf(stderr, "\n");
  std::fflush(stderr);
}

void PrintTable(const CalibrationResult& result, int parts) {
  std::printf("%10s %12s %6s %10s %10s %12s %14s %8s\n", "nodes", "edges", "parts", "seconds", "cpu s", "peak",
              "bytes/edge", "cut");
  for (const auto& p : result.points) {
    // The cut as a share of the symmetrised edges (each cut edge counted in both directions).
    const double cut = p.edges > 0 ? 2.0 * static_cast<double>(p.edge_cut) / static_cast<double>(p.edges) : 0.0;
    std::printf("%10lld %12lld %6d %10.4f %10.4f %12s %14.1f %7.1f%%\n", static_cast<long long>(p.nodes),
                static_cast<long long>(p.edges), p.parts, p.seconds, p.cpu_seconds, Megabytes(p.peak_bytes).c_str(),
                p.edges > 0 ? static_cast<double>(p.peak_bytes) / static_cast<double>(p.edges) : 0.0, 100 * cut);
  }
  std::printf("(edges are symmetrised: each undirected edge counted in both directions)\n");
  if (!result.fit.error.empty()) return;
  std::printf("fit (%d parts): seconds = %.6f + edges / %.0f    (%.2f M symmetrised edges/s)\n", parts,
              result.fit.fixed_seconds,
              result.fit.edges_per_second, result.fit.edges_per_second / 1e6);
  std::printf("fit (%d parts): bytes   = %.0f + %.2f * edges\n", parts, result.fit.fixed_bytes,
              result.fit.bytes_per_edge);
  double wall = 0, cpu = 0;
  for (const auto& p : result.points) {
    wall += p.seconds;
    cpu += p.cpu_seconds;
  }
  if (cpu < 0.8 * wall) {
    // The same fit over CPU seconds: what an idle core would give.
    std::vector<double> edges, cpu_seconds;
    for (const auto& p : result.points) {
      if (p.parts != parts) continue;
      edges.push_back(static_cast<double>(p.edges));
      cpu_seconds.push_back(p.cpu_seconds);
    }
    sim::graph::LineFit cpu_fit = sim::graph::FitLine(edges, cpu_seconds);
    std::printf("note: the machine was busy (CPU time %.0f%% of wall time), so the wall-clock rate above is what "
                "it gave; ",
                100.0 * cpu / wall);
    if (cpu_fit.error.empty() && cpu_fit.slope > 0) {
      std::printf("in CPU time the rate is %.2f M symmetrised edges/s. ", 1e-6 / cpu_fit.slope);
    }
    std::printf("Run again on an idle machine for the rate of the CPU itself.\n");
  }
}

std::string HostName() {
  char buffer[256] = {};
  if (::gethostname(buffer, sizeof buffer - 1) != 0 || buffer[0] == '\0') return "localhost";
  return buffer;
}

int RunCalibrate(const CalibrateArgs& args) {
  CalibrationOptions options;
  options.sizes = !args.sizes.empty() ? args.sizes
                  : args.quick        ? sim::graph::QuickCalibrationSizes()
                                      : sim::graph::DefaultCalibrationSizes();
  options.parts = args.parts;
  options.generator = args.generator == "powerlaw" ? sim::graph::Generator::kPowerLaw : sim::graph::Generator::kRmat;
  options.seed = args.seed;
  options.edge_factor = args.edge_factor;
  if (args.quick) options.max_repeats = 1;

  if (std::string problem = sim::graph::ValidateCalibrationOptions(options); !problem.empty()) {
    std::cerr << "dglsim calibrate: " << problem << "\n";
    return kExitBadInput;
  }
  // Before minutes of measuring, not after.
  if (!args.out.empty())
    if (std::string why = harness::CannotWrite(args.out); !why.empty()) {
      std::cerr << "dglsim calibrate: " << args.out << ": cannot write the calibration file: " << why << "\n";
      return kExitBadInput;
    }
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  CalibrationResult result = sim::graph::RunCalibration(options, [tty](const CalibrationProgress& p) {
    if (tty) {
      DrawBar(p);
    } else if (p.step == "measured") {
      std::fprintf(stderr, "calibrate: %d/%d measured (%lld nodes)\n", p.point + 1, p.points,
                   static_cast<long long>(p.nodes));
    }
  });
  if (tty && !result.error.empty()) std::fprintf(stderr, "\n");  // end the unfinished bar
  PrintTable(result, options.parts.front());
  std::fflush(stdout);
  if (!result.error.empty()) {
    std::cerr << "dglsim calibrate: " << result.error << "\n";
    return kExitFailed;
  }
  const std::string yaml = sim::graph::CalibrationYaml(args.name.empty() ? HostName() : args.name, result, options);
  if (args.out.empty()) {
    std::cout << "\n" << yaml;
    std::cout.flush();
    return kExitOk;
  }
  if (std::string why; !harness::WriteOutputFile(args.out, yaml, &why)) {
    std::cerr << "dglsim calibrate: " << args.out << ": cannot write the calibration file: " << why << "\n";
    return kExitBadInput;
  }
  std::cout << "wrote " << args.out << "\n";
  return kExitOk;
}

}  // namespace

Subcommand AddCalibrateCommand(CLI::App& app) {
  auto args = std::make_shared<CalibrateArgs>();
  CLI::App* cmd = app.add_subcommand(
      "calibrate",
      "Measure METIS on this machine (synthetic graphs of growing size) and write a Calibration file for the "
      "partitioner model");
  cmd->add_option("--out", args->out, "Write the Calibration YAML to this file (default: after the table on stdout)");
  CLI::Option* sizes =
      cmd->add_option("--sizes", args->sizes, "Node counts of the graphs, e.g. --sizes 4096 16384 65536 (R-MAT rounds up "
                                              "to a power of two)")
          ->check(CLI::Range(std::int64_t{2}, std::int64_t{1} << 30));
  cmd->add_option("--parts", args->parts,
                  "Parts METIS splits each graph into; several (--parts 4 64 1024) measure each size at each, the "
                  "fit uses the first")
      ->check(CLI::Range(2, 1 << 20))
      ->capture_default_str();
  cmd->add_option("--generator", args->generator, "Synthetic graphs: rmat (Graph500 R-MAT) or powerlaw (Barabasi-Albert)")
      ->check(CLI::IsMember({"rmat", "powerlaw"}))
      ->capture_default_str();
  cmd->add_option("--edge-factor", args->edge_factor, "Undirected edges per node (Graph500 uses 16)")
      ->check(CLI::Range(1, 1024))
      ->capture_default_str();
  cmd->add_option("--seed", args->seed, "Seed of the generators and of METIS")->check(SeedRange())->capture_default_str();
  cmd->add_flag("--quick", args->quick, "Small graphs only, about a second (for tests)")->excludes(sizes);
  cmd->add_option("--name", args->name, "metadata.name of the Calibration (default: this host's name)");
  return Subcommand{cmd, [args] { return RunCalibrate(*args); }};
}

}  // namespace dglsim_cli
