// `dglsim validate FILE...`: format and admission checks of Kubernetes manifests (DGLJob conversion,
// defaulting and admission) and, for files whose first document is a dglsim Scenario, the whole
// scenario as the loader reads it. Prints warnings and notes, then "FILE: N documents, valid" per
// good file on stdout; problems go to stderr, one line each (FILE:LINE:COL: field: message).
// Exit 0 when every file is valid, 2 when any is not.
#include "sim/cli/commands.h"
#include "sim/harness/config/manifest_check.h"
#include "sim/harness/config/scenario.h"
#include "sim/harness/config/yaml_json.h"

#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace dglsim_cli {
namespace {

std::string Plural(int n, const char* word) { return std::to_string(n) + " " + word + (n == 1 ? "" : "s"); }

// Whether the file's first document is a dglsim Scenario (then the scenario loader checks it whole).
bool IsScenarioFile(const std::string& file) {
  auto loaded = harness::LoadYamlFile(file);
  if (!loaded.ok() || loaded.documents.empty()) return false;
  const kube::Json& doc = loaded.documents.front().value;
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

}  // namespace

Subcommand AddValidateCommand(CLI::App& app) {
  auto files = std::make_shared<std::vector<std::string>>();
  CLI::App* validate = app.add_subcommand(
      "validate", "Check Kubernetes manifests (DGLJob conversion, defaulting and admission) and scenario files");
  validate->add_option("FILE", *files, "YAML files, each with one or more documents")->required();
  return Subcommand{validate, [files] { return Validate(*files); }};
}

}  // namespace dglsim_cli
