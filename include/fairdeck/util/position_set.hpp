// A set of positions 0..n-1 held as a bitset, with the queries the complete-feedback
// guessers need (shuffle/shelf.hpp's shelf_guesser, stats/machine.hpp's shoe_guesser): is a
// position still in, the largest member below a position, the smallest above. A query reads
// the position's word and walks whole words from there (countl_zero / countr_zero), so it
// costs one or two word operations on a 52-card deck and O(n / 64) at worst.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace fairdeck {

class position_set {
 public:
  explicit position_set(std::size_t n = 0) : n_(n), words_((n + 63) / 64) {}

  // Every position 0..n-1 in the set.
  void fill() noexcept {
    for (std::size_t w = 0; w < words_.size(); ++w)
      words_[w] = n_ - 64 * w >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (n_ - 64 * w)) - 1;
  }
  void erase(std::size_t c) noexcept { words_[c / 64] &= ~(std::uint64_t{1} << (c % 64)); }
  [[nodiscard]] bool contains(std::size_t c) const noexcept { return (words_[c / 64] >> (c % 64) & 1U) != 0; }
  [[nodiscard]] std::size_t size() const noexcept { return n_; }

  // The largest member < c, or size() when there is none.
  [[nodiscard]] std::size_t below(std::size_t c) const noexcept {
    if (c == 0) return n_;
    std::size_t w = (c - 1) / 64;
    const std::size_t b = (c - 1) % 64;
    std::uint64_t bits = words_[w] & (b == 63 ? ~std::uint64_t{0} : (std::uint64_t{2} << b) - 1);
    for (;;) {
      if (bits) return 64 * w + 63 - static_cast<std::size_t>(std::countl_zero(bits));
      if (w == 0) return n_;
      bits = words_[--w];
    }
  }

  // The smallest member > c, or size() when there is none.
  [[nodiscard]] std::size_t above(std::size_t c) const noexcept {
    std::size_t w = c / 64;
    std::uint64_t bits = c % 64 == 63 ? 0 : words_[w] & (~std::uint64_t{0} << (c % 64 + 1));
    for (;;) {
      if (bits) return 64 * w + static_cast<std::size_t>(std::countr_zero(bits));
      if (++w == words_.size()) return n_;
      bits = words_[w];
    }
  }

 private:
  std::size_t n_;
  std::vector<std::uint64_t> words_;
};

}  // namespace fairdeck
