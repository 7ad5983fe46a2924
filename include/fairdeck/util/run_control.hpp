// How long-running library work (audits, attacks, enumerations) reports progress and is
// stopped early, without the library printing anything or knowing about signals.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>

namespace fairdeck {

struct run_control {
  // Called now and then (from any worker thread, serialised by the caller of the hook's
  // owner) with units done so far and the total. May be empty.
  std::function<void(std::uint64_t done, std::uint64_t total)> on_progress;
  // When set and true, work stops at the next checkpoint and returns what it has.
  const std::atomic<bool>* stop = nullptr;

  [[nodiscard]] bool stopped() const noexcept { return stop && stop->load(std::memory_order_relaxed); }
  void progress(std::uint64_t done, std::uint64_t total) const {
    if (on_progress) on_progress(done, total);
  }
};

}  // namespace fairdeck
