// `dglsim sweep SWEEP.yaml` and `dglsim sweep merge SLICE...`: capacity planning (docs/sweeps.md).
//
//   dglsim sweep SWEEP.yaml [--out DIR] [--csv F] [--json F] [--html F] [--markdown F] [--jobs N]
//                           [--shard I/N | --shard N] [--scenario-of POINT] [--quiet]
//   dglsim sweep merge SLICE|DIR... [--out DIR] [--csv F] [--json F] [--html F] [--markdown F] [--quiet]
//
// A sweep runs every point of the sweep file on --jobs threads (default: one per core), with a
// progress bar and the time left on stderr when it is a terminal, then prints a table of the points
// and the recommendation and writes the outputs asked for (--out DIR: DIR/NAME.csv, .json, .html).
// With --shard it runs one slice of the runs and writes only the slice (DIR/NAME.shard-I-of-N.json);
// `--shard N` takes I from JOB_COMPLETION_INDEX, as a Kubernetes Indexed Job sets it. `merge` joins
// the slices (files, or directories holding *.shard-*-of-*.json) into exactly the unsharded outputs.
// --scenario-of POINT prints that point's scenario (its first seed), for `dglsim run`.
//
// Exit codes: 0 the sweep ran (points that fail are results, not errors); 1 a run hit an internal
// error, or an output could not be written; 2 bad input (FILE:LINE:COL: path: message), nothing run.
#include "sim/cli/commands.h"
#include "sim/cli/shards.h"
#include "sim/harness/sweep/point_document.h"
#include "sim/harness/sweep/results.h"
#include "sim/harness/sweep/sweep_file.h"
#include "sim/harness/sweep/sweep_pages.h"
#include "sim/harness/sweep/sweep_runner.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

namespace dglsim_cli {
namespace {

namespace sw = harness::sweep;
using json = kube::Json;

struct Outputs {
  std::string out_dir, csv, json_path, html, markdown;
  bool quiet = false;
};

struct SweepArgs {
  std::string file;
  std::size_t jobs = 0;
  std::string shard;
  long scenario_of = -1;
  Outputs outputs;
  std::vector<std::string> slices;
};

bool WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) std::cerr << path << ": cannot write\n";
  return static_cast<bool>(out);
}

// Problems with where the outputs go, found before anything runs.
bool OutputsWritable(const Outputs& o) {
  bool ok = true;
  if (!o.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (!std::filesystem::is_directory(o.out_dir)) {
      std::cerr << o.out_dir << ": cannot create the output directory\n";
      ok = false;
    }
  }
  for (const std::string* path : {&o.csv, &o.json_path, &o.html, &o.markdown}) {
    if (path->empty()) continue;
    const std::filesystem::path parent = std::filesystem::path(*path).parent_path();
    if (std::filesystem::is_directory(*path) || (!parent.empty() && !std::filesystem::is_directory(parent))) {
      std::cerr << *path << ": cannot be written (a directory, or its directory does not exist)\n";
      ok = false;
    }
  }
  return ok;
}

bool WriteOutputs(const sw::SweepResult& result, const Outputs& o) {
  const std::string name = result.header["name"].get<std::string>();
  const std::string dir = o.out_dir.empty() ? "" : o.out_dir + "/";
  bool ok = true;
  auto write = [&](const std::string& explicit_path, const std::string& extension, auto make) {
    const std::string path = !explicit_path.empty() ? explicit_path : dir.empty() ? "" : dir + name + extension;
    if (path.empty()) return;
    ok = WriteFile(path, make()) && ok;
    if (!o.quiet) std::cout << "wrote " << path << "\n";
  };
  write(o.csv, ".csv", [&] { return sw::ResultCsv(result); });
  write(o.json_path, ".json", [&] { return sw::ResultJsonText(result); });
  write(o.html, ".html", [&] { return sw::SweepHtml(result); });
  if (!o.markdown.empty()) {
    const std::filesystem::path md(o.markdown);
    sw::MarkdownReport report = sw::SweepMarkdown(result, md.stem().string() + "-");
    ok = WriteFile(o.markdown, report.markdown) && ok;
    for (const auto& [file, svg] : report.svgs) ok = WriteFile((md.parent_path() / file).string(), svg) && ok;
    if (!o.quiet) std::cout << "wrote " << o.markdown << " and " << report.svgs.size() << " SVG charts beside it\n";
  }
  return ok;
}

