// Fuzzes the card-text parser: any input either parses to valid cards that print and
// re-parse to the same cards, or throws card_parse_error. Never crashes or hangs.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fairdeck/cards/card.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const fairdeck::deck_spec spec{1u + data[0] % 3u, data[1] % 5u};
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  try {
    const auto cards = fairdeck::parse_cards(text, spec);
    for (auto c : cards)
      if (c >= spec.size()) std::abort();
    if (fairdeck::parse_cards(fairdeck::format_cards(cards, spec), spec) != cards) std::abort();
    if (fairdeck::parse_cards(fairdeck::format_cards(cards, spec, {true}), spec) != cards) std::abort();
  } catch (const fairdeck::card_parse_error&) {
  }
  return 0;
}
