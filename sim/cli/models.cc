// `dglsim models validate`: every published figure the workload models are fitted to or checked
// against (sim/dgl/published.h), with the prediction, its 90 % band and the ratio, as a Markdown
// table, and how many checks fall inside their bands.
//
// Writes --out (default reports/model-validation.md; "-" for stdout) and prints one summary line
// (with the checks' coverage against the bands' claim) and every fitted point that drifted past the
// tolerance. Exit codes: 0 every fitted point within
// the tolerance, 1 one drifted, 2 bad usage or a file that cannot be read or written.
#include "sim/cli/commands.h"
#include "sim/dgl/fits.h"
#include "sim/dgl/published.h"
#include "sim/harness/config/calibration_file.h"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>

namespace dglsim_cli {
namespace {

struct ModelsArgs {
  std::string out = "reports/model-validation.md";
  std::string calibration;
  double tolerance = 0.10;
};

int RunValidate(const ModelsArgs& args) {
  sim::dglmodels::Calibration calibration;
  if (!args.calibration.empty()) {
    harness::CalibrationLoad load = harness::LoadCalibrationFile(args.calibration);
    for (const auto& problem : load.problems) std::cerr << problem << "\n";
    if (!load.ok()) return kExitBadInput;
    calibration = *load.calibration;
  }
  if (args.out != "-") {
    const std::filesystem::path dir = std::filesystem::path(args.out).parent_path();
    std::error_code ec;
    if (!dir.empty() && !std::filesystem::is_directory(dir, ec)) {
      std::cerr << "dglsim models validate: " << args.out << ": no directory " << dir.string() << "\n";
      return kExitBadInput;
    }
  }
  const auto checks = sim::dglmodels::ValidatePoints(calibration, args.tolerance);
  const std::string markdown = sim::dglmodels::ValidationMarkdown(checks, calibration, args.tolerance);
  if (args.out == "-") {
    std::cout << markdown;
  } else {
    std::ofstream out(args.out);
    out << markdown;
    out.close();
    if (!out) {
      std::cerr << "dglsim models validate: " << args.out << ": cannot write the table\n";
      return kExitBadInput;
    }
  }
  int fitted = 0, modelled = 0;
  for (const auto& c : checks) {
    fitted += c.point->fitted && c.point->model ? 1 : 0;
    modelled += c.point->model ? 1 : 0;
  }
  const auto drifted = sim::dglmodels::DriftedPoints(checks);
  for (const auto* c : drifted)
    std::cerr << "drifted: " << c->point->id << " (" << c->point->what << "): ratio " << c->ratio << "\n";
  const sim::dglmodels::Coverage all = sim::dglmodels::CoverageByLaw(checks).front();
  std::fprintf(args.out == "-" ? stderr : stdout,
               "%zu points, %d modelled, %d fitted: %zu drifted past %.0f %%; %d of %d checks inside their %.0f %% "
               "bands%s%s\n",
               checks.size(), modelled, fitted, drifted.size(), 100 * args.tolerance, all.covered, all.checks,
               100 * sim::dglmodels::kBandCoverage, args.out == "-" ? "" : "; wrote ",
               args.out == "-" ? "" : args.out.c_str());
  return drifted.empty() ? kExitOk : kExitFailed;
}

}  // namespace

Subcommand AddModelsCommand(CLI::App& app) {
  auto args = std::make_shared<ModelsArgs>();
  CLI::App* models = app.add_subcommand("models", "The workload models: validate them against the published figures");
  models->require_subcommand(1);
  CLI::App* validate = models->add_subcommand(
      "validate", "Write every published point with the models' prediction, range and ratio (Markdown); exit 1 when "
                  "a fitted point drifted past the tolerance");
  validate->add_option("--out", args->out, "The Markdown file to write, \"-\" for stdout")->capture_default_str();
  validate->add_option("--calibration", args->calibration,
                       "A dglsim/v1 Calibration file: the points as its machine would run them (the METIS points then "
                       "move by that machine's speed and drift)")
      ->check(CLI::ExistingFile);
  validate->add_option("--tolerance", args->tolerance, "How far a fitted point may drift (0.10 = 10 %)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  return Subcommand{validate, [args] { return RunValidate(*args); }};
}

}  // namespace dglsim_cli
