// util/parallel.hpp: the one parallel runner. Every item runs once; the first exception
// reaches the caller after every worker has joined; a stop request hands out no further
// item; results built from per-item parts do not depend on the thread count; the one
// thread rule (0 = all cores, at most max_threads). Also the callers: an audit and a seed
// search give the same answer on 1, 2 and 5 threads.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/security/attack.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/util/parallel.hpp"

namespace {

using fairdeck::parallel_for;
using fairdeck::run_control;

TEST(ParallelFor, EveryItemRunsOnceOnEveryThreadCount) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 8u}) {
    std::vector<std::atomic<int>> seen(1000);
    std::atomic<unsigned> max_worker{0};
    EXPECT_TRUE(parallel_for(seen.size(), threads, run_control{}, [&](std::uint64_t i, unsigned w) {
      seen[i].fetch_add(1);
      unsigned m = max_worker.load();
      while (w > m && !max_worker.compare_exchange_weak(m, w)) {
      }
    }));
    for (const auto& s : seen) EXPECT_EQ(s.load(), 1);
    EXPECT_LT(max_worker.load(), fairdeck::parallel_workers(seen.size(), threads));
  }
}

TEST(ParallelFor, NoItemsNoCalls) {
  int calls = 0;
  EXPECT_TRUE(parallel_for(0, 4, run_control{}, [&](std::uint64_t, unsigned) { ++calls; }));
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, FirstExceptionReachesTheCallerAfterEveryWorkerJoined) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::atomic<int> running{0}, after_throw{0};
    std::atomic<bool> thrown{false};
    try {
      parallel_for(10000, threads, run_control{}, [&](std::uint64_t i, unsigned) {
        running.fetch_add(1);
        if (thrown.load()) after_throw.fetch_add(1);
        if (i == 17) {
          thrown = true;
          running.fetch_sub(1);
          throw std::runtime_error("item 17");
        }
        std::this_thread::yield();
        running.fetch_sub(1);
      });
      ADD_FAILURE() << "no exception with " << threads << " threads";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "item 17");
    }
    EXPECT_EQ(running.load(), 0) << "a worker was still running when the exception arrived";
    // After the throw the pool hands out no further item. Other workers may start a few items
    // between the throw and the moment the pool sees it (a scheduling window, not a bound to
    // test), but never the rest of the 10,000.
    EXPECT_LT(after_throw.load(), 5000);
  }
}

TEST(ParallelFor, StopHandsOutNoFurtherItem) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::atomic<bool> stop{false};
    run_control rc;
    rc.stop = &stop;
    std::atomic<std::uint64_t> ran{0};
    const bool all = parallel_for(1000000, threads, rc, [&](std::uint64_t i, unsigned) {
      ran.fetch_add(1);
      if (i == 100) stop = true;
      // Items are handed out in order, so item 100 is already out when a later one starts:
      // holding later items until the stop is visible makes the count exact whatever the
      // scheduler does (a worker preempted before `stop = true` cannot let others run on).
      while (i > 100 && !stop.load()) std::this_thread::yield();
    });
    EXPECT_FALSE(all);
    EXPECT_LE(ran.load(), 101u + threads);  // items 0..100, plus at most one in flight per other worker
  }
  std::atomic<bool> stopped{true};
  run_control rc;
  rc.stop = &stopped;
  int calls = 0;
  EXPECT_FALSE(parallel_for(10, 2, rc, [&](std::uint64_t, unsigned) { ++calls; }));
  EXPECT_EQ(calls, 0);
}

TEST(ParallelFor, SumsDoNotDependOnTheThreadCount) {
  auto sum = [](unsigned threads) {
    std::vector<std::uint64_t> per_item(5000);
    parallel_for(per_item.size(), threads, run_control{},
                 [&](std::uint64_t i, unsigned) { per_item[i] = i * i * 2654435761u; });
    return std::accumulate(per_item.begin(), per_item.end(), std::uint64_t{0});
  };
  const auto one = sum(1);
  EXPECT_EQ(sum(2), one);
  EXPECT_EQ(sum(7), one);
}

TEST(ParallelFor, OneThreadRule) {
  EXPECT_GE(fairdeck::resolve_threads(0), 1u);
  EXPECT_LE(fairdeck::resolve_threads(0), fairdeck::max_threads);
  EXPECT_EQ(fairdeck::resolve_threads(3), 3u);
  EXPECT_EQ(fairdeck::resolve_threads(fairdeck::max_threads), fairdeck::max_threads);
  EXPECT_THROW((void)fairdeck::resolve_threads(fairdeck::max_threads + 1), std::invalid_argument);
  EXPECT_EQ(fairdeck::parallel_workers(2, 8), 2u);  // never more workers than items
  EXPECT_EQ(fairdeck::parallel_workers(0, 8), 1u);
  EXPECT_EQ(fairdeck::parallel_workers(100, 3), 3u);
}

TEST(ParallelFor, ProgressNeverGoesBackwardsAndReachesTheTotal) {
  std::mutex mu;
  std::vector<std::uint64_t> reports;
  run_control rc;
  rc.on_progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, 3000u);
    const std::unique_lock lock(mu, std::try_to_lock);
    EXPECT_TRUE(lock.owns_lock()) << "two reports overlapped";
    reports.push_back(done);
  };
  fairdeck::progress_meter meter(rc, 3000);
  parallel_for(1000, 4, rc, [&](std::uint64_t, unsigned) { meter.add(3); });
  ASSERT_EQ(reports.size(), 1000u);
  for (std::size_t i = 1; i < reports.size(); ++i) EXPECT_LT(reports[i - 1], reports[i]);
  EXPECT_EQ(reports.back(), 3000u);
  EXPECT_EQ(meter.done(), 3000u);
}

