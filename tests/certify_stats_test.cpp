// fairdeck/certify, issue #33 items 3-6: the linear and lagged bit tests (exact laws, the
// glibc rand() low bytes and an LFSR caught, the secure engine passing), the validity table
// (every test below its minimum says "needs N, has M"; docs/certify.md says the same
// numbers), the family false-FAIL rate of the whole battery over 2,000 runs, and the power
// plan (`certify plan`, the report's power line). Fixed seeds: never flaky.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <boost/math/distributions/binomial.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "certify_test_support.hpp"
#include "cli_runner.hpp"
#include "fairdeck/certify/certify.hpp"
#include "fairdeck/certify/null_laws.hpp"
#include "fairdeck/certify/power_plan.hpp"
#include "fairdeck/certify/validity.hpp"
#include "fairdeck/random/legacy.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/stats/tests.hpp"
#include "sanitizer_build.hpp"
#include "stats_test_support.hpp"
#include "test_support.hpp"

namespace fc = fairdeck::certify;
using fairdeck::engine_id;
using fairdeck::engine_spec;
using fairdeck::testing::find_test;

namespace {

std::vector<fc::test_result> run_stream(const fc::stream_spec& spec, const std::vector<std::uint64_t>& v) {
  fc::battery b(spec, fc::battery_settings::for_volume(v.size()));
  b.feed(v);
  return b.results();
}

std::vector<fc::test_result> run_engine(engine_id id, std::uint64_t seed, std::uint64_t n) {
  const engine_spec e{id, seed, {}};
  fc::battery b(fc::engine_raw_spec(e), fc::battery_settings::for_volume(n));
  fc::feed_engine(e, 0, n, b);
  return b.results();
}

// The low byte of each glibc rand() output, packed little-endian into 64-bit words (what
// `head -c N` of such a byte stream reads as --raw --word-bits 64).
std::vector<std::uint64_t> glibc_low_bytes(std::uint32_t seed, std::size_t words) {
  fairdeck::glibc_rand g(seed);
  std::vector<std::uint64_t> out(words);
  for (auto& w : out)
    for (unsigned k = 0; k < 8; ++k) w |= static_cast<std::uint64_t>(g() & 0xFF) << (8 * k);
  return out;
}

// The bit stream of the LFSR s_t = s_(t-31) xor s_(t-28) (x^31 + x^3 + 1, glibc's TYPE_3
// feedback polynomial), 64 bits to a word, most significant first.
std::vector<std::uint64_t> lfsr_words(std::size_t words) {
  std::vector<int> s(31);
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = static_cast<int>((0x5A3C96E1u >> i) & 1);
  std::vector<std::uint64_t> out(words);
  for (auto& w : out)
    for (int b = 0; b < 64; ++b) {
      const int bit = s[s.size() - 31] ^ s[s.size() - 28];
      s.push_back(bit);
      w = (w << 1) | static_cast<std::uint64_t>(bit);
    }
  return out;
}

}  // namespace

TEST(CertifyNullLaws, MatrixRankLawMatchesNistForThirtyTwoByThirtyTwo) {
  // NIST SP 800-22 §3.5: 0.2888, 0.5776, 0.1336 for ranks 32, 31, <= 30.
  const auto law = fc::matrix_rank_law(32, 32);
  double total = 0, low = 0;
  for (unsigned r = 0; r <= 32; ++r) total += law[r], low += r <= 30 ? law[r] : 0;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(law[32], 0.2888, 1e-4);
  EXPECT_NEAR(law[31], 0.5776, 1e-4);
  EXPECT_NEAR(low, 0.1336, 1e-4);
  // A 1x1 matrix: rank 1 with probability 1/2; 2x2: 6 of 16 matrices are invertible.
  EXPECT_DOUBLE_EQ(fc::matrix_rank_law(1, 1)[1], 0.5);
  EXPECT_NEAR(fc::matrix_rank_law(2, 2)[2], 6.0 / 16, 1e-15);
  EXPECT_NEAR(fc::matrix_rank_law(2, 2)[0], 1.0 / 16, 1e-15);
}

