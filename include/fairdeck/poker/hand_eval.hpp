// Poker hand evaluator for 5, 6 and 7 cards: a strength that orders hands exactly by the
// rules (higher wins, equal splits) and the hand's category.
//
// Design (in the spirit of OMPEval, Z. Zaborsky 2016): every card adds a 64-bit key, so a
// hand's key is a plain sum and can be built incrementally in enumeration loops:
//   bits  0..38  rank counts, 3 bits per rank (deuce lowest ... ace highest)
//   bits 48..63  suit counters, 4 bits per suit, biased by 3 so that "5 or more of a suit"
//                is exactly bit 3 of the counter (checked with one AND).
// Flushes (rare) index a table by the flush suit's 13-bit rank mask. Everything else
// depends only on the rank multiset: its 39-bit count key goes through a perfect hash
// (CHD-style "hash, displace", Belazzougui, Botelho & Dietzfelbinger, ESA 2009) into a
// table of strengths. All tables are generated at first use from the rules in
// src/poker/eval_tables.cpp; tests check them against a slow reference evaluator.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <span>
#include <string_view>
#include <type_traits>

#include "fairdeck/cards/card.hpp"

namespace fairdeck::poker {

enum class hand_category : std::uint8_t {
  high_card,
  pair,
  two_pair,
  three_of_a_kind,
  straight,
  flush,
  full_house,
  four_of_a_kind,
  straight_flush,
};
inline constexpr unsigned category_count = 9;

// "straight_flush" (JSON key spelling) and "Straight flush" (for people).
[[nodiscard]] std::string_view category_key(hand_category c) noexcept;
[[nodiscard]] std::string_view category_label(hand_category c) noexcept;

// Strength: category in bits 12..15, rank within the category (1-based, higher better)
// below. 7462 distinct values, as many as there are distinct 5-card poker hands.
using strength_t = std::uint16_t;
[[nodiscard]] constexpr hand_category category_of(strength_t s) noexcept { return static_cast<hand_category>(s >> 12); }

// Poker rank of a fairdeck card: deuce 0 ... king 11, ace 12 (fairdeck's encoding puts the
// ace first; in poker it plays high, and low only in the wheel A-2-3-4-5).
[[nodiscard]] constexpr unsigned poker_rank(card_t c) noexcept { return (rank_of(c) + 12) % 13; }

namespace detail {
inline constexpr std::uint64_t rank_bits = (std::uint64_t{1} << 39) - 1;
inline constexpr std::uint64_t flush_bits = std::uint64_t{0x8888} << 48;
inline constexpr std::uint64_t start_key = std::uint64_t{0x3333} << 48;  // the suit bias

constexpr std::array<std::uint64_t, 52> make_card_keys() {
  std::array<std::uint64_t, 52> k{};
  for (card_t c = 0; c < 52; ++c)
    k[c] = (std::uint64_t{1} << (3 * poker_rank(c))) | (std::uint64_t{1} << (48 + 4 * suit_of(c)));
  return k;
}
inline constexpr std::array<std::uint64_t, 52> card_keys = make_card_keys();
}  // namespace detail

// A hand being built card by card (enumeration loops keep one per nesting level).
struct hand_accumulator {
  std::uint64_t key = detail::start_key;
  std::uint64_t cards = 0;  // bit c set for card c
  [[nodiscard]] constexpr hand_accumulator operator+(card_t c) const noexcept {
    return {key + detail::card_keys[c], cards | (std::uint64_t{1} << c)};
  }
  [[nodiscard]] constexpr hand_accumulator operator+(const hand_accumulator& o) const noexcept {
    return {key + o.key - detail::start_key, cards | o.cards};  // disjoint hands only
  }
};

class hand_evaluator {
 public:
  // The process-wide evaluator; tables are built on first call (tens of ms: 80 ms on a 2.25 GHz
  // Zen 3), thread-safe.
  [[nodiscard]] static const hand_evaluator& instance();

  // 5, 6 or 7 distinct cards in [0, 52). Unchecked (hot path): see evaluate() below.
  [[nodiscard]] strength_t eval(const hand_accumulator& h) const noexcept {
    if (const std::uint64_t f = h.key & detail::flush_bits) [[unlikely]] {
      const unsigned suit = (static_cast<unsigned>(std::countr_zero(f)) - 51) >> 2;
      return flush_[(h.cards >> (13 * suit)) & 0x1fff];
    }
    return by_ranks(h.key & detail::rank_bits);
  }

  // eval() of a hand of exactly 7 cards, from the seven-card table (the same strengths).
  [[nodiscard]] strength_t eval7(const hand_accumulator& h) const noexcept {
    if (h.key & detail::flush_bits) [[unlikely]]
      return eval(h);
    return seven_by_ranks(h.key & detail::rank_bits);
  }

  // N card indices of any unsigned type (card_t, or bytes as in a packed hand array).
  template <std::size_t N, class Card = card_t>
  [[nodiscard]] strength_t eval(const Card* c) const noexcept {
    static_assert(N >= 5 && N <= 7);
    static_assert(std::is_unsigned_v<Card>);
    std::uint64_t key = detail::start_key;
    for (std::size_t i = 0; i < N; ++i) key += detail::card_keys[c[i]];
    if (const std::uint64_t f = key & detail::flush_bits) [[unlikely]]
      return flush_of(c, N, (static_cast<unsigned>(std::countr_zero(f)) - 51) >> 2);
    if constexpr (N == 7) return seven_by_ranks(key & detail::rank_bits);
    return by_ranks(key & detail::rank_bits);
  }
  [[nodiscard]] strength_t eval7(const card_t* c) const noexcept { return eval<7>(c); }
  [[nodiscard]] strength_t eval5(const card_t* c) const noexcept { return eval<5>(c); }

