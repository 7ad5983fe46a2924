// Security review #12, item 6: "fair" needs an exact algorithm AND exact bounded draws.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/shuffle/fairness.hpp"

namespace {

using namespace fairdeck;

TEST(ShuffleFairness, OwnEnginesDrawExactly) {
  for (auto id : {engine_id::secure, engine_id::chacha20, engine_id::xoshiro256pp, engine_id::pcg64,
                  engine_id::mt19937_64, engine_id::java})
    EXPECT_TRUE(draw_quality(id, 52'000).exact) << info(id).name;
  EXPECT_TRUE(assess_fairness(parse_shuffle_spec("fisher-yates"), engine_id::xoshiro256pp, 52'000).fair);
}

TEST(ShuffleFairness, LegacyMappingsAreBiased) {
  for (auto id : {engine_id::glibc_rand, engine_id::msvc_rand, engine_id::delphi, engine_id::dotnet,
                  engine_id::mt19937, engine_id::minstd}) {
    const auto q = draw_quality(id, 52);
    EXPECT_FALSE(q.exact) << info(id).name;
    EXPECT_NE(q.bias.find(info(id).name), std::string::npos) << q.bias;
    EXPECT_FALSE(assess_fairness(parse_shuffle_spec("fisher-yates"), id, 52).fair);
  }
  // msvc: 15-bit outputs; a 1000-deck shoe asks for bounds up to 52,000.
  const auto big = draw_quality(engine_id::msvc_rand, 52'000);
  EXPECT_NE(big.bias.find("32768"), std::string::npos) << big.bias;
  EXPECT_NE(big.bias.find("never"), std::string::npos) << big.bias;
  // 2^15 % 52 = 8: some indices get 631 outputs, others 630: 1/630 = 0.159% more likely.
  EXPECT_NE(draw_quality(engine_id::msvc_rand, 52).bias.find("0.159%"), std::string::npos);
  // A sort step draws whole 64-bit keys: fair on any engine.
  EXPECT_TRUE(assess_fairness(parse_shuffle_spec("sort"), engine_id::msvc_rand, 52'000).fair);
  EXPECT_FALSE(assess_fairness(parse_shuffle_spec("naive"), engine_id::xoshiro256pp, 52).fair);
}

TEST(ShuffleFairness, CliReportsBiasedLegacyShoeAsUnfair) {
  using fairdeck::testing::run_cli;
  const auto r = run_cli("shuffle --engine msvc-rand --seed 1 --decks 1000 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(nlohmann::json::parse(r.out)["fair"].get<bool>());
  EXPECT_NE(r.err.find("warning: engine msvc-rand"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("32768"), std::string::npos) << r.err;

  const auto java = run_cli("shuffle --engine java --seed 1 --decks 1000 --json");
  ASSERT_EQ(java.exit_code, 0) << java.err;
  EXPECT_TRUE(nlohmann::json::parse(java.out)["fair"].get<bool>());
  EXPECT_EQ(java.err.find("warning"), std::string::npos) << java.err;

  const auto deal = run_cli("deal --hands 2 --cards 2 --engine glibc-rand --seed 1");
  EXPECT_EQ(deal.exit_code, 0);
  EXPECT_NE(deal.err.find("warning: engine glibc-rand draws with rand() % n"), std::string::npos) << deal.err;
}

}  // namespace
