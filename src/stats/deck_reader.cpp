#include "fairdeck/stats/deck_reader.hpp"

#include <algorithm>
#include <charconv>

#include <fmt/format.h>

#include "fairdeck/stats/counts.hpp"

namespace fairdeck::stats {
namespace {

bool is_separator(char c) { return c == ' ' || c == '\t' || c == ',' || c == '\v' || c == '\f'; }

// Calls f(token) for each separator-delimited token.
template <class F>
void for_each_token(std::string_view line, F&& f) {
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_separator(line[i])) ++i;
    const std::size_t start = i;
    while (i < line.size() && !is_separator(line[i])) ++i;
    if (i > start) f(line.substr(start, i - start));
  }
}

std::string quoted(std::string_view token) {
  constexpr std::size_t shown = 24;  // keep one-line errors short on garbage input
  std::string out;
  for (char c : token.substr(0, shown)) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return fmt::format("'{}{}'", out, token.size() > shown ? "..." : "");
}

}  // namespace

deck_format parse_deck_format(std::string_view name) {
  if (name == "auto") return deck_format::auto_detect;
  if (name == "text") return deck_format::text;
  if (name == "indices") return deck_format::indices;
  throw std::invalid_argument(fmt::format("unknown input format '{}' (choose from auto, text, indices)", name));
}

std::string_view format_name(deck_format f) noexcept {
  switch (f) {
    case deck_format::text: return "text";
    case deck_format::indices: return "indices";
    case deck_format::auto_detect: break;
  }
  return "auto";
}

deck_input_error::deck_input_error(std::uint64_t line, const std::string& what)
    : std::invalid_argument(fmt::format("line {}: {}", line, what)), line_(line) {}

deck_reader::deck_reader(deck_format format, deck_spec spec, std::optional<std::size_t> cards, bool shoe)
    : format_(format), spec_(spec), expected_(cards), shoe_(shoe) {
  validate(spec_);
  if (shoe_) {
    if (spec_.decks < 2 || spec_.jokers != 0)
      throw std::invalid_argument("a shoe of indistinguishable copies needs 2 or more decks and no jokers");
    if (cards && *cards != spec_.size())
      throw std::invalid_argument(fmt::format("a shoe of {} decks holds {} cards, not {}", spec_.decks, spec_.size(), *cards));
    if (spec_.size() > max_audit_cards)
      throw std::invalid_argument(fmt::format("a shoe of {} cards; the audit takes at most {}", spec_.size(), max_audit_cards));
    expected_ = spec_.size();
    cards_.resize(spec_.size());
    for (std::size_t i = 0; i < cards_.size(); ++i) cards_[i] = static_cast<card_t>(i);
    face_count_.assign(cards_per_deck, 0);
  }
  if (cards && (*cards < 2 || *cards > max_audit_cards))
    throw std::invalid_argument(fmt::format("deck size must be 2..{}, not {}", max_audit_cards, *cards));
}

bool deck_reader::read_line(std::istream& in, std::string& line) const {
  static_assert(max_line_bytes >= 16 * max_audit_cards);
  line.resize(max_line_bytes + 1);
  in.getline(line.data(), static_cast<std::streamsize>(line.size()));  // stores at most max_line_bytes
  const auto got = static_cast<std::size_t>(in.gcount());
  if (in.fail() && !in.bad() && !in.eof() && got == max_line_bytes) {
    throw deck_input_error(line_ + 1, fmt::format("line is longer than {} bytes (a {}-card deck fits in far less): "
                                                  "not a deck, or no newlines in the input",
                                                  max_line_bytes, max_audit_cards));
  }
  if (got == 0 && (in.eof() || in.fail())) {
    line.clear();
    return false;
  }
  // gcount counts the extracted newline too (none when the input ended first).
  line.resize(in.eof() ? got : got - 1);
  if (in.fail() && !in.bad()) in.clear(in.rdstate() & ~std::ios::failbit);
  return true;
}

void deck_reader::fail(const std::string& what) const { throw deck_input_error(line_, what); }

bool deck_reader::parse_line(std::string_view line, std::vector<card_t>& order) {
  ++line_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (!line.empty() && line.front() == '#') return false;
  std::size_t first = 0;
  while (first < line.size() && is_separator(line[first])) ++first;
  if (first == line.size()) fail(cards_.empty() ? "empty line, expected a deck" : fmt::format("empty line, expected a deck of {} cards", cards_.size()));
  if (format_ == deck_format::auto_detect) {  // "12" is an index, "2c" and "10d" are cards
    std::size_t end = first;
    while (end < line.size() && !is_separator(line[end])) ++end;
    const auto token = line.substr(first, end - first);
    const bool digits = std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; });
    format_ = digits ? deck_format::indices : deck_format::text;
  }
  order.clear();
  if (shoe_)
    parse_shoe(line, order);
  else if (format_ == deck_format::indices)
    parse_indices(line, order);
  else
    parse_text(line, order);
  return true;
}

