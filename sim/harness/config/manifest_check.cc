#include "sim/harness/config/manifest_check.h"

#include "fakeapi/client/json.h"
#include "fakeapi/client/resource.h"
#include "operator/api/dgljob_api.h"
#include "sim/harness/config/units.h"
#include "sim/harness/config/yaml_json.h"

#include <exception>
#include <utility>

namespace harness {
namespace {

using json = kube::Json;

std::string JoinPath(std::string_view base, std::string_view path) { return JoinFieldPath(base, path); }

std::string Quote(std::string_view s) { return json(std::string(s)).dump(); }

// Checks the objects of one YAML document; `base` is the field path of the object being checked
// ("" for the document itself, "items[2]" inside a List).
class DocumentChecker {
 public:
  DocumentChecker(std::string_view file, const SourceMap& positions, ManifestReport* report)
      : file_(file), positions_(positions), report_(report), registry_(kube::Registry::WithBuiltins()) {}

  void CheckObject(const json& object, const std::string& base) {
    if (!object.is_object()) {
      Problem(base, "", "expected a Kubernetes object (a mapping with apiVersion and kind), got " + TypeName(object));
      return;
    }
    const std::string* api_version = RequiredString(object, base, "apiVersion");
    const std::string* kind = RequiredString(object, base, "kind");
    if (api_version != nullptr && kind != nullptr && IsList(*api_version, *kind)) {
      CheckList(object, base, *api_version, *kind);
      return;
    }
    CheckMetadata(object, base);
    if (api_version == nullptr || kind == nullptr) return;

    if (*api_version == kScenarioApiVersion && *kind == kScenarioKind) {
      Note(base, "Scenario parsed and metadata checked; the full scenario check arrives with the scenario loader");
      return;
    }
    if (*kind == dgl::kKind && (*api_version == dgl::kApiVersion || *api_version == dgl::kLegacyApiVersion)) {
      CheckDGLJob(object, base);
      return;
    }
    if (registry_.FindByKind(*api_version, *kind) != nullptr) return;
    for (const auto& type : registry_.All()) {
      if (type->kind == *kind) {
        Problem(base, "apiVersion",
                "Unsupported value: " + Quote(*api_version) + ": kind " + *kind + " is served as apiVersion " +
                    Quote(type->ApiVersion()));
        return;
      }
    }
    std::string served;
    for (const auto& type : registry_.All()) {
      if (!served.empty()) served += ", ";
      served += type->kind;
    }
    Problem(base, "kind",
            "Unsupported value: " + Quote(*kind) + ": no such kind in apiVersion " + Quote(*api_version) +
                " (the fake API serves " + served + ")");
  }

 private:
  const std::string* RequiredString(const json& object, const std::string& base, const char* field) {
    auto it = object.find(field);
    if (it == object.end() || it->is_null() || (it->is_string() && it->get_ref<const std::string&>().empty())) {
      Problem(base, field, "Required value");
      return nullptr;
    }
    if (!it->is_string()) {
      Problem(base, field, "Invalid value: must be a string, got " + TypeName(*it));
      return nullptr;
    }
    return &it->get_ref<const std::string&>();
  }

  void CheckMetadata(const json& object, const std::string& base) {
    auto metadata = object.find("metadata");
    if (metadata == object.end() || metadata->is_null()) {
      Problem(base, "metadata.name", "Required value: name or generateName is required");
      return;
    }
    if (!metadata->is_object()) {
      Problem(base, "metadata", "Invalid value: must be a mapping, got " + TypeName(*metadata));
      return;
    }
    bool named = false;
    for (const char* field : {"name", "generateName"}) {
      auto it = metadata->find(field);
      if (it == metadata->end() || it->is_null()) continue;
      if (!it->is_string()) {
        Problem(base, std::string("metadata.") + field, "Invalid value: must be a string, got " + TypeName(*it));
        named = true;  // reported already; "Required" would be noise
      } else if (!it->get_ref<const std::string&>().empty()) {
        named = true;
      }
    }
    if (!named) Problem(base, "metadata.name", "Required value: name or generateName is required");
    auto ns = metadata->find("namespace");
    if (ns != metadata->end() && !ns->is_null() && !ns->is_string()) {
      Problem(base, "metadata.namespace", "Invalid value: must be a string, got " + TypeName(*ns));
    }
  }

  // `v1 List`, or `<Kind>List` of a served kind, as `kubectl get -o yaml` and the API print.
  bool IsList(const std::string& api_version, const std::string& kind) const {
    if (api_version == "v1" && kind == "List") return true;
    constexpr std::string_view kSuffix = "List";
    if (kind.size() <= kSuffix.size() || !kind.ends_with(kSuffix)) return false;
    return registry_.FindByKind(api_version, std::string_view(kind).substr(0, kind.size() - kSuffix.size())) !=
           nullptr;
  }

