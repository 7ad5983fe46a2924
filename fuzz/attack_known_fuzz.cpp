// Fuzzes the attack's input checks and its SIMD filter: any engine/algorithm/known-card
// list over a small seed range either is rejected with std::invalid_argument, or yields
// exactly the seeds a brute-force replay with the reference shuffle finds. Never crashes.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "fairdeck/security/attack.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  if (size < 4) return 0;
  const auto catalog = engine_catalog();
  attack_spec spec;
  spec.engine = catalog[data[0] % catalog.size()].id;
  spec.algorithm = static_cast<shuffle_kind>(data[1] % 5);
  spec.first_seed = std::uint64_t{data[2]} * 1000;
  spec.last_seed = spec.first_seed + data[3] % 200;  // small: brute force stays cheap
  spec.threads = 1 + data[2] % 2;
  for (std::size_t i = 4; i + 1 < size && spec.known.size() < 8; i += 2)
    spec.known.push_back({static_cast<std::size_t>(data[i] % 60), static_cast<card_t>(data[i + 1] % 60)});
  if (size > 4 && data[4] == 0xff) {
    // Also exercise the seed-range parser on the remaining bytes.
    try {
      const auto r = parse_seed_range(std::string_view(reinterpret_cast<const char*>(data + 5), size - 5), spec.engine);
      if (r.first > r.last) std::abort();
    } catch (const std::invalid_argument&) {
    }
    return 0;
  }
  attack_result r;
  try {
    r = run_attack(spec);
  } catch (const std::invalid_argument&) {
    return 0;
  }
  std::vector<std::uint64_t> expected;
  for (std::uint64_t s = spec.first_seed; s <= spec.last_seed; ++s) {
    const auto deck = deck_for_seed(spec.engine, spec.algorithm, s);
    bool ok = true;
    for (const auto& k : spec.known) ok = ok && deck[k.position] == k.card;
    if (ok) expected.push_back(s);
  }
  if (r.seeds != expected || r.matches != expected.size() || !r.complete) std::abort();
  return 0;
}
