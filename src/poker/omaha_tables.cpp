#include "fairdeck/poker/internal/omaha_tables.hpp"

#include <algorithm>
#include <bit>

namespace fairdeck::poker::internal {
namespace {

using detail::rank_pair_column;

unsigned colex_id(const std::array<unsigned, 5>& r) {  // r sorted ascending
  const auto& cx = detail::colex;
  return cx[0][r[0]] + cx[1][r[1]] + cx[2][r[2]] + cx[3][r[3]] + cx[4][r[4]];
}

std::uint64_t rank_key(unsigned fairdeck_rank) { return std::uint64_t{1} << (3 * ((fairdeck_rank + 12) % 13)); }

constexpr std::array<std::array<std::uint8_t, 3>, 10> triples{{{0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 2, 3}, {0, 2, 4},
                                                              {0, 3, 4}, {1, 2, 3}, {1, 2, 4}, {1, 3, 4}, {2, 3, 4}}};

}  // namespace

omaha_tables::omaha_tables() : high_(std::size_t{board_multisets} * rank_pairs), low_(256 * 256) {
  const auto& ev = hand_evaluator::instance();
  std::array<unsigned, 5> r{};
  for (r[0] = 0; r[0] < 13; ++r[0])
    for (r[1] = r[0]; r[1] < 13; ++r[1])
      for (r[2] = r[1]; r[2] < 13; ++r[2])
        for (r[3] = r[2]; r[3] < 13; ++r[3])
          for (r[4] = r[3]; r[4] < 13; ++r[4]) {
            if (r[0] == r[4]) continue;  // five of a rank
            std::array<unsigned, 13> count{};
            for (unsigned x : r) ++count[x];
            std::array<std::uint64_t, 10> tk{};
            for (unsigned t = 0; t < 10; ++t)
              tk[t] = rank_key(r[triples[t][0]]) + rank_key(r[triples[t][1]]) + rank_key(r[triples[t][2]]);
            std::sort(tk.begin(), tk.end());
            const auto distinct = static_cast<unsigned>(std::unique(tk.begin(), tk.end()) - tk.begin());
            strength_t* row = &high_[std::size_t{colex_id(r)} * rank_pairs];
            for (unsigned q = 0; q < 13; ++q)
              for (unsigned p = 0; p <= q; ++p) {
                if (p == q ? count[p] + 2 > 4 : count[p] + 1 > 4 || count[q] + 1 > 4) continue;  // cannot occur
                const std::uint64_t pk = rank_key(p) + rank_key(q);
                strength_t best = 0;
                for (unsigned t = 0; t < distinct; ++t) best = std::max(best, ev.by_ranks(pk + tk[t]));
                row[rank_pair_column(p, q)] = best;
              }
          }
  // Low: best_pair[B][P] = smallest T | P over 3-subsets T of B disjoint from the 2-set P.
  std::vector<std::uint16_t> best_pair(256 * 256, 256);
  for (unsigned b = 0; b < 256; ++b)
    for (unsigned t = 0; t < 256; ++t) {
      if (std::popcount(t) != 3 || (t & ~b)) continue;
      for (unsigned p = 0; p < 256; ++p)
        if (std::popcount(p) == 2 && !(p & t))
          best_pair[b << 8 | p] = static_cast<std::uint16_t>(std::min<unsigned>(best_pair[b << 8 | p], t | p));
    }
  for (unsigned b = 0; b < 256; ++b)
    for (unsigned h = 0; h < 256; ++h) {
      unsigned best = 256;
      for (unsigned p = h; p; p = (p - 1) & h)  // every subset of h
        if (std::popcount(p) == 2) best = std::min<unsigned>(best, best_pair[b << 8 | p]);
      low_[b << 8 | h] = static_cast<std::uint8_t>(256 - best);
    }
}

const omaha_tables& omaha_tables::instance() {
  static const omaha_tables tables;
  return tables;
}

}  // namespace fairdeck::poker::internal
