// The parallel runner: see include/fairdeck/util/parallel.hpp for the rules.
#include "fairdeck/util/parallel.hpp"

#include <algorithm>
#include <exception>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#endif

namespace fairdeck {

void name_this_thread(const char* name) noexcept {
#if defined(__linux__)
  char n[16] = {};
  for (std::size_t i = 0; i < sizeof n - 1 && name[i]; ++i) n[i] = name[i];
  (void)pthread_setname_np(pthread_self(), n);
#else
  (void)name;
#endif
}

unsigned resolve_threads(unsigned requested) {
  if (requested > max_threads)
    throw std::invalid_argument("a thread count must be 0..256 (0: one per hardware thread), not " +
                                std::to_string(requested));
  if (requested) return requested;
  return std::clamp(std::thread::hardware_concurrency(), 1u, max_threads);
}

unsigned parallel_workers(std::uint64_t count, unsigned requested) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>(count, 1, resolve_threads(requested)));
}

std::uint64_t progress_meter::add(std::uint64_t units) {
  if (!control_.on_progress) return done_.fetch_add(units, std::memory_order_relaxed) + units;
  const std::lock_guard lock(mu_);  // under the lock, so reports never go backwards
  const std::uint64_t d = done_.fetch_add(units, std::memory_order_relaxed) + units;
  control_.progress(d, total_);
  return d;
}

namespace detail {

bool run_parallel(std::uint64_t count, unsigned threads, const run_control& control, parallel_body body) {
  const unsigned workers = parallel_workers(count, threads);
  std::atomic<std::uint64_t> next{0}, finished{0};
  std::exception_ptr error;
  std::mutex error_mu;
  auto work = [&](unsigned worker) noexcept {
    try {
      for (;;) {
        if (control.stopped()) return;
        const std::uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
        if (i >= count) return;
        body.call(body.object, i, worker);
        finished.fetch_add(1, std::memory_order_relaxed);
      }
    } catch (...) {
      const std::lock_guard lock(error_mu);
      if (!error) error = std::current_exception();
      next.store(count);  // no worker takes another item
    }
  };
  {
    std::vector<std::jthread> pool;
    pool.reserve(workers - 1);
    try {
      for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
    } catch (...) {  // no thread to be had: stop the started ones, then report
      next.store(count);
      throw;  // ~jthread joins them
    }
    work(0);
  }  // joins every worker
  if (error) std::rethrow_exception(error);
  return finished.load() == count;
}

}  // namespace detail
}  // namespace fairdeck
