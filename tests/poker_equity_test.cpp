// Equity: exact results against a brute force with the reference evaluator, known
// match-ups, card removal, Monte Carlo agreement and determinism, input errors.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>

#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/reference_eval.hpp"
#include "poker_test_config.hpp"

namespace fairdeck::poker {
namespace {

equity_input make(std::vector<std::string> hands, std::string_view board = "", std::string_view dead = "") {
  equity_input in;
  for (const auto& h : hands) in.ranges.push_back(parse_range(h));
  in.board = parse_card_run(board);
  in.dead = parse_card_run(dead);
  return prepared(std::move(in));
}

double equity(const equity_result& r, std::size_t p) {
  return static_cast<double>(r.players[p].share) / static_cast<double>(pot_units) / static_cast<double>(r.outcomes);
}

std::uint64_t total_share(const equity_result& r) {
  std::uint64_t s = 0;
  for (const auto& t : r.players) s += t.share;
  return s;
}

TEST(PokerEquity, HeadsUpPreflopExact) {
  const auto r = exact_equity(make({"AhKh", "QsQd"}), 2);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.outcomes, 1712304u);  // C(48, 5)
  EXPECT_EQ(total_share(r), pot_units * r.outcomes);
  EXPECT_EQ(r.players[0].ties, r.players[1].ties);
  EXPECT_NEAR(equity(r, 0), 0.4621, 0.0001);  // the classic AKs vs QQ coin flip
}

TEST(PokerEquity, MatchesBruteForceWithTheReferenceEvaluator) {
  const auto r = exact_equity(make({"AhKh", "QsQd", "7s7h"}, "7c 8d 9h"), 1);
  const std::vector<std::vector<card_t>> holes{parse_cards("Ah Kh"), parse_cards("Qs Qd"), parse_cards("7s 7h")};
  const auto board = parse_cards("7c 8d 9h");
  std::vector<card_t> rest;
  for (card_t c = 0; c < 52; ++c) {
    bool used = std::find(board.begin(), board.end(), c) != board.end();
    for (const auto& h : holes) used = used || std::find(h.begin(), h.end(), c) != h.end();
    if (!used) rest.push_back(c);
  }
  std::vector<player_tally> want(3);
  std::uint64_t outcomes = 0;
  for (std::size_t i = 0; i < rest.size(); ++i)
    for (std::size_t j = i + 1; j < rest.size(); ++j) {
      std::array<std::uint32_t, 3> v{};
      for (std::size_t p = 0; p < 3; ++p) {
        auto cards = holes[p];
        cards.insert(cards.end(), board.begin(), board.end());
        cards.push_back(rest[i]);
        cards.push_back(rest[j]);
        v[p] = reference_value(cards);
      }
      const auto best = *std::max_element(v.begin(), v.end());
      const auto k = static_cast<std::uint64_t>(std::count(v.begin(), v.end(), best));
      for (std::size_t p = 0; p < 3; ++p)
        if (v[p] == best) ++(k == 1 ? want[p].wins : want[p].ties), want[p].share += pot_units / k;
      ++outcomes;
    }
  EXPECT_EQ(r.outcomes, outcomes);
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(r.players[p].wins, want[p].wins) << p;
    EXPECT_EQ(r.players[p].ties, want[p].ties) << p;
    EXPECT_EQ(r.players[p].share, want[p].share) << p;
  }
}

