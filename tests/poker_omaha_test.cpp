// Omaha: the prepared-board evaluator against a slow brute force over every 2 + 3 choice
// judged by the reference evaluator (high) and by sorting ranks (low), known hands, hi/lo
// pot splitting and quartering, exact equity against a brute force, Monte Carlo agreement.
#include <gtest/gtest.h>

#include <cmath>

#include "fairdeck/poker/internal/omaha_tables.hpp"
#include "fairdeck/poker/omaha.hpp"
#include "fairdeck/poker/range.hpp"
#include "fairdeck/poker/reference_eval.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"
#include "poker_test_config.hpp"

namespace fairdeck::poker {
namespace {

// Every choice of exactly 2 hole and 3 board cards.
template <class F>
void for_each_2_3(std::span<const card_t> hole, std::span<const card_t> board, F&& f) {
  for (std::size_t i = 0; i < hole.size(); ++i)
    for (std::size_t j = i + 1; j < hole.size(); ++j)
      for (std::size_t a = 0; a < 5; ++a)
        for (std::size_t b = a + 1; b < 5; ++b)
          for (std::size_t c = b + 1; c < 5; ++c) f(std::array<card_t, 5>{hole[i], hole[j], board[a], board[b], board[c]});
}

std::uint32_t brute_high(std::span<const card_t> hole, std::span<const card_t> board) {
  std::uint32_t best = 0;
  for_each_2_3(hole, board, [&](const std::array<card_t, 5>& h) { best = std::max(best, reference_value(h)); });
  return best;
}

// Lows as sorted rank lists (ace = 1), highest first; smaller list = better; empty = none.
std::vector<int> brute_low(std::span<const card_t> hole, std::span<const card_t> board) {
  std::vector<int> best;
  for_each_2_3(hole, board, [&](const std::array<card_t, 5>& h) {
    std::vector<int> r;
    for (card_t c : h) r.push_back(static_cast<int>(rank_of(c)) + 1);  // ace 1 .. king 13
    std::sort(r.rbegin(), r.rend());
    if (r[0] > 8 || std::adjacent_find(r.begin(), r.end()) != r.end()) return;
    if (best.empty() || r < best) best = r;
  });
  return best;
}

std::vector<card_t> cards(std::string_view t) { return parse_card_run(t); }

TEST(PokerOmaha, EvaluatorMatchesBruteForceOnRandomHands) {
  xoshiro256pp rng(18);
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (unsigned hole : {4u, 5u}) {
    for (int t = 0; t < (FAIRDECK_POKER_SANITIZED ? 3000 : 20000); ++t) {
      const auto dealt = partial_shuffle(deck, hole + 5, rng);
      const std::vector<card_t> h(dealt.begin(), dealt.begin() + hole), b(dealt.begin() + hole, dealt.end());
      const omaha_board ob(std::span<const card_t, 5>(b.data(), 5));
      // Same order as the reference: strengths compare like reference values.
      const std::uint32_t want = brute_high(h, b);
      const strength_t got = ob.high(h);
      // Compare through a second hand: orders must agree, so check against the 5-card strength
      // of the brute-force winner.
      strength_t best5 = 0;
      for_each_2_3(h, b, [&](const std::array<card_t, 5>& five) {
        if (reference_value(five) == want) best5 = hand_evaluator::instance().eval5(five.data());
      });
      ASSERT_EQ(got, best5);
      const auto lo = brute_low(h, b);
      const low_t gl = ob.low(h);
      ASSERT_EQ(gl == 0, lo.empty());
      if (!lo.empty()) {
        unsigned mask = 0;
        for (int r : lo) mask |= 1u << (r - 1);
        ASSERT_EQ(gl, 256 - mask);
      }
    }
  }
}

// The table-driven evaluator against brute force through hand_evaluator (every 2 + 3 choice
// as a 5-card hand; hand_evaluator itself is checked against the reference on all 5-card
// hands in poker_eval_test), on many more hands than the reference allows: uniform deals and
// flush-heavy deals (boards with 3-5 cards of one suit, hole cards of that suit), so the
// flush path and suited-triple bookkeeping are exercised on every board shape. Fixed seeds.
strength_t fast_brute_high(std::span<const card_t> hole, std::span<const card_t> board) {
  strength_t best = 0;
  for_each_2_3(hole, board, [&](const std::array<card_t, 5>& h) { best = std::max(best, hand_evaluator::instance().eval5(h.data())); });
  return best;
}

low_t fast_brute_low(std::span<const card_t> hole, std::span<const card_t> board) {
  unsigned best = 256;
  for_each_2_3(hole, board, [&](const std::array<card_t, 5>& h) {
    unsigned mask = 0;
    for (card_t c : h) mask |= rank_of(c) <= 7 ? 1u << rank_of(c) : 256u;
    if (mask < 256 && std::popcount(mask) == 5) best = std::min(best, mask);
  });
  return static_cast<low_t>(256 - best);
}

TEST(PokerOmaha, TableEvaluatorMatchesBruteForceOnUniformAndFlushHeavyDeals) {
  xoshiro256pp rng(1818);
  const int per_shape = FAIRDECK_POKER_SANITIZED ? 5000 : 100000;
  for (unsigned hole : {4u, 5u})
    for (unsigned suited = 0; suited <= 5; ++suited) {  // 0: uniform; k: k board cards of one suit
      for (int t = 0; t < per_shape; ++t) {
        std::vector<card_t> deck(52);
        for (card_t c = 0; c < 52; ++c) deck[c] = c;
        std::vector<card_t> h, b;
        if (suited >= 3) {
          // Board: `suited` cards of suit s, the rest from anywhere; hole: 2..hole cards of s.
          const auto s = static_cast<card_t>(rng() % 4);
          std::vector<card_t> suit_cards, others;
          for (card_t c = 0; c < 52; ++c) (suit_of(c) == s ? suit_cards : others).push_back(c);
          const auto sc = partial_shuffle(suit_cards, suited + hole, rng);
          const unsigned in_hole = 2 + static_cast<unsigned>(rng() % (hole - 1));
          b.assign(sc.begin(), sc.begin() + suited);
          h.assign(sc.begin() + suited, sc.begin() + suited + in_hole);
          const auto oc = partial_shuffle(others, (5 - suited) + (hole - in_hole), rng);
          b.insert(b.end(), oc.begin(), oc.begin() + (5 - suited));
          h.insert(h.end(), oc.begin() + (5 - suited), oc.end());
          std::swap(b[0], b[rng() % 5]);  // suited cards anywhere on the board
          std::swap(h[0], h[rng() % hole]);
        } else if (suited == 0) {
          const auto dealt = partial_shuffle(deck, hole + 5, rng);
          h.assign(dealt.begin(), dealt.begin() + hole);
          b.assign(dealt.begin() + hole, dealt.end());
        } else {
          continue;  // 1 or 2 suited board cards: covered by the uniform deals
        }
        const omaha_board ob(std::span<const card_t, 5>(b.data(), 5));
        ASSERT_EQ(ob.high(h), fast_brute_high(h, b)) << format_cards(h, {}) << " | " << format_cards(b, {});
        ASSERT_EQ(ob.low(h), fast_brute_low(h, b)) << format_cards(h, {}) << " | " << format_cards(b, {});
      }
    }
}

// The board's rank id (sorting network + colex rank): every multiset of five ranks, in all
// 120 orders, gets one id, and different multisets get different ids in [0, 6188).
TEST(PokerOmaha, BoardRankIdIsOrderFreeAndInjective) {
  std::vector<int> owner(internal::omaha_tables::board_multisets, -1);
  int multisets = 0;
  std::array<unsigned, 5> r{};
  for (r[0] = 0; r[0] < 13; ++r[0])
    for (r[1] = r[0]; r[1] < 13; ++r[1])
      for (r[2] = r[1]; r[2] < 13; ++r[2])
        for (r[3] = r[2]; r[3] < 13; ++r[3])
          for (r[4] = r[3]; r[4] < 13; ++r[4]) {
            if (r[0] == r[4]) continue;
            std::array<card_t, 5> b{};
            for (unsigned i = 0; i < 5; ++i) {
              unsigned copy = 0;
              for (unsigned j = 0; j < i; ++j) copy += r[j] == r[i];
              b[i] = static_cast<card_t>(copy * 13 + r[i]);  // same rank: next suit
            }
            std::sort(b.begin(), b.end());
            const unsigned id = internal::omaha_tables::board_id(b.data());
            ASSERT_LT(id, internal::omaha_tables::board_multisets);
            ASSERT_EQ(owner[id], -1) << "two multisets share id " << id;
            owner[id] = multisets++;
            do ASSERT_EQ(internal::omaha_tables::board_id(b.data()), id);
            while (std::next_permutation(b.begin(), b.end()));
          }
  EXPECT_EQ(multisets, 6175);  // C(17,5) - 13
}

// Every (board low set, hole low set) pair of the low table against a direct search.
TEST(PokerOmaha, LowTableMatchesDirectSearchForAllRankSets) {
  std::vector<std::pair<unsigned, unsigned>> splits;  // (board triple, hole pair), disjoint: 560
  for (unsigned t = 0; t < 256; ++t)
    for (unsigned p = 0; p < 256; ++p)
      if (std::popcount(t) == 3 && std::popcount(p) == 2 && !(t & p)) splits.emplace_back(t, p);
  ASSERT_EQ(splits.size(), 560u);
  for (unsigned bset = 0; bset < 256; ++bset)
    for (unsigned hset = 0; hset < 256; ++hset) {
      unsigned best = 256;
      for (const auto& [t, p] : splits)
        if (!(t & ~bset) && !(p & ~hset)) best = std::min(best, t | p);
      ASSERT_EQ(internal::omaha_tables::instance().low(bset, hset), 256 - best) << bset << ' ' << hset;
    }
}

TEST(PokerOmaha, ExactlyTwoHoleCardsAndThreeBoardCards) {
  // Four aces in hand and a board of kings: only two aces play (aces-full is impossible:
  // two aces + three kings = kings full of aces).
  const auto b = cards("Kc Kd Kh 2s 3s");
  EXPECT_EQ(category_of(omaha_high(cards("Ac Ad Ah As"), b)), hand_category::full_house);
  // Four spades on board + one spade in hand is no flush in Omaha.
  EXPECT_NE(category_of(omaha_high(cards("As Kd Qh Jc"), cards("2s 5s 8s 9s Td"))), hand_category::flush);
  EXPECT_EQ(category_of(omaha_high(cards("As Ks Qh Jc"), cards("2s 5s 8s 9c Td"))), hand_category::flush);
  // The wheel is the best low; a board with two low cards has none.
  EXPECT_EQ(omaha_low(cards("Ac 2d Kh Ks"), cards("3c 4d 5h Qs Js")), 256 - 0x1f);
  EXPECT_EQ(omaha_low(cards("Ac 2d 3h 4s"), cards("5c 9d Th Qs Js")), 0);
  EXPECT_EQ(omaha_low(cards("Ac Ad 3h Ks"), cards("5c 6d 7h Qs Js")), 256 - (1 | 4 | 16 | 32 | 64));  // A-3 uses one ace
  EXPECT_THROW((void)omaha_high(cards("Ac Ad Ah"), b), std::invalid_argument);
  EXPECT_THROW((void)omaha_high(cards("Ac Ad Ah Kc"), b), std::invalid_argument);  // Kc twice
}

omaha_input make(omaha_rules rules, std::vector<std::string> hands, std::string_view board = "") {
  omaha_input in;
  in.rules = rules;
  for (const auto& h : hands) in.hands.push_back(cards(h));
  in.board = cards(board);
  return in;
}

TEST(PokerOmaha, HiLoQuartersAndScoops) {
  // Both hold A-2 for the nut low; player 1 also has the nut high: 3/4 vs 1/4.
  const auto quarter = omaha_exact_equity(make({4, true}, {"Ac 2c Kd Ks", "Ad 2d 9h 9c"}, "3h 4s 7d Kh Qc"));
  EXPECT_EQ(quarter.outcomes, 1u);
  EXPECT_EQ(quarter.players[0].share, omaha_pot_units * 3 / 4);
  EXPECT_EQ(quarter.players[1].share, omaha_pot_units / 4);
  // No qualifying low: the high scoops.
  const auto scoop = omaha_exact_equity(make({4, true}, {"Ac 2c Kd Ks", "Ad 2d 9h 9c"}, "Th Js 7d Kh Qc"));
  EXPECT_EQ(scoop.players[0].wins, 1u);
  EXPECT_EQ(scoop.players[0].share, omaha_pot_units);
}

TEST(PokerOmaha, ExactEquityMatchesBruteForceOnTheTurn) {
  for (const omaha_rules rules : {omaha_rules{4, false}, omaha_rules{4, true}, omaha_rules{5, true}}) {
    const auto in = rules.hole_cards == 4 ? make(rules, {"Ac 2c Kd Qs", "Ad 3d 9h 9c", "Jh Th 8s 7s"}, "3h 4s 7d 8c")
                                          : make(rules, {"Ac 2c Kd Qs 5h", "Ad 3d 9h 9c Tc"}, "3h 4s 7d 8c");
    const auto r = omaha_exact_equity(in, 2);
    std::vector<std::uint64_t> share(in.hands.size());
    std::uint64_t outcomes = 0;
    std::uint64_t used = 0;
    for (const auto& h : in.hands)
      for (card_t c : h) used |= card_bit(c);
    for (card_t c : in.board) used |= card_bit(c);
    for (card_t river = 0; river < 52; ++river) {
      if (used >> river & 1) continue;
      auto b = in.board;
      b.push_back(river);
      std::vector<std::uint32_t> hi;
      std::vector<std::vector<int>> lo;
      for (const auto& h : in.hands) hi.push_back(brute_high(h, b)), lo.push_back(brute_low(h, b));
      const auto best_hi = *std::max_element(hi.begin(), hi.end());
      std::vector<int> best_lo;
      for (const auto& l : lo)
        if (!l.empty() && (best_lo.empty() || l < best_lo)) best_lo = l;
      const bool split = rules.hi_lo && !best_lo.empty();
      const auto k_hi = static_cast<std::uint64_t>(std::count(hi.begin(), hi.end(), best_hi));
      const auto k_lo = static_cast<std::uint64_t>(std::count(lo.begin(), lo.end(), best_lo));
      for (std::size_t p = 0; p < hi.size(); ++p) {
        if (hi[p] == best_hi) share[p] += (split ? omaha_pot_units / 2 : omaha_pot_units) / k_hi;
        if (split && lo[p] == best_lo) share[p] += omaha_pot_units / 2 / k_lo;
      }
      ++outcomes;
    }
    EXPECT_EQ(r.outcomes, outcomes);
    for (std::size_t p = 0; p < share.size(); ++p) EXPECT_EQ(r.players[p].share, share[p]) << p;
  }
}

TEST(PokerOmaha, MonteCarloAgreesWithExact) {
  const auto in = make({4, true}, {"Ac 2c Kd Qs", "Ad 3d 9h 9c"}, "3h 4s 7d");
  const auto ex = omaha_exact_equity(in, 2);
  const std::uint64_t trials = 100000;
  const auto mc = omaha_sample_equity(in, trials, make_engine_spec("xoshiro256pp", 3, std::nullopt), 2);
  const auto mc1 = omaha_sample_equity(in, trials, make_engine_spec("xoshiro256pp", 3, std::nullopt), 1);
  for (std::size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(mc.players[p].share, mc1.players[p].share);
    // Shares lie in [0, 1]: 5 standard errors of at most 0.5/sqrt(n) (p < 1e-6).
    EXPECT_NEAR(equity_share(mc, p), equity_share(ex, p), 5 * 0.5 / std::sqrt(static_cast<double>(trials)));
  }
}

TEST(PokerOmaha, RejectsBadInput) {
  EXPECT_THROW(check_omaha_input(make({4, false}, {"Ac 2c Kd Qs", "Ad 3d 9h"})), std::invalid_argument);
  EXPECT_THROW(check_omaha_input(make({4, false}, {"Ac 2c Kd Qs", "Ac 3d 9h 9c"})), std::invalid_argument);
  EXPECT_THROW(check_omaha_input(make({4, false}, {"Ac 2c Kd Qs"})), std::invalid_argument);
  EXPECT_THROW(check_omaha_input(make({5, false}, {"Ac 2c Kd Qs", "Ad 3d 9h 9c"})), std::invalid_argument);
  EXPECT_THROW(check_omaha_input(make({4, false}, {"Ac 2c Kd Qs", "Ad 3d 9h 9c"}, "Ac 5d 6d")), std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck::poker
