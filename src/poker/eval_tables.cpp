// Generates the evaluator's tables from the rules of poker (no stored blobs).
//
// 1. Every distinct 5-card hand gets a "rule value": category << 20 | five 4-bit tie-break
//    ranks, most significant first. Sorting the 7462 distinct rule values gives each one a
//    dense strength (category << 12 | 1-based rank within the category).
// 2. Rank multisets of 5..7 cards (73,775 of them) get the strength of their best 5-card
//    non-flush hand; 13-bit suit masks with 5..7 bits get their best flush.
// 3. The multiset keys are placed by a perfect hash: buckets by the top bits of key * M,
//    each bucket XOR-displaced until all its keys land in free slots (largest first). The
//    7-card multisets alone (49,205) get a second, denser table for seven-card lookups: 64 Ki
//    slots (load 0.75) against the general table's 128 Ki for all 73,775 (load 0.56).
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/random/splitmix64.hpp"

namespace fairdeck::poker {
namespace {

using rank_counts = std::array<unsigned, 13>;  // index = poker rank, deuce 0 .. ace 12

std::uint32_t rule_value(hand_category cat, std::initializer_list<unsigned> ranks) {
  std::uint32_t v = static_cast<std::uint32_t>(cat);
  unsigned n = 0;
  for (unsigned r : ranks) v = (v << 4) | r, ++n;
  for (; n < 5; ++n) v <<= 4;
  return v;
}

// Top rank of the best straight among present ranks (bit r = poker rank r), or -1.
int straight_top(unsigned present) {
  const unsigned with_low_ace = (present << 1) | (present >> 12 & 1);  // bit 0 = ace low
  for (int top = 13; top >= 4; --top)
    if (((with_low_ace >> (top - 4)) & 0x1f) == 0x1f) return top - 1;  // back to poker ranks
  return -1;
}

// The n highest ranks in `present` other than those in `skip`, highest first.
std::vector<unsigned> highest(unsigned present, unsigned skip, unsigned n) {
  std::vector<unsigned> out;
  for (int r = 12; r >= 0 && out.size() < n; --r)
    if ((present >> r & 1) && !(skip >> r & 1)) out.push_back(static_cast<unsigned>(r));
  return out;
}

std::uint32_t flush_rule_value(unsigned present) {
  if (const int top = straight_top(present); top >= 0)
    return rule_value(hand_category::straight_flush, {static_cast<unsigned>(top)});
  const auto h = highest(present, 0, 5);
  return rule_value(hand_category::flush, {h[0], h[1], h[2], h[3], h[4]});
}

// Best non-flush hand from 5..7 cards with these rank counts.
std::uint32_t rank_rule_value(const rank_counts& cnt) {
  unsigned present = 0;
  std::vector<unsigned> quads, trips, pairs;  // highest first
  for (int r = 12; r >= 0; --r) {
    const unsigned u = static_cast<unsigned>(r);
    if (cnt[u]) present |= 1u << u;
    if (cnt[u] == 4) quads.push_back(u);
    if (cnt[u] == 3) trips.push_back(u);
    if (cnt[u] == 2) pairs.push_back(u);
  }
  if (!quads.empty()) {
    const unsigned q = quads[0];
    return rule_value(hand_category::four_of_a_kind, {q, highest(present, 1u << q, 1)[0]});
  }
  if (!trips.empty() && (trips.size() > 1 || !pairs.empty())) {
    unsigned pair = trips.size() > 1 ? trips[1] : pairs[0];
    if (!pairs.empty()) pair = std::max(pair, pairs[0]);
    return rule_value(hand_category::full_house, {trips[0], pair});
  }
  if (const int top = straight_top(present); top >= 0)
    return rule_value(hand_category::straight, {static_cast<unsigned>(top)});
  if (!trips.empty()) {
    const auto k = highest(present, 1u << trips[0], 2);
    return rule_value(hand_category::three_of_a_kind, {trips[0], k[0], k[1]});
  }
  if (pairs.size() >= 2) {
    const auto k = highest(present, (1u << pairs[0]) | (1u << pairs[1]), 1);
    return rule_value(hand_category::two_pair, {pairs[0], pairs[1], k[0]});
  }
  if (pairs.size() == 1) {
    const auto k = highest(present, 1u << pairs[0], 3);
    return rule_value(hand_category::pair, {pairs[0], k[0], k[1], k[2]});
  }
  const auto h = highest(present, 0, 5);
  return rule_value(hand_category::high_card, {h[0], h[1], h[2], h[3], h[4]});
}

std::uint64_t rank_key(const rank_counts& cnt) {
  std::uint64_t k = 0;
  for (unsigned r = 0; r < 13; ++r) k += std::uint64_t{cnt[r]} << (3 * r);
  return k;
}

// Calls f(counts) for every multiset of `total` ranks with at most 4 of each rank.
template <class F>
void for_each_rank_multiset(unsigned total, F&& f) {
  rank_counts cnt{};
  auto rec = [&](auto& self, unsigned r, unsigned left) -> void {
    if (r == 12) {
      if (left <= 4) {
        cnt[12] = left;
        f(cnt);
      }
      return;
    }
    for (unsigned c = 0; c <= std::min(left, 4u); ++c) {
      cnt[r] = c;
      self(self, r + 1, left - c);
    }
    cnt[r] = 0;
  };
  rec(rec, 0, total);
}

// Dense strengths: sorted distinct 5-card rule values -> category << 12 | 1-based index.
class strength_map {
 public:
  strength_map() {
    for_each_rank_multiset(5, [&](const rank_counts& c) { sorted_.push_back(rank_rule_value(c)); });
    for (unsigned m = 0; m < 8192; ++m)
      if (std::popcount(m) == 5) sorted_.push_back(flush_rule_value(m));
    std::sort(sorted_.begin(), sorted_.end());
    sorted_.erase(std::unique(sorted_.begin(), sorted_.end()), sorted_.end());
    if (sorted_.size() != 7462) throw std::logic_error("poker tables: expected 7462 distinct 5-card hands");
  }
  strength_t operator()(std::uint32_t rule) const {
    const auto it = std::lower_bound(sorted_.begin(), sorted_.end(), rule);
    const std::uint32_t cat = rule >> 20;
    const auto first = std::lower_bound(sorted_.begin(), sorted_.end(), cat << 20);
    return static_cast<strength_t>((cat << 12) | static_cast<std::uint32_t>(it - first + 1));
  }

