// `fairdeck attack` end to end: a deck dealt by `fairdeck shuffle` is recovered from a few
// of its cards; bad input exits 2 with a one-line reason.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/runtimes/seed_range.hpp"
#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/negative_seeds.hpp"
#include "sanitizer_build.hpp"

namespace fairdeck {
namespace {

using testing::run_cli;

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

TEST(AttackCli, RecoversADeckDealtByShuffle) {
  const auto dealt = run_cli("shuffle --engine delphi --seed 45296789 --algorithm asf1999");
  ASSERT_EQ(dealt.exit_code, 0) << dealt.err;
  const auto deck = words(dealt.out);
  ASSERT_EQ(deck.size(), 52u);
  const std::string known = "0=" + deck[0] + ",1=" + deck[1] + ",2=" + deck[2] + ",3=" + deck[3] + ",4=" + deck[4];
  const auto r = run_cli("attack --seeds 45000000..45500000 --known " + known + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["seeds"], nlohmann::json::array({45296789}));
  EXPECT_EQ(j["decks"][0].get<std::vector<std::string>>(), deck);
  EXPECT_EQ(j["engine"]["name"], "delphi");
  EXPECT_EQ(j["algorithm"], "asf1999");
  EXPECT_EQ(j["seeds_searched"], 500001);
  EXPECT_EQ(j["complete"], true);
  EXPECT_EQ(j["times_of_day"][0], "12:34:56.789");
}

TEST(AttackCli, HoldemSeatShowsEveryHand) {
  const auto dealt = run_cli("shuffle --engine msvc-rand --seed 777 --algorithm naive");
  ASSERT_EQ(dealt.exit_code, 0) << dealt.err;
  const auto d = words(dealt.out);
  // 6 players: seat 3 (third to receive a card) has hole cards at positions 2 and 8; the flop is 13, 14, 15 (burn at 12).
  const std::string args = "attack --engine msvc-rand --algorithm naive --seeds 0..5000 --players 6 --seat 3 --hole \"" +
                           d[2] + " " + d[8] + "\" --flop \"" + d[13] + " " + d[14] + " " + d[15] + "\"";
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("seed 777"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Seat  1: " + d[0] + " " + d[6]), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Seat  6: " + d[5] + " " + d[11]), std::string::npos) << r.out;
  const auto js = run_cli(args + " --json");
  const auto j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["hands"][0]["seats"][4][0], d[4]);
  EXPECT_EQ(j["hands"][0]["river"], d[19]);
}

TEST(AttackCli, RefusesTheSecureEngines) {
  for (const char* e : {"secure", "chacha20"}) {
    const auto r = run_cli(std::string("attack --engine ") + e + " --known 0=Ah --seeds 0..10");
    EXPECT_EQ(r.exit_code, 2) << e;
    EXPECT_NE(r.err.find("2^256"), std::string::npos) << r.err;
  }
}

TEST(AttackCli, BadInputExitsTwoWithAReason) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"attack --known 0=Ah,1=Ah --seeds 0..10", "given twice"},
      {"attack --known 0=Ah,0=Kd --seeds 0..10", "position 0 is given twice"},
      {"attack --known 52=Ah --seeds 0..10", "outside"},
      {"attack --known 0=Zz --seeds 0..10", "Zz"},
      {"attack --known 0Ah --seeds 0..10", "POSITION=CARD"},
      {"attack --seeds 0..10", "at least one known card"},
      {"attack --known 0=Ah --seeds 10..0", "empty"},
      {"attack --known 0=Ah --seeds all32 --engine dotnet", "2^31"},
      {"attack --players 6 --seat 7 --hole \"Ah Kd\" --seeds 0..10", "seat 7"}, {"attack --players 6 --seat 0 --hole \"Ah Kd\" --seeds 0..10", "seat 0"},
      {"attack --players 30 --hole \"Ah Kd\" --seeds 0..10", "--players"},
      {"attack --players 6 --hole \"Ah\" --seeds 0..10", "2 card"},
      {"attack --hole \"Ah Kd\" --seeds 0..10", "--players"},
      {"attack --known 0=Ah --algorithm sort --seeds 0..10", "asf1999, naive and fisher-yates"},
      // Compositions and parameters cannot be replayed: refused, never cut to their first step.
      {"attack --known 0=Ah --algorithm fisher-yates+cut --seeds 0..10", "not the composition"},
      {"attack --known 0=Ah --algorithm asf1999+riffle:3 --seeds 0..10", "not the composition"},
      {"attack --known 0=Ah --algorithm partial:5 --seeds 0..10", "not partial:5"},
      {"attack --known 0=Ah --around 1:2:3", "HH:MM:SS"},
  };
  for (const auto& [args, words] : cases) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(words), std::string::npos) << args << "\n" << r.err;
  }
}

}  // namespace
}  // namespace fairdeck

