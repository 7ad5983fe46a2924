#include "fairdeck/stats/counts.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck::stats {

std::uint64_t factorial(std::size_t n) noexcept {
  std::uint64_t f = 1;
  for (std::size_t i = 2; i <= n; ++i) f *= i;
  return f;
}

std::uint32_t order_rank(std::span<const card_t> order) noexcept {
  // Lehmer code: digit i counts later cards smaller than order[i].
  std::uint32_t rank = 0;
  const std::size_t n = order.size();
  for (std::size_t i = 0; i < n; ++i) {
    std::uint32_t smaller = 0;
    for (std::size_t j = i + 1; j < n; ++j) smaller += order[j] < order[i];
    rank = rank * static_cast<std::uint32_t>(n - i) + smaller;
  }
  return rank;
}

std::vector<card_t> order_unrank(std::uint32_t rank, std::size_t n) {
  std::vector<std::uint32_t> digits(n);
  for (std::size_t i = n; i-- > 0;) {
    const auto base = static_cast<std::uint32_t>(n - i);
    digits[i] = rank % base;
    rank /= base;
  }
  std::vector<card_t> left(n);
  std::iota(left.begin(), left.end(), card_t{0});
  std::vector<card_t> out;
  out.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    out.push_back(left[digits[i]]);
    left.erase(left.begin() + digits[i]);
  }
  return out;
}

std::size_t serial_groups(std::size_t n) noexcept { return std::min(n, max_serial_groups); }

audit_counts::audit_counts(std::size_t cards) : n(cards) {
  if (cards < 2 || cards > max_audit_cards)
    throw std::invalid_argument(fmt::format("audit needs a deck of 2..{} cards, not {}", max_audit_cards, cards));
  position_card.assign(n * n, 0);
  if (n <= max_order_cards) orders.assign(factorial(n), 0);
  const std::size_t g = serial_groups(n);
  serial.assign(g * g, 0);
  rising.assign(n, 0);
}

std::uint64_t audit_counts::serial_pairs() const noexcept {
  return std::accumulate(serial.begin(), serial.end(), std::uint64_t{0});
}

void audit_counts::merge(const audit_counts& other) {
  if (other.n != n) throw std::invalid_argument("audit_counts::merge: deck sizes differ");
  trials += other.trials;
  successions += other.successions;
  for (std::size_t i = 0; i < position_card.size(); ++i) position_card[i] += other.position_card[i];
  for (std::size_t i = 0; i < orders.size(); ++i) orders[i] += other.orders[i];
  for (std::size_t i = 0; i < serial.size(); ++i) serial[i] += other.serial[i];
  for (std::size_t i = 0; i < rising.size(); ++i) rising[i] += other.rising[i];
}

chunk_counter::chunk_counter(std::size_t n)
    : n_(n), position_card_(n * n, 0), rising_(n, 0), seen_(n + 1, 0), group_of_(n), groups_(serial_groups(n)) {
  if (n < 2 || n > max_audit_cards)
    throw std::invalid_argument(fmt::format("audit needs a deck of 2..{} cards, not {}", max_audit_cards, n));
  if (n <= max_order_cards) orders_.assign(factorial(n), 0);
  serial_.assign(groups_ * groups_, 0);
  for (std::size_t c = 0; c < n; ++c) group_of_[c] = static_cast<std::uint8_t>(serial_group_of(c, n));
}

void chunk_counter::add(std::span<const card_t> deck) noexcept {
  ++trials_;
  if (++stamp_ == 0) {  // wrapped after 2^32 deals: old stamps could match again
    std::fill(seen_.begin(), seen_.end(), 0u);
    stamp_ = 1;
  }
  const std::uint32_t stamp = stamp_;
  std::uint32_t* seen = seen_.data();
  // One scalar pass: the deck was just written by 16-bit stores, and a separate (vectorised)
  // successions loop would reload it with wide loads that stall on store forwarding.
  std::uint32_t* row = position_card_.data();
  const std::size_t n = n_;
  std::uint32_t prev = deck[0];
  ++row[prev];
  seen[prev] = stamp;
  std::uint64_t succ = 0;
  std::size_t rises = 1;  // rising sequences: 1 + cards whose successor came earlier
  for (std::size_t p = 1; p < n; ++p) {
    row += n;
    const std::uint32_t card = deck[p];
    ++row[card];
    succ += card == prev + 1;
    rises += seen[card + 1] == stamp;
    seen[card] = stamp;
    prev = card;
  }
  successions_ += succ;
  ++rising_[rises - 1];
  if (!orders_.empty()) ++orders_[order_rank(deck)];
  const std::size_t top = group_of_[deck[0]];
  if (previous_top_group_ != no_previous) ++serial_[previous_top_group_ * groups_ + top];
  previous_top_group_ = top;
}

void chunk_counter::flush_into(audit_counts& total) {
  if (total.n != n_) throw std::invalid_argument("chunk_counter::flush_into: deck sizes differ");
  total.trials += trials_;
  total.successions += successions_;
  for (std::size_t i = 0; i < position_card_.size(); ++i) total.position_card[i] += position_card_[i];
  for (std::size_t i = 0; i < orders_.size(); ++i) total.orders[i] += orders_[i];
  for (std::size_t i = 0; i < serial_.size(); ++i) total.serial[i] += serial_[i];
  for (std::size_t i = 0; i < rising_.size(); ++i) total.rising[i] += rising_[i];
  discard();
}

void chunk_counter::discard() noexcept {
  trials_ = 0;
  successions_ = 0;
  std::fill(position_card_.begin(), position_card_.end(), 0u);
  std::fill(orders_.begin(), orders_.end(), 0u);
  std::fill(serial_.begin(), serial_.end(), 0u);
  std::fill(rising_.begin(), rising_.end(), 0u);
}

}  // namespace fairdeck::stats
