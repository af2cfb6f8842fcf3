#include "fakeapi/client/client_metrics.h"

#include <algorithm>
#include <utility>

namespace kube {
namespace {

constexpr double kMicrosPerSecond = 1e6;

double Seconds(Micros d) { return static_cast<double>(d) / kMicrosPerSecond; }

// controller-runtime's workqueue families: labels {name, controller}, depth also by priority.
const std::vector<std::string> kQueueLabels = {"controller", "name"};

// client-go's REST latency buckets (kubernetes/kubernetes#106911).
const std::vector<double> kRestBuckets = {0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0};

}  // namespace

// --- WorkQueueMetrics ---------------------------------------------------------------------------

WorkQueueMetrics::WorkQueueMetrics(MetricsRegistry& registry, const Clock& clock, std::string name)
    : registry_(registry),
      clock_(clock),
      name_(std::move(name)),
      labels_{name_, name_},
      depth_labels_{name_, name_, ""},
      depth_(registry.Gauge("workqueue_depth", "Current depth of workqueue by workqueue and priority",
                            {"controller", "name", "priority"})),
      adds_(registry.Counter("workqueue_adds_total", "Total number of adds handled by workqueue", kQueueLabels)),
      retries_(registry.Counter("workqueue_retries_total", "Total number of retries handled by workqueue", kQueueLabels)),
      queue_latency_(registry.Histogram("workqueue_queue_duration_seconds",
                                        "How long in seconds an item stays in workqueue before being requested",
                                        kQueueLabels, ExponentialBuckets(10e-9, 10, 12))),
      work_duration_(registry.Histogram("workqueue_work_duration_seconds",
                                        "How long in seconds processing an item from workqueue takes.", kQueueLabels,
                                        ExponentialBuckets(10e-9, 10, 12))),
      unfinished_(registry.Gauge("workqueue_unfinished_work_seconds",
                                 "How many seconds of work has been done that is in progress and hasn't been observed "
                                 "by work_duration. Large values indicate stuck threads. One can deduce the number of "
                                 "stuck threads by observing the rate at which this increases.",
                                 kQueueLabels)),
      longest_(registry.Gauge("workqueue_longest_running_processor_seconds",
                              "How many seconds has the longest running processor for workqueue been running.",
                              kQueueLabels)) {
  // A new queue starts empty, whatever an earlier queue of that name left.
  depth_.Set(depth_labels_, 0);
  adds_.Touch(Labels());
  retries_.Touch(Labels());
  queue_latency_.Touch(Labels());
  work_duration_.Touch(Labels());
  unfinished_.Set(Labels(), 0);
  longest_.Set(Labels(), 0);
  collector_ = registry_.AddCollector([this] { Collect(); });
}

WorkQueueMetrics::~WorkQueueMetrics() {
  registry_.RemoveCollector(collector_);
  depth_.Set(depth_labels_, 0);
  unfinished_.Set(Labels(), 0);
  longest_.Set(Labels(), 0);
}

void WorkQueueMetrics::OnAdd(const std::string& key) {
  adds_.Add(Labels());
  depth_.Add(depth_labels_, 1);
  std::lock_guard<std::mutex> lock(mu_);
  added_at_.emplace(key, clock_.Now());  // the first add of a waiting key counts
}

void WorkQueueMetrics::OnGet(const std::string& key) {
  depth_.Add(depth_labels_, -1);
  const Micros now = clock_.Now();
  std::optional<Micros> waited;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = added_at_.find(key); it != added_at_.end()) {
      waited = now - it->second;
      added_at_.erase(it);
    }
    processing_since_[key] = now;
  }
  if (waited) queue_latency_.Observe(Labels(), Seconds(*waited));
}

void WorkQueueMetrics::OnDone(const std::string& key) {
  std::optional<Micros> worked;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = processing_since_.find(key); it != processing_since_.end()) {
      worked = clock_.Now() - it->second;
      processing_since_.erase(it);
    }
  }
  if (worked) work_duration_.Observe(Labels(), Seconds(*worked));
}

void WorkQueueMetrics::OnRetry() { retries_.Add(Labels()); }

