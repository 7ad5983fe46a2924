// runtimes::audit_runtime: the statistical audit of what one seeded runtime generator deals.
// Fixed seeds, alpha = 1e-6 per runtime (Bonferroni over its tests): a false "biased" comes
// with probability below 1e-6 per run, and a fixed seed makes the run the same every time.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>

#include "fairdeck/runtimes/audit.hpp"

namespace fairdeck::runtimes {
namespace {

constexpr runtime_id exact_idioms[] = {runtime_id::php,    runtime_id::python, runtime_id::libstdcxx,
                                       runtime_id::libstdcxx_default, runtime_id::libcxx, runtime_id::libcxx_default};

TEST(RuntimeAudit, ExactIdiomsPassOnFiveCardsWithEveryOrderCounted) {
  stats::audit_settings s;
  s.cards = 5;  // all 120 orders counted: the order test sees any bias in the shuffle itself
  s.trials = 240'000;
  s.alpha = 1e-6;
  for (runtime_id id : exact_idioms) {
    ASSERT_TRUE(idiom_exact(id));
    const auto r = audit_runtime(id, 20261123, s);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.counts.trials, s.trials);
    EXPECT_EQ(r.counts.orders.size(), 120u);
    EXPECT_GT(r.decision.tests_run, 0u);
    EXPECT_FALSE(r.decision.biased) << info(id).name << ": " << r.decision.worst_test;
    EXPECT_EQ(r.algorithm, info(id).name);
    EXPECT_NE(r.engine.find("not secure"), std::string::npos);
    ASSERT_TRUE(r.algorithm_fair);
    EXPECT_TRUE(*r.algorithm_fair);
  }
  EXPECT_FALSE(idiom_exact(runtime_id::node_sort));
}

TEST(RuntimeAudit, SameSeedSameCountsAndAStopKeepsWholeChunks) {
  stats::audit_settings s;
  s.trials = 3 * stats::audit_chunk_deals + 5;
  const auto a = audit_runtime(runtime_id::php, 5, s), b = audit_runtime(runtime_id::php, 5, s);
  EXPECT_EQ(a.counts, b.counts);
  EXPECT_NE(a.counts, audit_runtime(runtime_id::php, 6, s).counts);

  std::atomic<bool> stop{false};
  run_control rc;
  rc.stop = &stop;
  rc.on_progress = [&](std::uint64_t done, std::uint64_t) {
    if (done >= stats::audit_chunk_deals) stop = true;
  };
  const auto cut = audit_runtime(runtime_id::php, 5, s, rc);
  EXPECT_FALSE(cut.complete);
  EXPECT_EQ(cut.counts.trials, stats::audit_chunk_deals);
}

TEST(RuntimeAudit, RefusesWhatTheRuntimeRefuses) {
  stats::audit_settings s;
  s.trials = 10;
  EXPECT_THROW((void)audit_runtime(runtime_id::php, std::uint64_t{1} << 63, s), std::invalid_argument);
  s.cards = 1;
  EXPECT_THROW((void)audit_runtime(runtime_id::python, 1, s), std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck::runtimes
