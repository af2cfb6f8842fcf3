// Per-request latency of `dglsim serve`'s HTTP facade (fakeapi::HttpServer over a Store), measured
// as a client sees it: GET /version and GET of one pod on a kept-alive connection (the client
// reuses one TCP connection, as client-go, the Python client and kubectl do), and the same GET on a
// new connection per request. Run: build/bench/http_bench
#include "fakeapi/server/http_server.h"
#include "fakeapi/server/store.h"

#include <benchmark/benchmark.h>
#include <httplib.h>

#include <memory>
#include <string>

namespace {

using nlohmann::json;

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

void BM_KeptAliveVersion(benchmark::State& state) { Get(state, "/version", true); }
void BM_KeptAliveGetPod(benchmark::State& state) { Get(state, "/api/v1/namespaces/default/pods/p", true); }
void BM_NewConnectionGetPod(benchmark::State& state) { Get(state, "/api/v1/namespaces/default/pods/p", false); }

BENCHMARK(BM_KeptAliveVersion)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_KeptAliveGetPod)->Unit(benchmark::kMicrosecond)->UseRealTime();
BENCHMARK(BM_NewConnectionGetPod)->Unit(benchmark::kMicrosecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
