// A small, bounded pool of worker threads for costly public reads (the table audit), so they
// never run on the HTTP I/O threads (issue #27 item 4).
//
// Guarantee: at most `threads` jobs run at once and at most `max_queued` wait; try_post
// refuses (returns false, leaving the job with the caller) instead of queueing more, so a
// flood of requests costs the caller a refusal, not memory or I/O-thread time. The destructor
// runs every job already accepted, then joins the threads.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fairdeck::service {

class work_pool {
 public:
  // threads >= 1 (0 is taken as 1).
  work_pool(unsigned threads, std::size_t max_queued);
  work_pool(const work_pool&) = delete;
  work_pool& operator=(const work_pool&) = delete;
  ~work_pool();

  // Queues `job` unless max_queued jobs already wait; on refusal `job` is left untouched.
  [[nodiscard]] bool try_post(std::function<void()>& job);
  [[nodiscard]] std::size_t queued() const;
  // Waits until no job waits or runs: every accepted job has returned and been destroyed (with
  // whatever it captured). A server calls it before destroying what the jobs answer through.
  void drain();

 private:
  void run();

  std::size_t max_queued_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::condition_variable idle_;
  std::size_t running_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace fairdeck::service
