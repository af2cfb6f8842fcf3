// OwnedEvents is how everything in the simulator that schedules work on the Engine owns that work:
// an object schedules its events through an OwnedEvents member, and when the object dies the
// member cancels every one of them still pending. A callback may therefore capture `this` (or a
// reference to any part of its owner) without asking whether its owner is still alive: if the
// owner is gone, the event is gone. There are no liveness flags, serial numbers or generation
// counters in sim/ for that purpose.
//
// Members die in the reverse order of their declaration, so an OwnedEvents must be declared after
// every member its callbacks use (it then dies first); and its Engine must outlive it.
//
// The Network, which keeps the one completion event of each flow and its re-rate event, follows the
// same rule without this class: it cancels them in its destructor.
//
// Cost: one EventId per scheduled event, kept until the event has run or been cancelled; ids of
// events that already ran are dropped whenever the list has doubled since the last sweep, so the
// list stays within twice the number of pending events (amortised O(1) per event).
//
// REQUIRES: the engine's thread, like the Engine.
#pragma once

#include "sim/kernel/engine.h"

#include <cstddef>
#include <vector>

namespace sim {

class OwnedEvents {
 public:
  explicit OwnedEvents(Engine& engine) : engine_(&engine) {}
  ~OwnedEvents() { CancelAll(); }
  OwnedEvents(const OwnedEvents&) = delete;
  OwnedEvents& operator=(const OwnedEvents&) = delete;

  // Runs `cb` at Now() + delay (a negative delay counts as 0), as Engine::Schedule.
  EventId After(Micros delay, Engine::Callback cb);
  // Runs `cb` at simulated time `time` (a time in the past counts as now), as Engine::ScheduleAt.
  EventId At(Micros time, Engine::Callback cb);
  // Cancels one event; false when it is not pending.
  bool Cancel(EventId id) { return engine_->Cancel(id); }
  bool IsPending(EventId id) const { return engine_->IsPending(id); }
  // Cancels every pending event scheduled through this object.
  void CancelAll();
  // Events scheduled through this object and still pending. O(ids kept).
  std::size_t pending() const;

  Engine& engine() const { return *engine_; }

 private:
  EventId Keep(EventId id);

  Engine* engine_;
  std::vector<EventId> ids_;
  std::size_t sweep_at_ = 16;
};

}  // namespace sim