 private:
  std::vector<std::uint32_t> sorted_;
};

struct keyed_value {
  std::uint64_t key;
  strength_t value;
};

// Perfect hash placement with multiplier m; false if some bucket cannot be placed.
bool place(const std::vector<keyed_value>& keys, std::uint64_t m, unsigned bucket_bits, unsigned slot_bits,
           std::span<std::uint16_t> disp, std::span<strength_t> values) {
  const std::size_t nb = std::size_t{1} << bucket_bits;
  const unsigned slot_mask = (1u << slot_bits) - 1;
  std::vector<std::vector<std::uint32_t>> buckets(nb);  // slot hashes of the keys
  std::vector<std::vector<strength_t>> vals(nb);
  for (const auto& kv : keys) {
    const std::uint64_t h = kv.key * m;
    const auto b = static_cast<std::size_t>(h >> (64 - bucket_bits));
    buckets[b].push_back(static_cast<std::uint32_t>(h >> (64 - bucket_bits - slot_bits)) & slot_mask);
    vals[b].push_back(kv.value);
  }
  std::vector<std::size_t> order(nb);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return buckets[a].size() > buckets[b].size(); });
  std::vector<bool> used(std::size_t{1} << slot_bits, false);
  for (std::size_t b : order) {
    const auto& slots = buckets[b];
    if (slots.empty()) break;
    for (std::size_t i = 0; i < slots.size(); ++i)
      for (std::size_t j = 0; j < i; ++j)
        if (slots[i] == slots[j]) return false;  // XOR cannot separate them
    bool placed = false;
    for (std::uint32_t d = 0; d < 65536 && !placed; ++d) {
      bool ok = true;
      for (std::size_t i = 0; i < slots.size() && ok; ++i) {
        const std::uint32_t s = slots[i] ^ d;
        ok = !used[s];
      }
      if (!ok) continue;
      for (std::size_t i = 0; i < slots.size(); ++i) {
        used[slots[i] ^ d] = true;
        values[slots[i] ^ d] = vals[b][i];
      }
      disp[b] = static_cast<std::uint16_t>(d);
      placed = true;
    }
    if (!placed) return false;
  }
  return true;
}

