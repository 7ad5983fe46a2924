// Fuzzes `fairdeck audit --input`: any bytes either yield decks that are permutations of
// the deck the first line fixed, or a deck_input_error naming a line. Never a crash or hang.
// First byte: format (auto/text/indices) and whether the deck size is fixed; the rest is
// the input text. The whole stream audit (counting and tests) runs on what parses.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/stats/audit.hpp"

using namespace fairdeck;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const auto format = static_cast<stats::deck_format>(data[0] % 3);
  const std::optional<std::size_t> cards = (data[0] & 4) ? std::optional<std::size_t>(2 + (data[0] >> 3) % 8) : std::nullopt;
  const deck_spec spec{1, (data[0] >> 6) % 3u};
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);

  stats::deck_reader reader(format, spec, cards);
  std::vector<card_t> order;
  std::istringstream lines(text);
  std::string line;
  try {
    while (std::getline(lines, line)) {
      if (!reader.parse_line(line, order)) continue;
      const std::size_t n = reader.cards().size();
      if (order.size() != n || n < 2) std::abort();
      std::vector<bool> seen(n, false);
      for (card_t c : order) {
        if (c >= n || seen[c]) std::abort();
        seen[c] = true;
      }
      for (card_t id : reader.cards())
        if (id >= reader.spec().size()) std::abort();
    }
  } catch (const stats::deck_input_error& e) {
    if (e.line() != reader.line_number()) std::abort();
  }

  std::istringstream again(text);
  stats::input_settings settings;
  settings.format = format;
  settings.deck = spec;
  settings.cards = cards;
  try {
    const auto result = stats::audit_stream(again, settings);
    if (result.counts.trials == 0 || result.tests.empty()) std::abort();
  } catch (const stats::deck_input_error&) {
  }
  return 0;
}
