#include "sim/kernel/owned_events.h"

#include <algorithm>
#include <utility>

namespace sim {

EventId OwnedEvents::After(Micros delay, Engine::Callback cb) { return Keep(engine_->Schedule(delay, std::move(cb))); }

EventId OwnedEvents::At(Micros time, Engine::Callback cb) { return Keep(engine_->ScheduleAt(time, std::move(cb))); }

EventId OwnedEvents::Keep(EventId id) {
  if (ids_.size() >= sweep_at_) {
    std::erase_if(ids_, [this](EventId e) { return !engine_->IsPending(e); });
    sweep_at_ = std::max<std::size_t>(16, 2 * ids_.size());
  }
  ids_.push_back(id);
  return id;
}

void OwnedEvents::CancelAll() {
  // Callbacks never run inside Cancel, so the list cannot change under this loop.
  for (EventId id : ids_) engine_->Cancel(id);
  ids_.clear();
  sweep_at_ = 16;
}

std::size_t OwnedEvents::pending() const {
  return static_cast<std::size_t>(
      std::count_if(ids_.begin(), ids_.end(), [this](EventId e) { return engine_->IsPending(e); }));
}

}  // namespace sim