namespace fairdeck {
namespace {

TEST(AttackCli, AroundSearchesAWindowOfMilliseconds) {
  const auto dealt = testing::run_cli("shuffle --engine delphi --seed 45296789 --algorithm asf1999");
  const auto d = words(dealt.out);
  const std::string known = " --known 0=" + d[0] + ",1=" + d[1] + ",2=" + d[2] + ",3=" + d[3] + ",4=" + d[4];
  auto r = testing::run_cli("attack --around 12:34:50 --window 10 --json" + known);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seed_range"]["first"], 45280000);
  EXPECT_EQ(j["seed_range"]["last"], 45300000);
  EXPECT_EQ(j["seeds"], nlohmann::json::array({45296789}));
  r = testing::run_cli("attack --around 00:00:00.500 --window 1 --json" + known);
  ASSERT_EQ(r.exit_code, 4) << r.err;  // no seed fits: not a recovery
  j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seed_range"]["first"], 0);  // the window stops at midnight
  EXPECT_EQ(j["seed_range"]["last"], 1500);
  for (const char* bad : {"attack --around 25:00:00 --known 0=Ah", "attack --around 12:00:00.5 --known 0=Ah",
                          "attack --around 12:00 --known 0=Ah", "attack --around 12:00:00 --seeds day --known 0=Ah",
                          "attack --around 12:00:00 --window -1 --known 0=Ah"})
    EXPECT_EQ(testing::run_cli(bad).exit_code, 2) << bad;
}

}  // namespace
}  // namespace fairdeck

