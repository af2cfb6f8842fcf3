// The subcommands of dglsim, one file each (sim/cli/<name>.cc). Each file defines one
// Add<Name>Command that registers its options on `app` and returns what to run when it was parsed;
// main.cc calls every Add...Command before parsing and runs the one whose subcommand was given.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace dglsim_cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitFailed = 1;
inline constexpr int kExitBadInput = 2;

// A seed as a scenario's `seed:` takes it: a whole number from 0 to 2^63 - 1. CLI11 alone would
// read "-1" into an unsigned seed as 18446744073709551615 without a word.
inline CLI::Validator SeedRange() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        const bool digits = !text.empty() && text.size() <= 19 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (digits && (text.size() < 19 || text <= "9223372036854775807")) return "";
        return "a seed is a whole number from 0 to 9223372036854775807, not \"" + text + "\"";
      },
      "SEED");
}

struct Subcommand {
  CLI::App* app = nullptr;    // the parsed subcommand
  std::function<int()> run;   // its exit code (0, 1 or 2 as in shared/design/scenarios.md)
};

// One declaration per subcommand file of sim/cli/ (add yours here, and one line in main.cc's list;
// shards.h is what sweep and chaos share to run as shards):
Subcommand AddValidateCommand(CLI::App& app);       // sim/cli/validate.cc
Subcommand AddRunCommand(CLI::App& app);            // sim/cli/run.cc
Subcommand AddSuiteCommand(CLI::App& app);          // sim/cli/suite.cc
Subcommand AddChaosCommand(CLI::App& app);          // sim/cli/chaos.cc
Subcommand AddServeCommand(CLI::App& app);          // sim/cli/serve.cc
Subcommand AddCalibrateCommand(CLI::App& app);      // sim/cli/calibrate.cc
Subcommand AddModelsCommand(CLI::App& app);         // sim/cli/models.cc (models validate)
Subcommand AddSweepCommand(CLI::App& app);          // sim/cli/sweep.cc (capacity planning)
Subcommand AddImportCommand(CLI::App& app);         // sim/cli/import.cc (evidence to scenario)
Subcommand AddPlaceCommand(CLI::App& app);          // sim/cli/place.cc (the scheduler alone)

}  // namespace dglsim_cli
