// The board-major exact equity (rank states, shared boards, suit isomorphism) against a
// straightforward assignment-major brute force that evaluates every player's 7 cards with
// the perfect-hash evaluator: ranges, weights, dead cards, symmetric inputs, 2-4 players.
#include <gtest/gtest.h>

#include <functional>

#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "poker_test_config.hpp"

namespace fairdeck::poker {
namespace {

struct brute_result {
  std::uint64_t outcomes = 0;
  std::vector<player_tally> players;
  double total_weight = 0;
};

brute_result brute_force(const equity_input& in) {
  const auto& ev = hand_evaluator::instance();
  const std::size_t n = in.ranges.size();
  brute_result out;
  out.players.resize(n);
  std::uint64_t known = 0;
  for (card_t c : in.board) known |= card_bit(c);
  for (card_t c : in.dead) known |= card_bit(c);
  std::vector<std::size_t> pick(n);
  std::function<void(std::size_t, std::uint64_t, double)> assign = [&](std::size_t p, std::uint64_t used, double w) {
    if (p < n) {
      for (std::size_t i = 0; i < in.ranges[p].size(); ++i) {
        if (used & card_bits(in.ranges[p][i])) continue;
        pick[p] = i;
        const double wi = in.weights[p].empty() ? 1.0 : in.weights[p][i] / double{weight_unit};
        assign(p + 1, used | card_bits(in.ranges[p][i]), w * wi);
      }
      return;
    }
    std::vector<card_t> rest;
    for (card_t c = 0; c < 52; ++c)
      if (!(used >> c & 1)) rest.push_back(c);
    // Every completion of the board: combinations of `need` positions in `rest`.
    const std::size_t need = 5 - in.board.size();
    std::array<card_t, 7> cards{};
    std::copy(in.board.begin(), in.board.end(), cards.begin() + 2);
    std::vector<std::size_t> idx(need);
    for (std::size_t i = 0; i < need; ++i) idx[i] = i;
    while (true) {
      for (std::size_t i = 0; i < need; ++i) cards[2 + in.board.size() + i] = rest[idx[i]];
      std::array<strength_t, equity_max_players> s{};
      for (std::size_t q = 0; q < n; ++q) {
        cards[0] = in.ranges[q][pick[q]][0];
        cards[1] = in.ranges[q][pick[q]][1];
        s[q] = ev.eval7(cards.data());
      }
      const strength_t best = *std::max_element(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n));
      const auto k = static_cast<std::uint64_t>(std::count(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(n), best));
      ++out.outcomes;
      out.total_weight += w;
      for (std::size_t q = 0; q < n; ++q) {
        if (s[q] != best) continue;
        auto& t = out.players[q];
        ++(k == 1 ? t.wins : t.ties);
        t.share += pot_units / k;
        (k == 1 ? t.weighted_wins : t.weighted_ties) += w;
        t.weighted_share += w * static_cast<double>(pot_units / k);
      }
      std::size_t i = need;  // next combination
      while (i > 0 && idx[i - 1] == rest.size() - need + i - 1) --i;
      if (i == 0) break;
      ++idx[i - 1];
      for (std::size_t j = i; j < need; ++j) idx[j] = idx[j - 1] + 1;
    }
  };
  assign(0, known, 1.0);
  return out;
}

equity_input make_weighted(std::vector<std::string> hands, std::string_view board = "", std::string_view dead = "") {
  equity_input in;
  for (const auto& h : hands) {
    const auto wr = parse_weighted_range(h);
    in.ranges.push_back(wr.combos);
    in.weights.push_back(wr.weights);
  }
  in.board = parse_card_run(board);
  in.dead = parse_card_run(dead);
  return prepared(std::move(in));
}

// Both enumeration methods (and the automatic choice) give the brute force's integers.
void expect_same(const equity_input& in, unsigned threads = 2) {
  const auto want = brute_force(in);
  for (const auto method : {exact_method::automatic, exact_method::board_major, exact_method::assignment_major}) {
    SCOPED_TRACE(static_cast<int>(method));
    const auto got = exact_equity(in, threads, {}, method);
    ASSERT_TRUE(got.complete);
    EXPECT_EQ(got.outcomes, want.outcomes);
    for (std::size_t p = 0; p < in.ranges.size(); ++p) {
      EXPECT_EQ(got.players[p].wins, want.players[p].wins) << p;
      EXPECT_EQ(got.players[p].ties, want.players[p].ties) << p;
      EXPECT_EQ(got.players[p].share, want.players[p].share) << p;
      const double tw = want.total_weight;
      EXPECT_NEAR(win_fraction(got, p), want.players[p].weighted_wins / tw, 1e-12) << p;
      EXPECT_NEAR(tie_fraction(got, p), want.players[p].weighted_ties / tw, 1e-12) << p;
      EXPECT_NEAR(equity_share(got, p), want.players[p].weighted_share / double{pot_units} / tw, 1e-12) << p;
    }
  }
}

TEST(PokerExactCrossCheck, RangesOnTheTurn) { expect_same(make_weighted({"QQ+,AKs,T9s", "random"}, "7c 8d 9h 2s")); }

TEST(PokerExactCrossCheck, FixedHandAgainstARange) {
  expect_same(make_weighted({"AhKd", "random"}, "7c 8d 9h 2s"));
  expect_same(make_weighted({"QQ+,AKs,T9s,76s,A5s-A2s", "AhKh"}, "2h 7h 9d Qc"));  // flush draws, fixed hand second
  expect_same(make_weighted({"AhKh", "random"}, "2h 7h 9h Qh"));                    // four to a flush on board
  // Rank-pair class counting with 2 completion cards: boards with 3, 4 and 5 hearts, paired
  // boards (inclusion-exclusion of combos through two board cards), dead cards.
  expect_same(make_weighted({"AhKh", "random"}, "Qh 7h 2c"));
  expect_same(make_weighted({"9c9d", "QQ+,AKs,T9s,76s,A5s-A2s,KQo"}, "Qs 9s 2s", "Ks"));
  expect_same(make_weighted({"JT,random", "5d4d"}, "Jh Tc 5c"));
}

#if !FAIRDECK_POKER_SANITIZED
TEST(PokerExactCrossCheck, FixedHandAgainstARangePreflop) {
  // Every board: the class counting, 3-suited corrections and the per-combo pass for 4 and 5
  // of a suit, with the fixed hand first and second.
  expect_same(make_weighted({"7h6h", "QQ+,AKs,T9s,A5s-A2s,KQo"}));
  expect_same(make_weighted({"TT+,AQs+", "AcKd"}));
}
#endif

TEST(PokerExactCrossCheck, FourPlayersOnTheTurn) {
  expect_same(make_weighted({"AA,KK", "AKs,AQo", "JJ-88", "T9s,76s,QJo"}, "Ah 8d 9h 2s"));
}

TEST(PokerExactCrossCheck, SymmetricPreflopWithDeadCards) {
  // Dead cards are every club and diamond from 2 to 9: the input is unchanged by swapping
  // clubs with diamonds and hearts with spades, so boards are counted once per orbit.
  const auto in = make_weighted({"AA", "KK"}, "", "2c3c4c5c6c7c8c9c 2d3d4d5d6d7d8d9d");
  EXPECT_EQ(exact_equity(in, 1).symmetry, 4u);
  expect_same(in);
}

TEST(PokerExactCrossCheck, FlushBoardsAndSuitedRanges) {
  expect_same(make_weighted({"AhKh", "QhJh,QQ", "A2s+,T9s"}, "2h 7h 9d"), 1);
}

TEST(PokerExactCrossCheck, WeightedRanges) {
  expect_same(make_weighted({"AA@50,KK,AKs:0.25", "QQ@10,JsJc@75,AQ"}, "7c 8d 9h 2s"));
  const auto in = make_weighted({"AA@50,KK", "random"}, "Ks Td 4c 3h");
  const auto r = exact_equity(in, 2);
  EXPECT_TRUE(r.weighted);
  expect_same(in);
}

#if !FAIRDECK_POKER_SANITIZED
TEST(PokerExactCrossCheck, HeadsUpRangesPreflopWithSymmetry) {
  // Full suit symmetry (24 permutations): 2,598,960 boards enumerated, about 1/24 scored.
  const auto in = make_weighted({"AKs", "QQ"});
  EXPECT_EQ(exact_equity(in, 1).symmetry, 24u);
  expect_same(in);
}
#endif

TEST(PokerExactCrossCheck, FewAssignmentsUpToSymmetry) {
  // Few assignments: each orbit under the input's suit symmetry solved as fixed hands and
  // weighted by the orbit's size (assignment-major), against the brute force.
  expect_same(make_weighted({"AA", "KK", "QQ"}, "7c 8d 2h 3s"));
  expect_same(make_weighted({"AKs", "QQ", "JTs"}, "Qh 9h 2c"));       // flushes, orbits with stabilisers
  expect_same(make_weighted({"AA,KK", "QQ", "JJ", "T9s"}, "8c 7d 2s"));  // four players
}

#if !FAIRDECK_POKER_SANITIZED
TEST(PokerExactCrossCheck, ThreeWayClassesPreflopBothMethodsAgree) {
  // AA vs KK vs QQ preflop: 216 assignments, 12 orbits under the 24 suit permutations; every
  // board of both methods (the brute force would take minutes). The automatic choice is the
  // assignment-major one.
  const auto in = make_weighted({"AA", "KK", "QQ"});
  const auto a = exact_equity(in, 2, {}, exact_method::assignment_major);
  const auto b = exact_equity(in, 2, {}, exact_method::board_major);
  ASSERT_TRUE(a.complete && b.complete);
  EXPECT_EQ(a.outcomes, 216u * 1370754u);  // C(46, 5) boards per assignment
  EXPECT_EQ(a.outcomes, b.outcomes);
  EXPECT_EQ(a.assignments, 216u);
  EXPECT_EQ(a.symmetry, 24u);
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(a.players[p].wins, b.players[p].wins) << p;
    EXPECT_EQ(a.players[p].ties, b.players[p].ties) << p;
    EXPECT_EQ(a.players[p].share, b.players[p].share) << p;
    EXPECT_EQ(a.players[p].share_sq, b.players[p].share_sq) << p;
  }
  EXPECT_EQ(exact_equity(in, 1).players[0].share, a.players[0].share);
}
#endif

TEST(PokerExactCrossCheck, ThreadCountDoesNotChangeWeightedSums) {
  const auto in = make_weighted({"AA@50,KK,AKs:0.25", "QQ@10,random"}, "7c 8d 9h");
  const auto a = exact_equity(in, 1), b = exact_equity(in, 2);
  for (std::size_t p = 0; p < 2; ++p) {
    EXPECT_EQ(a.players[p].weighted_share, b.players[p].weighted_share);
    EXPECT_EQ(a.players[p].share, b.players[p].share);
  }
}

}  // namespace
}  // namespace fairdeck::poker
