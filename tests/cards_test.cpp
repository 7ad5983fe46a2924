#include <gtest/gtest.h>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/cards/deal.hpp"

using namespace fairdeck;

TEST(Cards, EncodingMatchesTheFixedOrder) {
  const deck_spec d{};
  EXPECT_EQ(format_card(0, d), "Ac");
  EXPECT_EQ(format_card(12, d), "Kc");
  EXPECT_EQ(format_card(13, d), "Ad");
  EXPECT_EQ(format_card(9 + 26, d), "Th");
  EXPECT_EQ(format_card(51, d), "Ks");
  EXPECT_EQ(suit_of(40), 3u);
  EXPECT_EQ(rank_of(40), 1u);
}

TEST(Cards, ParsesAllSpellings) {
  EXPECT_EQ(parse_card("Ac"), 0);
  EXPECT_EQ(parse_card("10h"), parse_card("Th"));
  EXPECT_EQ(parse_card("th"), parse_card("Th"));
  EXPECT_EQ(parse_card("K\u2660"), 51);
  EXPECT_EQ(parse_card("2\u2666"), 14);
  EXPECT_EQ(parse_card("Q\u2665"), parse_card("Qh"));
  EXPECT_EQ(parse_card("J\u2663"), parse_card("Jc"));
  EXPECT_EQ(parse_card("A\u2665\uFE0F"), parse_card("Ah"));
}

TEST(Cards, RoundTripsEveryCardOfAShoe) {
  const deck_spec shoe{2, 4};
  const auto deck = make_deck(shoe);
  ASSERT_EQ(deck.size(), 108u);
  for (bool uni : {false, true}) {
    const auto text = format_cards(deck, shoe, {uni});
    EXPECT_EQ(parse_cards(text, shoe), deck) << text;
  }
  EXPECT_EQ(format_card(104, shoe), "X1");
  EXPECT_EQ(format_card(107, shoe), "X4");
  EXPECT_EQ(format_card(52, shoe), "Ac");  // copy 1 prints like copy 0
}

TEST(Cards, ErrorsNameTheBadToken) {
  try {
    (void)parse_cards("Ac Zz Kd");
    FAIL() << "no throw";
  } catch (const card_parse_error& e) {
    EXPECT_NE(std::string(e.what()).find("'Zz'"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)parse_card("A"), card_parse_error);
  EXPECT_THROW((void)parse_card("1c"), card_parse_error);
  EXPECT_THROW((void)parse_card("Acc"), card_parse_error);
  EXPECT_THROW((void)parse_card("X1"), card_parse_error);  // no jokers in a plain deck
  EXPECT_THROW((void)parse_card("X3", {1, 2}), card_parse_error);
  EXPECT_THROW((void)parse_cards("Ac Ac"), card_parse_error);
  EXPECT_EQ(parse_cards("Ac Ac", {2, 0}), (std::vector<card_t>{0, 52}));
  EXPECT_THROW((void)parse_cards("Ac,Ac,Ac", {2, 0}), card_parse_error);
}

TEST(Cards, DeckSpecValidation) {
  EXPECT_THROW(validate(deck_spec{0, 0}), std::invalid_argument);
  EXPECT_THROW(validate(deck_spec{max_decks + 1, 0}), std::invalid_argument);
  EXPECT_THROW(validate(deck_spec{1, max_jokers + 1}), std::invalid_argument);
  EXPECT_EQ((deck_spec{2, 4}.size()), 108u);
}

TEST(Deal, HoldemUsesTheStandardOrder) {
  std::vector<card_t> deck(52);
  for (card_t i = 0; i < 52; ++i) deck[i] = i;
  const auto d = deal_holdem(deck, 3);
  // Seat s gets positions s and 3+s; burn 6, flop 7-9, burn 10, turn 11, burn 12, river 13.
  EXPECT_EQ(d.hole[0], (std::array<card_t, 2>{0, 3}));
  EXPECT_EQ(d.hole[2], (std::array<card_t, 2>{2, 5}));
  EXPECT_EQ(d.burns, (std::array<card_t, 3>{6, 10, 12}));
  EXPECT_EQ(d.flop, (std::array<card_t, 3>{7, 8, 9}));
  EXPECT_EQ(d.turn, 11);
  EXPECT_EQ(d.river, 13);
  EXPECT_NO_THROW((void)deal_holdem(deck, 22));  // 52 cards exactly
  EXPECT_THROW((void)deal_holdem(deck, 23), std::invalid_argument);
  EXPECT_THROW((void)deal_holdem(deck, 1), std::invalid_argument);
}

TEST(Deal, HandsGoRoundTheTable) {
  std::vector<card_t> deck(52);
  for (card_t i = 0; i < 52; ++i) deck[i] = i;
  const auto hands = deal_hands(deck, 4, 13);
  EXPECT_EQ(hands[1][0], 1);
  EXPECT_EQ(hands[1][1], 5);
  EXPECT_EQ(hands[3][12], 51);
  EXPECT_THROW((void)deal_hands(deck, 4, 14), std::invalid_argument);
}
