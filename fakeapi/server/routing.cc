// Routing: which handler a request's method and path go to, the discovery and OpenAPI documents,
// and request bodies.
#include "fakeapi/client/metrics.h"
#include "fakeapi/server/http_server_impl.h"
#include "fakeapi/server/json_bounds.h"
#include "fakeapi/server/openapi_proto.h"
#include "fakeapi/server/protobuf_body.h"
#include "fakeapi/server/wire.h"

#include <algorithm>

namespace fakeapi {

using json = kube::Json;
using wire::kText;

namespace {

bool IsGet(const httplib::Request& req) { return req.method == "GET" || req.method == "HEAD"; }

// A group or version nobody serves: kube-apiserver has no handler there, and its mux answers Go's
// plain-text 404.
void SendPageNotFound(httplib::Response& res) {
  res.status = 404;
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_content("404 page not found\n", "text/plain; charset=utf-8");
}

}  // namespace

void HttpServer::Impl::Handle(const httplib::Request& req, httplib::Response& res) {
  const kube::Micros received = options.clock ? options.clock->Now() : 0;
  Answer(req, res);
  if (options.audit) Audit(req, res, received);
}

// One audit entry per request on a resource (discovery, /version and /openapi are not logged).
void HttpServer::Impl::Audit(const httplib::Request& req, const httplib::Response& res, kube::Micros received) {
  std::vector<std::string> segs;
  for (auto& s : wire::Split(req.path, '/'))
    if (!s.empty()) segs.push_back(s);
  std::size_t at = 0;
  AuditEntry e;
  if (segs.size() >= 3 && segs[0] == "api") {
    e.api_version = segs[1];
    at = 2;
  } else if (segs.size() >= 4 && segs[0] == "apis") {
    e.api_group = segs[1];
    e.api_version = segs[2];
    at = 3;
  } else {
    return;
  }
  std::vector<std::string> rest(segs.begin() + static_cast<std::ptrdiff_t>(at), segs.end());
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    e.ns = rest[1];
    rest.erase(rest.begin(), rest.begin() + 2);
  } else if (rest.size() == 2 && rest[0] == "namespaces") {
    e.ns = rest[1];
  }
  e.resource = rest[0];
  if (rest.size() > 1) e.name = rest[1];
  if (rest.size() > 2) e.subresource = rest[2];
  const bool watch = req.has_param("watch") && (req.get_param_value("watch") == "true" || req.get_param_value("watch") == "1");
  if (req.method == "GET") e.verb = e.name.empty() ? (watch ? "watch" : "list") : "get";
  else if (req.method == "POST") e.verb = "create";
  else if (req.method == "PUT") e.verb = "update";
  else if (req.method == "PATCH") e.verb = "patch";
  else if (req.method == "DELETE") e.verb = e.name.empty() ? "deletecollection" : "delete";
  else e.verb = req.method;
  e.user = req.has_header("Impersonate-User") ? req.get_header_value("Impersonate-User") : options.audit_user;
  e.user_agent = req.get_header_value("User-Agent");
  e.request_uri = req.target.empty() ? req.path : req.target;
  e.code = res.status;
  e.received = received;
  e.completed = options.clock ? options.clock->Now() : received;
  options.audit->Write(e);
}

void HttpServer::Impl::Answer(const httplib::Request& req, httplib::Response& res) {
  // A chunked body is read to at most twice the limit (http_listener.h); it is held to the limit here.
  if (req.body.size() > options.max_body_bytes)
    return SendStatus(res, kube::Status::TooLarge("the request body is larger than the limit of " +
                                                  std::to_string(options.max_body_bytes) + " bytes"));
  std::string thrown;
  try {
    rbac::UserInfo user;
    if (!Admit(req, res, &user)) return;
    RequestUser scope(&user);
    Dispatch(req, res);
    return;
  } catch (const std::exception& e) {
    thrown = e.what();
  } catch (...) {
    thrown = "unexpected error";
  }
  SendStatus(res, kube::Status::Internal(thrown));
  if (options.on_internal_error) options.on_internal_error(thrown);
}

void HttpServer::Impl::Dispatch(const httplib::Request& req, httplib::Response& res) {
  std::vector<std::string> segs;
  for (auto& s : wire::Split(req.path, '/'))
    if (!s.empty()) segs.push_back(s);
  const bool get = IsGet(req);
  if (segs.empty()) {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    return SendJson(res, 200, {{"paths", {"/api", "/api/v1", "/apis", "/openapi/v2", "/openapi/v3", "/version", "/healthz"}}});
  }
  if (segs[0] == "healthz" || segs[0] == "readyz" || segs[0] == "livez") {
    res.status = 200;
    res.set_content("ok", kText);
    return;
  }
  if (segs[0] == "version" && segs.size() == 1) {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    return SendJson(res, 200, VersionInfo(options.git_version));
  }
  if (segs[0] == "openapi") {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    return OpenApi(req, res, segs);
  }
  if (segs[0] == "metrics" && segs.size() == 1 && options.metrics) {
    if (!get) return SendStatus(res, wire::MethodNotAllowed());
    std::string text;
    Run([&] { text = options.metrics(); });
    res.status = 200;
    res.set_content(text, kube::kMetricsContentType);
    return;
  }
  if (segs[0] != "api" && segs[0] != "apis") return SendStatus(res, wire::PathNotFound());
  DispatchApi(req, res, segs);
}

