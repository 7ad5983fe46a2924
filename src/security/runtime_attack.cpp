#include "fairdeck/security/runtime_attack.hpp"

#include <array>
#include <numeric>
#include <stdexcept>

namespace fairdeck {
namespace {

using runtimes::runtime_id;

// The catalogue's search facts (runtimes/runtime.hpp runtime_seed_search), one row per runtime.
std::array<runtime_attack_info, runtimes::runtime_count> make_rows() {
  std::array<runtime_attack_info, runtimes::runtime_count> out{};
  for (const auto& r : runtimes::runtime_catalog())
    out[static_cast<std::size_t>(r.id)] = {r.id, r.search.searchable, r.search.last_seed, r.search.clock_seeded,
                                           r.search.seeds, r.search.note};
  return out;
}

}  // namespace

const runtime_attack_info& attack_info(runtimes::runtime_id id) noexcept {
  static const auto rows = make_rows();
  return rows[static_cast<std::size_t>(id)];
}

std::vector<card_t> runtime_deck(runtimes::runtime_id id, std::uint64_t seed, std::size_t deck_size) {
  std::vector<std::uint32_t> list(deck_size);
  std::iota(list.begin(), list.end(), 0u);
  runtimes::runtime_shuffler(id, seed).shuffle(list);
  return std::vector<card_t>(list.begin(), list.end());
}

}  // namespace fairdeck
