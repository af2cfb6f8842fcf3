#include "operator/controller/controller.h"

#include "fakeapi/client/json_path.h"
#include "operator/api/dgljob_api.h"
#include "operator/controller/builders.h"
#include "operator/controller/events.h"

#include <utility>
#include <vector>

namespace dgl {
namespace {

using kube::ObjectPtr;

constexpr const char* kJobs = "dgljobs";
constexpr const char* kPods = "pods";
constexpr const char* kNodes = "nodes";
constexpr const char* kIndexJobName = "job-name";  // "<namespace>/<job-name label>"
constexpr const char* kIndexNode = "node";

// A pod's job as "<namespace>/<job-name label>": a job's pods in one index lookup, whatever other
// namespace has a job of the same name.
std::vector<std::string> NamespacedJobName(const kube::Json& pod) {
  const kube::Json* job = kube::JsonAt(pod, {"metadata", "labels", kLabelJobName});
  if (job == nullptr || !job->is_string()) return {};
  return {kube::NamespaceOf(pod) + "/" + job->get_ref<const std::string&>()};
}

// Owned kinds, all label-selected on the job-name label.
constexpr const char* kOwnedResources[] = {"pods",  "configmaps",   "services", "serviceaccounts",
                                           "roles", "rolebindings", "podgroups"};

}  // namespace

// Reads from the informer caches.
class Controller::CacheReader : public ObjectReader {
 public:
  explicit CacheReader(Controller& c) : c_(c) {}
  ObjectPtr Get(const std::string& resource, const std::string& ns, const std::string& name) override {
    kube::Informer* informer = c_.informer(resource);
    return informer != nullptr ? informer->Get(ns, name) : nullptr;
  }
  std::vector<ObjectPtr> PodsOfJob(const std::string& ns, const std::string& job_name) override {
    return c_.informer(kPods)->ByIndex(kIndexJobName, ns + "/" + job_name);
  }
  std::optional<std::uint64_t> Changes(const std::string& resource) override {
    kube::Informer* informer = c_.informer(resource);
    return informer != nullptr ? std::optional<std::uint64_t>(informer->Changes()) : std::nullopt;
  }