  // Strength of a rank multiset key with no flush (the bits 0..38 of a hand key).
  [[nodiscard]] strength_t by_ranks(std::uint64_t rank_key) const noexcept {
    return lookup<slot_bits>(rank_key, multiplier_, displacement_.data(), values_.data());
  }
  // by_ranks for a key of exactly 7 cards, from the seven-card table (half the size).
  [[nodiscard]] strength_t seven_by_ranks(std::uint64_t rank_key) const noexcept {
    return lookup<seven_slot_bits>(rank_key, seven_multiplier_, seven_displacement_.data(), seven_values_.data());
  }
  // Strength of a flush whose suit holds the ranks in `mask` (fairdeck order: bit 0 = ace).
  [[nodiscard]] strength_t by_flush_mask(unsigned mask) const noexcept { return flush_[mask & 0x1fff]; }

  // Batch evaluation: out[i] = eval7(cards + 7 * i) for i < n (7 cards per hand, back to
  // back). Same contract as eval7 (unchecked). Runs the best kernel this CPU has (run-time
  // dispatch, see eval_kernel): the AVX-512 kernel (AVX512-VBMI) builds and hashes 8 hands'
  // keys per step, the AVX2 kernel 4, and both read the same tables, so every kernel gives
  // the same strengths (tests/poker_eval_kernels_test.cpp checks all 133,784,560 hands). Every
  // kernel (like eval<7> and eval7) hashes into a table of the 49,205 seven-card rank
  // multisets alone (64 Ki slots, 128 KB, half the general table: random hands hit it all
  // over, and on CPUs with a 512 KB L2 the smaller table is what keeps it there). On random hands AVX-512 is about
  // 1.7x the one-hand loop, AVX2 about 1.4x (docs/poker.md); prefer it whenever hands come in
  // numbers.
  void eval7_batch(const card_t* cards, std::size_t n, strength_t* out) const noexcept;
  // The same on cards stored as bytes (7 bytes a hand, the packed form of hand arrays): half
  // the input to stream, which is what limits the AVX-512 kernel once the hands come from
  // memory rather than cache (docs/poker.md).
  void eval7_batch(const std::uint8_t* cards, std::size_t n, strength_t* out) const noexcept;

  enum class eval_kernel : std::uint8_t { scalar, avx512, avx2 };  // best first: avx512, avx2, scalar
  // The kernel eval7_batch uses on this CPU, whether a kernel runs here, and eval7_batch
  // through a given kernel (for tests and benchmarks; the kernel must be supported).
  [[nodiscard]] static eval_kernel best_kernel() noexcept;
  [[nodiscard]] static bool kernel_supported(eval_kernel k) noexcept;
  void eval7_batch(eval_kernel k, const card_t* cards, std::size_t n, strength_t* out) const noexcept;
  void eval7_batch(eval_kernel k, const std::uint8_t* cards, std::size_t n, strength_t* out) const noexcept;

  static constexpr unsigned bucket_bits = 13;
  static constexpr unsigned slot_bits = 17;
  static constexpr unsigned slots = 1u << slot_bits;
  static constexpr unsigned seven_slot_bits = 16;  // the seven-card table (eval7, eval<7>, eval7_batch)

  // Table facts, for tests and docs.
  [[nodiscard]] std::uint64_t multiplier() const noexcept { return multiplier_; }
  [[nodiscard]] unsigned rank_keys() const noexcept { return rank_keys_; }

  hand_evaluator(const hand_evaluator&) = delete;
  hand_evaluator& operator=(const hand_evaluator&) = delete;

 private:
  hand_evaluator();
  // One perfect-hash read: bucket from the top bits of key * m, slot from the next ones.
  template <unsigned SlotBits>
  [[nodiscard]] static strength_t lookup(std::uint64_t rank_key, std::uint64_t m, const std::uint16_t* displacement,
                                         const strength_t* values) noexcept {
    const std::uint64_t h = rank_key * m;
    const unsigned slot = static_cast<unsigned>(h >> (64 - bucket_bits - SlotBits)) & ((1u << SlotBits) - 1);
    return values[slot ^ displacement[h >> (64 - bucket_bits)]];
  }
  // Branch-free: the hand's card set, then the suit's 13 bits (a compare per card mispredicts
  // on random hands, and cost random evaluation about a fifth of its speed).
  template <class Card>
  [[nodiscard]] strength_t flush_of(const Card* c, std::size_t n, unsigned suit) const noexcept {
    std::uint64_t cards = 0;
    for (std::size_t i = 0; i < n; ++i) cards |= std::uint64_t{1} << c[i];
    return flush_[(cards >> (13 * suit)) & 0x1fff];
  }

  std::uint64_t multiplier_ = 0;
  unsigned rank_keys_ = 0;
  std::array<std::uint16_t, std::size_t{1} << bucket_bits> displacement_{};
  std::array<strength_t, slots> values_{};
  std::uint64_t seven_multiplier_ = 0;
  std::array<std::uint16_t, std::size_t{1} << bucket_bits> seven_displacement_{};
  std::array<strength_t, std::size_t{1} << seven_slot_bits> seven_values_{};
  std::array<strength_t, 8192> flush_{};
};

// Checked entry point: 5 to 7 distinct cards of one 52-card deck, else std::invalid_argument.
[[nodiscard]] strength_t evaluate(std::span<const card_t> cards);

}  // namespace fairdeck::poker
