// fairdeck::run_attack: recovers planted seeds exactly (the SIMD filter is checked against
// a brute-force replay with the reference shuffle), refuses what cannot be attacked.
#include <gtest/gtest.h>

#include <atomic>
#include <string>

#include "fairdeck/cards/deal.hpp"
#include "fairdeck/security/attack.hpp"

namespace fairdeck {
namespace {

std::vector<std::uint64_t> brute_force(const attack_spec& spec) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t s = spec.first_seed; s <= spec.last_seed; ++s) {
    const auto deck = deck_for_seed(spec.engine, spec.algorithm, s, spec.deck_size);
    bool ok = true;
    for (const auto& k : spec.known) ok = ok && deck[k.position] == k.card;
    if (ok) out.push_back(s);
  }
  return out;
}

attack_spec planted(engine_id engine, shuffle_kind algo, std::uint64_t seed, std::uint64_t radius,
                    std::vector<std::size_t> positions) {
  attack_spec spec;
  spec.engine = engine;
  spec.algorithm = algo;
  spec.first_seed = seed - radius;
  spec.last_seed = seed + radius;
  const auto deck = deck_for_seed(engine, algo, seed);
  for (std::size_t p : positions) spec.known.push_back({p, deck[p]});
  return spec;
}

struct attack_case {
  engine_id engine;
  std::uint64_t seed;
  std::uint64_t radius;
};

class AttackEveryEngine : public ::testing::TestWithParam<attack_case> {};

TEST_P(AttackEveryEngine, FindsThePlantedSeedAndExactlyTheBruteForceMatches) {
  const auto& c = GetParam();
  for (shuffle_kind algo : {shuffle_kind::asf1999, shuffle_kind::naive, shuffle_kind::fisher_yates}) {
    // Five known cards: the planted seed is found, and nothing else is reported wrongly.
    auto spec = planted(c.engine, algo, c.seed, c.radius, {0, 1, 2, 3, 4});
    auto r = run_attack(spec);
    EXPECT_TRUE(r.complete);
    EXPECT_EQ(r.seeds_searched, 2 * c.radius + 1);
    EXPECT_NE(std::ranges::find(r.seeds, c.seed), r.seeds.end()) << info(algo).name;
    EXPECT_EQ(r.seeds, brute_force(spec)) << info(algo).name;
    // One known card deep in the deck: many matches, so the filter's every lane and the
    // range tail are exercised against the reference.
    spec = planted(c.engine, algo, c.seed, c.radius, {37});
    r = run_attack(spec);
    const auto expected = brute_force(spec);
    EXPECT_EQ(r.matches, expected.size()) << info(algo).name;
    EXPECT_EQ(r.seeds, expected) << info(algo).name;
    EXPECT_GT(r.matches, 10u);
  }
}

