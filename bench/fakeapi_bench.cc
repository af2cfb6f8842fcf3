// Micro-benchmarks of the fake API server's verbs, with 0, 1 and 100 open watches on the resource
// written (watchers are drained between iterations outside the timed region, so each one costs
// what a queued event costs). Run: build/bench/fakeapi_bench
#include "fakeapi/server/store.h"

#include <benchmark/benchmark.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using fakeapi::Store;
using json = kube::Json;

json Pod(const std::string& name) {
  // Roughly the size of a worker pod the operator creates.
  json container = {{"name", "main"},
                    {"image", "dgloperator/examples:graphsage-dist"},
                    {"command", {"dglrun"}},
                    {"args", {"--graph-name", "ogbn-products", "--num-epochs", "10"}},
                    {"resources", {{"limits", {{"cpu", "8"}, {"memory", "64Gi"}, {"nvidia.com/gpu", "8"}}}}},
                    {"env", json::array({{{"name", "DGL_OPERATOR_ENV"}, {"value", "1"}}})}};
  return {{"metadata",
           {{"name", name},
            {"namespace", "default"},
            {"labels", {{"training.kubeflow.org/job-name", "j"}, {"training.kubeflow.org/replica-type", "worker"}}}}},
          {"spec", {{"containers", json::array({container})}}}};
}

struct Fixture {
  kube::ManualClock clock;
  Store store{fakeapi::StoreOptions{.clock = &clock}};
  std::vector<kube::WatchPtr> watches;
  explicit Fixture(int watchers) {
    for (int i = 0; i < watchers; ++i) watches.push_back(*store.Watch("pods", {.resource_version = "1"}));
  }
  void Drain() {
    std::vector<kube::WatchEvent> sink;
    for (auto& w : watches) {
      sink.clear();
      w->Poll(&sink);
    }
  }
};

