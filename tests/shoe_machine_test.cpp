// Shoes of indistinguishable copies (stats/machine.hpp, deck_reader's shoe mode): the guessing
// test's null law checked by enumerating every arrangement of tiny shoes, the reader's errors,
// and the audit catching an 8-deck shoe through one 10-shelf pass.
//
// Statistical assertions use fixed seeds; each states its false-failure rate.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/stats/deck_reader.hpp"
#include "fairdeck/stats/machine.hpp"
#include "sanitizer_build.hpp"

namespace fairdeck {
namespace {

using stats::guess_odds_grid;

// Every arrangement of `faces` faces x `copies` copies is equally likely under a uniform shoe.
// Over all of them (exact, no sampling): each likelihood ratio of the grid and their mixture
// have mean exactly 1, the hits' mean equals the compensator's (sum of r_g/R), and the p-value
// min(1, 1/E) satisfies P(p <= a) <= a. With a guesser that has seen shoes before (its
// orientation vote set either way) and with a before order other than the default.
void check_null_by_enumeration(std::size_t faces, unsigned copies, std::vector<card_t> before, int warmup) {
  std::vector<card_t> shoe;
  for (std::size_t f = 0; f < faces; ++f) shoe.insert(shoe.end(), copies, static_cast<card_t>(f));
  std::vector<double> mean_lr(guess_odds_grid.size(), 0.0), p_values;
  double mean_e = 0, hits = 0, compensator = 0, count = 0;
  std::vector<card_t> warm(shoe);  // a fixed earlier shoe (the state must not depend on this one)
  if (warmup < 0) std::reverse(warm.begin(), warm.end());  // a high top card: the vote turns
  do {
    stats::shoe_guesser g(faces, copies);
    for (int k = 0; k < std::abs(warmup); ++k) (void)g.play(warm, before);
    const auto play = g.play(shoe, before);
    for (std::size_t i = 0; i < guess_odds_grid.size(); ++i) mean_lr[i] += std::exp(play.log_lr[i]);
    const double e = std::exp(stats::log_mean_exp(play.log_lr));
    mean_e += e;
    p_values.push_back(std::min(1.0, 1 / e));
    hits += play.hits;
    compensator += play.null_mean;
    ++count;
  } while (std::next_permutation(shoe.begin(), shoe.end()));
  for (std::size_t i = 0; i < guess_odds_grid.size(); ++i)
    EXPECT_NEAR(mean_lr[i] / count, 1.0, 1e-12) << guess_odds_grid[i];
  EXPECT_NEAR(mean_e / count, 1.0, 1e-12);
  EXPECT_NEAR(hits / count, compensator / count, 1e-12);
  std::sort(p_values.begin(), p_values.end());
  for (std::size_t k = 0; k < p_values.size(); ++k)  // P(p <= p_(k)) = (k+1)/count at most... <= p_(k)
    EXPECT_LE(static_cast<double>(std::upper_bound(p_values.begin(), p_values.end(), p_values[k]) - p_values.begin()) /
                  count,
              p_values[k] + 1e-12);
}

TEST(ShoeGuessing, NullLawByEnumeration) {
  check_null_by_enumeration(3, 2, {}, 0);                           // 90 arrangements
  check_null_by_enumeration(3, 2, {}, -2);                          // the guesser oriented the other way
  check_null_by_enumeration(4, 2, {}, 1);                           // 2,520
  check_null_by_enumeration(2, 3, {}, 0);                           // 20
  check_null_by_enumeration(3, 3, {2, 0, 1, 1, 0, 2, 2, 1, 0}, 3);  // 1,680, a shuffled before order
}

// With one copy the shoe guesser's ratios are the deck's: p = 1/R and the score is the
// DFH guesser's.
TEST(ShoeGuessing, OneCopyIsTheDeckGuesser) {
  xoshiro256pp engine(3);
  std::vector<card_t> deck(52);
  std::vector<std::uint32_t> labels(52);
  stats::shoe_guesser shoe(52, 1);
  shelf_guesser plain(52);
  for (int k = 0; k < 50; ++k) {
    std::iota(deck.begin(), deck.end(), card_t{0});
    shelf_shuffle(deck, 10, 1, engine);
    std::copy(deck.begin(), deck.end(), labels.begin());
    const auto a = shoe.play(deck);
    const auto b = stats::deck_guess_play(52, plain.play(labels));
    EXPECT_EQ(a.hits, b.hits);
    for (std::size_t i = 0; i < guess_odds_grid.size(); ++i) EXPECT_NEAR(a.log_lr[i], b.log_lr[i], 1e-9);
  }
}

std::string shoes_text(int shoes, unsigned decks, std::uint64_t shelves, std::uint64_t seed, bool mirror = false) {
  xoshiro256pp engine(seed);
  std::vector<card_t> shoe(52 * decks);
  std::ostringstream out;
  for (int k = 0; k < shoes; ++k) {
    std::iota(shoe.begin(), shoe.end(), card_t{0});
    if (mirror) std::reverse(shoe.begin(), shoe.end());  // fed from the bottom
    if (shelves > 0)
      shelf_shuffle(shoe, shelves, 1, engine);
    else
      fisher_yates(shoe, engine);
    for (std::size_t i = 0; i < shoe.size(); ++i) out << (i ? " " : "") << format_card(shoe[i] % 52, deck_spec{});
    out << '\n';
  }
  return out.str();
}

stats::audit_result audit_shoes(const std::string& text, unsigned decks) {
  stats::input_settings s;
  s.deck = deck_spec{decks, 0};
  s.shoe = true;
  s.machine_tests = true;
  std::istringstream in(text);
  return stats::audit_stream(in, s);
}

const stats::test_result& test_named(const stats::audit_result& r, const std::string& name) {
  for (const auto& t : r.tests)
    if (t.name == name) return t;
  throw std::runtime_error("no test " + name);
}

// The goal: an 8-deck shoe through one 10-shelf pass is caught from 20 shoes, fed from the top
// or the bottom, on 5 seeds each. (Deterministic given the seeds; at these sizes the guessing
// e-value is above 1e10 where the threshold is 1e5.)
TEST(ShoeAudit, EightDeckShoeThroughTenShelvesIsCaughtFromTwentyShoes) {
  for (std::uint64_t seed = 1; seed <= (FAIRDECK_SLOW_BUILD ? 2 : 5); ++seed)  // sanitizers: two seeds
    for (bool mirror : {false, true}) {
      const auto r = audit_shoes(shoes_text(20, 8, 10, seed, mirror), 8);
      EXPECT_TRUE(r.decision.biased) << seed << mirror;
      EXPECT_LT(*test_named(r, "guessing").p_value, 1e-5) << seed << mirror;
      EXPECT_EQ(r.cards.size(), 416U);
    }
}

// Uniform shoes are never called biased: 400 shoes of 6 decks on 3 seeds; each audit's
// false-failure rate is at most alpha = 1e-4 (Bonferroni), 3e-4 for the three.
TEST(ShoeAudit, UniformShoesAreNotBiased) {
  for (std::uint64_t seed = 1; seed <= 3; ++seed) {
    const auto r = audit_shoes(shoes_text(400, 6, 0, 100 + seed), 6);
    EXPECT_FALSE(r.decision.biased) << seed << r.decision.worst_test;
    EXPECT_FALSE(test_named(r, "guessing").skipped());
    EXPECT_FALSE(test_named(r, "turning-points").skipped());
    EXPECT_FALSE(test_named(r, "colour-changes").skipped());
    EXPECT_EQ(r.guess_null.size(), 6U * 52 + 1);
    EXPECT_NEAR(std::accumulate(r.guess_null.begin(), r.guess_null.end(), 0.0), 1.0, 1e-9);
  }
}

// The reader's shoe mode: names with each face D times, faces 0..51 D times, or shoe indices
// 0..52D-1; anything else one line naming the line and the problem.
TEST(ShoeReader, AcceptsShoesAndNamesBadLines) {
  stats::deck_reader r(stats::deck_format::auto_detect, deck_spec{2, 0}, std::nullopt, true);
  std::vector<card_t> order;
  std::string faces, copies, names;
  for (int i = 0; i < 104; ++i) {
    faces += std::to_string(i % 52) + ' ';
    copies += std::to_string(103 - i) + ' ';
    names += format_card(static_cast<card_t>(i % 52), deck_spec{}) + ' ';
  }
  ASSERT_TRUE(r.parse_line(faces, order));
  EXPECT_EQ(order.size(), 104U);
  EXPECT_EQ(order[53], 1U);
  ASSERT_TRUE(r.parse_line(copies, order));
  EXPECT_EQ(order[0], 51U);
  EXPECT_EQ(r.cards().size(), 104U);
  EXPECT_EQ(r.copies(), 2U);
  const auto error_of = [](stats::deck_reader& reader, const std::string& line) {
    std::vector<card_t> o;
    try {
      reader.parse_line(line, o);
    } catch (const stats::deck_input_error& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(error_of(r, "0 1 2"), "line 3: 3 cards, expected a shoe of 104 (2 decks)");
  std::string three_aces;  // face 0 three times, face 1 once
  for (int i = 0; i < 104; ++i) three_aces += std::to_string(i == 1 ? 0 : i % 52) + ' ';
  EXPECT_EQ(error_of(r, three_aces), "line 4: card 'Ac' appears 3 times, expected 2 (once per deck)");
  EXPECT_EQ(error_of(r, "104 " + copies.substr(4)), "line 5: card index 104 is out of range 0..103");
  stats::deck_reader text(stats::deck_format::text, deck_spec{2, 0}, std::nullopt, true);
  ASSERT_TRUE(text.parse_line(names, order));
  EXPECT_EQ(order[52], 0U);
  EXPECT_NE(error_of(text, "Ah Ah Ah").find("line 2"), std::string::npos);
  EXPECT_THROW(stats::deck_reader(stats::deck_format::text, deck_spec{2, 1}, std::nullopt, true),
               std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck
