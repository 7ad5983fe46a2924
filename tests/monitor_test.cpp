// fairdeck monitor (stats/monitor.hpp): no false alarm on uniform streams, the false-alarm
// rate over many streams, a machine that takes over mid-stream caught quickly, and the CLI's
// contract (JSON alarm line, exit codes).
//
// Statistical assertions use fixed seeds; each states its false-failure rate.
#include <algorithm>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/stats/monitor.hpp"

namespace fairdeck {
namespace {

std::vector<card_t> new_deck(std::size_t n) {
  std::vector<card_t> d(n);
  std::iota(d.begin(), d.end(), card_t{0});
  return d;
}

// Watches `fair` uniform decks, then `machine` decks from one pass of `shelves` shelves (fed
// from the bottom when mirrored). Returns the deck of the first alarm.
std::optional<std::uint64_t> first_alarm(std::uint64_t seed, int fair, int machine, double alpha,
                                         std::uint64_t shelves = 10, bool mirror = false) {
  const auto cards = new_deck(52);
  stats::machine_monitor m(cards, deck_spec{}, 1, alpha);
  xoshiro256pp engine(seed);
  std::vector<card_t> deck;
  for (int k = 0; k < fair + machine; ++k) {
    deck = new_deck(52);
    if (k < fair) {
      fisher_yates(deck, engine);
    } else {
      if (mirror) std::reverse(deck.begin(), deck.end());
      shelf_shuffle(deck, shelves, 1, engine);
    }
    if (auto a = m.add(deck)) return a->deck;
  }
  return std::nullopt;
}

// The goal: no alarm on 3,000 uniform decks at the default alpha = 1e-3 (a false failure has
// probability <= 1e-3 per seed by Ville's inequality; 3 seeds: <= 3e-3).
TEST(Monitor, NoAlarmOnThreeThousandUniformDecks) {
  for (std::uint64_t seed : {1, 2, 3}) EXPECT_FALSE(first_alarm(seed, 3000, 0, 1e-3)) << seed;
}

// The false-alarm rate over the whole stream is at most alpha: 200 streams of 3,000 uniform
// decks at alpha = 0.05 raise at most 20 alarms. Were the rate exactly 0.05, P(X > 20) for X ~
// Binomial(200, 0.05) is 1.2e-3 (the false-failure rate); Ville's bound is conservative, so it
// is smaller still.
TEST(Monitor, FalseAlarmRateOverManyStreamsIsAtMostAlpha) {
  int alarms = 0;
  for (std::uint64_t seed = 1000; seed < 1200; ++seed) alarms += first_alarm(seed, 3000, 0, 0.05).has_value();
  RecordProperty("alarms", alarms);  // measured: see docs/machines.md
  EXPECT_LE(alarms, 20);
}

// The goal: a 10-shelf machine that takes over after 100 fair decks is flagged within 15 of
// its decks, as is its mirror image (fed from the bottom); no alarm before it takes over.
TEST(Monitor, TenShelfMachineAfterHundredFairDecksFlaggedWithinFifteen) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed)
    for (bool mirror : {false, true}) {
      const auto at = first_alarm(seed, 100, 15, 1e-3, 10, mirror);
      ASSERT_TRUE(at) << seed << mirror;
      EXPECT_GT(*at, 100U) << seed << mirror;
      EXPECT_LE(*at, 115U) << seed << mirror;
    }
}

// Shoes: 20 fair 6-deck shoes, then shoes through one 10-shelf pass: flagged within 10 shoes.
TEST(Monitor, ShoesThroughTenShelvesFlagged) {
  const auto cards = new_deck(6 * 52);
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    stats::machine_monitor m(cards, deck_spec{6, 0}, 6, 1e-3);
    xoshiro256pp engine(seed);
    std::optional<std::uint64_t> at;
    for (int k = 0; k < 30 && !at; ++k) {
      auto shoe = new_deck(6 * 52);
      if (k < 20)
        fisher_yates(shoe, engine);
      else
        shelf_shuffle(shoe, 10, 1, engine);
      for (auto& c : shoe) c %= 52;
      if (auto a = m.add(shoe)) at = a->deck;
    }
    ASSERT_TRUE(at) << seed;
    EXPECT_GT(*at, 20U);
    EXPECT_LE(*at, 30U);
  }
}

std::string decks_text(std::uint64_t seed, int fair, int machine) {
  xoshiro256pp engine(seed);
  std::string out;
  for (int k = 0; k < fair + machine; ++k) {
    auto deck = new_deck(52);
    if (k < fair)
      fisher_yates(deck, engine);
    else
      shelf_shuffle(deck, 10, 1, engine);
    out += format_cards(deck, deck_spec{}) + "\n";
  }
  return out;
}

TEST(MonitorCli, AlarmIsOneJsonLineAndExitThree) {
  const auto r = testing::run_cli("monitor --input - --json", decks_text(5, 100, 20));
  ASSERT_EQ(r.exit_code, 3) << r.err;
  ASSERT_EQ(std::count(r.out.begin(), r.out.end(), '\n'), 1) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["alarm"], true);
  EXPECT_GT(j["deck"].get<int>(), 100);
  EXPECT_LE(j["deck"].get<int>(), 115);
  EXPECT_TRUE(j["test"].is_string());
  EXPECT_GE(j["evidence"].get<double>(), 1000);
}

TEST(MonitorCli, ExitCodes) {
  const auto fair = testing::run_cli("monitor --input - --json", decks_text(6, 300, 0));
  EXPECT_EQ(fair.exit_code, 0) << fair.err;
  EXPECT_EQ(nlohmann::json::parse(fair.out)["alarm"], false);
  EXPECT_EQ(testing::run_cli("monitor --input - --alpha 2", "Ac\n").exit_code, 2);
  EXPECT_EQ(testing::run_cli("monitor").exit_code, 2);
  const auto missing = testing::run_cli("monitor --input /nonexistent/decks.txt");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open input file"), std::string::npos) << missing.err;
  const auto bad = testing::run_cli("monitor --input -", "Ac 2c 3c\nAc 2c\n");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("line 2"), std::string::npos) << bad.err;
  const auto text = testing::run_cli("monitor --input -", decks_text(5, 100, 20));
  EXPECT_EQ(text.exit_code, 3);
  EXPECT_EQ(text.out.rfind("ALARM at deck ", 0), 0U) << text.out;
}

}  // namespace
}  // namespace fairdeck
