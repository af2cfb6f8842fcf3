// dglsim: the command line of the DGL Operator's deterministic test harness.
//
// Exit codes (shared/design/scenarios.md): 0 success, 1 an expectation or invariant failed, 2 bad
// input or bad usage. Bad input gets one line per problem naming file, line, column and field path;
// never a crash and never a stack trace.
//
// Subcommands so far: validate. run, suite, sweep, chaos and serve arrive with the scenario harness.
#include "sim/harness/manifest_check.h"

#include <CLI/CLI.hpp>

#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr int kExitOk = 0;
constexpr int kExitBadInput = 2;

std::string Plural(int n, const char* word) {
  return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
}

// `dglsim validate FILE...`: format and admission checks of manifests (and, for now, the header of
// scenario files). Prints "FILE: N documents, valid" per good file; problems go to stderr.
int Validate(const std::vector<std::string>& files) {
  int exit_code = kExitOk;
  for (const std::string& file : files) {
    const harness::ManifestReport report = harness::CheckManifestFile(file);
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

int Main(int argc, char** argv) {
  CLI::App app{"dglsim: deterministic simulator and test harness for the DGL Operator", "dglsim"};
  app.set_version_flag("--version", std::string("dglsim ") + DGLSIM_VERSION, "Print the version and exit");
  app.require_subcommand(0, 1);
  app.failure_message(CLI::FailureMessage::help);

  std::vector<std::string> files;
  CLI::App* validate = app.add_subcommand(
      "validate", "Check Kubernetes manifests (DGLJob conversion, defaulting and admission) and scenario files");
  validate->add_option("FILE", files, "YAML files, each with one or more documents")->required();

  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  if (validate->parsed()) return Validate(files);
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
