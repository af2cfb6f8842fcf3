// Per-request latency of `dglsim serve`'s HTTP facade (fakeapi::HttpServer over a Store), measured
// as a client sees it: GET /version and GET of one pod on a kept-alive connection (the client
// reuses one TCP connection, as client-go, the Python client and kubectl do), and the same GET on a
// new connection per request; and a POST of an access review on a kept-alive connection in JSON and
// in protobuf (protobuf_body.h). Wall time per request (real_time) is what a client waits; CPU time
// is the whole process's (MeasureProcessCPUTime), client and server threads together, so that on
// a loaded machine it still says what a request costs when the waiting for a core is taken away.
// Run: build/bench/http_bench
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"

#include <benchmark/benchmark.h>
#include <httplib.h>

#include <memory>
#include <string>
#include <string_view>

namespace {

using json = kube::Json;

struct Served {
  kube::ManualClock clock;
  fakeapi::Store store{fakeapi::StoreOptions{.clock = &clock}};
  std::unique_ptr<fakeapi::HttpServer> server;
  Served() {
    fakeapi::HttpServerOptions options;
    options.clock = &clock;
    server = std::make_unique<fakeapi::HttpServer>(store, options);
    if (!server->Start().ok()) std::abort();
    json pod = {{"metadata", {{"name", "p"}, {"namespace", "default"}}},
                {"spec", {{"containers", json::array({{{"name", "main"}, {"image", "busybox:1.36"}}})}}}};
    if (!store.Create("pods", pod).ok()) std::abort();
  }
};

void Get(benchmark::State& state, const char* path, bool keep_alive) {
  Served served;
  httplib::Client client("127.0.0.1", served.server->port());
  client.set_keep_alive(keep_alive);
  for (auto _ : state) {
    auto res = client.Get(path);
    if (!res || res->status != 200) {
      state.SkipWithError("request failed");
      break;
    }
    benchmark::DoNotOptimize(res->body.data());
  }
}

// POST of `auth can-i`'s SelfSubjectAccessReview on a kept-alive connection, as kubectl 1.31 sends it
// (JSON) and as kubectl 1.32 sends it (protobuf, the bytes `kubectl -v=8` printed).
void PostReview(benchmark::State& state, bool protobuf) {
  Served served;
  httplib::Client client("127.0.0.1", served.server->port());
  client.set_keep_alive(true);
  // As Go's net package does for every TCP connection (so for kubectl and client-go): without it,
  // Nagle holds the body back until the server acknowledges the head, which the server's delayed
  // ACK postpones by 40 ms.
  client.set_tcp_nodelay(true);
  constexpr std::string_view kHex =
      "6b3873000a320a17617574686f72697a6174696f6e2e6b38732e696f2f7631121753656c665375626a656374416363657373526576696577"
      "123f0a100a0012001a0022002a0032003800420012210a1f0a0764656661756c7412066372656174651a0022002a04706f647332003a001a"
      "08080012001a0020001a002200";
  std::string body;
  for (std::size_t i = 0; i + 1 < kHex.size(); i += 2) body += static_cast<char>(std::stoi(std::string(kHex.substr(i, 2)), nullptr, 16));
  if (!protobuf)
    body = R"({"apiVersion":"authorization.k8s.io/v1","kind":"SelfSubjectAccessReview","metadata":{},)"
           R"("spec":{"resourceAttributes":{"namespace":"default","verb":"create","resource":"pods"}}})";
  const char* type = protobuf ? "application/vnd.kubernetes.protobuf" : "application/json";
  for (auto _ : state) {
    auto res = client.Post("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", body, type);
    if (!res || res->status != 201) {
      state.SkipWithError("request failed");
      break;
    }
    benchmark::DoNotOptimize(res->body.data());
  }
}

void BM_KeptAliveVersion(benchmark::State& state) { Get(state, "/version", true); }
void BM_KeptAliveAccessReviewJson(benchmark::State& state) { PostReview(state, false); }
void BM_KeptAliveAccessReviewProtobuf(benchmark::State& state) { PostReview(state, true); }
void BM_KeptAliveGetPod(benchmark::State& state) { Get(state, "/api/v1/namespaces/default/pods/p", true); }
void BM_NewConnectionGetPod(benchmark::State& state) { Get(state, "/api/v1/namespaces/default/pods/p", false); }

BENCHMARK(BM_KeptAliveVersion)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_KeptAliveGetPod)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_NewConnectionGetPod)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_KeptAliveAccessReviewJson)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();
BENCHMARK(BM_KeptAliveAccessReviewProtobuf)->Unit(benchmark::kMicrosecond)->MeasureProcessCPUTime()->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
