// `dglsim import FILE... [--audit-log FILE]... -o SCENARIO.yaml [--name NAME] [--node-monitor-grace-period D]
//  [--shrink [--shrink-runs N]]`:
// a cluster's evidence (kubectl get dgljobs,pods,nodes,events,leases -A -o yaml|json, and the API
// server's audit log) made into a scenario that replays it (sim/harness/import/importer.h says
// what goes where). The assumptions made and the evidence not used are comments of the scenario
// and lines on standard error.
//
// With --shrink, the scenario written is then run and, when it reproduces the evidence (every
// expectation holds), its faults are reduced by `dglsim chaos --shrink`'s shrinker to the fewest
// that still reproduce it, written beside it as SCENARIO-shrunk.yaml (each kept fault after its
// comment).
//
// Exit codes: 0 written (and shrunk); 1 with --shrink, the replay does not reproduce the evidence;
// 2 bad evidence (each problem located: FILE:LINE:COL: field.path: message),
// bad usage, or a scenario that could not be written.
#include "sim/cli/commands.h"
#include "sim/harness/chaos/scenario_file.h"
#include "sim/harness/chaos/shrink.h"
#include "sim/harness/checks/expectations.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"
#include "sim/harness/import/evidence.h"
#include "sim/harness/import/importer.h"
#include "sim/harness/output_file.h"
#include "sim/harness/report/report.h"
#include "sim/harness/run/runner.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace dglsim_cli {
namespace {

struct ImportArgs {
  std::vector<std::string> dumps;
  std::vector<std::string> audit_logs;
  std::string output;
  std::string name;
  std::string grace = "50s";
  bool shrink = false;
  int shrink_runs = 200;
};

// The comment lines of each item of the scenario text's `faults:` section, by index.
std::map<std::size_t, std::string> FaultComments(const std::string& text) {
  std::map<std::size_t, std::string> out;
  std::istringstream in(text);
  bool inside = false;
  std::size_t index = 0;
  std::string comment;
  for (std::string line; std::getline(in, line);) {
    if (line == "faults:") inside = true;
    else if (inside && !line.starts_with("  ")) break;
    else if (inside && line.starts_with("  # ")) comment += line + "\n";
    else if (inside && line.starts_with("  - ")) out[index++] = std::exchange(comment, "");
  }
  return out;
}

// `text` with its faults section holding `faults` (the loaded scenario's, shrunk): each kept fault
// after its original comment.
std::string WithFaults(const std::string& text, const std::vector<harness::FaultSpec>& faults) {
  const std::size_t begin = text.find("\nfaults:\n"), end = text.find("\nexpect:\n");
  if (begin == std::string::npos || end == std::string::npos || end < begin) return text;
  const std::map<std::size_t, std::string> comments = FaultComments(text);
  std::string section;
  for (const harness::FaultSpec& f : faults) {
    const std::size_t open = f.field_path.find('['), close = f.field_path.find(']');
    if (open != std::string::npos && close != std::string::npos) {
      auto it = comments.find(std::stoul(f.field_path.substr(open + 1, close - open - 1)));
      if (it != comments.end()) section += it->second;
    }
    std::istringstream lines(harness::JsonToYaml(kube::Json::array({harness::chaos::FaultToJson(f)})));
    for (std::string line; std::getline(lines, line);) section += "  " + line + "\n";
  }
  return text.substr(0, begin + 1) + (faults.empty() ? "" : "faults:\n" + section) + text.substr(end + 1);
}

// Reduces the imported faults to the fewest that still reproduce the evidence (every expectation
// holds), with `dglsim chaos --shrink`'s shrinker; writes OUTPUT-shrunk.yaml.
int ShrinkImported(const ImportArgs& args, const std::string& text) {
  harness::ScenarioLoad load = harness::LoadScenario(args.output);
  if (!load.ok()) {
    for (const auto& p : load.problems) std::cerr << p << "\n";
    return kExitBadInput;
  }
  const harness::Scenario& scenario = *load.scenario;
  auto reproduces = [&scenario](const std::vector<harness::FaultSpec>& faults) {
    harness::Scenario candidate = scenario;
    candidate.faults = faults;
    const harness::RunRecord record = harness::RunScenario(candidate);
    return harness::AllPassed(harness::EvaluateExpectations(candidate, record));
  };
  if (!reproduces(scenario.faults)) {
    std::cerr << "shrink: the replay does not reproduce the evidence (dglsim run " << args.output
              << " says which expectation differs): nothing to shrink\n";
    return kExitFailed;
  }
  // The shrinker's steps say "shrink: ..." themselves.
  auto step = [](const std::string& line) { std::cout << line << "\n" << std::flush; };
  const auto result = harness::chaos::Shrink(scenario.faults, scenario.until, reproduces, args.shrink_runs, step);
  std::cout << "shrink: " << scenario.faults.size() << " -> " << result.faults.size()
            << " faults still reproduce the evidence (" << result.runs << " runs"
            << (result.budget_exhausted ? ", stopped at --shrink-runs" : "") << ")\n";
  for (const auto& f : result.faults) std::cout << "  " << harness::chaos::DescribeFault(f) << "\n";
  std::filesystem::path out(args.output);
  const std::string path = (out.parent_path() / (out.stem().string() + "-shrunk.yaml")).string();
  const std::string shrunk = "# Shrunk by dglsim import --shrink: " + std::to_string(result.faults.size()) + " of " +
                             std::to_string(scenario.faults.size()) +
                             " imported faults are enough to reproduce the evidence.\n" + WithFaults(text, result.faults);
  std::string error;
  if (!harness::WriteOutputFile(path, shrunk, &error)) {
    std::cerr << "dglsim import: " << error << "\n";
    return kExitBadInput;
  }
  std::cout << "wrote " << path << "\n";
  return kExitOk;
}

int Import(const ImportArgs& args) {
  auto grace = harness::ParseDuration(args.grace);
  if (!grace.ok() || *grace.value < 0) {
    std::cerr << "--node-monitor-grace-period: \"" << args.grace << "\" is not a duration (e.g. 40s)\n";
    return kExitBadInput;
  }
  harness::evidence::Evidence evidence = harness::evidence::LoadEvidence(args.dumps, args.audit_logs);
  if (!evidence.ok()) {
    for (const std::string& p : evidence.problems) std::cerr << p << "\n";
    std::cerr << "dglsim import: bad evidence, no scenario written\n";
    return kExitBadInput;
  }
  harness::importer::ImportOptions options;
  options.name = args.name.empty() ? std::filesystem::path(args.output).stem().string() : args.name;
  options.sources = args.dumps;
  options.sources.insert(options.sources.end(), args.audit_logs.begin(), args.audit_logs.end());
  options.node_monitor_grace = *grace.value;
  harness::evidence::Evidence& ev = evidence;
  harness::importer::ImportResult result = harness::importer::BuildScenario(ev, options);
  for (const std::string& p : result.problems) std::cerr << p << "\n";
  if (!result.ok()) {
    std::cerr << "dglsim import: bad evidence, no scenario written\n";
    return kExitBadInput;
  }
  for (const std::string& a : result.assumptions) std::cerr << "assumed: " << a << "\n";
  for (const std::string& u : result.unused) std::cerr << "not used: " << u << "\n";
  std::string error;
  if (!harness::WriteOutputFile(args.output, result.yaml, &error)) {
    std::cerr << "dglsim import: " << error << "\n";
    return kExitBadInput;
  }
  std::cerr << "dglsim import: wrote " << args.output << " (" << result.assumptions.size() << " assumptions, "
            << result.unused.size() << " pieces of evidence not used); replay it with dglsim run " << args.output << "\n";
  return args.shrink ? ShrinkImported(args, result.yaml) : kExitOk;
}

}  // namespace