TEST(CertifyNullLaws, LinearComplexityLawMatchesNistClasses) {
  // NIST §2.10.4 with M = 1000 (T = L - 500): pi = 0.010417, 0.03125, 0.125, 0.5, 0.25,
  // 0.0625, 0.020833 for L <= 497, 498, 499, 500, 501, 502, >= 503.
  const auto law = fc::linear_complexity_law(1000);
  double total = 0, low = 0, high = 0;
  for (unsigned l = 0; l <= 1000; ++l) total += law[l], low += l <= 497 ? law[l] : 0, high += l >= 503 ? law[l] : 0;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_NEAR(low, 0.010417, 1e-6);
  EXPECT_DOUBLE_EQ(law[498], 0.03125);
  EXPECT_DOUBLE_EQ(law[499], 0.125);
  EXPECT_DOUBLE_EQ(law[500], 0.5);
  EXPECT_DOUBLE_EQ(law[501], 0.25);
  EXPECT_DOUBLE_EQ(law[502], 0.0625);
  EXPECT_NEAR(high, 0.020833, 1e-6);
  // Every sequence of 3 bits, counted by hand: L = 0 (000), 1 (111, 100... 2 of them), ...
  const auto three = fc::linear_complexity_law(3);
  EXPECT_DOUBLE_EQ(three[0], 1.0 / 8);
  EXPECT_DOUBLE_EQ(three[1], 2.0 / 8);
  EXPECT_DOUBLE_EQ(three[2], 4.0 / 8);
  EXPECT_DOUBLE_EQ(three[3], 1.0 / 8);
}

