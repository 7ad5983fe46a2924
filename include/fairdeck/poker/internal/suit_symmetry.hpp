// Suit isomorphism for exhaustive enumeration. Poker strengths do not depend on suit names,
// so if a permutation of the four suits maps the whole input (board, dead cards and every
// player's weighted range) onto itself, it maps each board completion's outcomes one-to-one
// onto another completion's with the same results. Enumerating one representative per orbit
// and weighting it by the orbit size (|G| / |stabiliser|, the orbit-stabiliser theorem) gives
// exactly the same integer sums. The representative is the completion whose 52-bit card mask
// is smallest among its images.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

namespace fairdeck::poker::internal {

struct suit_perm {
  std::array<std::uint8_t, 4> to{0, 1, 2, 3};  // suit s becomes to[s]
};

// A card mask (bit c for card c, suit = c / 13) with every suit renamed.
[[nodiscard]] inline std::uint64_t permute_mask(std::uint64_t m, const suit_perm& p) noexcept {
  std::uint64_t out = 0;
  for (unsigned s = 0; s < 4; ++s) out |= ((m >> (13 * s)) & 0x1fff) << (13 * p.to[s]);
  return out;
}

// All 24 suit permutations, the identity first.
[[nodiscard]] inline std::vector<suit_perm> all_suit_perms() {
  std::vector<suit_perm> out;
  std::array<std::uint8_t, 4> to{0, 1, 2, 3};
  do out.push_back({to});
  while (std::next_permutation(to.begin(), to.end()));
  return out;
}

// The non-identity elements of a symmetry group, for orbit weights of completions.
class completion_orbits {
 public:
  explicit completion_orbits(std::vector<suit_perm> group_without_identity)
      : perms_(std::move(group_without_identity)) {}
  [[nodiscard]] unsigned group_size() const noexcept { return static_cast<unsigned>(perms_.size()) + 1; }
  // 0 if `m` is not its orbit's representative, else the orbit's size.
  [[nodiscard]] std::uint64_t weight(std::uint64_t m) const noexcept {
    unsigned stabiliser = 1;
    for (const auto& p : perms_) {
      const std::uint64_t image = permute_mask(m, p);
      if (image < m) return 0;
      stabiliser += image == m;
    }
    return group_size() / stabiliser;
  }

 private:
  std::vector<suit_perm> perms_;
};

}  // namespace fairdeck::poker::internal
