// `dglsim suite DIR|FILES... [--junit FILE] [--jobs N]`: every scenario of the directories (*.yaml,
// *.yml, not recursively, in name order) and files given, on N threads (0: one per core;
// sim/harness/suite.h), then a line each in file order and a total; the output of those that did
// not pass follows their line. On a terminal, stderr shows each scenario as it finishes. --junit
// writes one test case per scenario. Exit 0 when all pass, 1 when any expectation failed, 2 when any
// input was bad or the JUnit report cannot be written (its path is checked before anything runs;
// a write that fails after, a full disk, is exit 2 too, whatever the scenarios did).
#include "sim/cli/commands.h"
#include "sim/harness/output_file.h"
#include "sim/harness/suite.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace dglsim_cli {
namespace {

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

// One test case per scenario: failures for failed expectations, errors for bad input.
std::string JUnitXml(const std::vector<harness::SuiteOutcome>& outcomes, int failed, int bad) {
  std::ostringstream junit;
  junit << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  junit << "<testsuite name=\"dglsim\" tests=\"" << outcomes.size() << "\" failures=\"" << failed << "\" errors=\"" << bad
        << "\">\n";
  for (const auto& o : outcomes) {
    junit << "  <testcase classname=\"dglsim.scenario\" name=\"" << XmlEscape(o.file) << "\" time=\"" << o.wall_seconds
          << "\">";
    if (o.code == kExitFailed) junit << "<failure message=\"expectation failed\">" << XmlEscape(o.output) << "</failure>";
    if (o.code != kExitOk && o.code != kExitFailed) junit << "<error message=\"bad input\">" << XmlEscape(o.output) << "</error>";
    junit << "</testcase>\n";
  }
  junit << "</testsuite>\n";
  return junit.str();
}

int Suite(const std::vector<std::string>& args, const std::string& junit_path, std::size_t jobs) {
  std::vector<std::string> problems;
  // The report's path is checked before anything runs, so a typo costs no run.
  if (!junit_path.empty())
    if (std::string why = harness::CannotWrite(junit_path); !why.empty())
      problems.push_back(junit_path + ": cannot write the JUnit report: " + why);
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
  std::cout << "scenarios: " << passed << " passed, " << (failed + bad) << " failed\n";
  if (!junit_path.empty()) {
    std::string why;
    if (!harness::WriteOutputFile(junit_path, JUnitXml(outcomes, failed, bad), &why)) {
      std::cerr << junit_path << ": cannot write the JUnit report: " << why << "\n";
      return kExitBadInput;
    }
  }
  if (bad > 0) return kExitBadInput;
  return failed > 0 ? kExitFailed : kExitOk;
}

struct SuiteArgs {
  std::vector<std::string> paths;
  std::string junit_path;
  std::size_t jobs = 0;
};

}  // namespace

Subcommand AddSuiteCommand(CLI::App& app) {
  auto args = std::make_shared<SuiteArgs>();
  CLI::App* suite = app.add_subcommand("suite", "Run every scenario of a directory or list, one line each");
  suite->add_option("DIR|FILES", args->paths, "Scenario files, or directories of them")->required();
  suite->add_option("--junit", args->junit_path, "Write a JUnit XML report, one test case per scenario");
  suite->add_option("--jobs,-j", args->jobs, "Scenarios run at once, each on its own thread (default: one per core)")
      ->check(CLI::Range(0, 1024));
  return Subcommand{suite, [args] { return Suite(args->paths, args->junit_path, args->jobs); }};
}

}  // namespace dglsim_cli