TEST(CertifyLinear, GlibcRandLowBytesFailTheLaggedSum) {
  // b_i - b_(i-3) - b_(i-31) is 0 or 1 mod 256 for the low bytes of glibc rand() (TYPE_3).
  // 1 MiB of them as 64-bit words (the byte view), and the engine's own 31-bit outputs (the
  // low-byte lane): both fail, the lagged sum far below the Holm threshold.
  auto packed = run_stream(fc::stream_spec::raw_words(64), glibc_low_bytes(1, 1u << 17));
  auto d = fc::decide(packed);
  EXPECT_EQ(d.verdict, fc::outcome::fail);
  EXPECT_EQ(find_test(packed, "lagged-sum").result, fc::outcome::fail);
  EXPECT_NE(find_test(packed, "lagged-sum").note.find("(3, 31)"), std::string::npos)
      << find_test(packed, "lagged-sum").note;

  auto raw = run_engine(engine_id::glibc_rand, 1, 1u << 17);
  (void)fc::decide(raw);
  EXPECT_EQ(find_test(raw, "lagged-sum").result, fc::outcome::fail);

  // glibc rand() % 52 (the lagged relation survives mod 52 up to the wrap of 2^31): caught
  // from 10^4 draws, where the other tests needed 10^7.
  fc::battery b(fc::known_bad_spec(fc::known_bad::glibc_mod52), fc::battery_settings::for_volume(10'000));
  fc::feed_known_bad(fc::known_bad::glibc_mod52, 12345, 10'000, b);
  auto mod52 = b.results();
  (void)fc::decide(mod52);
  EXPECT_EQ(find_test(mod52, "lagged-sum").result, fc::outcome::fail);
}

TEST(CertifyLinear, AnLfsrFailsMatrixRankAndLinearComplexity) {
  auto r = run_stream(fc::stream_spec::raw_words(64), lfsr_words(1u << 14));
  (void)fc::decide(r);
  EXPECT_EQ(find_test(r, "matrix-rank-32").result, fc::outcome::fail);
  EXPECT_EQ(find_test(r, "linear-complexity").result, fc::outcome::fail);
  EXPECT_NE(find_test(r, "linear-complexity").note.find("smallest linear complexity 31"), std::string::npos)
      << find_test(r, "linear-complexity").note;
}

TEST(CertifyLinear, GoodEnginesPassTheNewTests) {
  // The new tests on good engines: xoshiro256++ and PCG64 on fixed seeds (2^21 words,
  // deterministic), the secure engine at 2^23 words = 64 MiB (the size the glibc goal
  // names); the secure engine is keyed from
  // OS entropy, so it is checked at a family-wise alpha of 1e-6: this test's false-failure
  // rate is 1e-6.
  const std::uint64_t n = FAIRDECK_SLOW_BUILD ? 1u << 18 : 1u << 23;
  for (engine_id id : {engine_id::xoshiro256pp, engine_id::pcg64}) {
    auto r = run_engine(id, 11, n / 4);
    EXPECT_EQ(fc::decide(r).verdict, fc::outcome::pass) << fairdeck::info(id).name;
    for (const char* t : {"lagged-sum", "matrix-rank-32", "matrix-rank-64", "linear-complexity"})
      EXPECT_TRUE(find_test(r, t).valid()) << t;
  }
  const engine_spec secure{};
  fc::battery b(fc::engine_raw_spec(secure), fc::battery_settings::for_volume(n));
  fc::feed_engine(secure, 0, n, b);
  auto r = b.results();
  EXPECT_EQ(fc::decide(r, 1e-6).verdict, fc::outcome::pass);
}

TEST(CertifyValidity, EveryTestHasARowAndBelowItsMinimumSaysNeedsNHasM) {
  for (std::uint64_t n : {10ull, 300ull}) {
    for (const auto& spec : {fc::stream_spec::raw_words(64), fc::stream_spec::raw_words(32),
                             fc::stream_spec::scaled(52), fc::stream_spec::scaled(1024)}) {
      std::vector<std::uint64_t> v(n);
      fairdeck::xoshiro256pp rng(3);
      for (auto& x : v) x = spec.type == fc::stream_spec::kind::raw ? rng() >> (64 - spec.bits) : rng() % spec.range;
      auto r = run_stream(spec, v);
      EXPECT_NE(fc::decide(r).verdict, fc::outcome::pass);
      for (const auto& t : r) {
        EXPECT_NO_THROW((void)fc::validity_of(t.name)) << t.name;
        if (t.valid()) continue;
        if (t.note.find("alphabet") != std::string::npos) continue;  // the range has no uniform alphabet
        EXPECT_NE(t.note.find("needs "), std::string::npos) << t.name << ": " << t.note;
        EXPECT_NE(t.note.find(", has "), std::string::npos) << t.name << ": " << t.note;
        EXPECT_LT(t.sample, t.min_sample) << t.name;
      }
    }
  }
}

namespace {

fc::certification certify_decks(std::size_t decks, std::uint64_t seed = 99) {
  fairdeck::xoshiro256pp rng(seed);
  std::vector<fairdeck::card_t> deck(52);
  std::string text;
  for (std::size_t d = 0; d < decks; ++d) {
    for (fairdeck::card_t c = 0; c < 52; ++c) deck[c] = c;
    fairdeck::fisher_yates(deck, rng);
    for (std::size_t i = 0; i < 52; ++i) text += std::to_string(deck[i]) + (i + 1 < 52 ? " " : "\n");
  }
  const fairdeck::testing::temp_dir dir;
  fairdeck::testing::write_file(dir / "decks.txt", text);
  fc::certify_plan plan;
  plan.decks_path = dir / "decks.txt";
  return fc::run_certification(plan);
}

}  // namespace

TEST(CertifyValidity, DeckTestsHaveMinimaFromFiveExpectedPerCell) {
  // 100 decks: 100/52 < 5 expected per card at the top: first-card and position-card are
  // invalid ("needs 260 decks"), the suit tests (100/4 per suit) valid; repeat-top needs 476
  // consecutive decks (475 pairs: (51/52)^475 < 1e-4 < (51/52)^474).
  const auto c = certify_decks(100);
  std::map<std::string, const fc::test_result*> by;
  for (const auto& t : c.tests) by[t.name] = &t;
  ASSERT_TRUE(by.count("first-card") && by.count("position-card") && by.count("first-suit") && by.count("repeat-top"));
  for (const char* t : {"first-card", "position-card"}) {
    EXPECT_EQ(by[t]->result, fc::outcome::invalid) << t;
    EXPECT_EQ(by[t]->min_sample, 260u) << t;
    EXPECT_NE(by[t]->note.find("needs 260 decks, has 100"), std::string::npos) << by[t]->note;
  }
  EXPECT_TRUE(by["first-suit"]->valid());
  EXPECT_EQ(by["first-suit"]->min_sample, 20u);
  EXPECT_EQ(by["first-rank"]->min_sample, 65u);
  for (const auto& t : c.tests) EXPECT_GT(t.min_sample, 0u) << t.name;
  EXPECT_NE(by["repeat-top"]->note.find("needs 476 consecutive decks (475 pairs), has 100"), std::string::npos)
      << by["repeat-top"]->note;
  EXPECT_LT(std::pow(51.0 / 52, 475), 1e-4);
  EXPECT_GT(std::pow(51.0 / 52, 474), 1e-4);

  const auto at = [](std::size_t decks) {
    for (const auto& t : certify_decks(decks).tests)
      if (t.name == "repeat-top") return t;
    return fc::test_result{};
  };
  EXPECT_FALSE(at(475).valid());
  EXPECT_TRUE(at(476).valid());
}

TEST(CertifyValidity, BirthdaySpacingsNeverBelowTwoToTheThirtyCells) {
  // The Poisson law is far off at 2^12 cells: a setting asking for them gets 2^30.
  fc::battery_settings small;
  small.birthday_cell_bits = 12;
  fc::battery b(fc::stream_spec::raw_words(64), small);
  std::vector<std::uint64_t> v(1u << 15);
  fairdeck::xoshiro256pp rng(8);
  for (auto& x : v) x = rng();
  b.feed(v);
  const auto r = b.results();
  EXPECT_NE(find_test(r, "birthday-spacings").description.find("k = 2^30 cells"), std::string::npos)
      << find_test(r, "birthday-spacings").description;
  EXPECT_GE(fc::battery_settings::for_volume(1000).birthday_cell_bits, fc::birthday_min_cell_bits);
  // Too few values for one replicate of 8,192 words: invalid, with the numbers.
  const auto few = run_stream(fc::stream_spec::raw_words(64), std::vector<std::uint64_t>(5000, 1));
  EXPECT_NE(find_test(few, "birthday-spacings")
                .note.find("needs 8,192 values, has 5,000 (a replicate is 4096 points of 2 values)"),
            std::string::npos)
      << find_test(few, "birthday-spacings").note;
  // Words too narrow for 2^30 cells from pairs (14 bits): the test does not apply.
  const auto narrow = run_stream(fc::stream_spec::raw_words(14), std::vector<std::uint64_t>(1u << 16, 1));
  for (const auto& t : narrow) EXPECT_NE(t.name, "birthday-spacings");
}

// docs/certify.md's validity table holds exactly the rows of validity.hpp, in order.
TEST(CertifyValidity, DocsTableMatchesTheCode) {
  std::ifstream in(std::string(FAIRDECK_SOURCE_DIR) + "/docs/certify.md");
  ASSERT_TRUE(in);
  std::string line;
  bool inside = false;
  std::vector<std::string> rows;
  while (std::getline(in, line)) {
    if (line.starts_with("### Where each null law holds"))
      inside = true;
    else if (inside && line.starts_with("#"))
      break;
    else if (inside && line.starts_with("| ") && !line.starts_with("| test") && !line.starts_with("| ---"))
      rows.push_back(line);
  }
  std::vector<std::string> want;
  for (const auto& v : fc::validity_table)
    want.push_back(fmt::format("| {} | {} | {} |", v.test,
                               v.min ? std::to_string(v.min) + " " + std::string(v.unit) : "by the rule", v.rule));
  EXPECT_EQ(rows, want) << "regenerate the table in docs/certify.md from include/fairdeck/certify/validity.hpp";
}

// The family rule over the whole battery: a fair source fails a report (any test failing
// Holm at alpha = 0.01) at most 1% of the time. 2,000 reports of xoshiro256++ raw words
// (2^13 words each: every test valid) on fixed seeds. If the true rate were exactly 1%, the
// number of failed reports is Binomial(2000, 0.01) (mean 20, sd 4.4); the check fails above
// 33, which such a source exceeds with probability 2.6e-3 (stated false-failure rate of
// this test; the seeds are fixed, so the outcome never changes between runs). The observed
// rate and its 95% Clopper-Pearson upper bound are printed.
TEST(CertifyFamily, FalseFailRateOfTheWholeBatteryIsAtMostAlpha) {
  // Sanitizer builds: the same code on 100 seeds (the stated rate below is for that number).
  const int runs = FAIRDECK_SLOW_BUILD ? 100 : 2000;
  const std::uint64_t n = 1u << 13;  // one birthday replicate of 2^30 cells; 524 LC blocks
  int failed = 0, invalid = 0;
  std::map<std::string, std::vector<double>> birthday;
  std::mt19937_64 jitter(33);
  std::uniform_real_distribution<double> u01;
  for (int i = 0; i < runs; ++i) {
    auto r = run_engine(engine_id::xoshiro256pp, 500000 + static_cast<std::uint64_t>(i), n);
    const auto d = fc::decide(r, 0.01);
    failed += d.verdict == fc::outcome::fail;
    invalid += d.invalid_tests > 0;
    // The same runs check the Poisson law at its smallest valid size (2^30 cells, 4,096
    // points, one replicate each): randomised p-values P(X > x) + U P(X = x) are uniform
    // exactly when the law is right.
    for (const auto& t : r)
      if (t.distribution == "poisson" && t.valid()) {
        EXPECT_NE(t.description.find("k = 2^30 cells"), std::string::npos) << t.description;
        const double above = fc::poisson_upper_tail(t.statistic + 1, *t.expected);
        birthday[t.name].push_back(above + u01(jitter) * (*t.p_value - above));
      }
  }
  EXPECT_EQ(invalid, 0);
  for (auto& [name, p] : birthday) {
    const auto ks = fairdeck::stats::ks_uniform(p);
    EXPECT_GT(ks.p_value, 1e-6) << name << " D=" << ks.d;  // false-failure rate 1e-6 per check
  }
  const double upper = failed == runs
                           ? 1.0
                           : boost::math::binomial_distribution<double>::find_upper_bound_on_p(runs, failed, 0.025);
  std::printf("family false FAIL: %d of %d reports (%.2f%%; 95%% upper bound %.2f%%)\n", failed, runs,
              100.0 * failed / runs, 100 * upper);
  const int limit = FAIRDECK_SLOW_BUILD ? 4 : 33;  // P(Bin(100, 0.01) > 4) = 3.4e-3
  EXPECT_LE(failed, limit);
}

TEST(CertifyPlan, EffectsParseAndBadOnesSayWhy) {
  EXPECT_EQ(fc::parse_target_effect("bias:0.01").measure, fc::effect_measure::bias);
  EXPECT_DOUBLE_EQ(fc::parse_target_effect("cell:5e-2").size, 0.05);
  EXPECT_EQ(fc::parse_target_effect("lag:0.001").measure, fc::effect_measure::lag);
  EXPECT_EQ(fc::parse_target_effect("repeat:0.5").measure, fc::effect_measure::repeat);
  for (const char* bad : {"bias", "bias:", "bias:-1", "bias:0.7", "lag:1", "size:0.1", "cell:abc", "cell:0.1x"}) {
    EXPECT_THROW((void)fc::parse_target_effect(bad), std::invalid_argument) << bad;
  }
}

TEST(CertifyPlan, PlanAgreesWithTheReportsDetectableEffects) {
  // The same machinery: the plan for the data a run had, at its K, states the effects the
  // run's tests report.
  const std::uint64_t words = 1u << 16;
  auto r = run_engine(engine_id::pcg64, 4, words);
  const auto d = fc::decide(r, 0.01);
  const fc::planned_data data{.raw_bytes = words * 8};
  const auto p = fc::plan_power(data, {}, 0.01, 0.9, d.valid_tests);
  EXPECT_DOUBLE_EQ(p.threshold, d.bonferroni_threshold);
  std::map<std::string, double> plan;
  for (const auto& row : p.rows) plan[row.test] = row.detectable;
  EXPECT_NEAR(plan["monobit"], *find_test(r, "monobit").detectable_effect, 1e-12);
  EXPECT_NEAR(plan["serial-correlation"], *find_test(r, "serial-correlation").detectable_effect, 1e-9);
  // frequency: Cohen's w of a change E in one of 256 cells is E sqrt(p0 / (1 - p0)).
  EXPECT_NEAR(plan["frequency"] * std::sqrt((1.0 / 256) / (255.0 / 256)), *find_test(r, "frequency").detectable_effect,
              1e-9);

  // A target's data need: with that much data the effect is detected, with 1% less not.
  const fc::target_effect bias{fc::effect_measure::bias, 1e-3};
  const auto need = fc::plan_power({}, std::span(&bias, 1), 0.01, 0.9, 20);
  ASSERT_EQ(need.rows.size(), 1u);
  ASSERT_TRUE(need.rows[0].needed);
  const std::uint64_t bytes = *need.rows[0].needed;
  EXPECT_LE(fc::plan_power({.raw_bytes = bytes}, {}, 0.01, 0.9, 20).rows[0].detectable, 1e-3 * (1 + 1e-9));
  EXPECT_GT(fc::plan_power({.raw_bytes = bytes * 99 / 100}, {}, 0.01, 0.9, 20).rows[0].detectable, 1e-3);
  // Decks and hands rows appear with their data; the statement names every family.
  const auto all = fc::plan_power({.raw_bytes = 1u << 30, .decks = 10000, .hands = 3000});
  const auto text = fc::power_statement(all);
  for (const char* s : {"raw (1,073,741,824 bytes)", "decks (10,000 decks)", "hands (3,000 hands)", "first-card cell",
                        "monobit bias", "repeat-top repeat"})
    EXPECT_NE(text.find(s), std::string::npos) << s << " in " << text;
}

TEST(CertifyPlanCli, PlanPrintsTheTableAndTheJsonAndRefusesNonsense) {
  using fairdeck::testing::run_cli;
  const auto t = run_cli("certify plan --bytes 1073741824 --decks 10000 --effect bias:1e-4 --effect cell:0.05");
  ASSERT_EQ(t.exit_code, 0) << t.err;
  EXPECT_NE(t.out.find("monobit"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("bias:0.0001 needs"), std::string::npos) << t.out;
  const auto j = run_cli("certify plan --decks 3000 --effect repeat:0.5 --json");
  ASSERT_EQ(j.exit_code, 0) << j.err;
  const auto plan = nlohmann::json::parse(j.out);
  for (const char* k : {"statement", "alpha", "power", "tests", "threshold", "rows"})
    EXPECT_TRUE(plan.contains(k)) << k;
  bool repeat = false;
  for (const auto& row : plan["rows"]) {
    for (const char* k : {"family", "test", "measure", "effect", "detectable", "data", "unit"})
      EXPECT_TRUE(row.contains(k)) << k;
    if (row["test"] == "repeat-top") repeat = row.contains("needed") && row["target"] == 0.5;
  }
  EXPECT_TRUE(repeat);
  for (const char* bad : {"certify plan", "certify plan --effect weird:1", "certify plan --bytes 10 --alpha 2"}) {
    const auto r = run_cli(bad);
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << bad << ": " << r.err;
  }
  EXPECT_NE(run_cli("certify plan --effect weird:1").err.find("--effect"), std::string::npos);
  // Every report starts with the power statement (JSON key "power", text's first line).
  const auto rep = run_cli("certify --engine pcg64 --seed 3 --values 100000 --json");
  const auto report = nlohmann::json::parse(rep.out);
  ASSERT_TRUE(report.contains("power"));
  EXPECT_NE(report["power"]["statement"].get<std::string>().find("raw (800,000 bytes)"), std::string::npos)
      << report["power"]["statement"];
  const auto text = run_cli("certify --engine pcg64 --seed 3 --values 100000");
  EXPECT_TRUE(text.out.starts_with("power before the run:")) << text.out.substr(0, 200);
}
