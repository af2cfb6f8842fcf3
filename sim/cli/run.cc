// `dglsim run SCENARIO.yaml [--seed N] [--json FILE] [--html FILE] [--trace FILE] [--metrics FILE] [--audit-log FILE]
//  [--quiet] [--progress]`: one
// scenario, simulated, judged and reported (sim/harness/run_command.h says what each option does
// and what the exit codes mean).
#include "sim/cli/commands.h"
#include "sim/harness/run_command.h"

#include <cstdint>
#include <memory>
#include <string>

namespace dglsim_cli {
namespace {

struct RunArgs {
  std::string scenario;
  std::uint64_t seed = 0;
  CLI::Option* seed_option = nullptr;
  harness::RunCommandOptions options;
};

}  // namespace

Subcommand AddRunCommand(CLI::App& app) {
  auto args = std::make_shared<RunArgs>();
  CLI::App* run = app.add_subcommand("run", "Run one scenario: simulate, check its expectations, print a summary");
  run->add_option("SCENARIO", args->scenario, "The scenario file (YAML, kind: Scenario)")->required();
  args->seed_option = run->add_option("--seed", args->seed, "Override the scenario's seed")->check(SeedRange());
  run->add_option("--json", args->options.json_path, "Write the JSON report to this file");
  run->add_option("--html", args->options.html_path,
                  "Write a self-contained HTML page (summary, Gantt chart, GPU use) to this file");
  run->add_option("--trace", args->options.trace_path, "Write a Chrome trace-event JSON file (Perfetto, chrome://tracing)");
  run->add_option("--metrics", args->options.metrics_path,
                  "Write the in-simulation operator's metrics at the end of the run (Prometheus text format)");
  run->add_option("--audit-log", args->options.audit_log_path,
                  "Write every API call of the run to this file as an audit log (audit.k8s.io/v1 Event JSON lines, "
                  "simulated time), as kube-apiserver writes one");
  run->add_flag("--quiet", args->options.quiet, "No summary; the exit code says it all");
  run->add_flag("--progress", args->options.progress,
                "A line on standard error at each hundredth of the scenario's until: simulated time, events, API writes");
  return Subcommand{run, [args] {
                      harness::RunCommandOptions options = args->options;
                      options.exits_after = true;  // main returns right after
                      if (args->seed_option->count() > 0) options.seed = args->seed;
                      return harness::RunScenarioCommand(args->scenario, options);
                    }};
}

}  // namespace dglsim_cli
