// A ManifestCheck is what `dglsim validate` does to one YAML file: the format and admission checks a
// manifest must pass before the fake API (or the scenario loader) would accept it, reported against
// the YAML source.
//
// For every document: it is a mapping with a string apiVersion and kind that the fake API serves
// (kube::Registry::WithBuiltins()), and metadata.name (or metadata.generateName) is set. A `List`
// (or `<Kind>List`, as `kubectl get -o yaml` prints) is checked item by item. DGLJobs, in
// kubeflow.org/v1alpha1 or the original operator's qihoo.net/v1alpha1, are converted
// (dgl::ConvertLegacy, whose lines become warnings), defaulted and validated exactly as admission
// would (dgl::DefaultDGLJob, dgl::ValidateDGLJob). A `dglsim/v1` Scenario is only parsed and checked
// for metadata.name; the full scenario check belongs to the scenario loader, and a note says so.
//
// Every problem is one line `FILE:LINE:COL: FIELD.PATH: message`. Nothing here throws.
#pragma once

#include "fakeapi/client/json.h"
#include "sim/harness/config/yaml_json.h"

#include <string>
#include <string_view>
#include <vector>

namespace harness {

inline constexpr const char* kScenarioApiVersion = "dglsim/v1";
inline constexpr const char* kScenarioKind = "Scenario";

struct ManifestReport {
  std::string file;
  int documents = 0;                  // non-empty documents
  std::vector<std::string> problems;  // "FILE:LINE:COL: FIELD.PATH: message"
  std::vector<std::string> warnings;  // "FILE:LINE:COL: warning: ..." (legacy conversion)
  std::vector<std::string> notes;     // "FILE:LINE:COL: note: ..."
  bool ok() const { return problems.empty(); }
};

// Checks the YAML in `text`; `file` names it in every line.
ManifestReport CheckManifestText(std::string_view text, std::string_view file);
// Reads and checks a file; a missing or unreadable file is one problem `FILE: cannot open: ...`.
ManifestReport CheckManifestFile(const std::string& path);

// What admission makes of one DGLJob, the object at `base` in `file` (its source `positions`):
// converted from the original operator's qihoo.net/v1alpha1 (each change a warning line), then
// defaulted and validated as admission would (each cause a problem line; a field the conversion
// moved is reported under its new path, at its old place). The scenario loader and `validate`
// both use it.
struct DGLJobAdmission {
  kube::Json converted;           // converted, not defaulted
  kube::Json defaulted;           // converted and defaulted
  std::vector<std::string> warnings;  // "FILE:LINE:COL: warning: ..."
  std::vector<std::string> problems;  // "FILE:LINE:COL: FIELD.PATH: message"
};
DGLJobAdmission AdmitDGLJob(const kube::Json& job, std::string_view file, const SourceMap& positions,
                            const std::string& base);

}  // namespace harness
