// Bounded per-client failure counts (limiter.hpp).
#include "limiter.hpp"

namespace fairdeck::service {

failure_limiter::failure_limiter(unsigned failures_per_window, std::size_t capacity, clock::duration window)
    : per_window_(failures_per_window), capacity_(capacity == 0 ? 1 : capacity), window_(window) {}

bool failure_limiter::limited(std::string_view client, clock::time_point now) {
  std::lock_guard lock(mutex_);
  const auto it = entries_.find(std::string(client));
  if (it == entries_.end()) return false;
  if (now - it->second.start >= window_) return false;  // over; reset at the next failure
  return it->second.failures >= per_window_;
}

void failure_limiter::note_failure(std::string_view client, clock::time_point now) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(std::string(client));
  if (it != entries_.end()) {
    entry& e = it->second;
    if (now - e.start >= window_) {  // a new window: the newest start, so to the back
      e = {now, 0, e.pos};
      order_.splice(order_.end(), order_, e.pos);
    }
    if (e.failures < per_window_) ++e.failures;
    return;
  }
  if (entries_.size() >= capacity_) {  // the oldest window goes (expired ones are the oldest)
    entries_.erase(order_.front());
    order_.pop_front();
  }
  order_.emplace_back(client);
  entries_.emplace(order_.back(), entry{now, 1, std::prev(order_.end())});
}

std::size_t failure_limiter::tracked() const {
  std::lock_guard lock(mutex_);
  return entries_.size();
}

}  // namespace fairdeck::service
