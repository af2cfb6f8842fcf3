// The client-side metrics every controller built on client-go and controller-runtime exposes, with
// their names, label sets and buckets (docs/observability.md cites the sources):
//
// - WorkQueueMetrics: a WorkQueueObserver feeding controller-runtime's workqueue provider
//   (sigs.k8s.io/controller-runtime/pkg/metrics/workqueue.go): workqueue_depth{controller,name,
//   priority=""}, workqueue_adds_total, workqueue_retries_total, workqueue_queue_duration_seconds and
//   workqueue_work_duration_seconds (buckets 1e-08 ... 1000), workqueue_unfinished_work_seconds and
//   workqueue_longest_running_processor_seconds (computed at every scrape, as client-go's updater
//   sets them every half second), each labelled {controller,name} with the queue's name.
// - MeasuredClient: a Client that forwards every call and records client-go's REST metrics
//   (k8s.io/component-base/metrics/prometheus/restclient): rest_client_requests_total{code,method,
//   host} and rest_client_request_duration_seconds{verb,host} (buckets 0.005 ... 60). method and
//   verb are the HTTP method the call maps to (LIST and WATCH are GET); code is the HTTP status
//   (201 for a create, 200 otherwise, the error's code for a failure). A watch is counted when it
//   opens, its duration is the time to open it.
// - SetLeaderStatus: leader_election_master_status{name} (client-go's leaderelection provider): 1
//   while this replica holds the Lease, 0 while it waits.
//
// Times come from the injected Clock: wall time in dgl-operator, simulated time in the simulator
// (where an in-process call takes no simulated time unless faults add latency).
//
// Thread safety: WorkQueueMetrics is driven by its queue's thread; its collector (run by a scrape on
// another thread) reads only the start times it keeps under its own mutex, and the clock. A
// MeasuredClient is as thread-safe as the client it wraps.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/metrics.h"
#include "fakeapi/client/workqueue.h"

#include <map>
#include <mutex>
#include <string>

namespace kube {

class WorkQueueMetrics : public WorkQueueObserver {
 public:
  // Registers the workqueue families on `registry` and a collector for the two computed gauges;
  // the queue's series start at depth 0. `registry` and `clock` must outlive this object.
  WorkQueueMetrics(MetricsRegistry& registry, const Clock& clock, std::string name);
  ~WorkQueueMetrics() override;  // removes the collector and zeroes the gauges
  WorkQueueMetrics(const WorkQueueMetrics&) = delete;
  WorkQueueMetrics& operator=(const WorkQueueMetrics&) = delete;

  void OnAdd(const std::string& key) override;
  void OnGet(const std::string& key) override;
  void OnDone(const std::string& key) override;
  void OnRetry() override;

 private:
  void Collect();
  const LabelValues& Labels() const { return labels_; }

  MetricsRegistry& registry_;
  const Clock& clock_;
  std::string name_;
  LabelValues labels_;        // {controller, name}
  LabelValues depth_labels_;  // {controller, name, priority}
  MetricFamily& depth_;
  MetricFamily& adds_;
  MetricFamily& retries_;
  MetricFamily& queue_latency_;
  MetricFamily& work_duration_;
  MetricFamily& unfinished_;
  MetricFamily& longest_;
  int collector_ = -1;
  std::mutex mu_;  // the two maps below: written by the queue, read by the collector
  std::map<std::string, Micros, std::less<>> added_at_;
  std::map<std::string, Micros, std::less<>> processing_since_;
};

class MeasuredClient : public Client {
 public:
  // `inner`, `registry` and `clock` must outlive the client. `host` is the API server's host:port
  // as client-go puts it in the host label.
  MeasuredClient(Client& inner, MetricsRegistry& registry, const Clock& clock, std::string host);

  Result<ObjectPtr> Create(const std::string& resource, Json object, const std::string& ns) override;
  Result<ObjectPtr> Get(const std::string& resource, const std::string& ns, const std::string& name) override;
  Result<ListResult> List(const std::string& resource, const ListOptions& options) override;
  Result<ObjectPtr> Update(const std::string& resource, Json object) override;
  Result<ObjectPtr> UpdateStatus(const std::string& resource, Json object) override;
  Result<ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                          const Json& patch, PatchType type, const std::string& subresource) override;
  Result<ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                           const DeleteOptions& options) override;
  Result<WatchPtr> Watch(const std::string& resource, const WatchOptions& options) override;

 private:
  void Record(const char* method, const Status& status, int ok_code, Micros started);

  Client& inner_;
  const Clock& clock_;
  std::string host_;
  MetricFamily& requests_;
  MetricFamily& latency_;
};

// leader_election_master_status{name=lease_name} = leading ? 1 : 0.
void SetLeaderStatus(MetricsRegistry& registry, const std::string& lease_name, bool leading);

// The host:port of a server URL ("https://10.96.0.1:443/prefix" -> "10.96.0.1:443").
std::string HostOfUrl(const std::string& url);

}  // namespace kube
