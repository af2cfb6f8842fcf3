// dglsim: the command line of the DGL Operator's deterministic test harness.
//
// Exit codes (shared/design/scenarios.md): 0 success, 1 an expectation or invariant failed, 2 bad
// input or bad usage. Bad input gets one line per problem naming file, line, column and field path;
// never a crash and never a stack trace.
//
// Subcommands: validate, run, suite (in parallel, --jobs), and in files of their own serve, calibrate
// and models validate (sim/cli/commands.h). (sweep and chaos are not built yet.)
#include "sim/cli/commands.h"
#include "sim/harness/config/manifest_check.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/yaml_json.h"
#include "sim/harness/run_command.h"
#include "sim/harness/suite.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

using dglsim_cli::kExitBadInput;
using dglsim_cli::kExitFailed;
using dglsim_cli::kExitOk;

std::string Plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// `dglsim validate FILE...`: format and admission checks of manifests (and, for now, the header of
// scenario files). Prints "FILE: N documents, valid" per good file; problems go to stderr.
// Whether the file's first document is a dglsim Scenario (then the scenario loader checks it whole).
bool IsScenarioFile(const std::string& file) {
  auto loaded = harness::LoadYamlFile(file);
  if (!loaded.ok() || loaded.documents.empty()) return false;
  const nlohmann::json& doc = loaded.documents.front().value;
  return doc.is_object() && doc.value("kind", "") == "Scenario";
}

int Validate(const std::vector<std::string>& files) {
  int exit_code = kExitOk;
  for (const std::string& file : files) {
    const harness::ManifestReport report =
        IsScenarioFile(file) ? harness::ValidateScenarioFile(file) : harness::CheckManifestFile(file);
    for (const std::string& line : report.warnings) std::cout << line << "\n";
    for (const std::string& line : report.notes) std::cout << line << "\n";
    std::cout.flush();
    for (const std::string& line : report.problems) std::cerr << line << "\n";
    std::cerr.flush();
    if (report.ok()) {
      std::cout << file << ": " << Plural(report.documents, "document") << ", valid\n";
    } else {
      std::cout << file << ": " << Plural(static_cast<int>(report.problems.size()), "problem") << "\n";
      exit_code = kExitBadInput;
    }
  }
  std::cout.flush();
  return exit_code;
}

// The scenario files a suite names: files as given, directories searched (not recursively) for
// *.yaml / *.yml, in name order so that runs and reports are stable.
std::vector<std::string> ScenarioFiles(const std::vector<std::string>& args, std::vector<std::string>* problems) {
  std::vector<std::string> out;
  for (const std::string& arg : args) {
    std::error_code ec;
    if (std::filesystem::is_directory(arg, ec)) {
      std::vector<std::string> found;
      for (const auto& entry : std::filesystem::directory_iterator(arg, ec)) {
        std::string ext = entry.path().extension().string();
        if (entry.is_regular_file() && (ext == ".yaml" || ext == ".yml")) found.push_back(entry.path().string());
      }
      std::sort(found.begin(), found.end());
      if (found.empty()) problems->push_back(arg + ": no scenario files (*.yaml) in this directory");
      out.insert(out.end(), found.begin(), found.end());
    } else if (std::filesystem::exists(arg, ec)) {
      out.push_back(arg);
    } else {
      problems->push_back(arg + ": no such file or directory");
    }
  }
  return out;
}

std::string XmlEscape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        // Control characters other than tab and newline are not allowed in XML 1.0.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') continue;
        out += c;
    }
  }
  return out;
}

const char* Verdict(int code) { return code == kExitOk ? "PASS" : code == kExitFailed ? "FAIL" : "BAD INPUT"; }