// /api[/v1[/...]] and /apis[/GROUP[/VERSION[/...]]]: discovery documents, then resources.
void HttpServer::Impl::DispatchApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs) {
  const bool core = segs[0] == "api";
  const std::size_t rest_at = core ? 2 : 3;
  if (segs.size() <= rest_at && !IsGet(req)) return SendStatus(res, wire::MethodNotAllowed());
  if (core && segs.size() == 1) {
    return SendJson(res, 200, {{"kind", "APIVersions"}, {"versions", {"v1"}},
                               {"serverAddressByClientCIDRs", json::array({{{"clientCIDR", "0.0.0.0/0"},
                                                                            {"serverAddress", options.address + ":" + std::to_string(bound_port)}}})}});
  }
  if (!core && segs.size() == 1) return SendJson(res, 200, ApiGroupList(catalog));
  if (!core && segs.size() == 2) {
    if (catalog.Versions(segs[1]).empty()) return SendPageNotFound(res);
    return SendJson(res, 200, ApiGroup(catalog, segs[1]));
  }
  const std::string group = core ? "" : segs[1];
  const std::string& version = segs[rest_at - 1];
  if (!catalog.ServesGroupVersion(group, version)) return SendPageNotFound(res);
  if (segs.size() == rest_at) return SendJson(res, 200, ApiResourceList(catalog, group, version));
  Target target;
  if (!Resolve(group, version, std::vector<std::string>(segs.begin() + rest_at, segs.end()), &target))
    return SendStatus(res, wire::PathNotFound());
  Resource(req, res, target);
}

void HttpServer::Impl::OpenApi(const httplib::Request& req, httplib::Response& res, const std::vector<std::string>& segs) {
  if (segs.size() == 2 && segs[1] == "v2") {
    json swagger = OpenApiV2Document(catalog, schemas, options.git_version);
    // kubectl and client-go ask for protobuf; a client that asks for JSON gets JSON.
    if (req.get_header_value("Accept").find("protobuf") != std::string::npos) {
      res.status = 200;
      res.set_content(OpenApiV2Protobuf(swagger), kOpenApiV2ProtobufType);
      return;
    }
    return SendJson(res, 200, swagger);
  }
  if (segs.size() < 2 || segs[1] != "v3") return SendStatus(res, wire::PathNotFound());
  // kube-apiserver writes the v3 index without a Content-Type of its own: Go sniffs it as text.
  if (segs.size() == 2) return SendJson(res, 200, OpenApiV3Root(catalog, schemas, options.git_version), "text/plain; charset=utf-8");
  std::string group, version;
  if (segs.size() == 4 && segs[2] == "api") {
    version = segs[3];
  } else if (segs.size() == 5 && segs[2] == "apis") {
    group = segs[3];
    version = segs[4];
  } else {
    return SendStatus(res, wire::PathNotFound());
  }
  if (!catalog.ServesGroupVersion(group, version)) return SendStatus(res, wire::PathNotFound());
  SendJson(res, 200, OpenApiV3Document(catalog, schemas, group, version, options.git_version));
}

// Resolves ".../namespaces/{ns}/{plural}/{name}/{sub}" or ".../{plural}/{name}/{sub}" below a
// group-version. False when the path names nothing, as when a segment, once percent-decoded, is
// not UTF-8: no object can have such a name, and it would throw wherever it is written out.
bool HttpServer::Impl::Resolve(const std::string& group, const std::string& version, const std::vector<std::string>& rest,
                               Target* target) const {
  if (rest.empty()) return false;
  for (const std::string& segment : rest)
    if (!wire::IsValidUtf8Json(json(segment))) return false;
  std::size_t at = 0;
  if (rest[0] == "namespaces" && rest.size() >= 3) {
    const ApiResource* r = catalog.Find(group, version, rest[2]);
    if (r && r->namespaced) {
      target->ns = rest[1];
      at = 2;
    }
  }
  target->resource = catalog.Find(group, version, rest[at]);
  if (!target->resource) return false;
  target->type = target->resource->stored;
  if (rest.size() > at + 3) return false;
  if (rest.size() > at + 1) target->name = rest[at + 1];
  if (rest.size() > at + 2) target->subresource = rest[at + 2];
  const bool namespaced = target->resource->namespaced;
  // A single namespaced object is only reachable through its namespace.
  if (namespaced && at == 0 && !target->name.empty()) return false;
  if (!namespaced && at != 0) return false;
  if (!target->subresource.empty()) {
    const auto& subs = target->resource->subresources;
    if (std::find(subs.begin(), subs.end(), target->subresource) == subs.end()) return false;
  }
  return true;
}

