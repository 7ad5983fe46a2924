#include "fairdeck/cards/card.hpp"

#include <array>
#include <cctype>
#include <iterator>
#include <numeric>

#include <fmt/format.h>

#include "fairdeck/util/printable.hpp"

namespace fairdeck {
namespace {

constexpr std::string_view rank_chars = "A23456789TJQK";
constexpr std::string_view suit_chars = "cdhs";
constexpr std::array<std::string_view, 4> suit_symbols = {"\u2663", "\u2666", "\u2665", "\u2660"};

// Rank prefix of a token: "10" or one character. Returns the rank and its length, or -1.
std::pair<int, std::size_t> parse_rank(std::string_view t) {
  if (t.size() >= 2 && t[0] == '1' && t[1] == '0') return {9, 2};
  if (t.empty()) return {-1, 0};
  const char up = static_cast<char>(std::toupper(static_cast<unsigned char>(t[0])));
  const auto pos = rank_chars.find(up);
  if (pos == std::string_view::npos) return {-1, 0};
  return {static_cast<int>(pos), 1};
}

int parse_suit(std::string_view t) {
  if (t.size() == 1) {
    const char low = static_cast<char>(std::tolower(static_cast<unsigned char>(t[0])));
    const auto pos = suit_chars.find(low);
    return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
  }
  for (std::size_t s = 0; s < suit_symbols.size(); ++s)
    if (t == suit_symbols[s]) return static_cast<int>(s);
  // Also accept the variation-selector emoji forms (e.g. "♥️") some keyboards emit.
  for (std::size_t s = 0; s < suit_symbols.size(); ++s)
    if (t.size() == suit_symbols[s].size() + 3 && t.substr(0, suit_symbols[s].size()) == suit_symbols[s] &&
        t.substr(suit_symbols[s].size()) == "\uFE0F")
      return static_cast<int>(s);
  return -1;
}

[[noreturn]] void bad_token(std::string_view token, std::string_view why) {
  // The token is user text: escaped, so ESC/BEL sequences never reach the terminal.
  throw card_parse_error(fmt::format("invalid card '{}': {}", printable(token), why));
}

}  // namespace

void validate(const deck_spec& spec) {
  if (spec.decks < 1) throw std::invalid_argument("a shoe needs at least 1 deck");
  if (spec.decks > max_decks) throw std::invalid_argument(fmt::format("a shoe holds at most {} decks", max_decks));
  if (spec.jokers > max_jokers) throw std::invalid_argument(fmt::format("a shoe holds at most {} jokers", max_jokers));
}

std::vector<card_t> make_deck(const deck_spec& spec) {
  validate(spec);
  std::vector<card_t> deck(spec.size());
  std::iota(deck.begin(), deck.end(), card_t{0});
  return deck;
}

namespace {
// One card's text appended to `out`: the single formatting rule behind both functions below.
void append_card(std::string& out, card_t c, const deck_spec& spec, format_options opt) {
  if (c >= spec.size()) {
    fmt::format_to(std::back_inserter(out), "?{}", c);
  } else if (is_joker(c, spec)) {
    fmt::format_to(std::back_inserter(out), "X{}", c - spec.decks * cards_per_deck + 1);
  } else {
    out += rank_chars[rank_of(c)];
    if (opt.unicode)
      out += suit_symbols[suit_of(c)];
    else
      out += suit_chars[suit_of(c)];
  }
}
}  // namespace

std::string format_card(card_t c, const deck_spec& spec, format_options opt) {
  std::string out;
  append_card(out, c, spec, opt);
  return out;
}

std::string format_cards(std::span<const card_t> cards, const deck_spec& spec, format_options opt) {
  std::string out;
  out.reserve(cards.size() * (opt.unicode ? 5 : 3));  // "Ac " (a suit symbol is 3 UTF-8 bytes)
  for (std::size_t i = 0; i < cards.size(); ++i) {
    if (i) out += ' ';
    append_card(out, cards[i], spec, opt);
  }
  return out;
}

card_t parse_card(std::string_view token, const deck_spec& spec) {
  if (token.empty()) bad_token(token, "empty");
  if (token[0] == 'X' || token[0] == 'x') {
    const auto digits = token.substr(1);
    if (digits.empty() || digits.size() > 4) bad_token(token, "a joker is X1..Xj");
    unsigned j = 0;
    for (char ch : digits) {
      if (ch < '0' || ch > '9') bad_token(token, "a joker is X1..Xj");
      j = j * 10 + static_cast<unsigned>(ch - '0');
    }
    if (j < 1 || j > spec.jokers)
      bad_token(token, spec.jokers ? fmt::format("this shoe has jokers X1..X{}", spec.jokers)
                                   : std::string("this shoe has no jokers"));
    return static_cast<card_t>(spec.decks * cards_per_deck + j - 1);
  }
  const auto [rank, len] = parse_rank(token);
  if (rank < 0) bad_token(token, "unknown rank (use A 2-9 T/10 J Q K)");
  const int suit = parse_suit(token.substr(len));
  if (suit < 0) bad_token(token, "unknown suit (use c d h s or \u2663 \u2666 \u2665 \u2660)");
  return static_cast<card_t>(suit * static_cast<int>(ranks_per_suit) + rank);
}

std::vector<card_t> parse_cards(std::string_view text, const deck_spec& spec) {
  std::vector<card_t> out;
  std::vector<unsigned> copies_used(spec.size(), 0);
  std::size_t i = 0;
  auto is_sep = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ','; };
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !is_sep(text[j])) ++j;
    if (j == i) break;
    const auto token = text.substr(i, j - i);
    card_t c = parse_card(token, spec);
    if (!is_joker(c, spec)) {
      unsigned& used = copies_used[c];
      if (used >= spec.decks)
        bad_token(token, spec.decks == 1 ? std::string("duplicate card")
                                         : fmt::format("more than {} copies in a {}-deck shoe", spec.decks, spec.decks));
      c = static_cast<card_t>(c + used * cards_per_deck);
      ++used;
    } else if (copies_used[c]++ > 0) {
      bad_token(token, "duplicate joker");
    }
    out.push_back(c);
    i = j;
  }
  return out;
}

}  // namespace fairdeck
