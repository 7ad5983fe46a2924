// External deck input: formats, deck inference, and errors that name the line.
#include <gtest/gtest.h>

#include <numeric>
#include <sstream>

#include "fairdeck/stats/audit.hpp"

namespace fairdeck::stats {
namespace {

std::string error_of(deck_reader& r, std::string_view line) {
  std::vector<card_t> order;
  try {
    r.parse_line(line, order);
  } catch (const deck_input_error& e) {
    return e.what();
  }
  return "no error";
}

TEST(StatsDeckReader, IndicesInferTheDeckFromTheFirstLine) {
  deck_reader r(deck_format::auto_detect, {});
  std::vector<card_t> order;
  EXPECT_FALSE(r.parse_line("# produced by shuffler 2.1", order));
  ASSERT_TRUE(r.parse_line("3 0 2 1\r", order));
  EXPECT_EQ(r.format(), deck_format::indices);
  EXPECT_EQ(order, (std::vector<card_t>{3, 0, 2, 1}));
  EXPECT_EQ(r.cards().size(), 4u);
  ASSERT_TRUE(r.parse_line("  1,2 , 3\t0", order));
  EXPECT_EQ(order, (std::vector<card_t>{1, 2, 3, 0}));
  EXPECT_EQ(error_of(r, "1 2 3"), "line 4: 3 cards, expected 4");
  EXPECT_EQ(error_of(r, "1 2 3 3"), "line 5: card index 3 appears twice");
  EXPECT_EQ(error_of(r, "1 2 3 4"), "line 6: card index 4 is out of range 0..3");
  EXPECT_EQ(error_of(r, "1 2 x 0"), "line 7: 'x' is not a card index");
  EXPECT_EQ(error_of(r, "-1 2 3 0"), "line 8: '-1' is not a card index");
  EXPECT_EQ(error_of(r, ""), "line 9: empty line, expected a deck of 4 cards");
  EXPECT_EQ(error_of(r, "0 1 2 3 0"), "line 10: more than 4 cards");
}

TEST(StatsDeckReader, TextDecksMayBeAnySubsetOfTheShoe) {
  deck_reader r(deck_format::auto_detect, {});
  std::vector<card_t> order;
  ASSERT_TRUE(r.parse_line("Kh Ac 7d", order));
  EXPECT_EQ(r.format(), deck_format::text);
  // Canonical order is fairdeck's: Ac (0) < 7d (19) < Kh (38).
  EXPECT_EQ(std::vector<card_t>(r.cards().begin(), r.cards().end()), (std::vector<card_t>{0, 19, 38}));
  EXPECT_EQ(order, (std::vector<card_t>{2, 0, 1}));
  ASSERT_TRUE(r.parse_line("7d,Kh,Ac", order));
  EXPECT_EQ(order, (std::vector<card_t>{1, 2, 0}));
  EXPECT_EQ(error_of(r, "7d Kh Qs"), "line 3: card 'Qs' is not in the deck the first line defined");
  EXPECT_EQ(error_of(r, "7d Kh"), "line 4: 2 cards, expected 3");
  EXPECT_NE(error_of(r, "7d Kh Zz").find("line 5: "), std::string::npos);
  EXPECT_NE(error_of(r, "7d Kh 7d").find("line 6: "), std::string::npos);
}

TEST(StatsDeckReader, ExplicitFormatAndSizeAreEnforced) {
  deck_reader text(deck_format::text, {});
  EXPECT_NE(error_of(text, "0 1 2").find("line 1"), std::string::npos);
  deck_reader sized(deck_format::indices, {}, 3);
  EXPECT_EQ(error_of(sized, "0 1 2 3"), "line 1: card index 3 is out of range 0..2");
  deck_reader one(deck_format::indices, {});
  EXPECT_EQ(error_of(one, "0"), "line 1: a deck of 1 cards; the audit needs 2..2048");
  EXPECT_THROW((void)parse_deck_format("csv"), std::invalid_argument);
  EXPECT_EQ(parse_deck_format("indices"), deck_format::indices);
}

TEST(StatsDeckReader, StreamAuditMatchesTheSimulatedAudit) {
  // Decks written out by fairdeck itself and read back give exactly the simulated counts.
  const audit_subject s{{shuffle_kind::fisher_yates, 0}, engine_spec{engine_id::pcg64, 4, {}}};
  const std::size_t n = 12;
  const std::uint64_t trials = 3000;
  std::ostringstream text;
  visit_engine(s.engine, 0, [&](auto& e) {
    std::vector<card_t> deck(n);
    for (std::uint64_t t = 0; t < trials; ++t) {
      std::iota(deck.begin(), deck.end(), card_t{0});
      fisher_yates(deck, e);
      for (std::size_t i = 0; i < n; ++i) text << (i ? " " : "") << deck[i];
      text << '\n';
    }
  });
  std::istringstream in(text.str());
  const auto r = audit_stream(in, {});
  EXPECT_EQ(r.counts, count_deals(s, n, trials, 1));
  EXPECT_FALSE(r.decision.biased);
  EXPECT_EQ(r.algorithm, "input");
}

TEST(StatsDeckReader, StreamAuditFlagsAStuckShuffler) {
  std::string text;
  for (int i = 0; i < 500; ++i) text += "2c Ac 3c 4c 5c 6c\n";
  std::istringstream in(text);
  const auto r = audit_stream(in, {});
  EXPECT_TRUE(r.decision.biased);
  EXPECT_EQ(r.counts.trials, 500u);
  std::istringstream empty("# nothing here\n");
  EXPECT_THROW((void)audit_stream(empty, {}), deck_input_error);
}

}  // namespace
}  // namespace fairdeck::stats
