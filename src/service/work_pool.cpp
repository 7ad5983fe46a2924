// Bounded worker pool (see work_pool.hpp).
#include "fairdeck/service/work_pool.hpp"

namespace fairdeck::service {

work_pool::work_pool(unsigned threads, std::size_t max_queued) : max_queued_(max_queued) {
  if (threads == 0) threads = 1;
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { run(); });
}

work_pool::~work_pool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_) t.join();
}

bool work_pool::try_post(std::function<void()>& job) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || jobs_.size() >= max_queued_) return false;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

std::size_t work_pool::queued() const {
  std::lock_guard lock(mutex_);
  return jobs_.size();
}

void work_pool::run() {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock lock(mutex_);
      cv_.wait(lock, [&] { return stopping_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stopping, and every accepted job has run
      job = std::move(jobs_.front());
      jobs_.pop_front();
      ++running_;
    }
    job();
    job = nullptr;  // its captures go before drain() can return
    {
      std::lock_guard lock(mutex_);
      --running_;
    }
    idle_.notify_all();
  }
}

void work_pool::drain() {
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [&] { return jobs_.empty() && running_ == 0; });
}

}  // namespace fairdeck::service
