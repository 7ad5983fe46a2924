// The two steps of one level of the in-place scatter shuffle (see fairdeck/shuffle/huge.hpp):
// rough_scatter (label and place elements until a region fills) and settle (label the rest,
// move everything into its final bucket range). Machinery of huge_shuffle (huge_driver.hpp), exposed
// for the exhaustive tests (tests/scatter_step_test.cpp); not a stable API.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fairdeck/random/bounded.hpp"

namespace fairdeck::scatter {

// Labels of `bits` bits, 64 / bits of them per engine word (k = 2^bits buckets, no rejection).
template <class E>
class label_source {
 public:
  label_source(E& e, unsigned bits) noexcept : e_(e), bits_(bits), mask_((std::uint64_t{1} << bits) - 1), per_word_(64 / bits) {}
  std::uint64_t next() {
    if (left_ == 0) {
      word_ = detail::draw_u64(e_);
      left_ = per_word_;
    }
    const std::uint64_t label = word_ & mask_;
    word_ >>= bits_;
    --left_;
    return label;
  }

 private:
  E& e_;
  unsigned bits_;
  std::uint64_t mask_;
  unsigned per_word_;
  std::uint64_t word_ = 0;
  unsigned left_ = 0;
};

// Prefetches two cache lines past `p` for writing. Integer arithmetic: the address may lie past
// the array (a prefetch never faults), which pointer arithmetic could not express.
template <class T>
inline void prefetch_ahead(const T* p) noexcept {
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(p) + 128), 1);
}

// One lane of the rough scatter. Bucket j owns the slots [front[j], hi[j]) of d; the first
// unfilled slot of bucket 0 holds the active element. Each step draws the active element's
// label j, writes it to front[j]++ and takes the element displaced from there as the next
// active one (for j = 0 the next one is simply the element after it). Stops once a region is
// full (at once if one is empty); d stays a permutation of its input throughout.
template <class T, class E>
void rough_scatter(T* d, std::uint64_t* front, const std::uint64_t* hi, unsigned bits, E& e) {
  const std::uint64_t k = std::uint64_t{1} << bits;
  const std::uint64_t mask = k - 1;
  const unsigned per_word = 64 / bits;
  auto min_room = [&] {
    std::uint64_t room = hi[0] - front[0];
    for (std::uint64_t j = 1; j < k; ++j) room = std::min(room, hi[j] - front[j]);
    return room;
  };
  std::uint64_t room = min_room();
  if (room == 0) return;
  T v = d[front[0]];
  // Unchecked rounds: while every region has more room than a round can fill, no bounds test
  // (bucket 0 keeps one slot for the active element: its read at t + 1 stays in region 0).
  while (room > 2 * per_word) {
    const std::uint64_t words = (room - 1) / per_word;
    for (std::uint64_t q = 0; q < words; ++q) {
      std::uint64_t w = detail::draw_u64(e);
      for (unsigned b = 0; b < per_word; ++b, w >>= bits) {
        const std::uint64_t j = w & mask;
        const std::uint64_t t = front[j];
        prefetch_ahead(d + t);
        const T x = d[t + (j == 0)];
        d[t] = v;
        v = x;
        front[j] = t + 1;
      }
    }
    room = min_room();
  }
  label_source<E> labels(e, bits);
  for (;;) {
    const std::uint64_t j = labels.next();
    std::uint64_t t = front[j];
    if (j == 0) {
      d[t] = v;
      front[0] = ++t;
      if (t == hi[0]) return;
      v = d[t];
      continue;
    }
    const T x = d[t];
    d[t] = v;
    v = x;
    front[j] = ++t;
    if (t == hi[j]) {
      d[front[0]] = v;  // the unlabelled active element goes back to its free slot
      return;
    }
  }
}

// The regions of one level: bucket j, lane l owns [lo, hi) with [lo, front) labelled j.
// Arrays are lane-major (index l * k + j) so each lane's rough_scatter sees plain arrays.
struct regions {
  std::uint64_t k = 0;
  unsigned lanes = 1;
  std::vector<std::uint64_t> lo, front, hi;

  regions(std::uint64_t n, unsigned bits, unsigned lane_count)
      : k(std::uint64_t{1} << bits), lanes(lane_count), lo(k * lanes), front(k * lanes), hi(k * lanes) {
    auto cut = [&](std::uint64_t j) { return static_cast<std::uint64_t>(static_cast<detail::uint128>(n) * j / k); };
    for (std::uint64_t j = 0; j < k; ++j) {
      const std::uint64_t a = cut(j), len = cut(j + 1) - a;
      for (unsigned l = 0; l < lanes; ++l) {
        lo[l * k + j] = front[l * k + j] = a + static_cast<std::uint64_t>(static_cast<detail::uint128>(len) * l / lanes);
        hi[l * k + j] = a + static_cast<std::uint64_t>(static_cast<detail::uint128>(len) * (l + 1) / lanes);
      }
    }
  }
  [[nodiscard]] std::uint64_t at(std::uint64_t j, unsigned l) const noexcept { return l * k + j; }
  [[nodiscard]] std::uint64_t lane_elements(unsigned l) const noexcept {
    std::uint64_t total = 0;
    for (std::uint64_t j = 0; j < k; ++j) total += hi[at(j, l)] - lo[at(j, l)];
    return total;
  }
};