// A progress bar with the time left, redrawn in place on a terminal.
std::function<void(std::size_t, std::size_t)> ProgressBar() {
  if (!::isatty(STDERR_FILENO)) return nullptr;
  auto start = std::make_shared<std::chrono::steady_clock::time_point>(std::chrono::steady_clock::now());
  return [start](std::size_t done, std::size_t total) {
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - *start).count();
    const long left = static_cast<long>(elapsed / static_cast<double>(done) * static_cast<double>(total - done) + 0.5);
    const int width = 30, filled = static_cast<int>(width * done / total);
    std::fprintf(stderr, "\r[%s%s] %zu/%zu runs %3zu%%  %ld:%02ld left ", std::string(static_cast<std::size_t>(filled), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - filled), '-').c_str(), done, total, 100 * done / total, left / 60, left % 60);
    if (done == total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

int RunSweepCommand(const SweepArgs& args) {
  sw::SweepLoad load = sw::LoadSweepFile(args.file);
  for (const std::string& w : load.warnings) std::cerr << w << "\n";
  for (const std::string& p : load.problems) std::cerr << p << "\n";
  if (!load.ok()) return kExitBadInput;
  const sw::SweepSpec& spec = *load.spec;
  if (args.scenario_of >= 0) {
    if (static_cast<std::size_t>(args.scenario_of) >= spec.points.size()) {
      std::cerr << "--scenario-of " << args.scenario_of << ": the sweep has points 0 to " << spec.points.size() - 1 << "\n";
      return kExitBadInput;
    }
    std::cout << "# point " << args.scenario_of << " of sweep " << spec.name << ": " << spec.PointLabel(static_cast<std::size_t>(args.scenario_of))
              << "\n# relative paths resolve against " << (spec.base_dir.empty() ? "." : spec.base_dir) << "\n"
              << spec.point_texts[static_cast<std::size_t>(args.scenario_of)];
    return kExitOk;
  }
  sw::SweepRunOptions options;
  options.jobs = args.jobs;
  if (!args.shard.empty()) {
    std::string why;
    std::optional<harness::Shard> shard = ShardFromFlag(args.shard, &why);
    if (!shard) {
      std::cerr << why << "\n";
      return kExitBadInput;
    }
    options.shard = *shard;
  }
  if (!OutputsWritable(args.outputs)) return kExitBadInput;
  options.on_finished = ProgressBar();
  const std::vector<json> rows = sw::RunSweep(spec, options);
  bool errors = false;
  for (const json& row : rows) errors = errors || row["outcome"] == "Error";
  const json header = sw::SweepHeader(spec);
  if (!args.shard.empty()) {
    const std::string path = !args.outputs.json_path.empty() ? args.outputs.json_path
                                                              : SliceFileName(args.outputs.out_dir, spec.name, ".shard-", options.shard);
    if (!WriteFile(path, sw::SliceJson(header, options.shard, rows).dump() + "\n")) return kExitFailed;
    if (!args.outputs.quiet) std::cout << "shard " << options.shard.index << "/" << options.shard.count << ": " << rows.size() << " of " << sw::RunCount(spec) << " runs, wrote " << path << "\n";
    return errors ? kExitFailed : kExitOk;
  }
  const sw::SweepResult result = sw::ResultOf(header, rows);
  if (!args.outputs.quiet) std::cout << sw::SweepTable(result);
  if (!WriteOutputs(result, args.outputs)) return kExitFailed;
  return errors ? kExitFailed : kExitOk;
}

int MergeCommand(const SweepArgs& args) {
  const std::vector<std::string> files = SliceFiles(args.slices, ".shard-");
  std::vector<std::string> problems;
  const std::vector<json> slices = ReadSlices(files, &problems);
  std::optional<sw::SweepResult> result;
  if (problems.empty()) result = sw::MergeSlices(slices, files, &problems);
  for (const std::string& p : problems) std::cerr << p << "\n";
  if (!result || !OutputsWritable(args.outputs)) return kExitBadInput;
  if (!args.outputs.quiet) std::cout << sw::SweepTable(*result);
  if (!WriteOutputs(*result, args.outputs)) return kExitFailed;
  for (const json& row : result->rows)
    if (row["outcome"] == "Error") return kExitFailed;
  return kExitOk;
}

void AddOutputOptions(CLI::App* app, Outputs& o) {
  app->add_option("--out", o.out_dir, "Write NAME.csv, NAME.json and NAME.html here (created when missing)");
  app->add_option("--csv", o.csv, "Write the CSV of every run to this file");
  app->add_option("--json", o.json_path, "Write the JSON of every run, point and the recommendation to this file");
  app->add_option("--html", o.html, "Write the self-contained HTML page (charts, recommendation) to this file");
  app->add_option("--markdown", o.markdown, "Write a Markdown report to this file, its SVG charts beside it");
  app->add_flag("--quiet", o.quiet, "Print no table");
}

}  // namespace

Subcommand AddSweepCommand(CLI::App& app) {
  auto args = std::make_shared<SweepArgs>();
  CLI::App* sweep = app.add_subcommand("sweep", "Run many points of a scenario (capacity planning) and recommend one");
  sweep->add_option("SWEEP", args->file, "The sweep file (YAML, kind: Sweep)");
  sweep->add_option("--jobs,-j", args->jobs, "Runs at once, each on its own thread (default: one per core)")->check(CLI::Range(0, 1024));
  sweep->add_option("--shard", args->shard, "Run slice I of N (I/N), or N with I from JOB_COMPLETION_INDEX; writes the slice only");
  sweep->add_option("--scenario-of", args->scenario_of, "Print this point's scenario (for dglsim run) and exit");
  AddOutputOptions(sweep, args->outputs);
  auto merge_args = std::make_shared<SweepArgs>();
  CLI::App* merge = sweep->add_subcommand("merge", "Join the slices of a sharded sweep into the unsharded outputs");
  merge->add_option("SLICES", merge_args->slices, "Slice files, or directories of them")->required();
  AddOutputOptions(merge, merge_args->outputs);
  return {sweep, [sweep, merge, args, merge_args] {
            if (merge->parsed()) return MergeCommand(*merge_args);
            if (args->file.empty()) {
              std::cerr << "dglsim sweep: a sweep file is required\n" << sweep->help();
              return kExitBadInput;
            }
            return RunSweepCommand(*args);
          }};
}

}  // namespace dglsim_cli
