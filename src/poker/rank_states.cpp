#include "fairdeck/poker/internal/rank_states.hpp"

#include <unordered_map>

namespace fairdeck::poker::internal {

rank_states::rank_states() {
  const auto& ev = hand_evaluator::instance();
  // Breadth-first by multiset size, so the states of each size are numbered contiguously.
  std::vector<std::uint64_t> keys{0};  // rank-count keys (hand_eval.hpp layout), by state
  std::size_t level_begin = 0;
  for (unsigned size = 0; size <= 6; ++size) {
    const std::size_t level_end = keys.size();
    if (size == 4) first_row_state_ = static_cast<std::uint32_t>(level_begin);
    std::unordered_map<std::uint64_t, std::uint32_t> ids;
    for (std::size_t s = level_begin; s < level_end; ++s) {
      for (unsigned r = 0; r < 13; ++r) {
        const unsigned shift = 3 * ((r + 12) % 13);
        const bool full = ((keys[s] >> shift) & 7) == 4;
        const std::uint64_t nk = keys[s] + (std::uint64_t{1} << shift);
        if (size >= 4) row_.push_back(full ? strength_t{0} : ev.by_ranks(nk));
        if (size == 6) continue;  // the last level only needs rows
        std::uint32_t id = 0;
        if (!full) {
          const auto [it, inserted] = ids.try_emplace(nk, static_cast<std::uint32_t>(keys.size()));
          if (inserted) keys.push_back(nk);
          id = it->second;
        }
        next_.push_back(id);
      }
    }
    level_begin = level_end;
  }
  states_ = static_cast<std::uint32_t>(keys.size());
}

const rank_states& rank_states::instance() {
  static const rank_states table;
  return table;
}

}  // namespace fairdeck::poker::internal