struct settle_report {
  std::uint64_t unlabelled = 0, moved = 0, buffer_bytes = 0;
};

// Labels the elements rough_scatter left (e: their own stream) and moves every element into
// its bucket's final range [F_j, F_j+1). Returns F (k + 1 entries). Moves only the
// unlabelled elements and the labelled ones lying outside their final range.
template <class T, class E>
std::vector<std::uint64_t> settle(T* d, const regions& r, unsigned bits, E& e, settle_report* report = nullptr) {
  const std::uint64_t k = r.k;
  std::vector<T> unlabelled;
  std::uint64_t s = 0;
  for (std::uint64_t i = 0; i < k * r.lanes; ++i) s += r.hi[i] - r.front[i];
  unlabelled.reserve(s);
  for (std::uint64_t j = 0; j < k; ++j)
    for (unsigned l = 0; l < r.lanes; ++l) unlabelled.insert(unlabelled.end(), d + r.front[r.at(j, l)], d + r.hi[r.at(j, l)]);

  std::vector<std::uint8_t> label(s);  // k <= 256
  std::vector<std::uint64_t> count(k, 0);
  label_source<E> labels(e, bits);
  for (std::uint64_t i = 0; i < s; ++i) ++count[label[i] = static_cast<std::uint8_t>(labels.next())];

  std::vector<std::uint64_t> final_start(k + 1, 0);
  for (std::uint64_t j = 0; j < k; ++j) {
    std::uint64_t size = count[j];
    for (unsigned l = 0; l < r.lanes; ++l) size += r.front[r.at(j, l)] - r.lo[r.at(j, l)];
    final_start[j + 1] = final_start[j] + size;
  }
  // The part of segment (j, l) already inside bucket j's final range stays where it is.
  auto kept = [&](std::uint64_t j, unsigned l) {
    const std::uint64_t a = r.lo[r.at(j, l)], b = r.front[r.at(j, l)];
    return std::pair{std::clamp(final_start[j], a, b), std::clamp(final_start[j + 1], a, b)};
  };
  // Copy out everything else before anything is overwritten.
  std::vector<T> moved;
  std::vector<std::uint64_t> moved_start(k + 1, 0);
  for (std::uint64_t j = 0; j < k; ++j) {
    for (unsigned l = 0; l < r.lanes; ++l) {
      const auto [ka, kb] = kept(j, l);
      moved.insert(moved.end(), d + r.lo[r.at(j, l)], d + ka);
      moved.insert(moved.end(), d + kb, d + r.front[r.at(j, l)]);
    }
    moved_start[j + 1] = moved.size();
  }
  std::vector<T> grouped(s);
  std::vector<std::uint64_t> group_start(k + 1, 0);
  for (std::uint64_t j = 0; j < k; ++j) group_start[j + 1] = group_start[j] + count[j];
  {
    std::vector<std::uint64_t> cursor(group_start.begin(), group_start.end() - 1);
    for (std::uint64_t i = 0; i < s; ++i) grouped[cursor[label[i]]++] = unlabelled[i];
  }
  // Fill the gaps of each final range: its moved elements first, then its newly labelled ones.
  for (std::uint64_t j = 0; j < k; ++j) {
    const T* from_moved = moved.data() + moved_start[j];
    const T* const moved_end = moved.data() + moved_start[j + 1];
    const T* from_group = grouped.data() + group_start[j];
    auto fill = [&](std::uint64_t a, std::uint64_t b) {
      const std::uint64_t take = std::min<std::uint64_t>(b - a, static_cast<std::uint64_t>(moved_end - from_moved));
      if (take) std::memcpy(d + a, from_moved, take * sizeof(T));
      from_moved += take;
      if (b - a > take) std::memcpy(d + a + take, from_group, (b - a - take) * sizeof(T));
      from_group += b - a - take;
    };
    std::uint64_t pos = final_start[j];
    for (unsigned l = 0; l < r.lanes; ++l) {
      const auto [ka, kb] = kept(j, l);
      if (ka == kb) continue;
      fill(pos, ka);
      pos = kb;
    }
    fill(pos, final_start[j + 1]);
    if (from_moved != moved_end || from_group != grouped.data() + group_start[j + 1])
      throw std::logic_error("scatter::settle: bucket accounting mismatch");
  }
  if (report) {
    report->unlabelled = s;
    report->moved = moved.size();
    report->buffer_bytes = (2 * s + moved.size()) * sizeof(T) + s + 3 * (k + 1) * sizeof(std::uint64_t);
  }
  return final_start;
}

}  // namespace fairdeck::scatter
