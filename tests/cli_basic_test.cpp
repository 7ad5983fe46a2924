// End-to-end: the shuffle, deal and random commands as a user runs them.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/cards/card.hpp"

using fairdeck::testing::run_cli;

namespace {
int lines(const std::string& s) { return static_cast<int>(std::count(s.begin(), s.end(), '\n')); }
}  // namespace

TEST(CliShuffle, DefaultIsASecureFullDeck) {
  const auto a = run_cli("shuffle"), b = run_cli("shuffle");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.err, "");  // secure by default: no reproducibility notice
  const auto cards = fairdeck::parse_cards(a.out);
  EXPECT_EQ(std::set<fairdeck::card_t>(cards.begin(), cards.end()).size(), 52u);
  EXPECT_NE(a.out, b.out);  // 1 in 52! chance of a false failure
  const auto j = nlohmann::json::parse(run_cli("shuffle --json").out);
  EXPECT_EQ(j["engine"]["name"], "secure");
  EXPECT_TRUE(j["engine"]["secure"].get<bool>());
  EXPECT_EQ(j["n"], 52);
}

TEST(CliShuffle, SeedIsReproducibleAndLabelledNotSecure) {
  const auto a = run_cli("shuffle --seed 42"), b = run_cli("shuffle --seed 42");
  ASSERT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out, b.out);
  EXPECT_NE(a.err.find("not secure"), std::string::npos);
  EXPECT_EQ(lines(a.err), 1);
  const auto j = nlohmann::json::parse(run_cli("shuffle --seed 42 --json --decks 2 --jokers 4").out);
  EXPECT_EQ(j["cards"].size(), 108u);
  EXPECT_EQ(j["indices"].size(), 108u);
  EXPECT_FALSE(j["engine"]["secure"].get<bool>());
  EXPECT_EQ(j["engine"]["seed"], 42);
  EXPECT_EQ(j["algorithm"], "fisher-yates");
}

TEST(CliShuffle, EveryAlgorithmAndEngineRuns) {
  for (const auto* algo : {"fisher-yates", "partial:5", "sort", "naive", "asf1999"})
    for (const auto* eng : {"chacha20", "xoshiro256pp", "pcg64", "mt19937_64"}) {
      const auto r = run_cli(std::string("shuffle --indices --seed 9 --algorithm ") + algo + " --engine " + eng);
      ASSERT_EQ(r.exit_code, 0) << algo << " " << eng << ": " << r.err;
      std::istringstream in(r.out);
      std::set<int> seen;
      for (int x; in >> x;) seen.insert(x);
      EXPECT_EQ(seen.size(), 52u);
    }
  EXPECT_NE(run_cli("shuffle --algorithm naive --seed 1").err.find("biased"), std::string::npos);
}

TEST(CliShuffle, UnicodeOutputParsesBack) {
  const auto r = run_cli("shuffle --unicode --seed 5");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(run_cli("shuffle --seed 5").out.size() + 52 * 2, r.out.size());  // each suit is 3 bytes
  EXPECT_EQ(fairdeck::parse_cards(r.out), fairdeck::parse_cards(run_cli("shuffle --seed 5").out));
}

TEST(CliDeal, HoldemMatchesTheShuffledDeck) {
  const auto deck = fairdeck::parse_cards(run_cli("shuffle --seed 77").out);
  const auto j = nlohmann::json::parse(run_cli("deal holdem --players 3 --seed 77 --json").out);
  auto card = [&](std::size_t pos) { return fairdeck::format_card(deck[pos], {}); };
  EXPECT_EQ(j["seats"][0][0], card(0));
  EXPECT_EQ(j["seats"][2][1], card(5));
  EXPECT_EQ(j["burns"][0], card(6));
  EXPECT_EQ(j["flop"][2], card(9));
  EXPECT_EQ(j["turn"], card(11));
  EXPECT_EQ(j["river"], card(13));
  EXPECT_EQ(run_cli("deal holdem --players 22").exit_code, 0);
  const auto h = run_cli("deal --hands 4 --cards 13 --seed 1");
  EXPECT_EQ(h.exit_code, 0);
  EXPECT_EQ(lines(h.out), 4);
}

TEST(CliErrors, UsageErrorsAreOneLineAndExit2) {
  for (const auto* args : {"deal holdem --players 23", "deal holdem --players 1", "deal --hands 11 --cards 5",
                           "deal poker --players 3", "deal holdem", "shuffle --decks 0", "shuffle --jokers 100000",
                           "shuffle --engine bogus", "shuffle --engine secure --seed 1", "shuffle --seed -1",
                           "shuffle --seed 18446744073709551616", "random --count -5", "shuffle --seed 0x10", "shuffle --key abc", "shuffle --algorithm nope",
                           "shuffle --algorithm partial:53", "random --below 0", "random --count x", "nosuchcommand",
                           "shuffle --seed 1 --key 0000000000000000000000000000000000000000000000000000000000000000"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_EQ(lines(r.err), 1) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
  }
  EXPECT_EQ(run_cli("deal --hands 2 --cards 54 --decks 2 --jokers 4 --seed 3").exit_code, 0);  // 108 cards fit
  EXPECT_EQ(run_cli("deal --hands 2 --cards 54 --decks 2 --seed 3").exit_code, 2);  // 104 do not
  EXPECT_EQ(run_cli("--help").exit_code, 0);
}

TEST(CliRandom, PrintsFrozenEngineOutputs) {
  const auto r = run_cli("random --engine xoshiro256pp --seed 42 --count 2");
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "15021278609987233951\n5881210131331364753\n");
  const auto b = run_cli("random --engine pcg64 --seed 1 --count 1000 --below 6");
  ASSERT_EQ(b.exit_code, 0);
  std::istringstream in(b.out);
  int n = 0;
  for (int x; in >> x; ++n) ASSERT_LT(x, 6);
  EXPECT_EQ(n, 1000);
  const auto j = nlohmann::json::parse(run_cli("random --engine chacha20 --key " + std::string(64, '0') + " --count 1 --json").out);
  EXPECT_EQ(j["values"][0], 0x903df1a0ade0b876ULL);  // ChaCha20 zero-key keystream
}
