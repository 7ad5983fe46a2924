// What an audit counts about a shuffler: the position x card matrix and the few smaller
// tallies the tests in stats/tests.hpp read. Counting is the audit's hot loop, so a worker
// tallies one chunk of deals in 32-bit cells (chunk_counter) and adds them into 64-bit
// audit_counts; integer sums do not depend on order, so any thread count gives the same counts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "fairdeck/cards/card.hpp"

namespace fairdeck::stats {

// Largest deck the audit counts: the position x card matrix has n^2 cells (2048 cards:
// 32 MiB of 64-bit counts), enough for a 39-deck shoe.
inline constexpr std::size_t max_audit_cards = 2048;
// Up to this many cards every one of the n! orders is counted (8! = 40,320 cells).
inline constexpr std::size_t max_order_cards = 8;
// Top cards of consecutive deals are grouped into at most this many groups (16 x 16 cells).
inline constexpr std::size_t max_serial_groups = 16;

[[nodiscard]] std::uint64_t factorial(std::size_t n) noexcept;
// Lexicographic rank of a permutation of 0..n-1 (Lehmer code), n <= max_order_cards.
[[nodiscard]] std::uint32_t order_rank(std::span<const card_t> order) noexcept;
// Inverse of order_rank.
[[nodiscard]] std::vector<card_t> order_unrank(std::uint32_t rank, std::size_t n);
// Groups the serial test uses for decks of n cards: min(n, max_serial_groups).
[[nodiscard]] std::size_t serial_groups(std::size_t n) noexcept;
// Serial-test group of card c (0..n-1): contiguous, near-equal blocks.
[[nodiscard]] inline std::size_t serial_group_of(std::size_t c, std::size_t n) noexcept {
  return c * serial_groups(n) / n;
}

// Rising sequences of a deal (as fairdeck::rising_sequences in shuffle/physical.hpp): 1 + the
// number of cards c whose successor c+1 lies above c. The counter finds them in its one pass
// over the deal: c+1 lies above c exactly when c+1 was already seen when c is reached.

// Tallies over `trials` deals of the n cards 0..n-1 (the canonical order), where deal t is
// the sequence of cards from the top: deck[position] = card.
struct audit_counts {
  std::size_t n = 0;
  std::uint64_t trials = 0;
  std::vector<std::uint64_t> position_card;  // [position * n + card]
  std::uint64_t successions = 0;             // times card c+1 lay directly below card c
  std::vector<std::uint64_t> orders;         // n <= max_order_cards: deals per order_rank
  std::vector<std::uint64_t> serial;         // [group(top of deal t) * G + group(top of deal t+1)]
  std::vector<std::uint64_t> rising;         // [r - 1]: deals whose order has r rising sequences

  audit_counts() = default;
  explicit audit_counts(std::size_t cards);  // throws std::invalid_argument unless 2 <= n <= max
  [[nodiscard]] std::uint64_t at(std::size_t position, std::size_t card) const noexcept {
    return position_card[position * n + card];
  }
  [[nodiscard]] std::uint64_t serial_pairs() const noexcept;
  // Adds `other` (same n, else std::invalid_argument).
  void merge(const audit_counts& other);
  friend bool operator==(const audit_counts&, const audit_counts&) = default;
};

// One worker's tally in 32-bit cells; reused across chunks without allocating.
// Consecutive add() calls form one serial chain until start_chain() (a new engine stream).
class chunk_counter {
 public:
  // A chunk must hold fewer than 2^32 deals between flushes.
  static constexpr std::uint64_t max_deals_per_flush = 0xffffffffULL;

  explicit chunk_counter(std::size_t n);
  // deck[position] = card, a permutation of 0..n-1 (not checked here: the hot loop).
  void add(std::span<const card_t> deck) noexcept;
  void start_chain() noexcept { previous_top_group_ = no_previous; }
  // Adds the tally into `total` and clears it (the serial chain continues).
  void flush_into(audit_counts& total);
  // Forgets the unflushed tally (a chunk cut short by a stop request).
  void discard() noexcept;
  [[nodiscard]] std::uint64_t pending() const noexcept { return trials_; }

 private:
  static constexpr std::size_t no_previous = ~std::size_t{0};
  std::size_t n_;
  std::uint64_t trials_ = 0;
  std::uint64_t successions_ = 0;
  std::vector<std::uint32_t> position_card_;
  std::vector<std::uint32_t> orders_;
  std::vector<std::uint32_t> serial_;
  std::vector<std::uint32_t> rising_;
  // seen_[c] == stamp_ when card c was already dealt in the current deal; seen_[n] never is.
  // A fresh stamp per deal saves clearing the array.
  std::vector<std::uint32_t> seen_;
  std::uint32_t stamp_ = 0;
  std::vector<std::uint8_t> group_of_;
  std::size_t groups_;
  std::size_t previous_top_group_ = no_previous;
};

}  // namespace fairdeck::stats