void HttpServer::Impl::Resource(const httplib::Request& req, httplib::Response& res, const Target& t) {
  const std::string& m = req.method;
  if (t.resource->serving == Serving::kAccessReview || t.resource->serving == Serving::kBinding) {
    if (m != "POST" || !t.name.empty()) return SendStatus(res, wire::MethodNotAllowed());
    if (t.resource->namespaced && t.ns.empty()) return SendStatus(res, wire::PathNotFound());
    return t.resource->serving == Serving::kBinding ? Bind(req, res, t) : Review(req, res, t);
  }
  if (t.name.empty()) return Collection(req, res, t);
  if (!t.subresource.empty() && t.subresource != "status") return Subresource(req, res, t);
  if (IsGet(req)) return GetOne(req, res, t);
  if (m == "PUT") return Update(req, res, t);
  if (m == "PATCH") return Patch(req, res, t);
  if (m == "DELETE") {
    if (!t.subresource.empty()) return SendStatus(res, kube::Status::MethodNotAllowed("the status subresource cannot be deleted"));
    return Delete(req, res, t);
  }
  SendStatus(res, wire::MethodNotAllowed());
}

void HttpServer::Impl::Collection(const httplib::Request& req, httplib::Response& res, const Target& t) {
  const std::string& m = req.method;
  if (IsGet(req)) {
    if (wire::Truthy(req.get_param_value("watch"))) return Watch(req, res, t);
    return List(req, res, t);
  }
  if (m == "POST") {
    if (t.resource->namespaced && t.ns.empty())
      return SendStatus(res, kube::Status::MethodNotAllowed("POST on " + t.resource->plural + " needs a namespace in the path"));
    return Create(req, res, t);
  }
  if (m == "DELETE") return DeleteCollection(req, res, t);
  SendStatus(res, wire::MethodNotAllowed());
}

void HttpServer::Impl::Subresource(const httplib::Request& req, httplib::Response& res, const Target& t) {
  if (t.subresource == "log") {
    if (req.method != "GET") return SendStatus(res, kube::Status::MethodNotAllowed("pods/log only supports GET"));
    return Logs(req, res, t);
  }
  if (req.method != "POST") return SendStatus(res, wire::MethodNotAllowed());
  if (t.subresource == "binding") return Bind(req, res, t);
  if (t.subresource == "token") return IssueToken(req, res, t);
  Evict(req, res, t);
}

kube::Result<json> HttpServer::Impl::ParseBody(const httplib::Request& req, bool yaml_allowed) {
  const std::string type = wire::MediaParams(req.get_header_value("Content-Type"))[""];
  const bool yaml = type == "application/yaml" || type == "application/apply-patch+yaml";
  const bool protobuf = type == kProtobufContentType;
  if (!type.empty() && !yaml && !protobuf && type.find("json") == std::string::npos)
    return kube::Status::UnsupportedMediaType("the body of the request was in an unknown format - accepted media types include: "
                                              "application/json, application/yaml, application/vnd.kubernetes.protobuf");
  if (req.body.empty()) return kube::Status::BadRequest("the request has no body");
  if (protobuf) return DecodeProtobufBody(req.body);  // bounded by the kinds' own nesting
  // Nothing recursive may see a document nested deeper than the limit (json_bounds.h); YAML's
  // flow style uses the same brackets, so the scan holds for both.
  const kube::Status too_deep = kube::Status::BadRequest("the body of the request could not be decoded: it nests deeper than " +
                                                         std::to_string(kMaxJsonDepth) + " levels");
  if (TextNestingDepth(req.body) > kMaxJsonDepth) return too_deep;
  json parsed = json::parse(req.body, nullptr, /*allow_exceptions=*/false);
  if (!parsed.is_discarded()) return parsed;
  if (yaml && yaml_allowed && options.yaml) {
    auto decoded = options.yaml(req.body);
    if (decoded.ok() && NestingDepth(*decoded) > kMaxJsonDepth) return too_deep;
    // A JSON body's strings are UTF-8 once parsed; a YAML decoder may pass other bytes through,
    // which would throw wherever the object is written out.
    if (decoded.ok() && !wire::IsValidUtf8Json(*decoded))
      return kube::Status::BadRequest("the body of the request could not be decoded: it is not valid UTF-8");
    return decoded;
  }
  // Say where, as a Go decoder would ("invalid character ... at offset N").
  try {
    json strict = json::parse(req.body);
    (void)strict;
  } catch (const json::parse_error& e) {
    return kube::Status::BadRequest(std::string("the body of the request could not be decoded: ") + e.what());
  }
  return kube::Status::BadRequest("the body of the request could not be decoded");
}

}  // namespace fakeapi