// The library's pools now all run on parallel_for: their results stay independent of --threads.
TEST(ParallelFor, AuditCountsDoNotDependOnTheThreadCount) {
  fairdeck::stats::audit_subject subject;
  subject.engine.id = fairdeck::engine_id::xoshiro256pp;
  subject.engine.seed = 5;
  subject.algorithm = fairdeck::parse_shuffle_spec("naive");
  const std::uint64_t trials = 3 * fairdeck::stats::audit_chunk_deals + 123;
  const auto one = fairdeck::stats::count_deals(subject, 6, trials, 1);
  for (unsigned threads : {2u, 5u}) {
    const auto many = fairdeck::stats::count_deals(subject, 6, trials, threads);
    EXPECT_EQ(many.trials, trials);
    EXPECT_TRUE(many.position_card == one.position_card && many.orders == one.orders && many.serial == one.serial &&
                many.rising == one.rising && many.successions == one.successions)
        << threads << " threads";
  }
}

TEST(ParallelFor, SeedSearchDoesNotDependOnTheThreadCount) {
  fairdeck::attack_spec spec;
  spec.engine = fairdeck::engine_id::glibc_rand;
  spec.algorithm = fairdeck::shuffle_kind::fisher_yates;
  spec.first_seed = 0;
  spec.last_seed = 600000;
  const auto deck = fairdeck::deck_for_seed(spec.engine, spec.algorithm, 424242, 52);
  spec.known = {{0, deck[0]}, {1, deck[1]}, {2, deck[2]}};
  spec.threads = 1;
  const auto one = fairdeck::run_attack(spec);
  EXPECT_TRUE(one.complete);
  EXPECT_EQ(one.seeds_searched, 600001u);
  ASSERT_FALSE(one.seeds.empty());
  EXPECT_NE(std::find(one.seeds.begin(), one.seeds.end(), 424242u), one.seeds.end());
  spec.threads = 3;
  const auto three = fairdeck::run_attack(spec);
  EXPECT_EQ(three.seeds, one.seeds);
  EXPECT_EQ(three.matches, one.matches);
  EXPECT_EQ(three.threads, 3u);
}

}  // namespace

namespace {

// parallel_for_ordered: results of items produced in parallel are consumed strictly in
// order, one at a time, on every thread count; at most one result per worker exists.
TEST(ParallelForOrdered, ConsumesEveryItemInOrder) {
  for (unsigned threads : {1u, 2u, 3u, 8u}) {
    std::vector<std::uint64_t> order;
    std::atomic<int> live{0}, most{0}, consuming{0};
    EXPECT_TRUE(fairdeck::parallel_for_ordered(
        500, threads, run_control{},
        [&](std::uint64_t i, unsigned) {
          const int now = live.fetch_add(1) + 1;
          int m = most.load();
          while (now > m && !most.compare_exchange_weak(m, now)) {
          }
          if (i % 7 == 0) std::this_thread::yield();  // out-of-order finishes
          return i * i;
        },
        [&](std::uint64_t i, std::uint64_t square) {
          EXPECT_EQ(consuming.fetch_add(1), 0) << "two consumers at once";
          EXPECT_EQ(square, i * i);
          order.push_back(i);
          consuming.fetch_sub(1);
          live.fetch_sub(1);
        }));
    ASSERT_EQ(order.size(), 500u) << threads;
    for (std::uint64_t i = 0; i < order.size(); ++i) ASSERT_EQ(order[i], i);
    EXPECT_LE(most.load(), static_cast<int>(threads)) << "more results alive than workers";
  }
}

TEST(ParallelForOrdered, AnExceptionEndsTheRunWithoutDeadlockAndNothingAfterItIsConsumed) {
  for (unsigned threads : {1u, 2u, 4u}) {
    std::vector<std::uint64_t> consumed;
    EXPECT_THROW(fairdeck::parallel_for_ordered(
                     1000, threads, run_control{},
                     [&](std::uint64_t i, unsigned) {
                       if (i == 37) throw std::runtime_error("item 37");
                       return i;
                     },
                     [&](std::uint64_t i, std::uint64_t) { consumed.push_back(i); }),
                 std::runtime_error);
    ASSERT_LE(consumed.size(), 37u);
    for (std::uint64_t i = 0; i < consumed.size(); ++i) EXPECT_EQ(consumed[i], i);
  }
}

TEST(ParallelForOrdered, AConsumerExceptionReachesTheCaller) {
  std::atomic<std::uint64_t> consumed{0};
  EXPECT_THROW(fairdeck::parallel_for_ordered(
                   100, 2, run_control{}, [](std::uint64_t i, unsigned) { return i; },
                   [&](std::uint64_t i, std::uint64_t) {
                     if (i == 5) throw std::runtime_error("disk full");
                     ++consumed;
                   }),
               std::runtime_error);
  EXPECT_EQ(consumed.load(), 5u);
}

TEST(ParallelForOrdered, AStopConsumesAPrefix) {
  std::atomic<bool> stop{false};
  run_control control;
  control.stop = &stop;
  std::vector<std::uint64_t> consumed;
  EXPECT_FALSE(fairdeck::parallel_for_ordered(
      1000, 2, control, [](std::uint64_t i, unsigned) { return i; },
      [&](std::uint64_t i, std::uint64_t) {
        consumed.push_back(i);
        if (i == 10) stop = true;
      }));
  ASSERT_GE(consumed.size(), 11u);
  ASSERT_LT(consumed.size(), 1000u);
  for (std::uint64_t i = 0; i < consumed.size(); ++i) EXPECT_EQ(consumed[i], i);
}

}  // namespace
