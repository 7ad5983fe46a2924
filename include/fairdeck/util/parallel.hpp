// The one parallel runner of the library: audits, seed searches, huge shuffles and poker
// enumerations hand out items 0..count-1 through one atomic counter, so which thread runs
// which item never shows in a result built from per-item (or per-worker, order-free) parts.
//
// Rules, the same for every caller and every CLI flag:
//   - threads: 0 means one worker per hardware thread; 1..max_threads is taken as given;
//     more is std::invalid_argument (never a silent cap). Never more workers than items.
//   - stop: run_control::stopped() is checked before every item; a stopped run hands out no
//     further item, finishes the items already running, and parallel_for returns false.
//   - exceptions: the first exception an item throws is rethrown on the calling thread after
//     every worker has been joined; after it, no worker takes a new item.
//   - the calling thread is worker 0, so threads = 1 starts no thread at all.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>

#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

// Largest worker count a caller may ask for (the CLI's --threads accepts 0..max_threads).
inline constexpr unsigned max_threads = 256;

// 0 -> one per hardware thread (at least 1, at most max_threads); 1..max_threads unchanged.
// Throws std::invalid_argument above max_threads.
[[nodiscard]] unsigned resolve_threads(unsigned requested);

// Names the calling thread (Linux: the first 15 bytes, as `top -H`, `ps -L` and perf show
// it; elsewhere nothing). The service's long-lived threads call it: "fd-io", "fd-writer", ...
void name_this_thread(const char* name) noexcept;

// Workers parallel_for uses for `count` items: resolve_threads(requested), at most count, at least 1.
[[nodiscard]] unsigned parallel_workers(std::uint64_t count, unsigned requested);

// Work units done by many workers, reported through run_control::progress(done, total) one
// call at a time (reports never overlap, so the hook needs no lock of its own).
class progress_meter {
 public:
  progress_meter(const run_control& control, std::uint64_t total) noexcept : control_(control), total_(total) {}
  // Adds `units` and reports the new total; returns it.
  std::uint64_t add(std::uint64_t units);
  [[nodiscard]] std::uint64_t done() const noexcept { return done_.load(std::memory_order_relaxed); }
  [[nodiscard]] const run_control& control() const noexcept { return control_; }

 private:
  const run_control& control_;
  std::uint64_t total_;
  std::atomic<std::uint64_t> done_{0};
  std::mutex mu_;
};

namespace detail {
// Non-owning reference to body(item, worker); the pool itself is compiled once in src/util/parallel.cpp.
struct parallel_body {
  void* object;
  void (*call)(void* object, std::uint64_t item, unsigned worker);
};
bool run_parallel(std::uint64_t count, unsigned threads, const run_control& control, parallel_body body);
}  // namespace detail

// Runs body(item, worker) for every item in [0, count) on parallel_workers(count, threads)
// workers, worker in [0, workers). Returns true when every item ran, false when a stop
// request left some out. See the rules at the top of this file.
template <class Body>
  requires std::is_invocable_v<Body&, std::uint64_t, unsigned>
bool parallel_for(std::uint64_t count, unsigned threads, const run_control& control, Body&& body) {
  using B = std::remove_reference_t<Body>;
  return detail::run_parallel(count, threads, control,
                              {const_cast<void*>(static_cast<const void*>(&body)), [](void* o, std::uint64_t i, unsigned w) {
                                 (*static_cast<B*>(o))(i, w);
                               }});
}

// Parallel work with an in-order step (a pipeline): produce(item, worker) runs on the
// workers as in parallel_for and returns a result; in_order(item, result) then runs for
// item 0, 1, 2, ... strictly in order, one at a time (on whichever worker produced the item,
// after the previous item's in_order returned: it needs no lock); then after(item, result)
// runs on that worker, outside the order, concurrently with other items. So items can be
// computed in parallel, placed in order (e.g. reserve their output range) and finished in
// parallel (written there). Each worker holds at most one result, so at most `workers`
// results exist at once. Stop and exception rules are parallel_for's; after an exception no
// further item enters in_order (workers waiting for their turn give up), and the first
// exception is rethrown.
template <class Produce, class InOrder, class After>
bool parallel_for_ordered(std::uint64_t count, unsigned threads, const run_control& control, Produce&& produce,
                          InOrder&& in_order, After&& after) {
  std::mutex mu;
  std::condition_variable turn_changed;
  std::uint64_t turn = 0;  // the next item for in_order
  bool broken = false;
  return parallel_for(count, threads, control, [&](std::uint64_t i, unsigned worker) {
    try {
      auto result = produce(i, worker);
      {
        std::unique_lock lock(mu);
        turn_changed.wait(lock, [&] { return turn == i || broken; });
        if (broken) return;
      }
      in_order(i, result);
      {
        const std::lock_guard lock(mu);
        ++turn;
      }
      turn_changed.notify_all();
      after(i, result);
    } catch (...) {
      {
        const std::lock_guard lock(mu);
        broken = true;
      }
      turn_changed.notify_all();
      throw;
    }
  });
}

// The same without the parallel step after: consume(item, result) in order.
template <class Produce, class Consume>
bool parallel_for_ordered(std::uint64_t count, unsigned threads, const run_control& control, Produce&& produce,
                          Consume&& consume) {
  return parallel_for_ordered(count, threads, control, std::forward<Produce>(produce), std::forward<Consume>(consume),
                              [](std::uint64_t, auto&) {});
}

}  // namespace fairdeck
