// Outcomes of any game (fairdeck/certify/outcomes.hpp, `certify --outcomes`): the exact laws
// against brute force, the shipped examples' declared probabilities recomputed, fair streams
// pass and biased ones fail (issue #33 item 2). Seeds are fixed: deterministic.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>

#include "certify_test_support.hpp"
#include "cli_runner.hpp"
#include "fairdeck/certify/outcomes.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"

namespace fc = fairdeck::certify;
using fairdeck::testing::find_test;

namespace {

const std::string examples = std::string(FAIRDECK_SOURCE_DIR) + "/examples/outcomes/";

std::string declaration(const std::string& file) {
  std::ifstream in(examples + file);
  for (std::string l; std::getline(in, l);)
    if (l.starts_with("# categories:")) return l.substr(13);
  return {};
}

// Punto banco: does the banker draw with total b, given the player's third card (-1: none)?
bool banker_draws(int b, int p3) {
  if (p3 < 0) return b <= 5;
  if (b <= 2) return true;
  if (b == 3) return p3 != 8;
  if (b == 4) return p3 >= 2 && p3 <= 7;
  if (b == 5) return p3 >= 4 && p3 <= 7;
  if (b == 6) return p3 >= 6 && p3 <= 7;
  return false;
}
// 0 banker, 1 player, 2 tie, or -1: needs more cards than `n`. Cards P1 B1 P2 B2 P3 B3 (values).
int coup(const int* c, int n, int& used) {
  int p = (c[0] + c[2]) % 10, b = (c[1] + c[3]) % 10, i = 4, p3 = -1;
  if (p < 8 && b < 8) {
    if (p <= 5) {
      if (i >= n) return -1;
      p3 = c[i++];
      p = (p + p3) % 10;
    }
    if (banker_draws(b, p3)) {
      if (i >= n) return -1;
      b = (b + c[i++]) % 10;
    }
  }
  used = i;
  return p > b ? 1 : b > p ? 0 : 2;
}

// Exact 8-deck counts over ordered six-card sequences (cards not drawn still counted), as
// the published analysis counts them.
std::array<std::uint64_t, 3> baccarat_counts() {
  std::array<std::uint64_t, 3> out{};
  std::array<int, 10> left{128, 32, 32, 32, 32, 32, 32, 32, 32, 32};
  int seq[6];
  std::function<void(int, std::uint64_t)> rec = [&](int n, std::uint64_t w) {
    int used = 0;
    if (n >= 4) {
      if (const int o = coup(seq, n, used); o >= 0) {
        std::uint64_t rest = 1;
        for (int k = 0; k < 6 - n; ++k) rest *= static_cast<std::uint64_t>(416 - n - k);
        out[static_cast<std::size_t>(o)] += w * rest;
        return;
      }
    }
    for (int v = 0; v < 10; ++v) {
      if (!left[v]) continue;
      seq[n] = v;
      const auto m = static_cast<std::uint64_t>(left[v]--);
      rec(n + 1, w * m);
      ++left[v];
    }
  };
  rec(0, 1);
  return out;
}

// Dealer's final hand, S17, infinite deck: bust, 17..21 (index 1..5), blackjack (6). `soft`:
// an ace counts 11 in `total`.
void dealer(int total, bool soft, double p, std::array<double, 7>& out) {
  if (total > 21 && soft) total -= 10, soft = false;
  if (total > 21) {
    out[0] += p;
    return;
  }
  if (total >= 17) {
    out[static_cast<std::size_t>(total - 16)] += p;
    return;
  }
  for (int r = 1; r <= 13; ++r) {
    if (r == 1 && total + 11 > 21) {  // an ace that would bust counts 1; the hand stays as soft as it was
      dealer(total + 1, soft, p / 13, out);
    } else {
      const int v = r == 1 ? 11 : std::min(r, 10);
      dealer(total + v, soft || v == 11, p / 13, out);
    }
  }
}

// Outcome streams: i.i.d. draws from `p`, or with a `sticky` chance of repeating the last.
std::vector<std::size_t> stream(const std::vector<double>& p, std::size_t n, std::uint64_t seed, double sticky = 0) {
  fairdeck::xoshiro256pp rng(seed);
  std::vector<std::size_t> out;
  const auto u01 = [&] { return static_cast<double>(rng() >> 11) * 0x1.0p-53; };
  for (std::size_t i = 0; i < n; ++i) {
    if (!out.empty() && u01() < sticky) {
      out.push_back(out.back());
      continue;
    }
    double u = u01();
    std::size_t c = 0;
    while (c + 1 < p.size() && u >= p[c]) u -= p[c++];
    out.push_back(c);
  }
  return out;
}

std::vector<fc::test_result> run_certify(const fc::outcome_spec& spec, const std::vector<std::size_t>& s,
                                         unsigned tables = 0, const std::vector<std::size_t>* table3 = nullptr) {
  fc::outcome_tally t(spec);
  if (tables) t.set_group_key("table");
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::size_t table = tables ? i % tables + 1 : 0;
    const std::size_t o = (table == 3 && table3) ? (*table3)[i] : s[i];
    t.add(o, tables ? std::to_string(table) : std::string());
  }
  std::vector<fc::test_result> r;
  t.results(r);
  return r;
}