// The first of a fixed list of odd multipliers that places every key (so the tables are the
// same on every run and machine).
template <std::size_t Buckets, std::size_t Slots>
std::uint64_t perfect_hash(const std::vector<keyed_value>& keys, unsigned slot_bits,
                           std::array<std::uint16_t, Buckets>& disp, std::array<strength_t, Slots>& values) {
  static_assert(Buckets == std::size_t{1} << hand_evaluator::bucket_bits);
  splitmix64 candidates(0x666169726465636bULL);  // "fairdeck"
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const std::uint64_t m = candidates() | 1;
    disp.fill(0);
    values.fill(0);
    if (place(keys, m, hand_evaluator::bucket_bits, slot_bits, disp, values)) return m;
  }
  throw std::logic_error("poker tables: no perfect hash found");
}

}  // namespace

hand_evaluator::hand_evaluator() {
  const strength_map strength;
  for (unsigned m = 0; m < 8192; ++m) {
    const int bits = std::popcount(m);
    if (bits < 5 || bits > 7) continue;
    // m is in fairdeck order (bit 0 = ace); rules use poker order (bit 12 = ace).
    const unsigned poker_mask = (m >> 1) | ((m & 1u) << 12);
    flush_[m] = strength(flush_rule_value(poker_mask));
  }
  std::vector<keyed_value> keys, keys7;
  for (unsigned n = 5; n <= 7; ++n)
    for_each_rank_multiset(n, [&](const rank_counts& c) {
      keys.push_back({rank_key(c), strength(rank_rule_value(c))});
      if (n == 7) keys7.push_back(keys.back());
    });
  rank_keys_ = static_cast<unsigned>(keys.size());
  multiplier_ = perfect_hash(keys, slot_bits, displacement_, values_);
  seven_multiplier_ = perfect_hash(keys7, seven_slot_bits, seven_displacement_, seven_values_);
}

const hand_evaluator& hand_evaluator::instance() {
  static const hand_evaluator ev;
  return ev;
}

strength_t evaluate(std::span<const card_t> cards) {
  if (cards.size() < 5 || cards.size() > 7)
    throw std::invalid_argument("evaluate: a poker hand has 5 to 7 cards, got " + std::to_string(cards.size()));
  hand_accumulator h;
  for (card_t c : cards) {
    if (c >= 52) throw std::invalid_argument("evaluate: card index " + std::to_string(c) + " is not in a 52-card deck");
    if (h.cards >> c & 1) throw std::invalid_argument("evaluate: card index " + std::to_string(c) + " appears twice");
    h = h + c;
  }
  return hand_evaluator::instance().eval(h);
}

std::string_view category_key(hand_category c) noexcept {
  static constexpr std::string_view keys[] = {"high_card", "pair",       "two_pair",       "three_of_a_kind", "straight",
                                              "flush",     "full_house", "four_of_a_kind", "straight_flush"};
  return keys[static_cast<unsigned>(c) % category_count];
}

std::string_view category_label(hand_category c) noexcept {
  static constexpr std::string_view labels[] = {"High card", "Pair",       "Two pair",       "Three of a kind", "Straight",
                                                "Flush",     "Full house", "Four of a kind", "Straight flush"};
  return labels[static_cast<unsigned>(c) % category_count];
}

}  // namespace fairdeck::poker
