// A WorkQueue feeds a controller's Reconcile with keys ("ns/name"), in the shape of client-go's
// rate-limiting delaying work queue:
// - de-duplicating: a key added many times while it waits is queued once; a key added while it is
//   being processed (between Pop and Done) is queued again when Done is called, never handed to
//   two workers at once;
// - delayed adds: AddAfter(key, delay) makes the key ready at clock->Now() + delay; of several
//   delayed adds of one key the earliest ready time wins;
// - per-key exponential back-off: AddRateLimited(key) waits base * 2^n, n = the key's requeues so
//   far, capped at max_delay; Forget(key) resets n (call it when a reconcile succeeds);
// - Pop() hands out ready keys FIFO; delayed keys become ready in order of ready time, ties in order
//   of insertion, and take their place in the FIFO as of their ready time (relative to later adds),
//   provided the clock has been advanced to it;
// - NextReadyTime() tells a simulated actor when to wake up.
//
// Time comes only from the injected Clock, so the queue behaves the same under a ManualClock, the
// simulator's clock or the system clock.
//
// Metrics: an optional WorkQueueObserver hears what client-go's queue tells its metrics provider
// (client_metrics.h turns that into the workqueue_* series): an add when a key becomes dirty (not
// when it is de-duplicated), a get on Pop, a done on Done, and a retry on every AddAfter and
// AddRateLimited, as client-go's delaying queue counts them.
//
// REQUIRES: external synchronization. The queue is single-threaded by design (a simulated actor or
// one controller loop owns it); Pop() never blocks: it returns nullopt when nothing is ready.
#pragma once

#include "clock/clock.h"

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>

namespace kube {

struct WorkQueueOptions {
  Micros base_delay = 5 * kMillisecond;  // first back-off (client-go's default)
  Micros max_delay = 1000 * kSecond;     // back-off cap (client-go's default)
};

// What the queue reports (client-go's queueMetrics hooks). Called synchronously from the queue's
// methods, with the queue's clock reading the same time.
class WorkQueueObserver {
 public:
  virtual ~WorkQueueObserver() = default;
  virtual void OnAdd(const std::string& key) = 0;
  virtual void OnGet(const std::string& key) = 0;
  virtual void OnDone(const std::string& key) = 0;
  virtual void OnRetry() = 0;
};

class WorkQueue {
 public:
  // REQUIRES: clock != nullptr and outlives the queue.
  explicit WorkQueue(const Clock* clock, WorkQueueOptions options = {});
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Makes `key` ready now (no-op if it already waits, or after ShutDown).
  void Add(const std::string& key);
  // Makes `key` ready at Now() + delay; delay <= 0 is Add. An earlier pending ready time is kept.
  void AddAfter(const std::string& key, Micros delay);
  // AddAfter(key, the key's next back-off delay), and counts one more requeue.
  void AddRateLimited(const std::string& key);
  // The back-off AddRateLimited would use now, without counting it.
  Micros NextBackoff(std::string_view key) const;
  // Resets the key's back-off (its requeue count) to zero.
  void Forget(std::string_view key);
  // AddRateLimited calls since the last Forget.
  int NumRequeues(std::string_view key) const;

  // The next ready key, now marked as processing; nullopt when no key is ready.
  // REQUIRES: the caller calls Done(key) when it has finished with the key.
  std::optional<std::string> Pop();
  // Ends the processing of `key`; if it was added meanwhile, it is queued again.
  void Done(const std::string& key);

  // When Pop() will next have a key: Now() when one is ready, the earliest delayed ready time
  // otherwise, nullopt when nothing waits (or the queue is shut down and drained).
  std::optional<Micros> NextReadyTime() const;
  // Keys ready to Pop now (delayed keys whose time has come included).
  std::size_t Len() const;
  // Keys waiting for a later ready time.
  std::size_t NumDelayed() const { return delayed_.size(); }
  bool IsProcessing(std::string_view key) const { return processing_.contains(key); }

  // `observer` (nullptr: none) must outlive the queue or be replaced first.
  void SetObserver(WorkQueueObserver* observer) { observer_ = observer; }

  // Refuses later adds and drops delayed keys; keys already ready can still be popped.
  void ShutDown();
  bool ShuttingDown() const { return shutting_down_; }

 private:
  struct Delayed {
    Micros ready_at;
    std::uint64_t seq;
  };
  // Moves delayed keys whose time has come to the ready FIFO, in ready time then insertion order.
  void PromoteDue();
  void Enqueue(const std::string& key);
  bool WouldEnqueue(std::string_view key) const;

  const Clock* clock_;
  WorkQueueOptions options_;
  bool shutting_down_ = false;

  std::deque<std::string> ready_;
  std::set<std::string, std::less<>> dirty_;       // ready or to be re-queued on Done
  std::set<std::string, std::less<>> processing_;  // between Pop and Done
  std::map<std::string, Delayed, std::less<>> delayed_;
  std::set<std::tuple<Micros, std::uint64_t, std::string>> delayed_order_;
  std::uint64_t next_seq_ = 0;
  std::map<std::string, int, std::less<>> requeues_;
  WorkQueueObserver* observer_ = nullptr;
};

}  // namespace kube
