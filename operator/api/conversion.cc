#include "operator/api/conversion.h"

#include "operator/api/json_fields.h"
#include "operator/api/types.h"

namespace dgl {
namespace {

using json = kube::Json;
using namespace fields;

std::string JobRef(const json& job) {
  const json* metadata = Member(job, "metadata");
  const std::string* ns = metadata != nullptr ? AsString(Member(*metadata, "namespace")) : nullptr;
  const std::string* name = metadata != nullptr ? AsString(Member(*metadata, "name")) : nullptr;
  std::string ref = "DGLJob ";
  if (ns != nullptr) ref += *ns + "/";
  ref += name != nullptr ? *name : "<unnamed>";
  return ref;
}

}  // namespace

std::vector<std::string> ConvertLegacy(json& job) {
  std::vector<std::string> warnings;
  if (!job.is_object()) return warnings;
  const std::string ref = JobRef(job);
  if (const std::string* api = AsString(Member(job, "apiVersion")); api != nullptr && *api == kLegacyApiVersion) {
    job["apiVersion"] = kApiVersion;
    warnings.push_back(ref + ": apiVersion " + kLegacyApiVersion + " converted to " + kApiVersion);
  }
  // spec.cleanPodPolicy exists only in the legacy schema, so it moves whatever the apiVersion says.
  json* spec = MutableMember(job, "spec");
  if (spec == nullptr || !spec->is_object()) return warnings;
  auto legacy = spec->find("cleanPodPolicy");
  if (legacy == spec->end()) return warnings;
  if (legacy->is_null()) {
    spec->erase(legacy);
    return warnings;
  }
  json* run = MutableMember(*spec, "runPolicy");
  if (run == nullptr) {
    (*spec)["runPolicy"] = json::object();
    run = &(*spec)["runPolicy"];
  }
  if (!run->is_object()) return warnings;  // validation reports both fields
  legacy = spec->find("cleanPodPolicy");   // (*spec)["runPolicy"] may have moved the members
  if (const json* current = Member(*run, "cleanPodPolicy")) {
    warnings.push_back(ref + ": spec.cleanPodPolicy " + Show(*legacy) + " dropped: spec.runPolicy.cleanPodPolicy " +
                       Show(*current) + " is already set");
  } else {
    (*run)["cleanPodPolicy"] = *legacy;
    warnings.push_back(ref + ": spec.cleanPodPolicy moved to spec.runPolicy.cleanPodPolicy");
  }
  spec->erase("cleanPodPolicy");
  return warnings;
}

}  // namespace dgl