Subcommand AddImportCommand(CLI::App& app) {
  auto args = std::make_shared<ImportArgs>();
  CLI::App* cmd = app.add_subcommand(
      "import", "Make a scenario that replays a cluster's evidence: kubectl List dumps (YAML or JSON) and audit logs");
  cmd->add_option("FILE", args->dumps, "kubectl get dgljobs,pods,nodes,events,leases -A -o yaml (or -o json) output")
      ->required();
  cmd->add_option("--audit-log", args->audit_logs, "An audit log (audit.k8s.io/v1 Event JSON lines); repeatable");
  cmd->add_option("-o,--output", args->output, "The scenario file to write")->required();
  cmd->add_option("--name", args->name, "The scenario's metadata.name (default: the output file's name)");
  cmd->add_option("--node-monitor-grace-period", args->grace,
                  "How long the cluster took to mark a silent node NotReady (kube-controller-manager's flag)")
      ->capture_default_str();
  cmd->add_flag("--shrink", args->shrink,
                "Then reduce the imported faults to the fewest that still reproduce the evidence (every expectation "
                "holds) and write OUTPUT-shrunk.yaml; exit 1 when the replay does not reproduce it");
  cmd->add_option("--shrink-runs", args->shrink_runs, "Runs the shrinker may make at most")->capture_default_str()->check(
      CLI::Range(1, 100000));
  return Subcommand{cmd, [args] { return Import(*args); }};
}

}  // namespace dglsim_cli
