// The equity plan (poker/equity_plan.hpp): the problems in their order, the exact / Monte
// Carlo choice at the thresholds, the hold'em / Omaha dispatch, and that running a plan is
// running the library's exact or sampled equity on the same input.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "fairdeck/poker/equity_plan.hpp"

namespace fairdeck::poker {
namespace {

equity_request request(std::vector<std::string> hands, exact_mode exact = exact_mode::automatic,
                       std::optional<std::uint64_t> trials = std::nullopt, std::string_view board = "") {
  equity_request rq;
  rq.hands = std::move(hands);
  rq.exact = exact;
  rq.trials = trials;
  rq.board = parse_card_run(board);
  return rq;
}

TEST(PokerEquityPlan, ProblemsComeInOrderBeforeAnyCardIsRead) {
  EXPECT_EQ(plan_equity(request({"AhKh"})).problem, equity_problem::player_count);
  EXPECT_EQ(plan_equity(request(std::vector<std::string>(11, "random"))).problem, equity_problem::player_count);
  // A bad hand is not read while the request itself is wrong.
  EXPECT_EQ(plan_equity(request({"XyZ"}, exact_mode::always, 10)).problem, equity_problem::player_count);
  EXPECT_EQ(plan_equity(request({"XyZ", "KK"}, exact_mode::always, 10)).problem, equity_problem::exact_and_trials);
  EXPECT_EQ(plan_equity(request({"XyZ", "KK"}, exact_mode::automatic, 0)).problem, equity_problem::zero_trials);
  EXPECT_EQ(plan_equity(request({"XyZ", "KK"}, exact_mode::never, 0)).problem, equity_problem::zero_trials);
  EXPECT_FALSE(plan_equity(request({"AA", "KK"}, exact_mode::never, 10)).problem);  // never + trials is fine
  EXPECT_EQ(equity_request_problem(request({"AhKh"})), equity_problem::player_count);
  EXPECT_FALSE(equity_request_problem(request({"AhKh", "QQ"})));
}

TEST(PokerEquityPlan, HandsAreNamedByPlayer) {
  try {
    (void)plan_equity(request({"AhKh", "QQ++"}));
    ADD_FAILURE() << "QQ++ accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("player 2: ", 0), 0u) << e.what();
  }
  EXPECT_THROW((void)plan_equity(request({"AhKh", "QsQd"}, exact_mode::automatic, std::nullopt, "Ah 2c 3c")),
               std::invalid_argument);  // the board holds player 1's card
}

TEST(PokerEquityPlan, ExactWhenCheapAndNotAskedOtherwise) {
  const auto cheap = plan_equity(request({"AhKh", "QsQd"}));
  ASSERT_FALSE(cheap.problem);
  EXPECT_TRUE(cheap.exact);
  EXPECT_GT(cheap.work, 0);
  EXPECT_LE(cheap.work, auto_exact_work);
  EXPECT_FALSE(plan_equity(request({"AhKh", "QsQd"}, exact_mode::automatic, 1000)).exact);  // trials: Monte Carlo
  EXPECT_FALSE(plan_equity(request({"AhKh", "QsQd"}, exact_mode::never)).exact);
  EXPECT_EQ(plan_equity(request({"AhKh", "QsQd"}, exact_mode::never)).trials, default_equity_trials);

  const std::vector<std::string> wide{"random", "random", "random", "22+", "A2s+"};
  const auto costly = plan_equity(request(wide));
  ASSERT_FALSE(costly.problem);
  EXPECT_GT(costly.work, auto_exact_work);
  EXPECT_FALSE(costly.exact);
  const auto forced = plan_equity(request(wide, exact_mode::always));
  if (forced.work > max_exact_work) {
    EXPECT_EQ(forced.problem, equity_problem::exact_too_costly);
  } else {
    EXPECT_TRUE(forced.exact);
  }
  const auto ten = plan_equity(request(std::vector<std::string>(10, "random"), exact_mode::always));
  EXPECT_EQ(ten.problem, equity_problem::exact_too_costly);
  EXPECT_GT(ten.work, max_exact_work);
}

TEST(PokerEquityPlan, GamesDispatchToHoldemOrOmaha) {
  for (std::size_t i = 0; i < equity_game_names().size(); ++i) {
    const auto g = static_cast<equity_game>(i);
    EXPECT_EQ(find_equity_game(name(g)), g);
  }
  EXPECT_FALSE(find_equity_game("stud"));
  auto rq = request({"AsKsQdJd", "9h9c8h8c"}, exact_mode::automatic, std::nullopt, "Th 7c 2d");
  rq.game = equity_game::omaha_hilo;
  const auto om = plan_equity(rq);
  ASSERT_FALSE(om.problem);
  EXPECT_TRUE(om.is_omaha());
  EXPECT_EQ(om.omaha.rules.hole_cards, 4u);
  EXPECT_TRUE(om.omaha.rules.hi_lo);
  EXPECT_EQ(om.players, 2u);
  EXPECT_EQ(om.combos(0), 1u);
  EXPECT_FALSE(om.weighted());
  EXPECT_EQ(om.holdem.board, om.omaha.board);
  rq.game = equity_game::omaha5;
  EXPECT_THROW((void)plan_equity(rq), std::invalid_argument);  // 4 cards in PLO5
  rq.hands = {"AsKsQdJd5c", "9h9c8h8c2c"};
  EXPECT_EQ(plan_equity(rq).omaha.rules.hole_cards, 5u);
  rq.hands = {"AA", "KK"};  // ranges are hold'em's
  EXPECT_THROW((void)plan_equity(rq), std::invalid_argument);
}

TEST(PokerEquityPlan, CombosAndWeights) {
  const auto pl = plan_equity(request({"AA@50", "KK", "AKs"}, exact_mode::never));
  ASSERT_FALSE(pl.problem);
  EXPECT_TRUE(pl.weighted());
  EXPECT_EQ(pl.combos(0), 6u);
  EXPECT_DOUBLE_EQ(pl.combo_weight(0), 3.0);
  EXPECT_DOUBLE_EQ(pl.combo_weight(1), 6.0);
  EXPECT_FALSE(plan_equity(request({"AA", "KK"})).weighted());
}

TEST(PokerEquityPlan, RunningAPlanRunsTheLibrarysEquity) {
  const auto exact = plan_equity(request({"AhKh", "QQ"}, exact_mode::automatic, std::nullopt, "7c 8d 9h"));
  ASSERT_TRUE(exact.exact);
  const auto r = run_equity(exact, std::nullopt, 2);
  const auto want = exact_equity(exact.holdem, 1);
  EXPECT_EQ(r.outcomes, want.outcomes);
  EXPECT_EQ(r.players[0].share, want.players[0].share);

  const auto mc = plan_equity(request({"AhKh", "QQ"}, exact_mode::automatic, 20'000));
  ASSERT_FALSE(mc.exact);
  const auto engine = make_engine_spec("xoshiro256pp", 9, std::nullopt);
  const auto s = run_equity(mc, engine, 2);
  const auto want_mc = sample_equity(mc.holdem, 20'000, engine, 1);
  EXPECT_EQ(s.outcomes, 20'000u);
  EXPECT_EQ(s.players[1].share, want_mc.players[1].share);
  EXPECT_THROW((void)run_equity(mc, std::nullopt), std::invalid_argument);  // Monte Carlo needs an engine
  EXPECT_THROW((void)run_equity(plan_equity(request({"AhKh"})), engine), std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck::poker
