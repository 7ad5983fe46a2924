// Reads decks produced by another system, one per line, for `fairdeck audit --input`.
//
//  text     card names as fairdeck prints them ("Ac 7d Th ..."; see cards/card.hpp), any
//           subset of the shoe: the first deck fixes which cards make up the deck and every
//           later line must hold exactly those cards.
//  indices  whitespace- or comma-separated card indices, a permutation of 0..n-1 (fairdeck's
//           encoding: suit = i / 13, rank = i % 13).
//  auto     indices when the first deck's first token is all digits ("12"), else text ("2c").
// Shoes (`shoe` below): a camera log sees "Ah", not which of the shoe's D copies it was. In
// shoe mode every line holds 52 D cards, each of the 52 faces exactly D times: names ("Ah"
// D times) or indices, either faces 0..51 D times each or fairdeck's shoe indices 0..52D-1
// (copy d of face f is 52 d + f; only the face is kept). `order` then holds faces 0..51.
// Lines starting with '#' are comments; a trailing '\r' is ignored. Anything else that is
// not a deck (including an empty line) is an error naming its line number.
#pragma once

#include <cstdint>
#include <istream>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/cards/card.hpp"

namespace fairdeck::stats {

enum class deck_format { auto_detect, text, indices };

// "auto", "text", "indices"; throws std::invalid_argument.
[[nodiscard]] deck_format parse_deck_format(std::string_view name);
[[nodiscard]] std::string_view format_name(deck_format f) noexcept;

class deck_input_error : public std::invalid_argument {
 public:
  deck_input_error(std::uint64_t line, const std::string& what);
  [[nodiscard]] std::uint64_t line() const noexcept { return line_; }

 private:
  std::uint64_t line_;
};

class deck_reader {
 public:
  // `cards`: required deck size (default: whatever the first deck holds, 2..max_audit_cards).
  // `shoe`: shoe mode (above) for a shoe of spec.decks >= 2 decks and no jokers; cards() is
  // then the shoe's 52 D cards and parse_line gives faces 0..51.
  deck_reader(deck_format format, deck_spec spec, std::optional<std::size_t> cards = {}, bool shoe = false);

  // The longest line accepted: the largest shoe an audit takes (max_audit_cards cards) at 16
  // bytes per card ("10\u2660\uFE0F" is 8, plus separators) -- a fixed bound, so one endless
  // line cannot grow memory without limit.
  static constexpr std::size_t max_line_bytes = 16 * 2048;

  // Reads the next line of `in` into `line` (without the newline), at most max_line_bytes.
  // Returns false at the end of the input. Throws deck_input_error naming the line when it
  // is longer.
  bool read_line(std::istream& in, std::string& line) const;

  // Parses the next line (no newline). Returns false for a comment line. On success
  // `order` holds the deck top first as indices into cards(). Throws deck_input_error.
  bool parse_line(std::string_view line, std::vector<card_t>& order);

  [[nodiscard]] std::uint64_t line_number() const noexcept { return line_; }
  // The deck's cards in canonical order (card ids of spec()); empty before the first deck.
  [[nodiscard]] std::span<const card_t> cards() const noexcept { return cards_; }
  [[nodiscard]] const deck_spec& spec() const noexcept { return spec_; }
  [[nodiscard]] deck_format format() const noexcept { return format_; }
  // Copies of each face in shoe mode (spec.decks), 1 otherwise.
  [[nodiscard]] unsigned copies() const noexcept { return shoe_ ? spec_.decks : 1; }

 private:
  void parse_indices(std::string_view line, std::vector<card_t>& order);
  void parse_text(std::string_view line, std::vector<card_t>& order);
  void fix_deck(std::size_t size);
  void parse_shoe(std::string_view line, std::vector<card_t>& order);
  [[noreturn]] void fail(const std::string& what) const;

  deck_format format_;
  deck_spec spec_;
  std::optional<std::size_t> expected_;
  std::uint64_t line_ = 0;
  std::vector<card_t> cards_;          // canonical deck (sorted card ids)
  std::vector<std::int32_t> index_of_; // card id -> position in cards_, -1 if not in the deck
  std::vector<std::uint64_t> seen_;    // line number that last used each deck index
  bool shoe_ = false;
  std::vector<std::uint32_t> face_count_;  // shoe mode: copies of each face on this line
};

}  // namespace fairdeck::stats
