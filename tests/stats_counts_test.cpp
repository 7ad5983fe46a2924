// Counting engine: exact tallies on known decks, order ranks, chunking/thread independence,
// clean stops.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <numeric>

#include "fairdeck/shuffle/physical.hpp"
#include "fairdeck/stats/audit.hpp"

namespace fairdeck::stats {
namespace {

TEST(StatsCounts, OrderRankIsLexicographicAndInvertible) {
  for (std::size_t n = 1; n <= 6; ++n) {
    std::vector<card_t> p(n);
    std::iota(p.begin(), p.end(), card_t{0});
    std::uint32_t expected = 0;
    do {
      EXPECT_EQ(order_rank(p), expected);
      EXPECT_EQ(order_unrank(expected, n), p);
      ++expected;
    } while (std::next_permutation(p.begin(), p.end()));
    EXPECT_EQ(expected, factorial(n));
  }
}

TEST(StatsCounts, ChunkCounterTalliesKnownDecks) {
  chunk_counter counter(4);
  const std::vector<std::vector<card_t>> decks = {{0, 1, 2, 3}, {3, 2, 1, 0}, {1, 2, 3, 0}};
  for (const auto& d : decks) counter.add(d);
  audit_counts total(4);
  counter.flush_into(total);
  EXPECT_EQ(total.trials, 3u);
  EXPECT_EQ(total.at(0, 0), 1u);
  EXPECT_EQ(total.at(0, 3), 1u);
  EXPECT_EQ(total.at(0, 1), 1u);
  EXPECT_EQ(total.at(3, 0), 2u);
  EXPECT_EQ(total.successions, 3u + 0u + 2u);
  EXPECT_EQ(total.orders[order_rank(decks[1])], 1u);
  EXPECT_EQ(std::accumulate(total.orders.begin(), total.orders.end(), std::uint64_t{0}), 3u);
  // Serial chain of top cards 0 -> 3 -> 1 (4 cards: one group per card).
  EXPECT_EQ(total.serial_pairs(), 2u);
  EXPECT_EQ(total.serial[0 * 4 + 3], 1u);
  EXPECT_EQ(total.serial[3 * 4 + 1], 1u);
  // Flushing cleared the chunk; the chain goes on until start_chain().
  counter.add(decks[0]);
  counter.start_chain();
  counter.add(decks[1]);
  counter.flush_into(total);
  EXPECT_EQ(total.trials, 5u);
  EXPECT_EQ(total.serial_pairs(), 3u);
  EXPECT_EQ(total.serial[1 * 4 + 0], 1u);
}

TEST(StatsCounts, RisingSequencesMatchThePhysicalShuffleDefinition) {
  // Every order of 6 cards: the counter's one-pass tally equals fairdeck::rising_sequences and,
  // summed, the Eulerian numbers A(6, r-1) = 1, 57, 302, 302, 57, 1.
  std::vector<card_t> p(6);
  std::iota(p.begin(), p.end(), card_t{0});
  chunk_counter all(6);
  do {
    chunk_counter one(6);
    one.add(p);
    audit_counts c(6);
    one.flush_into(c);
    EXPECT_EQ(c.rising.at(rising_sequences(p) - 1), 1u);
    all.add(p);
  } while (std::next_permutation(p.begin(), p.end()));
  audit_counts total(6);
  all.flush_into(total);
  EXPECT_EQ(total.rising, (std::vector<std::uint64_t>{1, 57, 302, 302, 57, 1}));
  // Shuffled 52-card decks, one counter reused (stamps must not leak between deals).
  xoshiro256pp e(11);
  std::vector<card_t> deck(52);
  chunk_counter reused(52);
  std::vector<std::uint64_t> expected(52, 0);
  for (int t = 0; t < 2000; ++t) {
    std::iota(deck.begin(), deck.end(), card_t{0});
    apply_shuffle(parse_shuffle_spec(t % 2 ? "riffle:4" : "fisher-yates"), deck, e);
    ++expected[rising_sequences(deck) - 1];
    reused.add(deck);
  }
  audit_counts c52(52);
  reused.flush_into(c52);
  EXPECT_EQ(c52.rising, expected);
}

TEST(StatsCounts, MergeAddsAndRejectsOtherSizes) {
  audit_counts a(5), b(5), c(6);
  a.trials = 2;
  a.position_card[7] = 2;
  b.trials = 3;
  b.position_card[7] = 1;
  b.successions = 4;
  b.rising[2] = 3;
  a.merge(b);
  EXPECT_EQ(a.rising[2], 3u);
  EXPECT_EQ(a.trials, 5u);
  EXPECT_EQ(a.position_card[7], 3u);
  EXPECT_EQ(a.successions, 4u);
  EXPECT_THROW(a.merge(c), std::invalid_argument);
  EXPECT_THROW(audit_counts(1), std::invalid_argument);
  EXPECT_THROW(audit_counts(max_audit_cards + 1), std::invalid_argument);
  EXPECT_TRUE(audit_counts(9).orders.empty());  // n! only up to 8 cards
}

TEST(StatsCounts, SameCountsForAnyThreadCount) {
  // Several chunks and a ragged last one: the counts are a function of (seed, trials) only.
  const std::uint64_t trials = 3 * audit_chunk_deals + 123;
  for (auto id : {engine_id::xoshiro256pp, engine_id::chacha20}) {
    const audit_subject s{{shuffle_kind::fisher_yates, 0}, engine_spec{id, 9, {}}};
    const auto one = count_deals(s, 10, trials, 1);
    EXPECT_EQ(one.trials, trials);
    EXPECT_EQ(count_deals(s, 10, trials, 2), one);
    EXPECT_EQ(count_deals(s, 10, trials, 3), one);
    const audit_subject other{{shuffle_kind::fisher_yates, 0}, engine_spec{id, 10, {}}};
    EXPECT_NE(count_deals(other, 10, trials, 2), one);
  }
}

TEST(StatsCounts, StopKeepsWholeChunks) {
  const audit_subject s{{shuffle_kind::fisher_yates, 0}, engine_spec{engine_id::xoshiro256pp, 1, {}}};
  std::atomic<bool> stop{false};
  run_control rc;
  rc.stop = &stop;
  rc.on_progress = [&](std::uint64_t, std::uint64_t) { stop = true; };
  const auto c = count_deals(s, 8, 50 * audit_chunk_deals, 2, rc);
  EXPECT_GT(c.trials, 0u);
  EXPECT_LT(c.trials, 50 * audit_chunk_deals);
  EXPECT_EQ(c.trials % audit_chunk_deals, 0u);
  EXPECT_EQ(std::accumulate(c.orders.begin(), c.orders.end(), std::uint64_t{0}), c.trials);
  // Stopped before starting: nothing counted, nothing thrown.
  EXPECT_EQ(count_deals(s, 8, 1000, 1, rc).trials, 0u);
}

TEST(StatsCounts, RunAuditReportsPartialResultWhenStopped) {
  const std::vector<audit_subject> subjects(3, {{shuffle_kind::fisher_yates, 0}, engine_spec{engine_id::pcg64, 2, {}}});
  audit_settings settings;
  settings.trials = 4 * audit_chunk_deals;
  settings.cards = 6;
  settings.threads = 1;
  std::atomic<bool> stop{false};
  run_control rc;
  rc.stop = &stop;
  rc.on_progress = [&](std::uint64_t done, std::uint64_t total) {
    EXPECT_EQ(total, 3 * settings.trials);
    if (done > settings.trials + audit_chunk_deals) stop = true;
  };
  const auto out = run_audit(subjects, settings, rc);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0].complete);
  EXPECT_FALSE(out[1].complete);
  EXPECT_EQ(out[1].counts.trials, 2 * audit_chunk_deals);
  EXPECT_FALSE(out[1].tests.empty());  // partial counts are still tested
}

TEST(StatsCounts, RejectsAlgorithmsThatCannotShuffleTheDeck) {
  const audit_subject s{parse_shuffle_spec("partial:60"), engine_spec{engine_id::xoshiro256pp, 1, {}}};
  EXPECT_THROW((void)count_deals(s, 52, 10, 1), std::invalid_argument);
  audit_settings settings;
  settings.cards = 53;
  EXPECT_THROW((void)audited_cards(settings), std::invalid_argument);
  settings.deck.jokers = 2;
  EXPECT_EQ(audited_cards(settings).size(), 53u);
}

}  // namespace
}  // namespace fairdeck::stats