// `dglsim suite DIR|FILES... [--junit FILE] [--jobs N]`: every scenario, on N threads (0: one per
// core), then a line each in file order and a total. On a terminal, stderr shows each scenario as
// it finishes. Exit 0 when all pass, 1 when any expectation failed, 2 when any input was bad.
int Suite(const std::vector<std::string>& args, const std::string& junit_path, std::size_t jobs) {
  std::vector<std::string> problems;
  std::vector<std::string> files = ScenarioFiles(args, &problems);
  for (const auto& p : problems) std::cerr << p << "\n";
  if (!problems.empty()) return kExitBadInput;
  harness::SuiteOptions options;
  options.jobs = jobs;
  if (::isatty(STDERR_FILENO))
    options.on_finished = [](const harness::SuiteOutcome& o, std::size_t done, std::size_t total) {
      std::fprintf(stderr, "[%zu/%zu] %-9s %s %.2fs\n", done, total, Verdict(o.code), o.file.c_str(), o.wall_seconds);
    };
  std::vector<harness::SuiteOutcome> outcomes = harness::RunSuite(files, options);
  int passed = 0, failed = 0, bad = 0;
  for (const auto& o : outcomes) {
    (o.code == kExitOk ? passed : o.code == kExitFailed ? failed : bad)++;
    std::printf("%-9s %-60s %7.2fs\n", Verdict(o.code), o.file.c_str(), o.wall_seconds);
    std::fflush(stdout);
    if (o.code != kExitOk) std::cout << o.output;
    std::cout.flush();
  }
  if (!junit_path.empty()) {
    std::ofstream junit(junit_path);
    junit << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    junit << "<testsuite name=\"dglsim\" tests=\"" << outcomes.size() << "\" failures=\"" << failed
          << "\" errors=\"" << bad << "\">\n";
    for (const auto& o : outcomes) {
      junit << "  <testcase classname=\"dglsim.scenario\" name=\"" << XmlEscape(o.file) << "\" time=\"" << o.wall_seconds
            << "\">";
      if (o.code == kExitFailed) junit << "<failure message=\"expectation failed\">" << XmlEscape(o.output) << "</failure>";
      if (o.code != kExitOk && o.code != kExitFailed) junit << "<error message=\"bad input\">" << XmlEscape(o.output) << "</error>";
      junit << "</testcase>\n";
    }
    junit << "</testsuite>\n";
    if (!junit) {
      std::cerr << junit_path << ": cannot write the JUnit report\n";
      return kExitFailed;
    }
  }
  std::cout << "scenarios: " << passed << " passed, " << (failed + bad) << " failed\n";
  if (bad > 0) return kExitBadInput;
  return failed > 0 ? kExitFailed : kExitOk;
}

int Main(int argc, char** argv) {
  CLI::App app{"dglsim: deterministic simulator and test harness for the DGL Operator", "dglsim"};
  app.set_version_flag("--version", std::string("dglsim ") + DGLSIM_VERSION, "Print the version and exit");
  app.require_subcommand(0, 1);
  app.failure_message(CLI::FailureMessage::help);

  std::vector<std::string> files;
  CLI::App* validate = app.add_subcommand(
      "validate", "Check Kubernetes manifests (DGLJob conversion, defaulting and admission) and scenario files");
  validate->add_option("FILE", files, "YAML files, each with one or more documents")->required();

  std::string scenario;
  std::uint64_t seed = 0;
  std::string json_path;
  std::string html_path;
  std::string trace_path;
  bool quiet = false;
  CLI::App* run = app.add_subcommand("run", "Run one scenario: simulate, check its expectations, print a summary");
  run->add_option("SCENARIO", scenario, "The scenario file (YAML, kind: Scenario)")->required();
  CLI::Option* seed_option = run->add_option("--seed", seed, "Override the scenario's seed");
  run->add_option("--json", json_path, "Write the JSON report to this file");
  run->add_option("--html", html_path, "Write a self-contained HTML page (summary, Gantt chart, GPU use) to this file");
  run->add_option("--trace", trace_path, "Write a Chrome trace-event JSON file (Perfetto, chrome://tracing)");
  run->add_flag("--quiet", quiet, "No summary; the exit code says it all");

  std::vector<std::string> suite_args;
  std::string junit_path;
  CLI::App* suite = app.add_subcommand("suite", "Run every scenario of a directory or list, one line each");
  suite->add_option("DIR|FILES", suite_args, "Scenario files, or directories of them")->required();
  suite->add_option("--junit", junit_path, "Write a JUnit XML report, one test case per scenario");
  std::size_t suite_jobs = 0;
  suite->add_option("--jobs,-j", suite_jobs, "Scenarios run at once, each on its own thread (default: one per core)")
      ->check(CLI::Range(0, 1024));

  // Subcommands defined in files of their own (sim/cli/commands.h).
  std::vector<dglsim_cli::Subcommand> more;
  more.push_back(dglsim_cli::AddServeCommand(app));
  more.push_back(dglsim_cli::AddCalibrateCommand(app));
  more.push_back(dglsim_cli::AddModelsCommand(app));

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  if (validate->parsed()) return Validate(files);
  if (run->parsed()) {
    harness::RunCommandOptions options;
    if (seed_option->count() > 0) options.seed = seed;
    options.json_path = json_path;
    options.html_path = html_path;
    options.trace_path = trace_path;
    options.quiet = quiet;
    return harness::RunScenarioCommand(scenario, options);
  }
  if (suite->parsed()) return Suite(suite_args, junit_path, suite_jobs);
  for (const auto& command : more)
    if (command.app->parsed()) return command.run();
  std::cerr << "ERROR: a subcommand is required\n" << app.help();
  return kExitBadInput;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return Main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dglsim: internal error: " << e.what() << "\n";
  } catch (...) {
    std::cerr << "dglsim: internal error\n";
  }
  return kExitBadInput;
}