std::vector<double> probs(const fc::outcome_spec& s) {
  std::vector<double> p;
  for (const auto& c : s.categories) p.push_back(c.p);
  return p;
}

}  // namespace

TEST(CertifyOutcomesLaws, ShippedDeclarationsAreTheExactLaws) {
  // Baccarat, 8 decks: the enumeration gives exactly the declared integers.
  const auto counts = baccarat_counts();
  EXPECT_EQ(counts[0], 2292252566437888u);
  EXPECT_EQ(counts[1], 2230518282592256u);
  EXPECT_EQ(counts[2], 475627426473216u);
  EXPECT_EQ(counts[0] + counts[1] + counts[2], 4998398275503360u);
  const auto bac = fc::parse_outcome_spec(declaration("baccarat-8deck.txt"));
  ASSERT_EQ(bac.categories.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(bac.categories[i].given, std::to_string(counts[i]) + "/4998398275503360") << bac.categories[i].name;

  // Blackjack dealer, S17, infinite deck.
  std::array<double, 7> d{};
  for (int a = 1; a <= 13; ++a)
    for (int b = 1; b <= 13; ++b) {
      const int va = a == 1 ? 11 : std::min(a, 10), vb = b == 1 ? 11 : std::min(b, 10);
      if (va + vb == 21) {
        d[6] += 1.0 / 169;
        continue;
      }
      dealer(va + vb == 22 ? 12 : va + vb, va == 11 || vb == 11, 1.0 / 169, d);
    }
  const auto bj = fc::parse_outcome_spec(declaration("blackjack-dealer-s17.txt"));
  ASSERT_EQ(bj.categories.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) EXPECT_NEAR(bj.categories[i].p, d[i], 1e-13) << bj.categories[i].name;
  EXPECT_NEAR(d[0], 0.281593, 1e-6);

  const auto rou = fc::parse_outcome_spec(declaration("roulette-european.txt"));
  EXPECT_NEAR(rou.categories[2].p, 1.0 / 37, 1e-15);
}

TEST(CertifyOutcomesLaws, ExactLawsMatchBruteForce) {
  // Longest run: every sequence of m <= 12 trials.
  for (unsigned m : {1u, 5u, 12u})
    for (double p : {0.3, 0.5, 0.9})
      for (unsigned len = 0; len <= m + 1; ++len) {
        double brute = 0;
        for (unsigned mask = 0; mask < (1u << m); ++mask) {
          unsigned run = 0, best = 0, ones = 0;
          for (unsigned i = 0; i < m; ++i) {
            const bool one = mask >> i & 1;
            ones += one;
            run = one ? run + 1 : 0;
            best = std::max(best, run);
          }
          if (best >= len) brute += std::pow(p, ones) * std::pow(1 - p, m - ones);
        }
        EXPECT_NEAR(fc::longest_run_at_least(m, p, len), brute, 1e-13) << m << " " << p << " " << len;
      }
  // Exact multinomial: two categories is the two-sided binomial test "as likely or less".
  EXPECT_NEAR(*fc::exact_multinomial_p({0, 3}, {0.5, 0.5}), 0.25, 1e-14);
  EXPECT_NEAR(*fc::exact_multinomial_p({1, 2}, {0.5, 0.5}), 1.0, 1e-14);
  // Three categories, n = 4: sum by hand over all 15 count vectors.
  const std::vector<double> p{0.5, 0.3, 0.2};
  const std::vector<std::uint64_t> x{0, 0, 4};
  double total = 0;
  const double seen = std::pow(0.2, 4);
  for (int a = 0; a <= 4; ++a)
    for (int b = 0; a + b <= 4; ++b) {
      const int c = 4 - a - b;
      const double pr = std::tgamma(5) / (std::tgamma(a + 1) * std::tgamma(b + 1) * std::tgamma(c + 1)) *
                        std::pow(0.5, a) * std::pow(0.3, b) * std::pow(0.2, c);
      if (pr <= seen * (1 + 1e-9)) total += pr;
    }
  EXPECT_NEAR(*fc::exact_multinomial_p(x, p), total, 1e-14);
  EXPECT_FALSE(fc::exact_multinomial_p({100000, 100000, 100000, 5}, {0.3, 0.3, 0.3, 0.1}).has_value());
}

// Fair baccarat at 20,000 coups passes (false failure <= 1%, Holm); a banker edge of 2 points
// (0.4786 / 0.4262 / 0.0952) fails: Cohen's w^2 = 0.02^2 (1/0.4586 + 1/0.4462) = 1.77e-3, a
// non-centrality of 35 at n = 20,000 against the 21.3 a 90% power at alpha/4 (df 2) needs.
TEST(CertifyOutcomes, BiasedBaccaratFailsAndFairPasses) {
  const auto spec = fc::parse_outcome_spec(declaration("baccarat-8deck.txt"));
  const auto p = probs(spec);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    auto fair = run_certify(spec, stream(p, 20000, seed), 4);
    EXPECT_EQ(fc::decide(fair).verdict, fc::outcome::pass) << seed;
    EXPECT_EQ(fair.size(), 4u);
  }
  auto biased = run_certify(spec, stream({p[0] + 0.02, p[1] - 0.02, p[2]}, 20000, 4));
  EXPECT_EQ(fc::decide(biased).verdict, fc::outcome::fail);
  EXPECT_EQ(find_test(biased, "outcome-frequencies").result, fc::outcome::fail);

  // Streaks: 3% of coups repeat the previous one (frequencies unchanged): runs fail.
  auto streaky = run_certify(spec, stream(p, 20000, 5, 0.03));
  (void)fc::decide(streaky);
  EXPECT_EQ(find_test(streaky, "outcome-runs").result, fc::outcome::fail) << find_test(streaky, "outcome-runs").note;
  EXPECT_EQ(find_test(streaky, "outcome-frequencies").result, fc::outcome::pass);

  // One table of four deals the banker 4 points more often: outcome-by-table names it.
  const auto bad_table = stream({p[0] + 0.04, p[1] - 0.04, p[2]}, 20000, 6);
  auto split = run_certify(spec, stream(p, 20000, 7), 4, &bad_table);
  (void)fc::decide(split);
  const auto& t = find_test(split, "outcome-by-table");
  EXPECT_EQ(t.result, fc::outcome::fail) << t.note;
  EXPECT_NE(t.note.find("table 3 "), std::string::npos) << t.note;
}

