// Work sharing for the poker module: items 0..n-1 handed out through an atomic counter so
// results (integer sums) never depend on the number of threads or their timing.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace fairdeck::poker::internal {

[[nodiscard]] inline unsigned resolve_threads(unsigned requested) {
  if (requested) return requested;
  return std::max(1u, std::thread::hardware_concurrency());
}

// Runs work(item, worker) for every item in [0, n) on `threads` workers (worker in
// [0, threads)); the first exception is rethrown after all workers stop.
template <class Work>
void parallel_items(std::uint64_t n, unsigned threads, Work&& work) {
  threads = static_cast<unsigned>(std::min<std::uint64_t>(std::max(1u, threads), std::max<std::uint64_t>(n, 1)));
  std::atomic<std::uint64_t> next{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto run = [&](unsigned worker) {
    try {
      for (std::uint64_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < n;) work(i, worker);
    } catch (...) {
      std::lock_guard lock(error_mu);
      if (!error) error = std::current_exception();
      next.store(n);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(run, t);
  run(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

}  // namespace fairdeck::poker::internal
