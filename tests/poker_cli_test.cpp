// End-to-end: fairdeck odds and fairdeck equity (JSON contracts, determinism, errors).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using fairdeck::testing::run_cli;

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

void expect_usage_error(const std::string& args, const std::string& needle) {
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(lines(r.err), 1u) << args << "\n" << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << args << "\n" << r.err;
  EXPECT_TRUE(r.out.empty()) << args;
}

TEST(PokerCli, OddsExactJson) {
  const auto r = run_cli("odds --cards 5 --exact --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["cards"], 5);
  EXPECT_EQ(j["trials"], 2598960);
  EXPECT_EQ(j["method"], "exact");
  EXPECT_EQ(j["categories"]["straight_flush"]["count"], 40);
  EXPECT_EQ(j["categories"]["high_card"]["count"], 1302540);
  EXPECT_EQ(j["categories"].size(), 9u);
  for (const auto& [name, c] : j["categories"].items()) {
    for (const char* key : {"count", "probability", "ci_low", "ci_high"}) EXPECT_TRUE(c.contains(key)) << name << key;
    EXPECT_EQ(c["ci_low"], c["probability"]);
  }
}

TEST(PokerCli, OddsMonteCarloSameSeedAnyThreads) {
  const std::string base = "odds --cards 5 --trials 150000 --seed 3 --engine xoshiro256pp --json";
  const auto one = run_cli(base + " --threads 1");
  const auto two = run_cli(base + " --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  const auto j = nlohmann::json::parse(one.out);
  EXPECT_EQ(j["trials"], 150000);
  EXPECT_EQ(j["method"], "monte_carlo");
  const auto& pair = j["categories"]["pair"];
  EXPECT_LT(pair["ci_low"].get<double>(), pair["probability"].get<double>());
  EXPECT_GT(pair["ci_high"].get<double>(), pair["probability"].get<double>());
  EXPECT_NEAR(pair["exact_probability"].get<double>(), 1098240.0 / 2598960.0, 1e-12);
  const auto text = run_cli("odds --cards 6 --trials 1000 --seed 1");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("Straight flush"), std::string::npos);
}

TEST(PokerCli, OddsErrors) {
  expect_usage_error("odds --cards 4", "--cards");
  expect_usage_error("odds --cards 8 --exact", "--cards");
  expect_usage_error("odds --exact --trials 5", "--exact");
  expect_usage_error("odds --trials 0 --seed 1", "--trials");
}

TEST(PokerCli, EquityExactHeadsUp) {
  const auto r = run_cli("equity AhKh QsQd --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["method"], "exact");
  EXPECT_EQ(j["outcomes"], 1712304);
  ASSERT_EQ(j["players"].size(), 2u);
  EXPECT_NEAR(j["players"][0]["equity"].get<double>(), 0.4621, 1e-4);
  EXPECT_EQ(j["players"][1]["hand"], "QsQd");
  const double sum = j["players"][0]["equity"].get<double>() + j["players"][1]["equity"].get<double>();
  EXPECT_NEAR(sum, 1.0, 1e-12);
  const auto text = run_cli("equity \"Ah Kh\" 10s10d --board \"7c 8d 9h\"");
  EXPECT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("Board: 7c 8d 9h"), std::string::npos) << text.out;
}

TEST(PokerCli, EquityMonteCarloRangesSameSeedAnyThreads) {
  const std::string base = "equity QQ+ AKs,A5s-A2s random --trials 20000 --seed 5 --engine xoshiro256pp --json";
  const auto one = run_cli(base + " --threads 1");
  const auto two = run_cli(base + " --threads 2");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  const auto j = nlohmann::json::parse(one.out);
  EXPECT_EQ(j["method"], "monte_carlo");
  EXPECT_EQ(j["trials"], 20000);
  EXPECT_EQ(j["players"][1]["combos"], 20);
  for (const auto& p : j["players"]) {
    EXPECT_LE(p["equity_ci_low"].get<double>(), p["equity"].get<double>());
    EXPECT_GE(p["equity_ci_high"].get<double>(), p["equity"].get<double>());
  }
}

TEST(PokerCli, EquityWeightedPercentAndStderr) {
  const auto r = run_cli("equity \"AA@50,KK\" QQ --board \"7c 8d 2h\" --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["method"], "exact");
  EXPECT_EQ(j["weights"], true);
  EXPECT_DOUBLE_EQ(j["players"][0]["weights"].get<double>(), 9.0);  // 6 x 50% + 6
  EXPECT_NEAR(j["players"][0]["equity"].get<double>() + j["players"][1]["equity"].get<double>(), 1.0, 1e-12);
  const auto pct = run_cli("equity AhKd 20% --board \"7c 8d 2h\" --json");
  ASSERT_EQ(pct.exit_code, 0) << pct.err;
  const auto combos = nlohmann::json::parse(pct.out)["players"][1]["combos"].get<int>();
  EXPECT_GT(combos, 200);  // ~265 combos less those with the AhKd or board cards
  EXPECT_LT(combos, 270);
  const auto mc = run_cli("equity AhKh QsQd --trials 20000 --seed 3 --json");
  ASSERT_EQ(mc.exit_code, 0) << mc.err;
  const auto se = nlohmann::json::parse(mc.out)["players"][0]["stderr"].get<double>();
  EXPECT_GT(se, 0.0);
  EXPECT_LT(se, 0.5 / std::sqrt(20000.0) + 1e-12);
}

TEST(PokerCli, EquityOmaha) {
  const auto r = run_cli("equity \"Ac 2c Kd Ks\" \"Ad 2d 9h 9c\" --board \"3h 4s 7d Kh Qc\" --game omaha-hilo --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["game"], "omaha-hilo");
  EXPECT_DOUBLE_EQ(j["players"][0]["equity"].get<double>(), 0.75);  // high + half the low
  const auto plo5 = run_cli("equity AsKsQdJd5c 9h9c8h8c2c --game omaha5 --board \"Th 7c 2d\" --json");
  ASSERT_EQ(plo5.exit_code, 0) << plo5.err;
  EXPECT_EQ(nlohmann::json::parse(plo5.out)["method"], "exact");
  expect_usage_error("equity AsKsQdJd 9h9c8h --game omaha", "4 hole cards");
  expect_usage_error("equity AsKsQdJd 9h9c8h8c --game stud", "--game");
}

TEST(PokerCli, EquityErrors) {
  expect_usage_error("equity AhKh", "2 to 10");
  expect_usage_error("equity AhKh AhQd", "Ah");
  expect_usage_error("equity AhKh QsQd --board \"7c 8d 7c\"", "7c");
  expect_usage_error("equity AhKh XyZ", "XyZ");
  expect_usage_error("equity AhKh QsQd --board \"7c 8x\"", "8x");
  expect_usage_error("equity AhKh QsQd --exact --trials 10", "--exact");
  expect_usage_error("equity AA AA AA", "no deal");
  expect_usage_error("equity AA@150 KK", "AA@150");
  expect_usage_error("equity 0% KK", "0%");
}

}  // namespace
