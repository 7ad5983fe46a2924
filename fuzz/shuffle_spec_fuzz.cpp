// Fuzzes parse_shuffle_spec: a spec that parses has a name() that parses back to the same
// spec, and a cheap spec shuffles a small deck into a permutation. Errors are
// std::invalid_argument. Never crashes or hangs.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <numeric>
#include <stdexcept>
#include <string_view>
#include <vector>

#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  shuffle_spec spec;
  try {
    spec = parse_shuffle_spec(text);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  if (parse_shuffle_spec(spec.name()) != spec) std::abort();
  std::uint64_t work = 0;
  for (const auto& s : spec.steps()) work += s.param ? s.param : info(s.kind).default_param;
  if (work > 2000) return 0;  // keep each input fast
  std::vector<std::uint32_t> deck(1 + data[0] % 60);
  std::iota(deck.begin(), deck.end(), 0u);
  xoshiro256pp engine(data[0]);
  try {
    apply_shuffle(spec, deck, engine);
  } catch (const std::invalid_argument&) {
    return 0;  // e.g. partial:K with K above the deck size
  }
  std::ranges::sort(deck);
  for (std::uint32_t i = 0; i < deck.size(); ++i)
    if (deck[i] != i) std::abort();
  return 0;
}