void BM_Create(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  json pod = Pod("p");
  std::int64_t i = 0;
  for (auto _ : state) {
    json copy = pod;
    copy["metadata"]["name"] = "p" + std::to_string(i++);
    benchmark::DoNotOptimize(f.store.Create("pods", std::move(copy)));
    if (i % 1024 == 0) {
      state.PauseTiming();
      f.Drain();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Create)->Arg(0)->Arg(1)->Arg(100);

void BM_UpdateStatus(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  auto pod = *f.store.Create("pods", Pod("p"));
  std::int64_t i = 0;
  for (auto _ : state) {
    json next = *pod;
    next["status"]["observed"] = i++;
    auto r = f.store.UpdateStatus("pods", std::move(next));
    pod = *r;
    if (i % 1024 == 0) {
      state.PauseTiming();
      f.Drain();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UpdateStatus)->Arg(0)->Arg(1)->Arg(100);

void BM_MergePatchStatus(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)));
  f.store.Create("pods", Pod("p"));
  std::int64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.store.Patch("pods", "default", "p", {{"status", {{"observed", i++}}}},
                                           kube::PatchType::kMerge, "status"));
    if (i % 1024 == 0) {
      state.PauseTiming();
      f.Drain();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MergePatchStatus)->Arg(0)->Arg(1)->Arg(100);

void BM_Get(benchmark::State& state) {
  Fixture f(0);
  for (int i = 0; i < 10000; ++i) f.store.Create("pods", Pod("p" + std::to_string(i)));
  std::int64_t i = 0;
  for (auto _ : state) benchmark::DoNotOptimize(f.store.Get("pods", "default", "p" + std::to_string(i++ % 10000)));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_Get);

// List of one job's pods by label among range(0) pods in the namespace.
void BM_ListByLabel(benchmark::State& state) {
  Fixture f(0);
  for (int i = 0; i < state.range(0); ++i) {
    json pod = Pod("p" + std::to_string(i));
    pod["metadata"]["labels"]["training.kubeflow.org/job-name"] = "j" + std::to_string(i / 10);
    f.store.Create("pods", std::move(pod));
  }
  for (auto _ : state)
    benchmark::DoNotOptimize(f.store.List("pods", {.namespace_ = "default", .label_selector = "training.kubeflow.org/job-name=j3"}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ListByLabel)->Arg(100)->Arg(10000);

// A kubelet's list of its own node's pods among range(0) pods: served from the node index.
void BM_ListByNode(benchmark::State& state) {
  Fixture f(0);
  for (int i = 0; i < state.range(0); ++i) {
    std::string name = "p" + std::to_string(i);
    f.store.Create("pods", Pod(name));
    f.store.Create("pods/binding", {{"metadata", {{"name", name}}}, {"target", {{"name", "n" + std::to_string(i % 1000)}}}},
                   "default");
  }
  for (auto _ : state) benchmark::DoNotOptimize(f.store.List("pods", {.field_selector = "spec.nodeName=n7"}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_ListByNode)->Arg(10000);

// One status write with 1,000 kubelet watches open, each selecting its own node: the node index
// means the write reaches one of them, not all.
void BM_UpdateStatusWithNodeWatchers(benchmark::State& state) {
  Fixture f(0);
  for (int n = 0; n < 1000; ++n)
    f.watches.push_back(*f.store.Watch("pods", {.field_selector = "spec.nodeName=n" + std::to_string(n), .resource_version = "1"}));
  f.store.Create("pods", Pod("p"));
  f.store.Create("pods/binding", {{"metadata", {{"name", "p"}}}, {"target", {{"name", "n7"}}}}, "default");
  std::int64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(f.store.Patch("pods", "default", "p", {{"status", {{"observed", i++}}}},
                                           kube::PatchType::kMerge, "status"));
    if (i % 1024 == 0) {
      state.PauseTiming();
      f.Drain();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_UpdateStatusWithNodeWatchers);

void BM_CreateDeleteWithOwner(benchmark::State& state) {
  Fixture f(0);
  auto owner = *f.store.Create("configmaps", {{"metadata", {{"name", "owner"}}}});
  json ref = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"name", "owner"}, {"uid", (*owner)["metadata"]["uid"]},
              {"controller", true}};
  std::int64_t i = 0;
  for (auto _ : state) {
    json pod = Pod("p" + std::to_string(i++));
    pod["metadata"]["ownerReferences"] = json::array({ref});
    auto created = f.store.Create("pods", std::move(pod));
    f.store.Delete("pods", "default", kube::NameOf(**created));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CreateDeleteWithOwner);

// The API-write performance target: one write (store, version, notify the watchers it concerns) within
// 2x of a floor that does only the unavoidable work. The write: a status merge patch of a pod with
// range(0) watches open on pods (in a run: the scheduler, the operator, the recorder, the invariant
// checker and the node's kubelet), each queued the event. The floor, same pod and same watchers:
// a copy of the stored object with the patched field set and a new resourceVersion (the copy
// shares what the write leaves alone, as the store's does: json.h), the object put in a map by key
// as an immutable shared pointer (kube::ShareObject), the pointer appended to each watcher's
// queue, the version kept in a history as long as the store's, the oldest freed; no admission, no
// selectors, no locks. Compare the two in one run:
// reports/performance.md gives their ratio.
BENCHMARK(BM_MergePatchStatus)->Name("BM_StatusWriteFanOut")->Arg(1)->Arg(5);

void BM_StatusWriteFloor(benchmark::State& state) {
  kube::ManualClock clock;
  Store store{fakeapi::StoreOptions{.clock = &clock}};
  std::map<std::string, kube::ObjectPtr> objects;
  objects["default/p"] = *store.Create("pods", Pod("p"));
  std::vector<std::deque<kube::ObjectPtr>> queues(static_cast<std::size_t>(state.range(0)));
  // The versions a watch may resume from, as many as the store keeps: once it is full, each write
  // frees the oldest version, as the store's does (freeing a version is unavoidable work too).
  std::deque<kube::ObjectPtr> history;
  const std::size_t history_limit = fakeapi::StoreOptions{}.history_limit;
  std::int64_t i = 0;
  for (auto _ : state) {
    json patch = {{"status", {{"observed", i}}}};
    kube::ObjectPtr& slot = objects["default/p"];
    json next = *slot;
    next["status"]["observed"] = patch["status"]["observed"];
    next["metadata"]["resourceVersion"] = std::to_string(++i);
    slot = kube::ShareObject(std::move(next));
    history.push_back(slot);
    if (history.size() > history_limit) history.pop_front();
    for (auto& q : queues) q.push_back(slot);
    if (i % 1024 == 0) {
      state.PauseTiming();
      for (auto& q : queues) q.clear();
      state.ResumeTiming();
    }
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_StatusWriteFloor)->Arg(1)->Arg(5);

}  // namespace

BENCHMARK_MAIN();
