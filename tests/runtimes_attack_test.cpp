// Seed searches against the runtime shuffles (security/runtime_attack.hpp): the PHP and Go
// filters against their references seed for seed, planted seeds recovered from a few cards,
// chance matches judged as the legacy attack judges them, and the CLI around it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"
#include "fairdeck/security/runtime_attack.hpp"

namespace fairdeck {
namespace {

using runtimes::runtime_id;
using testing::run_cli;

std::vector<std::uint32_t> php_deck(std::uint32_t seed) {
  std::vector<std::uint32_t> v(52);
  std::iota(v.begin(), v.end(), 0u);
  runtimes::runtime_shuffler(runtime_id::php, seed).shuffle(v);
  return v;
}

std::vector<std::uint32_t> parse_list(const std::string& text) {
  std::istringstream in(text);
  std::vector<std::uint32_t> v;
  for (std::uint32_t x; in >> x;) v.push_back(x);
  return v;
}

TEST(RuntimeAttackPhp, ShuffleMatchesPhp82) {
  // php -r 'mt_srand(S); $a = range(0, 51); shuffle($a); echo implode(" ", $a);' (PHP 8.2.x).
  EXPECT_EQ(php_deck(0), parse_list("8 30 40 34 20 13 49 24 7 31 10 22 12 43 25 18 27 1 44 50 35 29 2 32 47 39 14 4 26 11 9 6 38 37 41 0 15 46 21 36 5 48 42 17 28 45 51 19 23 33 3 16"));
  EXPECT_EQ(php_deck(1), parse_list("49 22 48 34 13 12 1 15 38 20 46 29 33 28 18 39 17 44 51 7 27 6 10 5 2 8 40 23 4 50 14 35 19 0 47 30 16 9 43 36 42 32 37 11 41 21 25 31 3 24 26 45"));
  EXPECT_EQ(php_deck(0xffffffffu), parse_list("17 43 20 8 44 47 1 7 15 12 6 3 42 30 50 19 24 33 51 45 0 5 16 4 9 40 28 25 14 38 34 23 46 22 13 27 11 29 32 2 41 31 21 37 39 48 49 36 10 26 18 35"));  // mt_srand(-1) and mt_srand(4294967295)
}

// Every seed of [first, first + count) whose reference deck puts the tracked cards on target
// must pass the filter; the filter may add only doubtful seeds (a possible rejection).
template <class Deck>
void check_filter(detail::seed_scanner scan, std::uint64_t first, std::uint64_t count, Deck deck) {
  ASSERT_NE(scan, nullptr);
  const auto steps = detail::swap_steps(shuffle_kind::fisher_yates, 52);
  // Loose targets (card 7 anywhere in 0..3, card 30 at 12) so that many seeds match.
  for (std::uint32_t target : {0u, 1u, 2u, 3u}) {
    const detail::scan_plan plan{steps.data(), steps.size(), {7, 30}, {target, 12}};
    std::vector<std::uint64_t> got;
    scan(first, count, plan, got);
    std::vector<std::uint64_t> want;
    for (std::uint64_t s = first; s < first + count; ++s) {
      const auto d = deck(s);
      if (d[target] == 7 && d[12] == 30) want.push_back(s);
    }
    EXPECT_FALSE(want.empty());
    EXPECT_TRUE(std::ranges::includes(got, want)) << "the filter lost a matching seed";
    EXPECT_LE(got.size(), want.size() + 2) << "too many doubtful seeds";
  }
}

TEST(RuntimeAttackPhp, FilterAgreesWithTheReferenceSeedForSeed) {
  check_filter(detail::php_scanner(51), 4'000'000'000u - 10'007, 20'000,
               [](std::uint64_t s) { return php_deck(static_cast<std::uint32_t>(s)); });
  check_filter(detail::php_scanner(51), 0, 3'000, [](std::uint64_t s) { return php_deck(static_cast<std::uint32_t>(s)); });
}

// Every kernel this CPU can run (baseline, AVX2, AVX-512) finds exactly the same seeds,
// doubtful ones included, for plans of every length the filter takes, and each agrees with
// the reference (check_filter).
TEST(RuntimeAttackPhp, EveryKernelFindsTheSameSeeds) {
  const auto kernels = detail::php_kernels();
  ASSERT_FALSE(kernels.empty());
  auto deck = [](std::uint64_t s) { return php_deck(static_cast<std::uint32_t>(s)); };
  for (const auto& k : kernels) {
    SCOPED_TRACE(k.isa);
    check_filter(k.scan, 0xffffffffu - 5'000, 5'001, deck);  // the end of the space, a partial block
  }
  const auto steps = detail::swap_steps(shuffle_kind::fisher_yates, 52);
  for (std::size_t count : {1u, 2u, 13u, 51u}) {  // 51: the whole deck; shorter plans: top cards only
    const detail::scan_plan plan{steps.data(), count, {51, 3}, {3, 51}};
    std::vector<std::uint64_t> want;
    kernels[0].scan(123'456'789, 20'000, plan, want);
    EXPECT_FALSE(want.empty()) << count;
    for (const auto& k : kernels) {
      std::vector<std::uint64_t> got;
      k.scan(123'456'789, 20'000, plan, got);
      EXPECT_EQ(got, want) << k.isa << ", " << count << " draws";
    }
  }
  // The longest plan the filter takes, on a 300-card deck: bounds 300..75, so the bounds above
  // 256 (64-bit quotient), up to 256 (float quotient) and 256 and 128 (masked) all occur.
  std::vector<detail::swap_step> long_steps;
  for (std::uint32_t i = 300; i > 300 - 226; --i) long_steps.push_back({i - 1, i});
  const detail::scan_plan plan{long_steps.data(), long_steps.size(), {5, 7}, {9, 11}};
  std::vector<std::uint64_t> want;
  kernels[0].scan(0, 4'096, plan, want);
  for (const auto& k : kernels) {
    std::vector<std::uint64_t> got;
    k.scan(0, 4'096, plan, got);
    EXPECT_EQ(got, want) << k.isa;
  }
}

// The filter drops a lane once a tracked card has settled off its target (positions at and
// above the last draw's i are final) and makes the remaining draws of the lanes left in a queue.
// For targets settled at the first draws, in the middle and by the last draws, and one card
// tracked alone or three, every kernel keeps exactly the seeds whose reference deck matches.
TEST(RuntimeAttackPhp, LanesDroppedEarlyLoseNoMatch) {
  const auto steps = detail::swap_steps(shuffle_kind::fisher_yates, 52);
  struct tracked {
    std::uint32_t card[2], target[2];
  };
  const std::uint64_t first = 2'000'000'000u - 77, count = 30'011;
  std::vector<std::vector<std::uint32_t>> decks;
  for (std::uint64_t s = first; s < first + count; ++s) decks.push_back(php_deck(static_cast<std::uint32_t>(s)));
  for (const tracked& t : {tracked{{7, 30}, {51, 50}}, tracked{{7, 30}, {0, 1}}, tracked{{7, 30}, {26, 0}},
                           tracked{{51, 0}, {45, 3}}, tracked{{9, 9}, {40, 40}}}) {
    const detail::scan_plan plan{steps.data(), steps.size(), {t.card[0], t.card[1]}, {t.target[0], t.target[1]}};
    std::vector<std::uint64_t> want;
    for (std::uint64_t s = first; s < first + count; ++s) {
      const auto& d = decks[s - first];
      if (d[t.target[0]] == t.card[0] && d[t.target[1]] == t.card[1]) want.push_back(s);
    }
    EXPECT_GE(want.size(), t.card[0] == t.card[1] ? 400u : 5u) << t.target[0] << ", " << t.target[1];
    for (const auto& k : detail::php_kernels()) {
      std::vector<std::uint64_t> got;
      k.scan(first, count, plan, got);
      EXPECT_EQ(got, want) << k.isa << ": targets " << t.target[0] << ", " << t.target[1];
    }
  }
  // Three tracked cards (scan_plan's third): each plan is a deck of the range's own, on three
  // positions that settle early, late or both.
  for (const std::uint64_t planted : {first + 5, first + 20'000}) {
    const auto& d = decks[planted - first];
    for (const auto& p : {std::array<std::uint32_t, 3>{0, 1, 2}, std::array<std::uint32_t, 3>{51, 50, 0},
                          std::array<std::uint32_t, 3>{0, 25, 51}}) {
      detail::scan_plan plan{steps.data(), steps.size(), {d[p[0]], d[p[1]]}, {p[0], p[1]}};
      plan.third_start = d[p[2]];
      plan.third_target = p[2];
      std::vector<std::uint64_t> want;
      for (std::uint64_t s = first; s < first + count; ++s) {
        const auto& e = decks[s - first];
        if (e[p[0]] == d[p[0]] && e[p[1]] == d[p[1]] && e[p[2]] == d[p[2]]) want.push_back(s);
      }
      ASSERT_TRUE(std::ranges::binary_search(want, planted));
      for (const auto& k : detail::php_kernels()) {
        std::vector<std::uint64_t> got;
        k.scan(first, count, plan, got);
        EXPECT_EQ(got, want) << k.isa << ": three cards, positions " << p[0] << ", " << p[1] << ", " << p[2];
      }
    }
  }
}

// The filter cannot follow a shuffle that meets PHP's rejection (an output above the limit is
// drawn again, so every later draw shifts): such a seed is passed on as doubtful, so that its
// real deck is checked, by every kernel, whether the rejection comes before the lanes are
// thinned out or after. These seeds were found by replaying rand_range32: 5257882 rejects an
// output at n_left = 20, 8153190 at 44, 8236919 at 38.
TEST(RuntimeAttackPhp, SeedsThatMeetARejectionArePassedOnAsDoubtful) {
  const auto steps = detail::swap_steps(shuffle_kind::fisher_yates, 52);
  for (std::uint32_t seed : {5'257'882u, 8'153'190u, 8'236'919u}) {
    const auto d = php_deck(seed);
    for (const auto& [p, q] : {std::pair{0u, 1u}, std::pair{0u, 51u}, std::pair{2u, 49u}, std::pair{30u, 20u}}) {
      const detail::scan_plan plan{steps.data(), steps.size(), {d[p], d[q]}, {p, q}};
      for (const auto& k : detail::php_kernels()) {
        std::vector<std::uint64_t> got;
        k.scan(seed - 70, 200, plan, got);
        EXPECT_TRUE(std::ranges::binary_search(got, std::uint64_t{seed})) << k.isa << ", seed " << seed << ", " << p;
      }
    }
  }
}

TEST(RuntimeAttackGo, FilterAgreesWithTheEmulationSeedForSeed) {
  auto deck = [](std::uint64_t s) { return runtime_deck(runtime_id::go, s, 52); };
  check_filter(detail::go_scanner(51), 0, 12'000, deck);
  check_filter(detail::go_scanner(51), 0x7fffffffu - 30'000, 30'000, deck);  // ends at the last state
}

TEST(RuntimeAttack, JavaAndDotnetIdiomsAreTheFisherYatesLoopOnTheLegacyEngines) {
  // The search reuses the java / dotnet lane models: that is only sound if the runtimes'
  // shuffles are fairdeck's fisher-yates on those engines.
  for (std::uint64_t s : {0ull, 1ull, 1'700'000'000'123ull, 0xffffffffffffull})
    EXPECT_EQ(runtime_deck(runtime_id::java, s, 52), deck_for_seed(engine_id::java, shuffle_kind::fisher_yates, s));
  for (std::uint64_t s : {0ull, 1ull, 86'400'000ull, 0x7fffffffull})
    EXPECT_EQ(runtime_deck(runtime_id::dotnet_framework, s, 52),
              deck_for_seed(engine_id::dotnet, shuffle_kind::fisher_yates, s));
}

attack_spec planted(runtime_id id, std::uint64_t seed, std::uint64_t first, std::uint64_t last, std::size_t cards) {
  attack_spec spec;
  spec.runtime = id;
  spec.first_seed = first;
  spec.last_seed = last;
  const auto deck = runtime_deck(id, seed, 52);
  for (std::size_t p = 0; p < cards; ++p) spec.known.push_back({p, deck[p]});  // the top cards, as dealt
  spec.threads = 2;
  return spec;
}

void expect_recovered(const attack_spec& spec, std::uint64_t seed) {
  const attack_result r = run_attack(spec);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.seeds, std::vector<std::uint64_t>{seed});
  EXPECT_EQ(r.matches, 1u);
  EXPECT_EQ(r.seeds_searched, spec.last_seed - spec.first_seed + 1);
  const attack_verdict v = judge(spec, r);
  EXPECT_TRUE(v.confident) << v.advice;
  EXPECT_FALSE(v.likely_coincidence);
}

TEST(RuntimeAttack, RecoversPlantedSeeds) {
  expect_recovered(planted(runtime_id::php, 3'000'000'123u, 2'999'900'000u, 3'000'100'000u, 5), 3'000'000'123u);
  expect_recovered(planted(runtime_id::go, 123'456'789, 123'400'000, 123'500'000, 5), 123'456'789);
  expect_recovered(planted(runtime_id::java, 1'700'000'000'123ull, 1'699'999'970'000ull, 1'700'000'030'000ull, 5),
                   1'700'000'000'123ull);
  expect_recovered(planted(runtime_id::dotnet_framework, 86'400'123, 86'300'000, 86'500'000, 5), 86'400'123);
  // No filter for OrderBy: every seed is replayed whole.
  expect_recovered(planted(runtime_id::dotnet_framework_orderby, 5'000'321, 5'000'000, 5'003'000, 5), 5'000'321);
}

TEST(RuntimeAttack, OneCardOverAWideRangeIsLikelyACoincidence) {
  const attack_spec spec = planted(runtime_id::php, 77'777, 0, 1'000'000, 1);
  const attack_result r = run_attack(spec);
  EXPECT_GT(r.matches, 1000u);  // about 1,000,000 / 52 seeds put that card on top
  EXPECT_TRUE(std::ranges::binary_search(r.seeds, 77'777u) || r.seeds.size() == spec.max_reported);
  const attack_verdict v = judge(spec, r);
  EXPECT_TRUE(v.likely_coincidence);
  EXPECT_FALSE(v.confident);
  EXPECT_NEAR(v.expected_by_chance, 1'000'001.0 / 52, 1e-6);
}

TEST(RuntimeAttack, RefusesWhatItCannotSearch) {
  attack_spec spec = planted(runtime_id::php, 1, 0, 10, 3);
  spec.runtime = runtime_id::node;
  try {
    validate(spec);
    FAIL() << "node accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2^64"), std::string::npos) << e.what();
  }
  spec.runtime = runtime_id::go;
  spec.last_seed = 0x7fffffffu;  // == 0 mod 2^31-1: not a new state
  EXPECT_THROW(validate(spec), std::invalid_argument);
  spec.runtime = runtime_id::dotnet_framework;
  spec.last_seed = 0x80000000u;
  EXPECT_THROW(validate(spec), std::invalid_argument);
  EXPECT_THROW((void)parse_seed_range("all", runtime_id::java), std::invalid_argument);  // 2^48
  EXPECT_EQ(parse_seed_range("all", runtime_id::php).last, 0xffffffffu);
  EXPECT_EQ(parse_seed_range("all", runtime_id::go).last, 0x7ffffffeu);
}

std::string known_top(const std::vector<card_t>& deck, std::size_t k) {
  std::string s;
  for (std::size_t p = 0; p < k; ++p) {
    if (p) s += ',';
    s.append(std::to_string(p)).append("=").append(format_card(deck[p], deck_spec{}));
  }
  return s;
}

TEST(RuntimeAttackCli, PhpSeedAndDeckRecovered) {
  const auto deck = runtime_deck(runtime_id::php, 1'234'567'890, 52);
  const auto r = run_cli("attack --algorithm php --seeds 1234500000..1234600000 --known " + known_top(deck, 5) + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["seeds"], nlohmann::json::array({1'234'567'890}));
  EXPECT_EQ(j["algorithm"], "php");
  EXPECT_EQ(j["runtime"]["name"], "php");
  EXPECT_EQ(j["confident"], true);
  EXPECT_EQ(j["decks"][0].size(), 52u);
  EXPECT_EQ(j["decks"][0][5], format_card(deck[5], deck_spec{}));
}

TEST(RuntimeAttackCli, JavaClockWindow) {
  // new Random(System.currentTimeMillis()) at 2023-11-14T22:13:20.456Z = 1700000000456 ms.
  const auto deck = runtime_deck(runtime_id::java, 1'700'000'000'456ull, 52);
  const auto r = run_cli("attack --algorithm java --around 2023-11-14T22:13:20Z --window 5 --known " + known_top(deck, 5));
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("seed 1700000000456 (new Random at 2023-11-14T22:13:20.456Z)"), std::string::npos) << r.out;
}

TEST(RuntimeAttackCli, DotnetTickCountWindowAndNoMatch) {
  const auto deck = runtime_deck(runtime_id::dotnet_framework, 3'723'004, 52);  // up 1 h 2 min 3.004 s
  const auto r = run_cli("attack --algorithm dotnet-framework --around 01:02:00 --window 10 --known " + known_top(deck, 5) +
                         " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["seeds"], nlohmann::json::array({3'723'004}));
  const auto miss = run_cli("attack --algorithm dotnet-framework --around 05:00:00 --window 1 --known " + known_top(deck, 5));
  EXPECT_EQ(miss.exit_code, 4) << miss.err;
  EXPECT_NE(miss.out.find("NOT RECOVERED"), std::string::npos) << miss.out;
}

TEST(RuntimeAttackCli, RefusalsExitTwoWithAReason) {
  const auto node = run_cli("attack --algorithm node --known 0=Ah");
  EXPECT_EQ(node.exit_code, 2);
  EXPECT_NE(node.err.find("2^64"), std::string::npos) << node.err;
  EXPECT_EQ(run_cli("attack --algorithm php --engine delphi --known 0=Ah").exit_code, 2);
  EXPECT_EQ(run_cli("attack --algorithm php --around 10:00:00 --known 0=Ah").exit_code, 2);
  EXPECT_EQ(run_cli("attack --algorithm java --known 0=Ah").exit_code, 2);  // 2^48: give a window
  EXPECT_EQ(run_cli("attack --algorithm java --around 2023-13-01T00:00:00Z --known 0=Ah").exit_code, 2);
}

TEST(RuntimeEntropyCli, EveryRuntimeRowWithBothSeedings) {
  const auto r = run_cli("entropy --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["runtimes"].size(), runtimes::runtime_catalog().size());
  for (const auto& row : j["runtimes"]) {
    EXPECT_LE(row["log2_reachable_default"].get<double>(), j["distinguishable_bits"].get<double>());
    EXPECT_FALSE(row["attack"].get<std::string>().empty()) << row["name"];
  }
  const auto php = run_cli("entropy --algorithm php");
  ASSERT_EQ(php.exit_code, 0) << php.err;
  EXPECT_NE(php.out.find("2^32.00 seeds reach 2^32.00 of 2^225.58"), std::string::npos) << php.out;
  const auto node = run_cli("entropy --algorithm node");
  EXPECT_NE(node.out.find("not practical"), std::string::npos) << node.out;
  EXPECT_EQ(run_cli("entropy --algorithm cobol").exit_code, 2);
}

}  // namespace
}  // namespace fairdeck