void WorkQueueMetrics::Collect() {
  const Micros now = clock_.Now();
  Micros total = 0, longest = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [key, since] : processing_since_) {
      total += now - since;
      longest = std::max(longest, now - since);
    }
  }
  unfinished_.Set(Labels(), Seconds(total));
  longest_.Set(Labels(), Seconds(longest));
}

// --- MeasuredClient -----------------------------------------------------------------------------

MeasuredClient::MeasuredClient(Client& inner, MetricsRegistry& registry, const Clock& clock, std::string host)
    : inner_(inner),
      clock_(clock),
      host_(std::move(host)),
      requests_(registry.Counter("rest_client_requests_total",
                                 "Number of HTTP requests, partitioned by status code, method, and host.",
                                 {"code", "method", "host"})),
      latency_(registry.Histogram("rest_client_request_duration_seconds",
                                  "Request latency in seconds. Broken down by verb, and host.", {"verb", "host"},
                                  kRestBuckets)) {}

void MeasuredClient::Record(const char* method, const Status& status, int ok_code, Micros started) {
  const int code = status.ok() ? ok_code : status.code();
  requests_.Add({std::to_string(code), method, host_});
  latency_.Observe({method, host_}, Seconds(clock_.Now() - started));
}

Result<ObjectPtr> MeasuredClient::Create(const std::string& resource, Json object, const std::string& ns) {
  const Micros t = clock_.Now();
  auto r = inner_.Create(resource, std::move(object), ns);
  Record("POST", r.status(), 201, t);
  return r;
}

Result<ObjectPtr> MeasuredClient::Get(const std::string& resource, const std::string& ns, const std::string& name) {
  const Micros t = clock_.Now();
  auto r = inner_.Get(resource, ns, name);
  Record("GET", r.status(), 200, t);
  return r;
}

Result<ListResult> MeasuredClient::List(const std::string& resource, const ListOptions& options) {
  const Micros t = clock_.Now();
  auto r = inner_.List(resource, options);
  Record("GET", r.status(), 200, t);
  return r;
}

Result<ObjectPtr> MeasuredClient::Update(const std::string& resource, Json object) {
  const Micros t = clock_.Now();
  auto r = inner_.Update(resource, std::move(object));
  Record("PUT", r.status(), 200, t);
  return r;
}

Result<ObjectPtr> MeasuredClient::UpdateStatus(const std::string& resource, Json object) {
  const Micros t = clock_.Now();
  auto r = inner_.UpdateStatus(resource, std::move(object));
  Record("PUT", r.status(), 200, t);
  return r;
}

Result<ObjectPtr> MeasuredClient::Patch(const std::string& resource, const std::string& ns, const std::string& name,
                                        const Json& patch, PatchType type, const std::string& subresource) {
  const Micros t = clock_.Now();
  auto r = inner_.Patch(resource, ns, name, patch, type, subresource);
  Record("PATCH", r.status(), 200, t);
  return r;
}

Result<ObjectPtr> MeasuredClient::Delete(const std::string& resource, const std::string& ns, const std::string& name,
                                         const DeleteOptions& options) {
  const Micros t = clock_.Now();
  auto r = inner_.Delete(resource, ns, name, options);
  Record("DELETE", r.status(), 200, t);
  return r;
}

Result<WatchPtr> MeasuredClient::Watch(const std::string& resource, const WatchOptions& options) {
  const Micros t = clock_.Now();
  auto r = inner_.Watch(resource, options);
  Record("GET", r.status(), 200, t);
  return r;
}

void SetLeaderStatus(MetricsRegistry& registry, const std::string& lease_name, bool leading) {
  registry
      .Gauge("leader_election_master_status",
             "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates "
             "master. 'name' is the string used to identify the lease. Please make sure to group by name.",
             {"name"})
      .Set({lease_name}, leading ? 1 : 0);
}

std::string HostOfUrl(const std::string& url) {
  std::size_t start = url.find("://");
  start = start == std::string::npos ? 0 : start + 3;
  const std::size_t end = url.find('/', start);
  return url.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

}  // namespace kube