TEST(CertifyOutcomes, SmallCountsUseTheExactMultinomial) {
  const auto spec = fc::parse_outcome_spec("red=18/37 black=18/37 zero=1/37");
  auto r = run_certify(spec, stream(probs(spec), 60, 9));
  const auto& f = find_test(r, "outcome-frequencies");
  EXPECT_EQ(f.distribution, "multinomial");
  EXPECT_TRUE(f.valid());
  // 60 spins with zero 12 times: far too many zeros (1.6 expected).
  std::vector<std::size_t> many_zeros(60, 0);
  for (std::size_t i = 0; i < 60; ++i) many_zeros[i] = i % 5 == 0 ? 2 : i % 2;
  auto z = run_certify(spec, many_zeros);
  EXPECT_LT(*find_test(z, "outcome-frequencies").p_value, 1e-6);
}

TEST(CertifyOutcomesCli, ExamplesPassAndBadInputIsNamed) {
  using fairdeck::testing::run_cli;
  for (const char* f : {"baccarat-8deck.txt", "blackjack-dealer-s17.txt", "roulette-european.txt"}) {
    const auto r = run_cli("certify --outcomes " + examples + f + " --json");
    EXPECT_EQ(r.exit_code, 0) << f << r.out << r.err;
    EXPECT_NE(r.out.find("\"outcome-frequencies\""), std::string::npos);
  }
  auto r = run_cli("certify --outcomes - --categories 'heads=1/2 tails=1/2'", std::string(20, 'x'));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 1"), std::string::npos) << r.err;
  std::string coins;
  for (int i = 0; i < 200; ++i) coins += i % 2 ? "heads\n" : "tails\n";  // alternates: runs fail
  r = run_cli("certify --outcomes - --categories 'heads=1/2 tails=1/2'", coins);
  EXPECT_EQ(r.exit_code, 3) << r.out << r.err;
  EXPECT_EQ(run_cli("certify --categories 'a=0.5 b=0.5'").exit_code, 2);
  r = run_cli("certify --outcomes - --categories 'a=0.5 b=0.4'", "a\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--categories"), std::string::npos) << r.err;
  for (const char* bad : {"a\n", "# categories: a=0.5 b=0.5\nc\n", "# categories: a=0.5 b=0.5\na seat=1\na table=2\n",
                          "# categories: a=0.5 b=0.5\na chair=1\n", "# categories: a=0.5 b=0.6\na\n",
                          "# categories: a=0.5 a=0.5\na\n", "# categories: a=0.5 b=0.5\n# categories: a=0.5 b=0.5\n"}) {
    r = run_cli("certify --outcomes -", bad);
    EXPECT_EQ(r.exit_code, 1) << bad;
    EXPECT_NE(r.err.find("line "), std::string::npos) << bad << r.err;
  }
}
