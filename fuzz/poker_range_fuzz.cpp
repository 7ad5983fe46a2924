// Fuzzes the hold'em hand/range parser: any input either parses to a sorted set of valid,
// distinct two-card combos, or throws range_parse_error. Never crashes or hangs.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fairdeck/poker/range.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const auto combos = fairdeck::poker::parse_range(text);
    if (combos.empty() || combos.size() > 1326) std::abort();
    if (!std::is_sorted(combos.begin(), combos.end())) std::abort();
    if (std::adjacent_find(combos.begin(), combos.end()) != combos.end()) std::abort();
    for (const auto& h : combos)
      if (h[0] >= h[1] || h[1] >= 52) std::abort();
  } catch (const fairdeck::poker::range_parse_error&) {
  }
  try {
    for (auto c : fairdeck::poker::parse_card_run(text))
      if (c >= 52) std::abort();
  } catch (const fairdeck::poker::range_parse_error&) {
  }
  return 0;
}