namespace fairdeck {
namespace {

// Security review #12, item 4: chance matches are not recoveries.
TEST(AttackCli, ChanceMatchesAreLabelledAndExitFour) {
  // Five known cards over a whole day expect 0.277 chance matches: even the README's five
  // cards of a real delphi deal, which find exactly the true seed, cannot be told apart from
  // the one-in-four secure decks that "recover" some wrong seed (the review's finding).
  // (A tenth of the day keeps the test fast: 0.0321 expected, still above the 0.01 threshold.
  // Under the sanitizers, 4·10^6 seeds around the true one: 0.0128 expected, still above it.)
  const double seeds = FAIRDECK_SLOW_BUILD ? 4e6 : 1e7;
  const std::string five = std::string(FAIRDECK_SLOW_BUILD ? " --seeds 44000000..47999999" : " --seeds 40000000..49999999") +
                           " --known 0=2d,1=5h,2=4h,3=Ad,4=Tc";
  auto r = testing::run_cli("attack --json" + five);
  ASSERT_EQ(r.exit_code, 4) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j["expected_by_chance"].get<double>(), seeds / 311875200.0, 1e-6);
  EXPECT_TRUE(j["likely_coincidence"].get<bool>());
  EXPECT_FALSE(j["confident"].get<bool>());
  ASSERT_GE(j["candidates"].size(), 1u);
  for (const auto& c : j["candidates"]) EXPECT_TRUE(c["likely_coincidence"].get<bool>());
  r = testing::run_cli("attack" + five);
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_NE(r.out.find("add a known card"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("likely a coincidence"), std::string::npos) << r.out;

  // The sixth card (the README example) makes chance matches unlikely: a confident recovery.
  // (10^6 seeds around the true one: the expected count only falls.)
  r = testing::run_cli("attack --json --seeds 45000000..45999999 --known 0=2d,1=5h,2=4h,3=Ad,4=Tc,5=6s");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  j = nlohmann::json::parse(r.out);
  EXPECT_LT(j["expected_by_chance"].get<double>(), 0.01);
  EXPECT_TRUE(j["confident"].get<bool>());
  ASSERT_EQ(j["candidates"].size(), 1u);
  EXPECT_EQ(j["candidates"][0]["seed"], 45296789);
  EXPECT_FALSE(j["candidates"][0]["likely_coincidence"].get<bool>());
}

TEST(AttackCli, SecureDecksNeverRecoverConfidently) {
  // Secure decks against a million delphi seeds with two known cards: matches are expected
  // by the hundreds (377), and the attack must never call one a recovery.
  for (int i = 0; i < 3; ++i) {
    const auto dealt = testing::run_cli("shuffle");
    const auto d = words(dealt.out);
    ASSERT_EQ(d.size(), 52u);
    const auto r = testing::run_cli("attack --json --limit 5 --seeds 0..999999 --known 0=" + d[0] + ",1=" + d[1]);
    ASSERT_EQ(r.exit_code, 4) << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_FALSE(j["confident"].get<bool>());
    for (const auto& c : j["candidates"]) EXPECT_TRUE(c["likely_coincidence"].get<bool>());
  }
}

TEST(AttackParsers, KnownTimeAndAlgorithm) {
  EXPECT_EQ(parse_time_of_day("12:34:56.789"), 45296789u);
  EXPECT_EQ(parse_time_of_day("00:00:00"), 0u);
  for (const char* bad : {"1:2:3", "12:34:56.78", "24:00:00", "12:60:00", "12:34:56.7890", "12:34:5x", "+1:00:00"})
    EXPECT_THROW((void)parse_time_of_day(bad), std::invalid_argument) << bad;
  EXPECT_EQ(parse_known_cards(" 0=Ah , 20=7c,").size(), 2u);
  EXPECT_EQ(parse_attack_algorithm("knuth"), shuffle_kind::fisher_yates);
  EXPECT_THROW((void)parse_attack_algorithm("naive+naive"), std::invalid_argument);
  // Raw terminal control bytes never reach an error message.
  try {
    (void)parse_known_cards("0=\x1b]0;owned\x07");
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.find('\x1b'), std::string::npos) << what;
    EXPECT_EQ(what.find('\x07'), std::string::npos) << what;
    EXPECT_NE(what.find("\\x1b"), std::string::npos) << what;
  }
}

// Issue #27 item 19: Java's seeds are signed longs and new Random(S) keeps S mod 2^48; .NET's
// are signed ints and new Random(S) uses |S|. Negative seeds were refused with no hint.
TEST(AttackParsers, NegativeSeedsAsTheRuntimesReadThem) {
  using runtimes::runtime_id;
  constexpr std::uint64_t m48 = (std::uint64_t{1} << 48) - 1;
  auto r = parse_seed_range("-5..-1", runtime_id::java);
  EXPECT_EQ(r.first, m48 - 4);
  EXPECT_EQ(r.last, m48);
  r = parse_seed_range("-1", runtime_id::java);
  EXPECT_EQ(r.first, m48);
  r = parse_seed_range("-9223372036854775808", runtime_id::java);  // Long.MIN_VALUE = 2^63: 0 mod 2^48
  EXPECT_EQ(r.first, 0u);
  r = parse_seed_range("-5..-1", engine_id::java);  // the java engine too
  EXPECT_EQ(r.first, m48 - 4);
  try {
    (void)parse_seed_range("-10..10", runtime_id::java);
    ADD_FAILURE();
  } catch (const std::invalid_argument& e) {  // both halves named
    EXPECT_NE(std::string(e.what()).find("-10..-1 is 281474976710646..281474976710655; search it and 0..10"),
              std::string::npos) << e.what();
  }
  r = parse_seed_range("-5..-1", runtime_id::dotnet_framework);
  EXPECT_EQ(r.first, 1u);
  EXPECT_EQ(r.last, 5u);
  r = parse_seed_range("-7..3", runtime_id::dotnet_framework_orderby);
  EXPECT_EQ(r.first, 0u);
  EXPECT_EQ(r.last, 7u);
  r = parse_seed_range("-2147483648", runtime_id::dotnet_framework);  // int.MinValue: int.MaxValue
  EXPECT_EQ(r.first, 2147483647u);
  EXPECT_THROW((void)parse_seed_range("-2147483649", runtime_id::dotnet_framework), std::invalid_argument);
  EXPECT_THROW((void)parse_seed_range("-5..-1", runtime_id::php), std::invalid_argument);
  EXPECT_THROW((void)parse_seed_range("-5", engine_id::delphi), std::invalid_argument);
  EXPECT_FALSE(negative_seed_note("5..9", runtime_id::java));
  EXPECT_NE(negative_seed_note("-5..-1", runtime_id::java).value_or("").find("seeds 281474976710651..281474976710655"),
            std::string::npos);
}

TEST(AttackCli, RecoversANegativeJavaSeed) {
  // Collections.shuffle(list, new Random(-123456789L)): --seed takes the signed value.
  const auto dealt = run_cli("shuffle --algorithm java --seed -123456789");
  ASSERT_EQ(dealt.exit_code, 0) << dealt.err;
  const auto deck = words(dealt.out);
  ASSERT_EQ(deck.size(), 52u);
  EXPECT_EQ(run_cli("shuffle --algorithm java --seed 18446744073586094827").out, dealt.out);  // 2^64 - 123456789
  std::string known;
  for (std::size_t i = 0; i < 6; ++i) {
    if (i > 0) known += ',';
    known += std::to_string(i);
    known += '=';
    known += deck[i];
  }
  const auto r = run_cli("attack --algorithm java --seeds=-123456800..-123456780 --known " + known + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seeds"], nlohmann::json::array({(std::uint64_t{1} << 48) - 123456789}));
  EXPECT_NE(r.err.find("keeps S mod 2^48"), std::string::npos) << r.err;
  // The java engine takes it too; other generators refuse a negative seed, naming Java's rule.
  EXPECT_EQ(run_cli("random --engine java --seed -5 --count 3").out,
            run_cli("random --engine java --seed 18446744073709551611 --count 3").out);
  for (const char* args : {"shuffle --seed -1", "shuffle --engine pcg64 --seed -5", "shuffle --algorithm python --seed -5"}) {
    const auto bad = run_cli(args);
    EXPECT_EQ(bad.exit_code, 2) << args;
    EXPECT_NE(bad.err.find("only Java's seeds are signed"), std::string::npos) << args << bad.err;
  }
}

// Issue #27 item 19: "node takes a seed in [0, 4294967295]" and "give a seed in [1, 4294967295]"
// contradicted each other; there is one range and one text.
TEST(AttackCli, NodeSeedRangeIsOneRange) {
  const auto zero = run_cli("shuffle --algorithm node --seed 0");
  const auto big = run_cli("shuffle --algorithm node --seed 4294967296");
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_EQ(big.exit_code, 2);
  for (const auto* r : {&zero, &big}) {
    EXPECT_NE(r->err.find("node takes a seed in [1, 4294967295]"), std::string::npos) << r->err;
    EXPECT_EQ(r->err.find("[0, 4294967295]"), std::string::npos) << r->err;
  }
  EXPECT_NE(zero.err.find("0 means an unseeded"), std::string::npos) << zero.err;
  EXPECT_EQ(runtimes::min_seed(runtimes::runtime_id::node_sort), 1u);
  EXPECT_EQ(runtimes::min_seed(runtimes::runtime_id::java), 0u);
  EXPECT_EQ(run_cli("shuffle --algorithm node --seed 1").exit_code, 0);
}

}  // namespace
}  // namespace fairdeck
