// Security review #12, items 1-2: the per-thread secure engine and fork safety.
#include <algorithm>
#include <set>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/engine_registry.hpp"

namespace {

using namespace fairdeck;

// Draws 4 words in a child made by a raw fork syscall (no pthread_atfork handlers run) and
// 4 in the parent; returns {parent, child}.
template <class Draw>
std::pair<std::vector<std::uint64_t>, std::vector<std::uint64_t>> raw_fork_draws(Draw draw) {
  int fds[2];
  if (::pipe(fds) != 0) return {};
  const long pid = ::syscall(SYS_fork);
  if (pid == 0) {
    std::uint64_t out[4];
    for (auto& v : out) v = draw();
    (void)!::write(fds[1], out, sizeof out);
    ::_exit(0);
  }
  std::vector<std::uint64_t> parent(4), child(4);
  for (auto& v : parent) v = draw();
  if (pid > 0) {
    if (::read(fds[0], child.data(), 4 * sizeof(std::uint64_t)) != static_cast<ssize_t>(4 * sizeof(std::uint64_t)))
      child.clear();
    ::waitpid(static_cast<pid_t>(pid), nullptr, 0);
  } else {
    child.clear();
  }
  ::close(fds[0]);
  ::close(fds[1]);
  return {parent, child};
}

void expect_all_differ(const std::vector<std::uint64_t>& a, const std::vector<std::uint64_t>& b) {
  ASSERT_EQ(a.size(), 4u);
  ASSERT_EQ(b.size(), 4u);
  for (int i = 0; i < 4; ++i) EXPECT_NE(a[i], b[i]) << "word " << i;
}

TEST(SecureRandom, OneEnginePerThread) {
  secure_engine* mine = &secure_random();
  EXPECT_EQ(mine, &secure_random());
  secure_engine* other = nullptr;
  std::thread([&] { other = &secure_random(); }).join();
  EXPECT_NE(mine, other);
}

// Four threads drawing at once through secure_random(): no zeroed and no repeated word
// (a shared engine hands out both; for 4 x 50,000 independent 64-bit words a repeat has
// probability < 2^-27, a zero word 2^-46).
TEST(SecureRandom, ConcurrentThreadsGetDistinctWords) {
  constexpr int threads = 4, per_thread = 50'000;
  std::vector<std::vector<std::uint64_t>> got(threads);
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      auto& e = secure_random();
      got[t].reserve(per_thread);
      for (int i = 0; i < per_thread; ++i) got[t].push_back(e());
    });
  for (auto& th : pool) th.join();
  std::vector<std::uint64_t> all;
  for (const auto& g : got) all.insert(all.end(), g.begin(), g.end());
  EXPECT_EQ(std::count(all.begin(), all.end(), 0u), 0);
  std::ranges::sort(all);
  EXPECT_EQ(std::adjacent_find(all.begin(), all.end()), all.end());
}

TEST(SecureRandom, VisitEngineUsesTheThreadsEngine) {
  const engine_spec spec;  // secure
  visit_engine(spec, 0, [](auto& e) {
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(e)>, secure_engine>) EXPECT_EQ(&e, &secure_random());
    else ADD_FAILURE() << "secure spec visited another engine type";
  });
}

TEST(SecureEngineFork, KernelWipesThePageOnFork) {
  secure_engine e;
  EXPECT_TRUE(e.wipes_on_fork()) << "MADV_WIPEONFORK refused (Linux < 4.14?)";
}

TEST(SecureEngineFork, RawSyscallForkChildDoesNotRepeatParent) {
  secure_engine e;
  (void)e();  // buffer full and key set before the fork
  const auto [parent, child] = raw_fork_draws([&] { return e(); });
  expect_all_differ(parent, child);
}

TEST(SecureEngineFork, RawSyscallForkThreadEngineDoesNotRepeatParent) {
  (void)secure_random()();
  const auto [parent, child] = raw_fork_draws([] { return secure_random()(); });
  expect_all_differ(parent, child);
}

// Where the kernel refuses MADV_WIPEONFORK, a raw fork skips the atfork handler too: the
// pid check must catch it.
TEST(SecureEngineFork, PidCheckCatchesRawForkWithoutWipeOnFork) {
  detail::force_fork_fallback_for_testing(true);
  secure_engine e;
  detail::force_fork_fallback_for_testing(false);
  EXPECT_FALSE(e.wipes_on_fork());
  (void)e();
  const auto [parent, child] = raw_fork_draws([&] { return e(); });
  expect_all_differ(parent, child);
}

TEST(SecureEngineFork, MovedEngineStillForkSafe) {
  secure_engine a;
  (void)a();
  secure_engine b(std::move(a));
  const auto [parent, child] = raw_fork_draws([&] { return b(); });
  expect_all_differ(parent, child);
  (void)a();  // moved-from: re-keys, never crashes
}

}  // namespace