// The fixed-hands path (boards counted by rank multiset, then flush boards corrected one by
// one) against a plain loop over every board through
// hand_evaluator::eval7: every player's wins, ties and pot shares, for 2-10 players, preflop,
// flop, turn and river, dead cards, and hands and boards chosen to make flushes (and straight
// flushes, and flushes for several players in one suit).
TEST(PokerEquity, FixedHandsMatchAPlainLoopOverBoards) {
  struct fixed_case {
    std::vector<std::string> hands;
    std::string board, dead;
  };
  const std::vector<fixed_case> cases{
      {{"AhKh", "QsQd"}, "", ""},
      {{"AhKh", "QhJh"}, "", ""},
      {{"7s6s", "AdAc", "KhQh"}, "", ""},
      {{"AhKh", "QsQd"}, "", "2h 3h 4h Tc"},
      {{"AhKh", "QhJh"}, "2h 7h 9c", ""},
      {{"AsKs", "9s8s", "QdQc"}, "7s 6s Td", ""},
      {{"2c2d", "AsKd", "JhTh", "9c8c", "5s5h"}, "Jc 7c", ""},
      {{"AhKh", "QhJh"}, "2h 7h 9h 3c", ""},
      {{"AcKd", "7h7d", "9s8s"}, "Ts 6s 2d Kc", "5s"},
      {{"AhKh", "6d6c"}, "2h 3h 4h 5h 9c", ""},
      {{"AcAd", "KcKd", "QcQd", "JcJd", "TcTd", "9c9d", "8c8d", "7c7d", "6c6d", "5h4h"}, "", ""},
  };
  const auto& ev = hand_evaluator::instance();
  for (const auto& [hands, board_text, dead_text] : cases) {
    // Under sanitizers (~20x slower) one preflop case stands for the others.
    if (FAIRDECK_POKER_SANITIZED && board_text.empty() && dead_text.empty() && &hands != &cases[0].hands) continue;
    const auto in = make(hands, board_text, dead_text);
    const auto r = exact_equity(in, 2);
    const std::size_t n = hands.size();
    std::vector<std::vector<card_t>> holes;
    std::uint64_t used = 0;
    for (const auto& h : hands) {
      holes.push_back(parse_card_run(h));
      for (card_t c : holes.back()) used |= card_bit(c);
    }
    const auto board = parse_card_run(board_text);
    for (card_t c : board) used |= card_bit(c);
    for (card_t c : parse_card_run(dead_text)) used |= card_bit(c);
    std::vector<card_t> rest;
    for (card_t c = 0; c < 52; ++c)
      if (!(used >> c & 1)) rest.push_back(c);
    std::vector<player_tally> want(n);
    std::uint64_t outcomes = 0;
    std::array<card_t, 5> b{};
    std::copy(board.begin(), board.end(), b.begin());
    auto score = [&] {
      std::vector<strength_t> s(n);
      for (std::size_t p = 0; p < n; ++p) {
        const std::array<card_t, 7> seven{holes[p][0], holes[p][1], b[0], b[1], b[2], b[3], b[4]};
        s[p] = ev.eval7(seven.data());
      }
      const strength_t best = *std::max_element(s.begin(), s.end());
      const auto k = static_cast<std::uint64_t>(std::count(s.begin(), s.end(), best));
      for (std::size_t p = 0; p < n; ++p)
        if (s[p] == best) ++(k == 1 ? want[p].wins : want[p].ties), want[p].share += pot_units / k;
      ++outcomes;
    };
    auto rec = [&](auto& self, std::size_t k, std::size_t from) -> void {
      if (k == 5) return score();
      for (std::size_t i = from; i < rest.size(); ++i) b[k] = rest[i], self(self, k + 1, i + 1);
    };
    rec(rec, board.size(), 0);
    ASSERT_EQ(r.outcomes, outcomes) << hands[0] << ' ' << board_text;
    for (std::size_t p = 0; p < n; ++p) {
      EXPECT_EQ(r.players[p].wins, want[p].wins) << hands[p] << ' ' << board_text;
      EXPECT_EQ(r.players[p].ties, want[p].ties) << hands[p] << ' ' << board_text;
      EXPECT_EQ(r.players[p].share, want[p].share) << hands[p] << ' ' << board_text;
    }
    EXPECT_EQ(exact_equity(in, 1).players[0].share, r.players[0].share);
  }
}

TEST(PokerEquity, MirrorHandsSplitEvenly) {
  const auto r = exact_equity(make({"AhKh", "AdKd"}), 2);
  EXPECT_EQ(r.players[0].share, r.players[1].share);
  EXPECT_EQ(r.players[0].wins, r.players[1].wins);
  EXPECT_GT(r.players[0].ties, r.outcomes / 2);
}

TEST(PokerEquity, CompleteBoardDecidesAtOnce) {
  const auto r = exact_equity(make({"AhKh", "6d6c"}, "2c 3d 4h 5s 9c"), 2);
  EXPECT_EQ(r.outcomes, 1u);
  EXPECT_EQ(r.players[1].wins, 1u);  // 6-high straight beats the wheel
  const auto split = exact_equity(make({"2h2d", "3h3d"}, "As Ks Qs Js Ts"), 2);  // the board plays
  EXPECT_EQ(split.players[0].ties, 1u);
  EXPECT_EQ(split.players[0].share, pot_units / 2);
}

TEST(PokerEquity, CardRemovalInRanges) {
  // AA against AhAd: only AcAs is left for player 1.
  EXPECT_EQ(exact_equity(make({"AA", "AhAd"}), 2).assignments, 1u);
  // Board cards remove combos too: QQ+ loses every combo with the Ks.
  EXPECT_EQ(make({"QQ+", "random"}, "Ks 7d 2c").ranges[0].size(), 15u);
  const auto r = exact_equity(make({"KK", "AKs"}, "Ks 7d 2c"), 2);
  // KK: 3 combos left (no Ks); AKs: AcKc, AdKd, AhKh. Each KK combo holds two of those
  // kings, so exactly one AKs combo fits with it.
  EXPECT_EQ(r.assignments, 3u);
}

