// A FaultyClient is a Client that wraps another one and injects the failures a real API server and
// network produce, drawn from a seeded deterministic random stream (so a run replays exactly):
// - writes (Create, Update, UpdateStatus, Patch, Delete) fail with 409 Conflict, 500 InternalError
//   or 504 Timeout. A timed-out write may still have been applied, as a real request can time out
//   after the server committed it: a second draw decides, and then the write is forwarded and its
//   result thrown away;
// - reads (Get, List, Watch) fail with 500 InternalError at read_error_rate;
// - every call costs a latency drawn uniformly from [latency_min, latency_max]. In-process calls
//   return at once, so the latency is accumulated and the caller (the simulator) collects it with
//   TakeLatency() and adds it to the actor's next step;
// - watches: Watch() returns wrapped streams; DropWatches() ends every open one, and each Poll()
//   may end its stream at watch_drop_rate. A dropped stream loses the events it had queued and ends
//   with a 500 InternalError status (not Expired), so a reader re-watches from its last
//   resourceVersion, as after a broken connection.
// Everything else forwards. The FaultPlan can be changed at any time.
//
// Determinism: each call consumes a fixed number of draws whatever the plan (a write 3: latency,
// fault, applied; a read 2: latency, fault), so changing rates never shifts later draws. Watch
// drops draw from a second stream derived from the seed, one draw per Poll, so how often a reader
// polls does not change which writes fail.
//
// Thread-safe: the client and its streams share one mutex for the random streams and counters.
#pragma once

#include "fakeapi/client/client.h"
#include "clock/clock.h"
#include "fakeapi/client/status.h"

#include <cstdint>
#include <memory>
#include <string>

namespace kube {

// SplitMix64 (Steele, Lea, Flood 2014): tiny, fast, and the same sequence on every platform.
// Conversions are our own (std:: distributions differ across standard libraries).
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t Next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform on [0, 1) from the top 53 bits: every multiple of 2^-53 equally likely.
  double NextDouble() { return static_cast<double>(Next() >> 11) * 0x1.0p-53; }

 private:
  std::uint64_t state_;
};

struct FaultPlan {
  // Fractions of writes failing with each kind (their sum is capped at 1, in this order).
  double conflict_rate = 0;
  double error_rate = 0;
  double timeout_rate = 0;
  // Of the timed-out writes, the fraction that was nevertheless applied.
  double timeout_applied_rate = 0.5;
  // Fraction of reads (Get, List, Watch) failing with 500.
  double read_error_rate = 0;
  // Per-call latency, uniform in [latency_min, latency_max] (both included).
  Micros latency_min = 0;
  Micros latency_max = 0;
  // Probability that one Poll of a watch stream drops it.
  double watch_drop_rate = 0;
};

struct FaultCounts {
  std::int64_t conflicts = 0;
  std::int64_t internal_errors = 0;       // failed writes
  std::int64_t timeouts_applied = 0;      // timed out, but the write went through
  std::int64_t timeouts_not_applied = 0;
  std::int64_t read_errors = 0;
  std::int64_t watch_drops = 0;
  std::int64_t Total() const {
    return conflicts + internal_errors + timeouts_applied + timeouts_not_applied + read_errors + watch_drops;
  }
  bool operator==(const FaultCounts&) const = default;
};

class FaultyClient : public Client {
 public:
  // `inner` must outlive this client and every stream it returns.
  FaultyClient(Client& inner, std::uint64_t seed, FaultPlan plan = {});
  ~FaultyClient() override;
  FaultyClient(const FaultyClient&) = delete;
  FaultyClient& operator=(const FaultyClient&) = delete;

  void SetPlan(const FaultPlan& plan);
  FaultPlan plan() const;
  // The latency accumulated since the last call, reset to zero.
  Micros TakeLatency();
  // Ends every open watch stream returned by this client (as a broken connection would).
  // Returns how many were dropped.
  std::size_t DropWatches();
  FaultCounts counts() const;
  // Streams returned by Watch that have not ended yet.
  std::size_t OpenWatches() const;

  Result<ObjectPtr> Create(const std::string& resource, kube::Json object,
                           const std::string& ns = kNoNamespace()) override;
  Result<ObjectPtr> Get(const std::string& resource, const std::string& ns,
                        const std::string& name) override;
  Result<ListResult> List(const std::string& resource, const ListOptions& options = {}) override;
  Result<ObjectPtr> Update(const std::string& resource, kube::Json object) override;
  Result<ObjectPtr> UpdateStatus(const std::string& resource, kube::Json object) override;
  Result<ObjectPtr> Patch(const std::string& resource, const std::string& ns, const std::string& name,
                          const kube::Json& patch, PatchType type = PatchType::kMerge,
                          const std::string& subresource = "") override;
  Result<ObjectPtr> Delete(const std::string& resource, const std::string& ns, const std::string& name,
                           const DeleteOptions& options = {}) override;
  Result<WatchPtr> Watch(const std::string& resource, const WatchOptions& options = {}) override;

  struct Shared;  // state shared with the wrapped watch streams

 private:
  enum class WriteFault { kNone, kConflict, kInternal, kTimeoutApplied, kTimeoutNotApplied };
  WriteFault DrawWriteFault();
  bool DrawReadFault();
  // Runs `write` under the drawn fault; `name` names the object in a Conflict.
  template <class Write>
  Result<ObjectPtr> Inject(const std::string& verb, const std::string& resource, const std::string& name,
                           Write&& write);

  Client& inner_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace kube
