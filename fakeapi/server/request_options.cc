// See request_options.h.
#include "fakeapi/server/request_options.h"

#include "fakeapi/server/wire.h"

#include <cctype>

namespace fakeapi {

namespace {

kube::Status OptionsInvalid(const char* kind, const std::string& field, const std::string& type, const std::string& message) {
  return kube::Status::Invalid(std::string(kind) + ".meta.k8s.io", "", {{type, field, message}});
}

// The representation one media range asks for, if the fake serves it.
std::optional<Representation> RepresentationOf(const std::string& range, bool list, bool watch) {
  auto p = wire::MediaParams(range);
  const std::string& type = p[""];
  Representation r;
  r.yaml = type == "application/yaml";
  if (type == "*/*" || type == "application/*") return r;
  if (type != "application/json" && !r.yaml) return std::nullopt;  // protobuf, CBOR, ...
  const std::string as = p["as"];
  if (as.empty()) return r;
  if (p["g"] != "meta.k8s.io" || (p["v"] != "v1" && p["v"] != "v1beta1")) return std::nullopt;
  r.version = p["v"];
  if (as == "Table") {
    r.form = Representation::Form::kTable;
    return r;
  }
  if ((as == "PartialObjectMetadataList" && (list || watch)) || (as == "PartialObjectMetadata" && (!list || watch))) {
    r.form = Representation::Form::kPartialMetadata;
    return r;
  }
  return std::nullopt;
}

kube::Status BadInteger(const std::string& name) { return kube::Status::BadRequest(name + " must be an integer"); }

}  // namespace

kube::Result<Representation> NegotiateRepresentation(const std::string& accept, bool list, bool watch) {
  if (wire::Trim(accept).empty()) return Representation{};
  for (const std::string& range : wire::Split(accept, ','))
    if (auto r = RepresentationOf(range, list, watch)) return *r;
  return kube::Status::NotAcceptable(
      "406: Not Acceptable\n\nAvailable representations: application/json, application/yaml, application/vnd.kubernetes.protobuf, "
      "application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch");
}

kube::Result<kube::ListOptions> ListOptionsOf(const httplib::Request& req, const std::string& ns) {
  kube::ListOptions o;
  o.namespace_ = ns;
  o.label_selector = req.get_param_value("labelSelector");
  o.field_selector = req.get_param_value("fieldSelector");
  o.resource_version = req.get_param_value("resourceVersion");
  o.resource_version_match = req.get_param_value("resourceVersionMatch");
  o.continue_ = req.get_param_value("continue");
  if (req.has_param("limit")) {
    auto limit = wire::ParseInt(req.get_param_value("limit"));
    if (!limit) return BadInteger("limit");
    o.limit = *limit > 0 ? *limit : 0;
  }
  if (req.has_param("sendInitialEvents"))
    return OptionsInvalid("ListOptions", "sendInitialEvents", "FieldValueForbidden", "Forbidden: sendInitialEvents is forbidden for list");
  return o;
}

kube::Result<kube::WatchOptions> WatchOptionsOf(const httplib::Request& req, const std::string& ns) {
  kube::WatchOptions o;
  o.namespace_ = ns;
  o.label_selector = req.get_param_value("labelSelector");
  o.field_selector = req.get_param_value("fieldSelector");
  o.resource_version = req.get_param_value("resourceVersion");
  o.resource_version_match = req.get_param_value("resourceVersionMatch");
  o.allow_bookmarks = wire::Truthy(req.get_param_value("allowWatchBookmarks"));
  if (req.has_param("sendInitialEvents")) o.send_initial_events = wire::Truthy(req.get_param_value("sendInitialEvents"));
  return o;
}

kube::Result<WriteParams> WriteParamsOf(const httplib::Request& req, const char* options_kind, bool apply) {
  WriteParams w;
  const std::size_t dry_runs = req.get_param_value_count("dryRun");
  kube::Json dry_run_values = kube::Json::array();
  for (std::size_t i = 0; i < dry_runs; ++i) dry_run_values.push_back(req.get_param_value("dryRun", i));
  for (std::size_t i = 0; i < dry_runs; ++i) {
    if (dry_run_values[i] != "All")  // the whole list, as kube-apiserver quotes it
      return OptionsInvalid(options_kind, "dryRun", "FieldValueNotSupported",
                            "Unsupported value: " + dry_run_values.dump() + ": supported values: \"All\"");
    w.store.dry_run = true;
  }
  w.field_manager = req.get_param_value("fieldManager");
  if (w.field_manager.size() > 128)
    return OptionsInvalid(options_kind, "fieldManager", "FieldValueTooLong", "Too long: may not be more than 128 bytes");
  for (unsigned char c : w.field_manager)
    if (!std::isprint(c))
      return OptionsInvalid(options_kind, "fieldManager", "FieldValueInvalid", "Invalid value: \"" + w.field_manager +
                                                                                   "\": must be printable characters");
  if (apply && w.field_manager.empty())
    return OptionsInvalid(options_kind, "fieldManager", "FieldValueRequired", "Required value: is required for apply patch");
  if (req.has_param("force")) {
    if (!apply) return OptionsInvalid(options_kind, "force", "FieldValueForbidden", "Forbidden: may not be specified for non-apply patch");
    w.force = wire::Truthy(req.get_param_value("force"));
  }
  if (w.field_manager.empty()) {
    // As kube-apiserver: the User-Agent up to its first "/", printable characters only.
    const std::string agent = req.get_header_value("User-Agent");
    for (char c : agent.substr(0, agent.find('/')))
      if (std::isprint(static_cast<unsigned char>(c)) && w.field_manager.size() < 128) w.field_manager += c;
    if (w.field_manager.empty()) w.field_manager = "unknown";  // no User-Agent: kube-apiserver's name for it
  }
  return w;
}

}  // namespace fakeapi
