// Fuzz target: YAML with positions (harness::LoadYamlString), the reader of every scenario, manifest
// and request body in YAML, and its inverse harness::JsonToYaml, which writes the scenario files
// `dglsim chaos` and `sweep` produce. Any text loads or gives a located YamlError, never a crash;
// every loaded document written back as YAML loads to the same JSON (the contract of JsonToYaml).
#include "sim/harness/config/yaml_json.h"
#include "tests/fuzz/fuzz_check.h"

#include <string>

using dglsim_fuzz::Require;
using json = kube::Json;

namespace {

std::string Show(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const harness::YamlLimits limits{.max_values = 20'000, .max_depth = 200};
  harness::YamlLoad load = harness::LoadYamlString(dglsim_fuzz::Text(data, size), "fuzz.yaml", limits);
  if (!load.ok()) {
    Require(load.error->ToString().rfind("fuzz.yaml", 0) == 0, "a YAML error names its file", load.error->ToString());
    return 0;
  }
  for (const harness::YamlDocument& doc : load.documents) {
    const std::string written = harness::JsonToYaml(doc.value);
    harness::YamlLoad again = harness::LoadYamlString(written, "written.yaml", limits);
    Require(again.ok(), "JsonToYaml writes YAML that loads",
            Show(doc.value) + "\n--- written:\n" + written + "\n--- error: " + (again.ok() ? "" : again.error->ToString()));
    Require(again.documents.size() == 1, "JsonToYaml writes one document", written);
    // NaN is the one value not equal to itself; compare the texts.
    Require(Show(again.documents[0].value) == Show(doc.value), "JsonToYaml writes YAML that loads to the same JSON",
            Show(doc.value) + "\n--- written:\n" + written + "\n--- loads as: " + Show(again.documents[0].value));
  }
  return 0;
}
