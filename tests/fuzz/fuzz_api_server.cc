// Fuzz target: the fake API server's request handling, in process (fakeapi::HttpServer::Serve: what
// a connection's handler runs once cpp-httplib has read a request), over a store holding a few
// objects of every kind a test touches and the DGLJob admission. The input is up to eight requests,
// separated by a line "###", each as text close to HTTP/1.1:
//
//   PATCH /api/v1/namespaces/default/configmaps/cm?fieldManager=fuzz
//   Content-Type: application/merge-patch+json
//
//   {"data": {"k": "v"}}
//
// The target is split and decoded as cpp-httplib does (path percent-decoded, the query into
// params). Properties: no handler throws (the server's on_internal_error is a defect here), every
// answer has an HTTP status, a JSON answer is valid JSON, and a watch or followed log streams
// without crashing (the first turns of its content provider are pulled, then the stream is closed).
#include "clock/clock.h"
#include "fakeapi/client/json.h"
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"
#include "operator/admission/dgljob_admission.h"
#include "sim/harness/config/yaml_json.h"
#include "tests/fuzz/fuzz_check.h"

#include <httplib.h>

#include <string>
#include <vector>

using dglsim_fuzz::Require;
using json = kube::Json;

namespace {

constexpr std::size_t kMaxRequests = 8;

// What the last request's handler threw (HttpServerOptions::on_internal_error), if anything.
std::string g_thrown;

fakeapi::HttpServerOptions ServerOptions(const kube::Clock& clock) {
  fakeapi::HttpServerOptions options;
  options.clock = &clock;
  options.max_body_bytes = 64 * 1024;
  options.watch_keepalive = kube::kMillisecond;
  options.resource_version_wait = kube::kMillisecond;
  options.log_poll = kube::kMillisecond;
  options.logs = [](const json&, const std::string& container, bool) -> kube::Result<fakeapi::ContainerLog> {
    return fakeapi::ContainerLog{{"line 1", "line 2 of " + container}, container != "sidecar"};
  };
  options.yaml = [](std::string_view text) -> kube::Result<json> {
    harness::YamlLoad loaded = harness::LoadYamlString(text, "request body");
    if (!loaded.ok()) return kube::Status::BadRequest(loaded.error->ToString());
    if (loaded.documents.size() != 1) return kube::Status::BadRequest("not one YAML document");
    return loaded.documents.front().value;
  };
  options.on_internal_error = [](const std::string& what) { g_thrown = what; };
  return options;
}

// The objects every input starts from.
void Populate(fakeapi::Store& store) {
  for (const char* ns : {"default", "other"})
    store.Create("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", ns}}}});
  store.Create("nodes", {{"apiVersion", "v1"}, {"kind", "Node"}, {"metadata", {{"name", "node-0"}, {"labels", {{"gpu", "a100"}}}}},
                         {"status", {{"capacity", {{"cpu", "8"}, {"nvidia.com/gpu", "8"}}}}}});
  store.Create("pods", {{"apiVersion", "v1"}, {"kind", "Pod"},
                        {"metadata", {{"name", "pod"}, {"namespace", "default"}, {"labels", {{"app", "x"}}}}},
                        {"spec", {{"nodeName", "node-0"},
                                  {"containers", json::array({{{"name", "main"}, {"image", "busybox"}},
                                                              {{"name", "sidecar"}, {"image", "busybox"}}})}}}});
  store.Create("configmaps", {{"apiVersion", "v1"}, {"kind", "ConfigMap"},
                              {"metadata", {{"name", "cm"}, {"namespace", "default"}, {"finalizers", {"fuzz.io/hold"}}}},
                              {"data", {{"k", "v"}}}});
  store.Create("dgljobs", {{"apiVersion", "kubeflow.org/v1alpha1"}, {"kind", "DGLJob"},
                           {"metadata", {{"name", "job"}, {"namespace", "default"}}},
                           {"spec", {{"partitionMode", "Skip"},
                                     {"dglReplicaSpecs", {{"Launcher", {{"replicas", 1},
                                        {"template", {{"spec", {{"containers", json::array({{{"name", "l"}, {"image", "i"}}})}}}}}}}}}}}});
}

// One request of the input: "METHOD TARGET", header lines, a blank line, the body.
httplib::Request ParseRequest(std::string_view text) {
  httplib::Request req;
  std::size_t eol = text.find('\n');
  std::string_view line = text.substr(0, eol);
  text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
  std::size_t space = line.find(' ');
  req.method = std::string(line.substr(0, space));
  req.target = space == std::string_view::npos ? "/" : std::string(line.substr(space + 1));
  std::size_t query = req.target.find('?');
  req.path = httplib::detail::decode_url(req.target.substr(0, query), false);
  if (query != std::string::npos) httplib::detail::parse_query_text(req.target.substr(query + 1), req.params);
  while (!text.empty()) {
    eol = text.find('\n');
    line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
    if (line.empty()) break;
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
    req.headers.emplace(std::string(line.substr(0, colon)), std::string(value));
  }
  req.body = std::string(text);
  return req;
}

// Pulls the first turns of a streamed answer (a watch, a followed log).
std::string Pump(httplib::Response& res) {
  std::string out;
  bool done = false;
  httplib::DataSink sink;
  sink.write = [&](const char* data, std::size_t n) {
    out.append(data, n);
    return out.size() < (1u << 20);
  };
  sink.done = [&] { done = true; };
  sink.is_writable = [] { return true; };
  for (int turn = 0; turn < 3 && !done; ++turn) {
    if (!res.content_provider_(out.size(), 0, sink)) break;
  }
  res.content_provider_success_ = done;
  return out;
}

void CheckAnswer(const httplib::Request& req, httplib::Response& res) {
  Require(g_thrown.empty(), "a request is answered with a Status of its own, not an exception",
          req.method + " " + req.target + " (" + req.get_header_value("Content-Type") + "): " + g_thrown + "\n" +
              req.body.substr(0, 2000));
  Require(res.status >= 100 && res.status < 600, "every answer has an HTTP status", req.method + " " + req.target);
  if (res.content_provider_) {
    Pump(res);
    return;
  }
  if (res.get_header_value("Content-Type").rfind("application/json", 0) == 0 && !res.body.empty()) {
    Require(json::accept(res.body), "a JSON answer is valid JSON", req.method + " " + req.target + " -> " + res.body.substr(0, 500));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  kube::ManualClock clock;
  fakeapi::Store store(fakeapi::StoreOptions{.clock = &clock});
  dgl::RegisterDGLJobAdmission(store);
  Populate(store);
  fakeapi::HttpServer server(store, ServerOptions(clock));
  std::string_view rest = dglsim_fuzz::Text(data, size);
  for (std::size_t n = 0; n < kMaxRequests && !rest.empty(); ++n) {
    auto [one, next] = dglsim_fuzz::SplitAtLine(rest, "###");
    httplib::Request req = ParseRequest(one);
    httplib::Response res;
    g_thrown.clear();
    server.Serve(req, res);
    CheckAnswer(req, res);
    rest = next;
    clock.Advance(kube::kSecond);
  }
  return 0;
}