INSTANTIATE_TEST_SUITE_P(Legacy, AttackEveryEngine,
                         ::testing::Values(attack_case{engine_id::delphi, 45'296'789, 3000},
                                           attack_case{engine_id::msvc_rand, 1'234'567, 3000},
                                           attack_case{engine_id::minstd, 99'999, 3000},
                                           attack_case{engine_id::glibc_rand, 2'000'000'000, 700},
                                           attack_case{engine_id::java, 42'000, 1500},
                                           attack_case{engine_id::dotnet, 777'777, 700},
                                           attack_case{engine_id::mt19937, 5489, 400},
                                           attack_case{engine_id::xoshiro256pp, 1'000'000, 1500}),
                         [](const auto& i) {
                           std::string n(fairdeck::info(i.param.engine).name);
                           std::erase(n, '-');
                           return n;
                         });

TEST(Attack, HoldemSeatAndFlopRecoverTheWholeTable) {
  // The 1999 scenario: a player sees two hole cards and the flop and learns every hand.
  const std::uint64_t seed = 12 * 3'600'000 + 34 * 60'000 + 56'789;  // Randomize at 12:34:56.789
  const auto deck = deck_for_seed(engine_id::delphi, shuffle_kind::asf1999, seed);
  const holdem_layout at{10};
  attack_spec spec;  // defaults: delphi, asf1999, every millisecond of the day
  spec.first_seed = seed - 60'000;
  spec.last_seed = seed + 60'000;  // a minute of clock error either way
  spec.known = {{at.hole(3, 0), deck[at.hole(3, 0)]}, {at.hole(3, 1), deck[at.hole(3, 1)]},
                {at.flop(0), deck[at.flop(0)]},       {at.flop(1), deck[at.flop(1)]},
                {at.flop(2), deck[at.flop(2)]}};
  const auto r = run_attack(spec);
  ASSERT_EQ(r.seeds, std::vector<std::uint64_t>{seed});
  EXPECT_EQ(deck_for_seed(spec.engine, spec.algorithm, r.seeds[0]), deck);
}

TEST(Attack, ThreadCountDoesNotChangeTheAnswer) {
  auto spec = planted(engine_id::delphi, shuffle_kind::naive, 5'000'000, 300'000, {51});
  spec.threads = 1;
  const auto one = run_attack(spec);
  spec.threads = 2;
  const auto two = run_attack(spec);
  EXPECT_EQ(one.seeds, two.seeds);
  EXPECT_EQ(one.matches, two.matches);
}

TEST(Attack, ReportsTheLowestSeedsAndCountsAll) {
  auto spec = planted(engine_id::delphi, shuffle_kind::fisher_yates, 100'000, 50'000, {10});
  spec.max_reported = 5;
  const auto r = run_attack(spec);
  ASSERT_EQ(r.seeds.size(), 5u);
  EXPECT_GT(r.matches, 1000u);  // about 100001 / 52
  const auto all = brute_force(spec);
  EXPECT_EQ(r.matches, all.size());
  EXPECT_EQ(r.seeds, std::vector<std::uint64_t>(all.begin(), all.begin() + 5));
}

TEST(Attack, StopsWhenAsked) {
  std::atomic<bool> stop{true};
  run_control ctl;
  ctl.stop = &stop;
  auto spec = planted(engine_id::delphi, shuffle_kind::asf1999, 1'000'000, 1'000'000, {0, 1});
  const auto r = run_attack(spec, ctl);
  EXPECT_FALSE(r.complete);
  EXPECT_LT(r.seeds_searched, 2'000'001u);
}

TEST(Attack, ReportsProgressUpToTheTotal) {
  std::uint64_t last_done = 0, last_total = 0;
  run_control ctl;
  ctl.on_progress = [&](std::uint64_t d, std::uint64_t t) {
    EXPECT_GE(d, last_done);
    last_done = d;
    last_total = t;
  };
  auto spec = planted(engine_id::delphi, shuffle_kind::asf1999, 1'000'000, 400'000, {0, 1});
  spec.threads = 2;
  (void)run_attack(spec, ctl);
  EXPECT_EQ(last_total, 800'001u);
  EXPECT_EQ(last_done, 800'001u);
}

TEST(Attack, RefusesSecureEnginesExplainingTheKeySpace) {
  for (engine_id e : {engine_id::secure, engine_id::chacha20}) {
    attack_spec spec;
    spec.engine = e;
    spec.known = {{0, 0}};
    try {
      validate(spec);
      FAIL() << "accepted " << info(e).name;
    } catch (const std::invalid_argument& ex) {
      EXPECT_NE(std::string(ex.what()).find("2^256"), std::string::npos) << ex.what();
    }
  }
}

TEST(Attack, BadKnownCardsAreClearErrors) {
  auto expect_error = [](std::vector<known_card> known, const char* words) {
    attack_spec spec;
    spec.known = std::move(known);
    try {
      validate(spec);
      FAIL() << "accepted; wanted: " << words;
    } catch (const std::invalid_argument& ex) {
      EXPECT_NE(std::string(ex.what()).find(words), std::string::npos) << ex.what();
    }
  };
  expect_error({}, "at least one known card");
  expect_error({{0, 5}, {1, 5}}, "given twice");
  expect_error({{3, 5}, {3, 6}}, "position 3 is given twice");
  expect_error({{52, 5}}, "outside the 52-card deck");
  expect_error({{51, 51}}, "never leave");  // asf1999: the last card can never stay last
}

TEST(Attack, SeedRangesAreCheckedAgainstTheEngine) {
  EXPECT_EQ(parse_seed_range("day", engine_id::delphi).last, ms_per_day - 1);
  EXPECT_EQ(parse_seed_range("all32", engine_id::delphi).last, 0xffffffffu);
  EXPECT_EQ(parse_seed_range("all", engine_id::dotnet).last, 0x7fffffffu);
  EXPECT_EQ(parse_seed_range("10..20", engine_id::delphi).first, 10u);
  EXPECT_EQ(parse_seed_range("7", engine_id::delphi).last, 7u);
  EXPECT_THROW((void)parse_seed_range("20..10", engine_id::delphi), std::invalid_argument);
  EXPECT_THROW((void)parse_seed_range("x..10", engine_id::delphi), std::invalid_argument);
  EXPECT_THROW((void)parse_seed_range("all", engine_id::java), std::invalid_argument);
  attack_spec spec;
  spec.engine = engine_id::dotnet;
  spec.known = {{0, 0}};
  spec.last_seed = 0xffffffffu;
  EXPECT_THROW(validate(spec), std::invalid_argument);  // dotnet seeds stop at 2^31
  spec.engine = engine_id::delphi;
  spec.algorithm = shuffle_kind::sort;
  EXPECT_THROW(validate(spec), std::invalid_argument);
}

TEST(Attack, ExpectedFalseMatchesFollowTheArithmetic) {
  attack_spec spec;  // 86.4M seeds
  spec.known = {{0, 0}, {1, 1}, {2, 2}, {3, 3}, {4, 4}};
  EXPECT_NEAR(expected_false_matches(spec), 86'400'000.0 / (52.0 * 51 * 50 * 49 * 48), 1e-9);
}

}  // namespace
}  // namespace fairdeck

namespace fairdeck {
namespace {

TEST(Attack, GlibcSeedsAboveTwoToThe31AndZero) {
  // glibc stores the seed as a negative int32 and maps srand(0) to srand(1): the lane model
  // must agree with the reference on both edges.
  for (std::uint64_t seed : {std::uint64_t{3'000'000'000}, std::uint64_t{0x80000000}, std::uint64_t{300}}) {
    auto spec = planted(engine_id::glibc_rand, shuffle_kind::fisher_yates, seed, 300, {5});
    const auto r = run_attack(spec);
    EXPECT_EQ(r.seeds, brute_force(spec)) << seed;
  }
}

}  // namespace
}  // namespace fairdeck

namespace fairdeck {
namespace {

TEST(Attack, JavaRejectionLoopIsHandledExactly) {
  // nextInt(bound) redraws when next(31) falls in the incomplete last block (probability
  // (2^31 mod bound) / 2^31 per draw). Fisher-Yates on 60000 cards draws with bounds up to
  // 60000, so many seeds hit a redraw somewhere: the lanes that cannot follow it must still
  // be found.
  constexpr std::size_t n = 60000;
  auto redraws = [&](std::uint64_t seed) {
    java_random replay(seed);
    for (std::uint32_t bound = n; bound > 1; --bound) {
      const std::uint32_t r = replay.next(31);
      if ((bound & (bound - 1)) != 0 && std::uint64_t{r} - r % bound + (bound - 1) > 0x7fffffffu) return true;
    }
    return false;
  };
  std::uint64_t planted_seed = 0;
  while (!redraws(planted_seed)) ++planted_seed;  // about 4 seeds in 10 redraw at n = 60000
  ASSERT_LT(planted_seed, 30u);
  attack_spec spec;
  spec.engine = engine_id::java;
  spec.algorithm = shuffle_kind::fisher_yates;
  spec.deck_size = n;
  spec.first_seed = 0;
  spec.last_seed = 40;
  const auto deck = deck_for_seed(spec.engine, spec.algorithm, planted_seed, n);
  spec.known = {{0, deck[0]}};  // position 0 is settled by the very last draw
  const auto r = run_attack(spec);
  EXPECT_EQ(r.seeds, brute_force(spec));
  EXPECT_NE(std::ranges::find(r.seeds, planted_seed), r.seeds.end());
}

}  // namespace
}  // namespace fairdeck
