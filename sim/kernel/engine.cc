#include "sim/kernel/engine.h"

#include <algorithm>
#include <cassert>
#include <utility>

namespace sim {

namespace {

// Below this many stale entries the heap is never rebuilt: the rebuild would cost more than it saves.
constexpr std::size_t kMinStaleForCompaction = 1024;

}  // namespace

Engine::Engine(Micros epoch) : clock_(this, epoch) {}

Engine::~Engine() = default;

EventId Engine::Schedule(Micros delay, Callback cb) {
  return ScheduleAt(now_ + std::max<Micros>(delay, 0), std::move(cb));
}

EventId Engine::ScheduleAt(Micros time, Callback cb) {
  if (time < now_) time = now_;
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  const std::uint64_t seq = next_seq_++;
  slots_[slot].seq = seq;
  slots_[slot].cb = std::move(cb);
  heap_.push_back(Entry{time, seq, slot});
  SiftUp(heap_.size() - 1);
  ++live_;
  ++scheduled_;
  return EventId(seq, slot);
}

EventId Engine::Reschedule(EventId id, Micros time) {
  if (!IsPending(id)) return {};
  if (time < now_) time = now_;
  const std::uint64_t seq = next_seq_++;
  slots_[id.slot_].seq = seq;  // the old entry is stale from now on
  heap_.push_back(Entry{time, seq, id.slot_});
  SiftUp(heap_.size() - 1);
  ++scheduled_;
  ++cancelled_;
  MaybeCompact();
  return EventId(seq, id.slot_);
}

bool Engine::IsPending(EventId id) const {
  return id.valid() && id.slot_ < slots_.size() && slots_[id.slot_].seq == id.seq_;
}

bool Engine::Cancel(EventId id) {
  if (!IsPending(id)) return false;
  FreeSlot(id.slot_);
  ++cancelled_;
  MaybeCompact();
  return true;
}

void Engine::FreeSlot(std::uint32_t slot) {
  Slot& s = slots_[slot];
  s.seq = 0;
  s.cb = nullptr;  // release captured state now, not when the stale entry surfaces
  free_slots_.push_back(slot);
  --live_;
}

void Engine::MaybeCompact() {
  const std::size_t stale = heap_.size() - live_;
  if (stale < kMinStaleForCompaction || stale <= live_) return;
  std::erase_if(heap_, [this](const Entry& e) { return !IsLive(e); });
  for (std::size_t i = heap_.size(); i-- > 0;) SiftDown(i);
}

// The queue is a 4-ary min-heap: half the depth of a binary heap, and the four children of a node
// sit side by side in memory, which matters once the queue outgrows the cache.
void Engine::SiftUp(std::size_t i) {
  const Entry e = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!Before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void Engine::SiftDown(std::size_t i) {
  const std::size_t n = heap_.size();
  const Entry e = heap_[i];
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    const std::size_t last = std::min(first + kArity, n);
    std::size_t best = first;
    for (std::size_t c = first + 1; c < last; ++c) {
      if (Before(heap_[c], heap_[best])) best = c;
    }
    if (!Before(heap_[best], e)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = e;
}

void Engine::PopTop() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) SiftDown(0);
}

bool Engine::SkipStale() {
  while (!heap_.empty() && !IsLive(heap_.front())) PopTop();
  return !heap_.empty();
}

void Engine::RunTop() {
  const Entry e = heap_.front();
  PopTop();
  assert(e.time >= now_);
  // Move the callback out and free the slot first: the callback may schedule (growing slots_) or
  // try to cancel itself, which must then report "not pending".
  Callback cb = std::move(slots_[e.slot].cb);
  FreeSlot(e.slot);
  now_ = e.time;
  ++executed_;
  cb();
}

Micros Engine::NextEventTime() {
  return SkipStale() ? heap_.front().time : -1;
}

bool Engine::Step() {
  if (!SkipStale()) return false;
  RunTop();
  return true;
}

std::uint64_t Engine::RunUntil(Micros time) {
  const std::uint64_t before = executed_;
  while (!stop_requested_ && SkipStale() && heap_.front().time <= time) RunTop();
  if (stop_requested_) {
    stop_requested_ = false;
  } else if (time > now_) {
    now_ = time;
  }
  return executed_ - before;
}

std::uint64_t Engine::RunUntilIdle() {
  const std::uint64_t before = executed_;
  while (!stop_requested_ && SkipStale()) RunTop();
  stop_requested_ = false;
  return executed_ - before;
}

}  // namespace sim