// Shoe mode: faces 0..51, each exactly copies() times.
void deck_reader::parse_shoe(std::string_view line, std::vector<card_t>& order) {
  const std::size_t n = cards_.size();
  const unsigned d = copies();
  if (format_ == deck_format::indices) {
    for_each_token(line, [&](std::string_view tok) {
      std::uint64_t v = 0;
      const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
      if (ec != std::errc{} || p != tok.data() + tok.size()) fail(fmt::format("{} is not a card index", quoted(tok)));
      if (v >= n) fail(fmt::format("card index {} is out of range 0..{}", v, n - 1));
      if (order.size() >= n) fail(fmt::format("more than {} cards, expected a shoe of {}", n, n));
      order.push_back(static_cast<card_t>(v % cards_per_deck));
    });
  } else {
    std::vector<card_t> ids;
    try {
      ids = parse_cards(line, spec_);  // repeated faces take successive copies
    } catch (const card_parse_error& e) {
      fail(e.what());
    }
    for (card_t id : ids) order.push_back(static_cast<card_t>(id % cards_per_deck));
  }
  if (order.size() != n) fail(fmt::format("{} cards, expected a shoe of {} ({} decks)", order.size(), n, d));
  std::fill(face_count_.begin(), face_count_.end(), 0U);
  for (card_t f : order) ++face_count_[f];
  for (std::size_t f = 0; f < cards_per_deck; ++f)
    if (face_count_[f] != d)
      fail(fmt::format("card '{}' appears {} times, expected {} (once per deck)", format_card(static_cast<card_t>(f), deck_spec{}),
                       face_count_[f], d));
}

void deck_reader::fix_deck(std::size_t size) {
  if (expected_ && size != *expected_) fail(fmt::format("{} cards, expected {}", size, *expected_));
  if (size < 2 || size > max_audit_cards)
    fail(fmt::format("a deck of {} cards; the audit needs 2..{}", size, max_audit_cards));
  seen_.assign(size, 0);
}

void deck_reader::parse_indices(std::string_view line, std::vector<card_t>& order) {
  // The first deck fixes n; indices then name cards of fairdeck's encoding.
  const std::size_t limit = cards_.empty() ? (expected_ ? *expected_ : max_audit_cards) : cards_.size();
  for_each_token(line, [&](std::string_view tok) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(tok.data(), tok.data() + tok.size(), v);
    if (ec != std::errc{} || p != tok.data() + tok.size()) fail(fmt::format("{} is not a card index", quoted(tok)));
    if (v >= limit) fail(fmt::format("card index {} is out of range 0..{}", v, limit - 1));
    if (order.size() >= limit) fail(fmt::format("more than {} cards", limit));
    order.push_back(static_cast<card_t>(v));
  });
  if (cards_.empty()) {
    fix_deck(order.size());
    cards_.resize(order.size());
    for (std::size_t i = 0; i < cards_.size(); ++i) cards_[i] = static_cast<card_t>(i);
    if (cards_.size() > spec_.size()) spec_ = deck_spec{static_cast<unsigned>((cards_.size() + cards_per_deck - 1) / cards_per_deck), 0};
  }
  if (order.size() != cards_.size()) fail(fmt::format("{} cards, expected {}", order.size(), cards_.size()));
  for (card_t v : order) {
    if (v >= cards_.size()) fail(fmt::format("card index {} is out of range 0..{}", v, cards_.size() - 1));
    if (seen_[v] == line_) fail(fmt::format("card index {} appears twice", v));
    seen_[v] = line_;
  }
}

void deck_reader::parse_text(std::string_view line, std::vector<card_t>& order) {
  // Text names faces, not shoe copies, so text input is one deck (plus jokers).
  const deck_spec text_spec{1, spec_.jokers};
  std::vector<card_t> ids;
  try {
    ids = parse_cards(line, text_spec);
  } catch (const card_parse_error& e) {
    fail(e.what());
  }
  if (cards_.empty()) {
    spec_ = text_spec;
    fix_deck(ids.size());
    cards_ = ids;
    std::sort(cards_.begin(), cards_.end());
    index_of_.assign(text_spec.size(), -1);
    for (std::size_t i = 0; i < cards_.size(); ++i) index_of_[cards_[i]] = static_cast<std::int32_t>(i);
  }
  for (card_t id : ids) {
    const std::int32_t idx = index_of_[id];
    if (idx < 0) fail(fmt::format("card '{}' is not in the deck the first line defined", format_card(id, spec_)));
    const auto u = static_cast<std::size_t>(idx);
    if (seen_[u] == line_) fail(fmt::format("card '{}' appears twice", format_card(id, spec_)));
    seen_[u] = line_;
    order.push_back(static_cast<card_t>(idx));
  }
  if (order.size() != cards_.size()) fail(fmt::format("{} cards, expected {}", order.size(), cards_.size()));
}

}  // namespace fairdeck::stats