 private:
  Controller& c_;
};

Controller::Controller(kube::Client& client, const kube::Clock& clock, ControllerOptions options)
    : client_(client), clock_(clock), options_(std::move(options)), queue_(&clock, options_.queue) {
  kube::ListOptions jobs_filter;
  jobs_filter.namespace_ = options_.namespace_;
  informers_[kJobs] = std::make_unique<kube::Informer>(client_, kJobs, jobs_filter);
  kube::ListOptions owned_filter = jobs_filter;
  owned_filter.label_selector = kLabelJobName;  // exists
  for (const char* resource : kOwnedResources) {
    if (std::string_view(resource) == "podgroups" && !options_.reconciler.build.gang_scheduling) continue;
    informers_[resource] = std::make_unique<kube::Informer>(client_, resource, owned_filter);
  }
  informers_[kNodes] = std::make_unique<kube::Informer>(client_, kNodes);
  (void)informers_[kPods]->AddIndex(kIndexJobName, NamespacedJobName);
  (void)informers_[kPods]->AddIndex(kIndexNode, kube::IndexByNodeName());

  if (options_.metrics != nullptr) {
    metrics_ = std::make_unique<ControllerMetrics>(*options_.metrics);
    queue_metrics_ = std::make_unique<kube::WorkQueueMetrics>(*options_.metrics, clock_, kControllerName);
    queue_.SetObserver(queue_metrics_.get());
  }
  auto enqueue_job = [this](const ObjectPtr& job) { queue_.Add(kube::KeyOf(*job)); };
  informers_[kJobs]->AddEventHandler({.on_add =
                                          [this, enqueue_job](const ObjectPtr& job) {
                                            if (metrics_) metrics_->ObserveJob(nullptr, job.get());
                                            enqueue_job(job);
                                          },
                                      .on_update =
                                          [this, enqueue_job](const ObjectPtr& old_job, const ObjectPtr& job) {
                                            if (metrics_) metrics_->ObserveJob(old_job.get(), job.get());
                                            enqueue_job(job);
                                          },
                                      .on_delete =
                                          [this, enqueue_job](const ObjectPtr& job) {
                                            if (metrics_) metrics_->ObserveJob(job.get(), nullptr);
                                            enqueue_job(job);
                                          }});
  for (auto& [resource, informer] : informers_) {
    if (resource == kJobs || resource == kNodes) continue;
    informer->AddEventHandler({.on_add = [this](const ObjectPtr& o) { EnqueueOwner(o); },
                               .on_update = [this](const ObjectPtr&, const ObjectPtr& o) { EnqueueOwner(o); },
                               .on_delete = [this](const ObjectPtr& o) { EnqueueOwner(o); }});
  }
  informers_[kNodes]->AddEventHandler(
      {.on_update = [this](const ObjectPtr&, const ObjectPtr& node) { EnqueueJobsOnNode(node); },
       .on_delete = [this](const ObjectPtr& node) { EnqueueJobsOnNode(node); }});

  reader_ = std::make_unique<CacheReader>(*this);
  reconciler_ = std::make_unique<Reconciler>(client_, clock_, *reader_, options_.reconciler);
}

Controller::~Controller() {
  for (auto& [resource, informer] : informers_) informer->Stop();
  queue_.SetObserver(nullptr);
}

bool Controller::HasSynced() const {
  for (const auto& [resource, informer] : informers_)
    if (!informer->HasSynced()) return false;
  return true;
}

kube::Informer* Controller::informer(const std::string& resource) {
  auto it = informers_.find(resource);
  return it == informers_.end() ? nullptr : it->second.get();
}

void Controller::EnqueueOwner(const ObjectPtr& object) {
  const kube::Json* owner = kube::ControllerRefOf(*object);
  if (owner == nullptr || owner->value("kind", "") != kKind) return;
  const std::string name = owner->value("name", "");
  if (name.empty()) return;
  queue_.Add(kube::NamespaceOf(*object) + "/" + name);
}

void Controller::EnqueueJobsOnNode(const ObjectPtr& node) {
  for (const ObjectPtr& pod : informers_[kPods]->ByIndex(kIndexNode, kube::NameOf(*node))) EnqueueOwner(pod);
}

kube::Status Controller::Start() {
  kube::Status first;
  // Owned objects and nodes first, so the first reconcile of each job sees a full cache.
  for (auto& [resource, informer] : informers_) {
    if (resource == kJobs) continue;
    if (kube::Status s = informer->Start(); !s.ok() && first.ok()) first = s;
  }
  if (kube::Status s = informers_[kJobs]->Start(); !s.ok() && first.ok()) first = s;
  return first;
}

void Controller::SetNotifier(std::function<void()> notify) {
  for (auto& [resource, informer] : informers_) informer->SetNotifier(notify);
}

std::size_t Controller::Pump() {
  std::size_t changes = 0;
  for (auto& [resource, informer] : informers_) changes += informer->Pump();
  return changes;
}

bool Controller::ProcessNext() {
  Pump();
  std::optional<std::string> key = queue_.Pop();
  if (!key) return false;
  ++stats_.reconciles;
  const kube::Micros started = clock_.Now();
  if (metrics_) metrics_->ReconcileStarted();
  reconciling_ = *key;
  auto result = reconciler_->Reconcile(*key);
  reconciling_.clear();
  ReconcileOutcome outcome = ReconcileOutcome::kSuccess;
  if (!result.ok()) {
    ++stats_.errors;
    last_error_key_ = *key;
    last_error_ = result.status();
    outcome = ReconcileOutcome::kError;
    if (result.status().code() == 403) {
      ++stats_.forbidden;
      if (ObjectPtr job = informers_[kJobs]->GetByKey(*key))
        (void)RecordEvent(client_, clock_, options_.reconciler.component, *job, "Warning", kEventForbidden,
                          result.status().message());
    }
    queue_.AddRateLimited(*key);
  } else {
    queue_.Forget(*key);
    if (result->requeue_after) {
      outcome = ReconcileOutcome::kRequeueAfter;
      queue_.AddAfter(*key, *result->requeue_after);
    }
  }
  if (metrics_) metrics_->ReconcileFinished(outcome, clock_.Now() - started);
  queue_.Done(*key);
  return true;
}

std::size_t Controller::RunUntilIdle(std::size_t max_steps) {
  std::size_t steps = 0;
  while (steps < max_steps && ProcessNext()) ++steps;
  return steps;
}

std::optional<kube::Micros> Controller::NextWakeTime() const {
  std::optional<kube::Micros> next = queue_.NextReadyTime();
  for (const auto& [resource, informer] : informers_) {
    if (!informer->NeedsResync() && informer->HasSynced()) continue;
    const kube::Micros retry = clock_.Now() + options_.resync_retry;
    if (!next || retry < *next) next = retry;
  }
  return next;
}

}  // namespace dgl
