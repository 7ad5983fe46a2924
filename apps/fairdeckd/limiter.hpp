// Failed authentications per client, in fixed windows (one minute by default), for fairdeckd's
// 429. Only failures are counted and only failures are refused: the API checks the token
// first, so a valid token is never limited, whoever else guessed from the same address.
//
// Guarantee: memory is bounded. At most `capacity` clients are tracked; a client beyond that
// takes the place of the one whose window started first (an expired one if there is any), so
// a flood from many addresses costs the others at most their oldest counts and never resets
// everyone's at once. Thread-safe.
#pragma once

#include <chrono>
#include <cstddef>
#include <list>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace fairdeck::service {

class failure_limiter {
 public:
  using clock = std::chrono::steady_clock;
  failure_limiter(unsigned failures_per_window, std::size_t capacity,
                  clock::duration window = std::chrono::minutes(1));
  // Has `client` used up its failures in the current window?
  [[nodiscard]] bool limited(std::string_view client, clock::time_point now = clock::now());
  // Counts one failure of `client` (starting a new window when the last one is over).
  void note_failure(std::string_view client, clock::time_point now = clock::now());
  [[nodiscard]] std::size_t tracked() const;

 private:
  struct entry {
    clock::time_point start;
    unsigned failures = 0;
    std::list<std::string>::iterator pos;  // in order_
  };
  const unsigned per_window_;
  const std::size_t capacity_;
  const clock::duration window_;
  mutable std::mutex mutex_;
  std::list<std::string> order_;  // tracked clients, the oldest window first
  std::unordered_map<std::string, entry> entries_;
};

}  // namespace fairdeck::service