  void CheckList(const json& list, const std::string& base, const std::string& api_version, const std::string& kind) {
    auto items = list.find("items");
    if (items == list.end() || items->is_null()) return;  // an empty list
    if (!items->is_array()) {
      Problem(base, "items", "Invalid value: must be a sequence, got " + TypeName(*items));
      return;
    }
    const bool typed = kind != "List";
    for (std::size_t i = 0; i < items->size(); ++i) {
      const std::string item_path = JoinPath(base, "items[" + std::to_string(i) + "]");
      json item = (*items)[i];
      // Items of a typed list (a NodeList from the API) may leave out their apiVersion and kind.
      if (typed && item.is_object()) {
        if (!item.contains("apiVersion")) item["apiVersion"] = api_version;
        if (!item.contains("kind")) item["kind"] = kind.substr(0, kind.size() - 4);
      }
      CheckObject(item, item_path);
    }
  }

  void CheckDGLJob(const json& original, const std::string& base) {
    DGLJobAdmission admission = AdmitDGLJob(original, file_, positions_, base);
    for (std::string& line : admission.warnings) report_->warnings.push_back(std::move(line));
    for (std::string& line : admission.problems) report_->problems.push_back(std::move(line));
  }

  void Problem(const std::string& base, std::string_view field, const std::string& message) {
    const std::string path = JoinPath(base, field);
    report_->problems.push_back(FormatProblem(file_, positions_, path, message));
  }

  void Note(const std::string& base, const std::string& message) {
    report_->notes.push_back(FormatLocation(file_, positions_, base) + ": note: " + message);
  }

  std::string file_;
  const SourceMap& positions_;
  ManifestReport* report_;
  kube::Registry registry_;
};

}  // namespace

DGLJobAdmission AdmitDGLJob(const json& job, std::string_view file, const SourceMap& positions, const std::string& base) {
  DGLJobAdmission out;
  out.converted = job;
  try {
    // Any value may come here (a manifest's document, a scenario's inline job): only an object's
    // string apiVersion says it is the legacy kind.
    const bool legacy = job.is_object() && job.contains("apiVersion") && job["apiVersion"] == dgl::kLegacyApiVersion;
    for (const std::string& warning : dgl::ConvertLegacy(out.converted))
      out.warnings.push_back(FormatLocation(file, positions, JoinPath(base, "apiVersion")) + ": warning: " + warning);
    out.defaulted = out.converted;
    dgl::DefaultDGLJob(out.defaulted);
    for (const kube::StatusCause& cause : dgl::ValidateDGLJob(out.defaulted)) {
      std::string path = JoinPath(base, cause.field);
      // A field the legacy conversion moved is reported under its new path, at its old place.
      std::string located = path;
      const std::string moved = JoinPath(base, "spec.runPolicy.cleanPodPolicy");
      if (legacy && path.starts_with(moved) && !positions.Contains(moved)) {
        located = JoinPath(base, "spec.cleanPodPolicy") + path.substr(moved.size());
      }
      std::string line = FormatLocation(file, positions, located) + ": ";
      if (!path.empty()) line += path + ": ";
      out.problems.push_back(line + cause.message);
    }
  } catch (const std::exception& e) {
    // The DGLJob API promises not to throw; if it ever does, report it rather than crash.
    out.problems.push_back(FormatProblem(file, positions, base, std::string("internal error while checking the DGLJob: ") + e.what()));
  }
  return out;
}

namespace {

ManifestReport CheckLoaded(const YamlLoad& load, std::string_view file) {
  ManifestReport report;
  report.file = std::string(file);
  if (!load.ok()) {
    report.problems.push_back(load.error->ToString());
    return report;
  }
  for (const YamlDocument& document : load.documents) {
    if (document.value.is_null()) continue;  // an empty document, as between two `---`
    ++report.documents;
    DocumentChecker(file, document.positions, &report).CheckObject(document.value, "");
  }
  if (report.documents == 0) {
    report.problems.push_back(std::string(file) + ":1:1: no Kubernetes objects in the file");
  }
  return report;
}

}  // namespace

ManifestReport CheckManifestText(std::string_view text, std::string_view file) {
  return CheckLoaded(LoadYamlString(text, file), file);
}

ManifestReport CheckManifestFile(const std::string& path) { return CheckLoaded(LoadYamlFile(path), path); }

}  // namespace harness