TEST(PokerEquity, MonteCarloAgreesWithExactAndIsDeterministic) {
  const auto in = make({"QQ+", "AKs", "random"}, "7c 8d 9h 2s");
  const auto ex = exact_equity(in, 2);
  EXPECT_EQ(total_share(ex), pot_units * ex.outcomes);
  const auto spec = make_engine_spec("xoshiro256pp", 9, std::nullopt);
  const std::uint64_t trials = 100000;
  const auto mc1 = sample_equity(in, trials, spec, 1);
  const auto mc2 = sample_equity(in, trials, spec, 2);
  EXPECT_EQ(mc1.outcomes, trials);
  for (std::size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(mc1.players[p].share, mc2.players[p].share);
    EXPECT_EQ(mc1.players[p].wins, mc2.players[p].wins);
    // Shares are in [0, 1], so the standard error is at most 0.5 / sqrt(n); 5 of them
    // would be exceeded by chance with probability < 1e-6.
    EXPECT_NEAR(equity(mc1, p), equity(ex, p), 5 * 0.5 / std::sqrt(static_cast<double>(trials))) << p;
  }
}

TEST(PokerEquity, EquityIntervalIsTheNormalIntervalAroundTheMeanShare) {
  const auto in = make({"QQ+", "AKs", "random"}, "7c 8d 9h 2s");
  const auto mc = sample_equity(in, 100000, make_engine_spec("xoshiro256pp", 9, std::nullopt), 2);
  for (std::size_t p = 0; p < 3; ++p) {
    const auto ci = equity_interval(mc, p);
    const double e = equity_share(mc, p), n = static_cast<double>(mc.outcomes);
    // Half-width 1.96 standard errors (equity_stderr divides the variance by n - 1, the
    // interval by n), symmetric unless clipped at 0 or 1.
    EXPECT_NEAR(ci.high - e, 1.959963984540054 * equity_stderr(mc, p) * std::sqrt((n - 1) / n), 1e-12) << p;
    EXPECT_NEAR(e - ci.low, ci.high - e, 1e-12) << p;
  }
  const auto ex = exact_equity(in, 2);
  EXPECT_EQ(equity_interval(ex, 0).low, equity_share(ex, 0));
  EXPECT_EQ(equity_interval(ex, 0).high, equity_share(ex, 0));
  equity_result none = mc;
  none.outcomes = 0;
  EXPECT_EQ(equity_interval(none, 0).low, 0.0);
  EXPECT_EQ(equity_interval(none, 0).high, 1.0);
}

TEST(PokerEquity, FixedHandsMonteCarloReusesTheDeck) {
  const auto in = make({"AhKh", "QsQd"});
  const auto mc = sample_equity(in, 300000, make_engine_spec("chacha20", 4, std::nullopt), 2);
  EXPECT_NEAR(equity(mc, 0), 0.4621, 5 * 0.5 / std::sqrt(300000.0));
}

TEST(PokerEquity, StopsWhenAskedAndReportsProgress) {
  const auto in = make({"AhKh", "QsQd"});
  const std::atomic<bool> stop{true};
  run_control halt;
  halt.stop = &stop;
  EXPECT_FALSE(exact_equity(in, 2, halt).complete);
  EXPECT_FALSE(sample_equity(in, 100000, make_engine_spec("xoshiro256pp", 1, std::nullopt), 2, halt).complete);
  std::uint64_t last = 0, total = 0;
  run_control watch;
  watch.on_progress = [&](std::uint64_t d, std::uint64_t t) { last = std::max(last, d), total = t; };
  const auto r = exact_equity(make({"AhKh", "QsQd"}, "7c 8d 9h"), 2, watch);
  EXPECT_EQ(last, 990u);
  EXPECT_EQ(total, r.outcomes);
}

TEST(PokerEquity, RejectsBadInput) {
  EXPECT_THROW((void)make({"AhKh"}), std::invalid_argument);                              // one player
  EXPECT_THROW((void)make(std::vector<std::string>(11, "random")), std::invalid_argument);  // eleven
  EXPECT_THROW((void)make({"AhKh", "AhQd"}), std::invalid_argument);                      // Ah twice
  EXPECT_THROW((void)make({"AhKh", "QsQd"}, "Ah 7c 8d"), std::invalid_argument);          // on the board
  EXPECT_THROW((void)make({"AhKh", "QsQd"}, "7c 7c 8d"), std::invalid_argument);          // board twice
  EXPECT_THROW((void)make({"AhKh", "QsQd"}, "2c 3c 4c 5c 6c 7c"), std::invalid_argument); // 6 board cards
  EXPECT_THROW((void)make({"AhKh", "QsQd"}, "", "Qs"), std::invalid_argument);            // dead card in a hand
  EXPECT_THROW((void)make({"AA", "AA", "AA"}), std::invalid_argument);                    // no deal possible
  EXPECT_THROW((void)make({"KK", "QsQd"}, "Kc Kd Ks"), std::invalid_argument);            // range emptied
  try {
    (void)make({"AhKh", "AhQd"});
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("Ah"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fairdeck::poker
