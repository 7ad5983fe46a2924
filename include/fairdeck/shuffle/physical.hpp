// Models of how people shuffle real cards: the Gilbert–Shannon–Reeds riffle, the overhand
// shuffle and the cut. None is exactly uniform; they exist so that fairdeck can show how far
// from uniform a physical shuffle is (`fairdeck riffle`, `fairdeck audit`), and so that
// simulations can use the real thing. Each is exact to its model given an ideal engine.
// docs/physical-shuffles.md has the models, the proofs of equivalence and the numbers.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <stdexcept>
#include <utility>
#include <vector>

#include "fairdeck/random/bounded.hpp"

namespace fairdeck {

template <class R>
concept shuffleable_range = std::ranges::random_access_range<R> && std::permutable<std::ranges::iterator_t<R>> &&
                            std::copyable<std::ranges::range_value_t<R>>;

// Binomial(n, 1/2), exactly: the number of ones among n fair bits (whole 64-bit engine
// words, the last one masked). ceil(n/64) words.
template <random_engine E>
[[nodiscard]] std::uint64_t binomial_half(E& engine, std::uint64_t n) {
  std::uint64_t ones = 0;
  for (; n >= 64; n -= 64) ones += static_cast<std::uint64_t>(std::popcount(detail::draw_u64(engine)));
  if (n) ones += static_cast<std::uint64_t>(std::popcount(detail::draw_u64(engine) & ((std::uint64_t{1} << n) - 1)));
  return ones;
}

namespace detail {

// One GSR riffle of src[0, n) into dst[0, n), driven by n fair bits, one per position of the
// new deck: a 0 takes the next card of the top packet, a 1 the next card of the bottom packet;
// the top packet is the first (number of zeros) cards. Bits come from the low end of each
// 64-bit word upwards, and only n of them are used. `bits` holds ceil(n/64) words.
template <class Src, class Dst, random_engine E>
void riffle_once_by_bits(Src src, Dst dst, std::size_t n, std::uint64_t* bits, E& engine) {
  std::size_t ones = 0;
  for (std::size_t w = 0; w * 64 < n; ++w) {
    std::uint64_t word = draw_u64(engine);
    if (const std::size_t left = n - 64 * w; left < 64) word &= (std::uint64_t{1} << left) - 1;
    bits[w] = word;
    ones += static_cast<std::size_t>(std::popcount(word));
  }
  std::size_t top = 0, bottom = n - ones;  // next card of each packet
  for (std::size_t j = 0; j < n; ++j) {
    // Branch-free select: the bits are random, so a branch would mispredict half the time.
    const std::size_t b = (bits[j / 64] >> (j % 64)) & 1U;
    const std::size_t from = top ^ ((top ^ bottom) & (0 - b));
    dst[static_cast<std::ptrdiff_t>(j)] = src[static_cast<std::ptrdiff_t>(from)];
    bottom += b;
    top += b ^ 1U;
  }
}

}  // namespace detail

// `times` Gilbert–Shannon–Reeds riffles (Gilbert 1955; Reeds 1981; Bayer & Diaconis, "Trailing
// the dovetail shuffle to its lair", Ann. Appl. Probab. 2(2), 1992).
// The GSR model cuts c ~ Binomial(n, 1/2) cards off the top and drops cards from the two packets
// with probability proportional to their sizes; that gives every (cut, interleaving) pair the
// same probability 2^-n, i.e. it is the same as choosing a uniform n-bit word saying which
// packet each position of the new deck comes from. That word is what this draws: exact, one
// engine word per 64 cards per riffle and no bounded draws. gsr_riffle_by_drops() below is the
// literal model; tests/physical_exact_test.cpp proves both give the same distribution.
// Time O(times * n); one n-card buffer (riffles alternate between it and the range).
template <shuffleable_range R, random_engine E>
void riffle_shuffle(R&& r, std::uint64_t times, E& engine) {
  using V = std::ranges::range_value_t<R>;
  const auto n = static_cast<std::size_t>(std::ranges::distance(r));
  if (times == 0 || n < 2) return;
  const auto first = std::ranges::begin(r);
  std::vector<V> buffer(first, std::ranges::end(r));
  std::array<std::uint64_t, 8> local_bits;  // decks up to 512 cards need no allocation for bits
  std::vector<std::uint64_t> heap_bits(n > 64 * local_bits.size() ? (n + 63) / 64 : 0);
  std::uint64_t* bits = heap_bits.empty() ? local_bits.data() : heap_bits.data();
  for (std::uint64_t k = 0; k < times; ++k) {
    if (k % 2 == 0)
      detail::riffle_once_by_bits(first, buffer.begin(), n, bits, engine);
    else
      detail::riffle_once_by_bits(buffer.begin(), first, n, bits, engine);
  }
  if (times % 2 == 1) std::copy(buffer.begin(), buffer.end(), first);
}

// One GSR riffle exactly as the model is stated: binomial cut, then each next card of the new
// deck comes from the top packet with probability a/(a+b) (a, b = cards left in the top and
// bottom packet; the bounded draw draw_below(a+b) < a). Reference for the tests; the model
// drops cards from the bottoms of the packets, this from the tops: the same distribution,
// since either way every interleaving has probability 1/C(n, c).
// n fair bits + up to n-1 bounded draws.
template <shuffleable_range R, random_engine E>
void gsr_riffle_by_drops(R&& r, E& engine) {
  using V = std::ranges::range_value_t<R>;
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  if (n < 2) return;
  const std::vector<V> src(std::ranges::begin(r), std::ranges::end(r));
  auto out = std::ranges::begin(r);
  std::uint64_t top = 0;
  const std::uint64_t cut = binomial_half(engine, n);
  std::uint64_t bottom = cut;
  std::uint64_t a = cut, b = n - cut;  // cards left in each packet
  while (a && b) {
    if (draw_below(engine, a + b) < a) {
      *out++ = src[top++];
      --a;
    } else {
      *out++ = src[bottom++];
      --b;
    }
  }
  // One packet is empty: the rest of the other drops in order, no randomness needed.
  while (a--) *out++ = src[top++];
  while (b--) *out++ = src[bottom++];
}

// `times` overhand shuffles, Pemantle's model ("Randomization time for the overhand shuffle",
// J. Theoret. Probab. 2(1), 1989): each of the n-1 gaps between adjacent cards is,
// independently, a cut point with probability p = 2^-cut_log2; the packets so formed are
// moved, top packet first, onto a new pile, so their order is reversed while each keeps its
// own order. (Pemantle reverses each packet in place instead; the two differ by turning the
// whole deck over, which changes no distance from uniform.) p is exact: a gap is cut when
// cut_log2 fair bits are all zero. Needs on the order of n^2 log n shuffles to mix
// (Jonasson 2006), i.e. thousands for 52 cards.
// Time O(times * n); times * cut_log2 * ceil((n-1)/64) engine words.
inline constexpr unsigned overhand_default_cut_log2 = 2;  // p = 1/4: packets of 4 cards on average

template <shuffleable_range R, random_engine E>
void overhand_shuffle(R&& r, std::uint64_t times, E& engine, unsigned cut_log2 = overhand_default_cut_log2) {
  if (cut_log2 < 1 || cut_log2 > 32) throw std::invalid_argument("overhand shuffle: cut_log2 must be in 1..32");
  const auto first = std::ranges::begin(r);
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  if (n < 2) return;
  for (std::uint64_t k = 0; k < times; ++k) {
    // Reversing the deck reverses the order of the packets and the order inside each; turning
    // every packet back over restores the inside order. Gaps are i.i.d., so drawing them for
    // the reversed deck is the same as drawing them for the original one.
    std::reverse(first, first + static_cast<std::ptrdiff_t>(n));
    std::uint64_t packet_start = 0;
    for (std::uint64_t gap = 1; gap < n; gap += 64) {  // gap g lies between cards g-1 and g
      std::uint64_t cuts = ~std::uint64_t{0};
      for (unsigned i = 0; i < cut_log2; ++i) cuts &= ~detail::draw_u64(engine);
      if (n - gap < 64) cuts &= (std::uint64_t{1} << (n - gap)) - 1;
      while (cuts) {
        const std::uint64_t g = gap + static_cast<std::uint64_t>(std::countr_zero(cuts));
        std::reverse(first + static_cast<std::ptrdiff_t>(packet_start), first + static_cast<std::ptrdiff_t>(g));
        packet_start = g;
        cuts &= cuts - 1;
      }
    }
    std::reverse(first + static_cast<std::ptrdiff_t>(packet_start), first + static_cast<std::ptrdiff_t>(n));
  }
}

// One uniform cut: the top c cards go to the bottom, c uniform in [0, n) — each of the n
// rotations (including none) equally likely; one bounded draw. A cut alone is far from
// uniform (n orders out of n!) but it is what dealers do between shuffles.
template <shuffleable_range R, random_engine E>
void random_cut(R&& r, E& engine) {
  const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
  if (n < 2) return;
  // std::rotate, not std::ranges::rotate: clang 14 cannot instantiate the subrange the latter
  // returns with libstdc++ 12.
  const auto first = std::ranges::begin(r);
  std::rotate(first, first + static_cast<std::ptrdiff_t>(draw_below(engine, n)), first + static_cast<std::ptrdiff_t>(n));
}

// Number of rising sequences of an arrangement of the cards 0..n-1 (deck[j] = card at position
// j): maximal runs of consecutive card values c, c+1, ... lying at increasing positions, i.e.
// 1 + #{c : card c+1 lies above card c}. After K GSR riffles of a deck in order, the chance of
// an arrangement depends only on this number (Bayer & Diaconis 1992).
template <std::ranges::random_access_range R>
[[nodiscard]] std::size_t rising_sequences(const R& deck) {
  const auto n = static_cast<std::size_t>(std::ranges::distance(deck));
  if (n == 0) return 0;
  std::vector<std::size_t> position(n, n);
  std::size_t j = 0;
  for (const auto& c : deck) {
    const auto v = static_cast<std::size_t>(c);
    if (v >= n || position[v] != n) throw std::invalid_argument("rising_sequences: not an arrangement of 0..n-1");
    position[v] = j++;
  }
  std::size_t r = 1;
  for (std::size_t c = 0; c + 1 < n; ++c) r += position[c + 1] < position[c];
  return r;
}

}  // namespace fairdeck
