#include "fakeapi/client/faulty_client.h"

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace kube {

namespace {

// Distinguishes the watch-drop stream from the call stream of the same seed ("WATCHDRP").
constexpr std::uint64_t kWatchStreamSalt = 0x5741544348445250ULL;

const std::string& NameInObject(const kube::Json& object) {
  static const std::string kEmpty;
  auto metadata = object.find("metadata");
  if (metadata == object.end() || !metadata->is_object()) return kEmpty;
  for (const char* field : {"name", "generateName"}) {
    auto name = metadata->find(field);
    if (name != metadata->end() && name->is_string()) return name->get_ref<const std::string&>();
  }
  return kEmpty;
}

class FaultyWatchStream;

}  // namespace

struct FaultyClient::Shared {
  mutable std::mutex mu;
  FaultPlan plan;
  SplitMix64 calls;
  SplitMix64 watch_drops;
  FaultCounts counts;
  Micros pending_latency = 0;
  std::vector<std::weak_ptr<FaultyWatchStream>> streams;

  Shared(std::uint64_t seed, FaultPlan p)
      : plan(p), calls(seed), watch_drops(SplitMix64(seed ^ kWatchStreamSalt).Next()) {}

  // REQUIRES: mu held. One draw, whatever the plan.
  void DrawLatency() {
    const std::uint64_t draw = calls.Next();
    if (plan.latency_max <= plan.latency_min) {
      pending_latency += std::max<Micros>(plan.latency_min, 0);
      return;
    }
    // Multiply-shift maps the 64-bit draw onto [0, span) with integers only.
    const auto span = static_cast<unsigned __int128>(plan.latency_max - plan.latency_min) + 1;
    const auto offset = static_cast<Micros>((static_cast<unsigned __int128>(draw) * span) >> 64);
    pending_latency += std::max<Micros>(plan.latency_min + offset, 0);
  }
};

namespace {

// A watch stream that can be cut: by DropWatches(), or by a draw at each Poll().
class FaultyWatchStream : public WatchStream {
 public:
  FaultyWatchStream(std::shared_ptr<FaultyClient::Shared> shared, WatchPtr inner)
      : shared_(std::move(shared)), inner_(std::move(inner)) {}

  bool Poll(std::vector<WatchEvent>* out) override {
    if (Dropped()) return false;
    bool drop = false;
    {
      std::lock_guard lock(shared_->mu);
      drop = shared_->watch_drops.NextDouble() < shared_->plan.watch_drop_rate;
    }
    if (drop && Drop()) return false;
    if (Dropped()) return false;
    return inner_->Poll(out);
  }

  void Wait(Micros timeout) override {
    if (!Dropped()) inner_->Wait(timeout);
  }

  void SetNotifier(std::function<void()> notify) override {
    {
      std::lock_guard lock(mu_);
      notifier_ = notify;
    }
    inner_->SetNotifier(std::move(notify));
  }

  void Stop() override { inner_->Stop(); }

  bool Ended() const override { return Dropped() || inner_->Ended(); }

  Status status() const override {
    {
      std::lock_guard lock(mu_);
      if (dropped_) return drop_status_;
    }
    return inner_->status();
  }

  // Ends the stream unless it has already ended; the queued events are lost. Returns whether it
  // dropped the stream.
  bool Drop() {
    std::function<void()> notify;
    {
      std::lock_guard lock(mu_);
      if (dropped_ || inner_->Ended()) return false;
      dropped_ = true;
      drop_status_ = Status::Internal("watch connection dropped (injected fault)");
      notify = notifier_;
    }
    inner_->Stop();
    {
      std::lock_guard lock(shared_->mu);
      ++shared_->counts.watch_drops;
    }
    if (notify) notify();
    return true;
  }

 private:
  bool Dropped() const {
    std::lock_guard lock(mu_);
    return dropped_;
  }

  std::shared_ptr<FaultyClient::Shared> shared_;
  WatchPtr inner_;
  mutable std::mutex mu_;
  bool dropped_ = false;
  Status drop_status_;
  std::function<void()> notifier_;
};

}  // namespace

FaultyClient::FaultyClient(Client& inner, std::uint64_t seed, FaultPlan plan)
    : inner_(inner), shared_(std::make_shared<Shared>(seed, plan)) {}

FaultyClient::~FaultyClient() = default;

void FaultyClient::SetPlan(const FaultPlan& plan) {
  std::lock_guard lock(shared_->mu);
  shared_->plan = plan;
}

FaultPlan FaultyClient::plan() const {
  std::lock_guard lock(shared_->mu);
  return shared_->plan;
}

Micros FaultyClient::TakeLatency() {
  std::lock_guard lock(shared_->mu);
  return std::exchange(shared_->pending_latency, 0);
}

FaultCounts FaultyClient::counts() const {
  std::lock_guard lock(shared_->mu);
  return shared_->counts;
}

std::size_t FaultyClient::DropWatches() {
  std::vector<std::shared_ptr<FaultyWatchStream>> open;
  {
    std::lock_guard lock(shared_->mu);
    for (const auto& weak : shared_->streams) {
      if (auto stream = weak.lock()) open.push_back(std::move(stream));
    }
  }
  std::size_t dropped = 0;
  for (const auto& stream : open) {
    if (stream->Drop()) ++dropped;
  }
  return dropped;
}

std::size_t FaultyClient::OpenWatches() const {
  std::vector<std::shared_ptr<FaultyWatchStream>> streams;
  {
    std::lock_guard lock(shared_->mu);
    for (const auto& weak : shared_->streams) {
      if (auto stream = weak.lock()) streams.push_back(std::move(stream));
    }
  }
  return static_cast<std::size_t>(
      std::count_if(streams.begin(), streams.end(), [](const auto& s) { return !s->Ended(); }));
}

FaultyClient::WriteFault FaultyClient::DrawWriteFault() {
  std::lock_guard lock(shared_->mu);
  shared_->DrawLatency();
  const double fault = shared_->calls.NextDouble();
  const double applied = shared_->calls.NextDouble();
  const FaultPlan& p = shared_->plan;
  double bound = p.conflict_rate;
  if (fault < bound) {
    ++shared_->counts.conflicts;
    return WriteFault::kConflict;
  }
  bound += p.error_rate;
  if (fault < bound) {
    ++shared_->counts.internal_errors;
    return WriteFault::kInternal;
  }
  bound += p.timeout_rate;
  if (fault < bound) {
    if (applied < p.timeout_applied_rate) {
      ++shared_->counts.timeouts_applied;
      return WriteFault::kTimeoutApplied;
    }
    ++shared_->counts.timeouts_not_applied;
    return WriteFault::kTimeoutNotApplied;
  }
  return WriteFault::kNone;
}

bool FaultyClient::DrawReadFault() {
  std::lock_guard lock(shared_->mu);
  shared_->DrawLatency();
  if (shared_->calls.NextDouble() < shared_->plan.read_error_rate) {
    ++shared_->counts.read_errors;
    return true;
  }
  return false;
}

template <class Write>
Result<ObjectPtr> FaultyClient::Inject(const std::string& verb, const std::string& resource,
                                       const std::string& name, Write&& write) {
  switch (DrawWriteFault()) {
    case WriteFault::kNone:
      return write();
    case WriteFault::kConflict:
      return Status::Conflict(resource, name,
                              "the object has been modified; please apply your changes to the latest "
                              "version and try again (injected fault)");
    case WriteFault::kInternal:
      return Status::Internal("an error on the server has prevented the " + verb +
                              " request from succeeding (injected fault)");
    case WriteFault::kTimeoutApplied:
      (void)write();  // the server committed it; the reply never arrived
      [[fallthrough]];
    case WriteFault::kTimeoutNotApplied:
      return Status::Timeout("the " + verb + " request timed out; it may or may not have been applied " +
                             "(injected fault)");
  }
  return write();
}

Result<ObjectPtr> FaultyClient::Create(const std::string& resource, kube::Json object,
                                       const std::string& ns) {
  const std::string name = NameInObject(object);
  return Inject("create", resource, name,
                [&] { return inner_.Create(resource, std::move(object), ns); });
}

Result<ObjectPtr> FaultyClient::Update(const std::string& resource, kube::Json object) {
  const std::string name = NameInObject(object);
  return Inject("update", resource, name, [&] { return inner_.Update(resource, std::move(object)); });
}

Result<ObjectPtr> FaultyClient::UpdateStatus(const std::string& resource, kube::Json object) {
  const std::string name = NameInObject(object);
  return Inject("updateStatus", resource, name,
                [&] { return inner_.UpdateStatus(resource, std::move(object)); });
}

Result<ObjectPtr> FaultyClient::Patch(const std::string& resource, const std::string& ns,
                                      const std::string& name, const kube::Json& patch,
                                      PatchType type, const std::string& subresource) {
  return Inject("patch", resource, name,
                [&] { return inner_.Patch(resource, ns, name, patch, type, subresource); });
}

Result<ObjectPtr> FaultyClient::Delete(const std::string& resource, const std::string& ns,
                                       const std::string& name, const DeleteOptions& options) {
  return Inject("delete", resource, name, [&] { return inner_.Delete(resource, ns, name, options); });
}

Result<ObjectPtr> FaultyClient::Get(const std::string& resource, const std::string& ns,
                                    const std::string& name) {
  if (DrawReadFault()) return Status::Internal("an error on the server has prevented the get request from succeeding (injected fault)");
  return inner_.Get(resource, ns, name);
}

Result<ListResult> FaultyClient::List(const std::string& resource, const ListOptions& options) {
  if (DrawReadFault()) return Status::Internal("an error on the server has prevented the list request from succeeding (injected fault)");
  return inner_.List(resource, options);
}

Result<WatchPtr> FaultyClient::Watch(const std::string& resource, const WatchOptions& options) {
  if (DrawReadFault()) return Status::Internal("an error on the server has prevented the watch request from succeeding (injected fault)");
  Result<WatchPtr> inner = inner_.Watch(resource, options);
  if (!inner.ok()) return inner.status();
  auto stream = std::make_shared<FaultyWatchStream>(shared_, inner.value());
  {
    std::lock_guard lock(shared_->mu);
    // Forget streams their readers have released, so the list does not grow without bound.
    std::erase_if(shared_->streams, [](const auto& weak) { return weak.expired(); });
    shared_->streams.push_back(stream);
  }
  return WatchPtr(stream);
}

}  // namespace kube
