#include "fakeapi/client/workqueue.h"

#include <algorithm>

namespace kube {

WorkQueue::WorkQueue(const Clock* clock, WorkQueueOptions options) : clock_(clock), options_(options) {}

void WorkQueue::Add(const std::string& key) {
  PromoteDue();
  Enqueue(key);
}

void WorkQueue::Enqueue(const std::string& key) {
  if (shutting_down_) return;
  if (!dirty_.insert(key).second) return;  // already waiting: de-duplicated
  if (observer_ != nullptr) observer_->OnAdd(key);
  if (processing_.contains(key)) return;   // queued again by Done
  ready_.push_back(key);
}

bool WorkQueue::WouldEnqueue(std::string_view key) const {
  return !shutting_down_ && !dirty_.contains(key) && !processing_.contains(key);
}

void WorkQueue::AddAfter(const std::string& key, Micros delay) {
  if (shutting_down_) return;
  if (observer_ != nullptr) observer_->OnRetry();
  if (delay <= 0) {
    Add(key);
    return;
  }
  PromoteDue();
  const Micros ready_at = clock_->Now() + delay;
  auto it = delayed_.find(key);
  if (it != delayed_.end()) {
    if (it->second.ready_at <= ready_at) return;  // the earlier wake-up wins
    delayed_order_.erase({it->second.ready_at, it->second.seq, key});
    it->second = Delayed{ready_at, next_seq_++};
  } else {
    it = delayed_.emplace(key, Delayed{ready_at, next_seq_++}).first;
  }
  delayed_order_.emplace(ready_at, it->second.seq, key);
}

Micros WorkQueue::NextBackoff(std::string_view key) const {
  const int requeues = NumRequeues(key);
  if (options_.base_delay <= 0) return 0;
  Micros delay = std::min(options_.base_delay, options_.max_delay);
  for (int i = 0; i < requeues && delay < options_.max_delay; ++i) {
    // Doubling without overflow: past half the cap the next step is the cap.
    delay = delay > options_.max_delay / 2 ? options_.max_delay : delay * 2;
  }
  return delay;
}

void WorkQueue::AddRateLimited(const std::string& key) {
  if (shutting_down_) return;
  const Micros delay = NextBackoff(key);
  ++requeues_[key];
  AddAfter(key, delay);
}

void WorkQueue::Forget(std::string_view key) {
  auto it = requeues_.find(key);
  if (it != requeues_.end()) requeues_.erase(it);
}

int WorkQueue::NumRequeues(std::string_view key) const {
  auto it = requeues_.find(key);
  return it == requeues_.end() ? 0 : it->second;
}

std::optional<std::string> WorkQueue::Pop() {
  PromoteDue();
  if (ready_.empty()) return std::nullopt;
  std::string key = std::move(ready_.front());
  ready_.pop_front();
  dirty_.erase(key);
  processing_.insert(key);
  if (observer_ != nullptr) observer_->OnGet(key);
  return key;
}

void WorkQueue::Done(const std::string& key) {
  PromoteDue();
  auto it = processing_.find(key);
  if (it == processing_.end()) return;
  processing_.erase(it);
  if (observer_ != nullptr) observer_->OnDone(key);
  if (dirty_.contains(key)) ready_.push_back(key);
}

void WorkQueue::PromoteDue() {
  if (delayed_order_.empty()) return;
  const Micros now = clock_->Now();
  while (!delayed_order_.empty()) {
    auto first = delayed_order_.begin();
    if (std::get<0>(*first) > now) break;
    std::string key = std::get<2>(*first);
    delayed_order_.erase(first);
    delayed_.erase(key);
    Enqueue(key);
  }
}

std::size_t WorkQueue::Len() const {
  std::size_t n = ready_.size();
  if (delayed_order_.empty()) return n;
  const Micros now = clock_->Now();
  for (const auto& [ready_at, seq, key] : delayed_order_) {
    if (ready_at > now) break;
    if (WouldEnqueue(key)) ++n;
  }
  return n;
}

std::optional<Micros> WorkQueue::NextReadyTime() const {
  if (Len() > 0) return clock_->Now();
  // Due keys left now are being processed: they come back with Done, not with time.
  const Micros now = clock_->Now();
  for (const auto& [ready_at, seq, key] : delayed_order_) {
    if (ready_at > now) return ready_at;
  }
  return std::nullopt;
}

void WorkQueue::ShutDown() {
  shutting_down_ = true;
  delayed_.clear();
  delayed_order_.clear();
}

}  // namespace kube
