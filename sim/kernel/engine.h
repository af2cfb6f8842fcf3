// An Engine is the discrete-event core of the simulator: a single-threaded queue of callbacks, each
// due at an integer simulated time in microseconds, run strictly in order of (time, insertion
// sequence). Two events due at the same microsecond run in the order they were scheduled, so a run
// is fully determined by what the callers schedule.
//
// Simulated time starts at 0 and only moves forward, when the engine takes the next event or when
// RunUntil reaches its boundary. clock() exposes it as a kube::Clock reading epoch + Now(), so the
// fake API server, the operator and every actor stamp objects with simulated time.
//
// Events can be cancelled in O(1): the callback is released at once and the queue entry is skipped
// when it reaches the top (lazy deletion). Rescheduling (moving an event in time) leaves a stale
// entry the same way and pushes a new one for the same callback. Cancelling an event that already ran or was already
// cancelled is harmless. Callbacks may schedule and cancel events, including themselves. Whoever
// schedules an event owns it: the simulator's parts schedule through an OwnedEvents
// (owned_events.h), so their events are cancelled when they die.
//
// REQUIRES: external synchronization; the engine is meant to be driven from one thread.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "clock/clock.h"

namespace sim {

using kube::Micros;

// Names one scheduled event. A default-constructed EventId names nothing; cancelling it is a no-op.
class EventId {
 public:
  constexpr EventId() = default;
  constexpr bool valid() const { return seq_ != 0; }
  // The insertion sequence number, unique within one Engine (1, 2, 3, ...).
  constexpr std::uint64_t sequence() const { return seq_; }
  friend constexpr bool operator==(const EventId&, const EventId&) = default;

 private:
  friend class Engine;
  constexpr EventId(std::uint64_t seq, std::uint32_t slot) : seq_(seq), slot_(slot) {}
  std::uint64_t seq_ = 0;
  std::uint32_t slot_ = 0;
};

class Engine {
 public:
  using Callback = std::function<void()>;

  // `epoch` is the API time at simulated time 0; by default 2026-01-01T00:00:00Z.
  explicit Engine(Micros epoch = kube::ManualClock::kDefaultStart);
  ~Engine();

  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;

  // Simulated time since the start of the run, in microseconds.
  Micros Now() const { return now_; }
  // The API time at simulated time 0.
  Micros epoch() const { return clock_.epoch(); }
  // A clock reading epoch() + Now(); valid as long as the engine lives.
  const kube::Clock& clock() const { return clock_; }

  // Runs `cb` at Now() + delay. A negative delay counts as 0.
  EventId Schedule(Micros delay, Callback cb);
  // Runs `cb` at simulated time `time`. A time in the past counts as Now(): the event runs after
  // every event already due at Now(), never before the present.
  EventId ScheduleAt(Micros time, Callback cb);

  // Moves a pending event to `time` (a time in the past counts as Now()), keeping its callback: the
  // same as cancelling it and scheduling the callback anew (it takes a new sequence number, so it
  // runs after every event already due at `time`), without releasing and rebuilding the callback.
  // Returns the event's new id; an invalid id, and nothing done, if `id` is not pending.
  EventId Reschedule(EventId id, Micros time);
  // Cancels a pending event and releases its callback. Returns true if the event was pending,
  // false if it already ran, was already cancelled, or `id` names nothing.
  bool Cancel(EventId id);
  // True while `id` is scheduled and has neither run nor been cancelled.
  bool IsPending(EventId id) const;

  // Runs the next pending event, advancing Now() to its time. Returns false if none is pending.
  // Ignores stop requests.
  bool Step();
  // Runs every event due at or before `time`, then advances Now() to `time` (if it is later).
  // Later events stay queued. Returns the number of events run. If a stop is requested, returns
  // right after the current event and leaves Now() at that event's time.
  std::uint64_t RunUntil(Micros time);
  // Runs events until none is pending or a stop is requested. Returns the number run.
  std::uint64_t RunUntilIdle();
  // Asks the running RunUntil / RunUntilIdle to return after the current event. Called when no
  // run is in progress, it makes the next one return before running anything. Each request stops
  // one run.
  void Stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

  // Number of events scheduled and not yet run or cancelled.
  std::size_t pending() const { return live_; }
  bool idle() const { return live_ == 0; }
  // Time of the next pending event; -1 if none. Discards cancelled entries at the top of the queue.
  Micros NextEventTime();

  // A reschedule counts as one cancelled and one scheduled event.
  std::uint64_t events_scheduled() const { return scheduled_; }
  std::uint64_t events_executed() const { return executed_; }
  std::uint64_t events_cancelled() const { return cancelled_; }

 private:
  class SimClock : public kube::Clock {
   public:
    SimClock(const Engine* engine, Micros epoch) : engine_(engine), epoch_(epoch) {}
    Micros Now() const override { return epoch_ + engine_->now_; }
    Micros epoch() const { return epoch_; }

   private:
    const Engine* engine_;
    Micros epoch_;
  };

  // A queue entry. Its slot holds the callback while the event is pending; when the slot's
  // sequence no longer matches, the entry is stale (cancelled) and is skipped.
  struct Entry {
    Micros time;
    std::uint64_t seq;
    std::uint32_t slot;
  };
  static bool Before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.seq < b.seq;
  }
  static constexpr std::size_t kArity = 4;
  struct Slot {
    std::uint64_t seq = 0;  // 0 while free
    Callback cb;
  };

  bool IsLive(const Entry& e) const { return slots_[e.slot].seq == e.seq; }
  void SiftUp(std::size_t i);
  void SiftDown(std::size_t i);
  // Removes heap_.front().
  void PopTop();
  void FreeSlot(std::uint32_t slot);
  // Pops stale entries off the top; returns false if the queue is then empty.
  bool SkipStale();
  // Pops the top (live) entry, advances time and runs its callback.
  void RunTop();
  // Rebuilds the heap without stale entries once they outnumber the live ones.
  void MaybeCompact();

  SimClock clock_;
  Micros now_ = 0;
  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::size_t live_ = 0;
  std::uint64_t next_seq_ = 1;
  std::uint64_t scheduled_ = 0;
  std::uint64_t executed_ = 0;
  std::uint64_t cancelled_ = 0;
  bool stop_requested_ = false;
};

}  // namespace sim
