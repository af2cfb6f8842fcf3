// dglsim: the command line of the DGL Operator's deterministic test harness. One file per
// subcommand in this folder (commands.h): validate, run, suite, chaos, serve, calibrate, models, sweep, import,
// place.
//
// Exit codes (docs: the scenario format): 0 success, 1 an expectation or invariant failed, 2 bad
// input, bad usage or output that could not be written (a report, standard output). Bad input gets one line per problem naming file, line, column and field path;
// never a crash and never a stack trace.
#include "sim/cli/commands.h"

#include <CLI/CLI.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

using dglsim_cli::kExitBadInput;

// A summary that could not be written (stdout on a full disk, /dev/full) is lost output: exit 2
// rather than the verdict of a report nobody saw.
int WithOutputChecked(int code) {
  std::cout.flush();
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout) && std::cout.good()) return code;
  std::cerr << "dglsim: cannot write to standard output" << (errno ? std::string(": ") + std::strerror(errno) : "") << "\n";
  return kExitBadInput;
}

int Main(int argc, char** argv) {
  CLI::App app{"dglsim: deterministic simulator and test harness for the DGL Operator", "dglsim"};
  app.set_version_flag("--version", std::string("dglsim ") + DGLSIM_VERSION, "Print the version and exit");
  app.require_subcommand(0, 1);
  app.failure_message(CLI::FailureMessage::help);
  const std::vector<dglsim_cli::Subcommand> commands = {
      dglsim_cli::AddValidateCommand(app), dglsim_cli::AddRunCommand(app),       dglsim_cli::AddSuiteCommand(app),
      dglsim_cli::AddServeCommand(app),    dglsim_cli::AddCalibrateCommand(app), dglsim_cli::AddModelsCommand(app),
      dglsim_cli::AddChaosCommand(app),
      dglsim_cli::AddSweepCommand(app),
      dglsim_cli::AddImportCommand(app),
      dglsim_cli::AddPlaceCommand(app),
  };
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitBadInput;
  }
  for (const auto& command : commands)
    if (command.app->parsed()) return WithOutputChecked(command.run());
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
