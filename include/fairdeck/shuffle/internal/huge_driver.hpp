// The driver of huge_shuffle (fairdeck/shuffle/huge.hpp): recursion, lanes, threads, streams.
// A template so that any trivially copyable element type can be shuffled; uint32_t and
// uint64_t are compiled once in src/shuffle/huge.cpp. Included by huge.hpp after its
// declarations; not a stable API.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <vector>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/internal/scatter_step.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck {

namespace detail {

inline constexpr std::uint64_t default_bucket_bytes = 1u << 20;  // L2-resident (measured best on a 2 MiB L2)
// 256 write fronts: their lines stay in L1 and their pages in the TLB (measured: 2048 fronts
// scatter 4x slower than 256 at 10^8 elements).
inline constexpr unsigned max_bucket_bits = 8;
inline constexpr unsigned min_bucket_bits = 4;
inline constexpr unsigned max_auto_lanes = 8;
inline constexpr unsigned max_lanes = 64;
inline constexpr std::uint64_t bytes_per_lane = std::uint64_t{16} << 20;
inline constexpr unsigned max_depth = 200;  // only reachable by absurd luck; then Fisher–Yates directly

// Every random step has its own counter-based stream: (depth, role, offset) names it, so the
// streams depend only on the decomposition, never on which thread runs what.
enum : std::uint64_t { role_settle = 254, role_fisher_yates = 255 };  // roles 0..max_lanes-1: lanes
inline constexpr std::uint64_t max_elements = std::uint64_t{1} << 48;
inline std::uint64_t stream_id(unsigned depth, std::uint64_t role, std::uint64_t offset) noexcept {
  return (std::uint64_t{depth} << 56) | (role << 48) | offset;
}

// `secure` has no reproducible streams, and the steps need many: chacha20 under a fresh
// OS key instead — equally unpredictable. Other specs are returned unchanged.
engine_spec keyed_once(const engine_spec& spec);

// Runs f(i) for i in [0, count) on `threads` threads through util's parallel_for (one stop,
// exception and thread rule for the library); f returns the work units it did. Items are
// independent, so which thread runs which item never shows in the result. Returns false if
// stopped before every item ran; the first exception an item throws (bad_alloc in a settle
// step) is rethrown after every thread has stopped.
template <class F>
bool metered_parallel_for(std::uint64_t count, unsigned threads, progress_meter& progress, F&& f) {
  return fairdeck::parallel_for(count, threads, progress.control(),
                                [&](std::uint64_t i, unsigned) { progress.add(f(i)); });
}

// Buckets of a node of n elements: none (Fisher–Yates directly) while it fits 4 target buckets
// (4 MiB: measured faster than another level for 2-4 MiB nodes), else enough to reach the
// target size, at least 16 (a rough scatter into few buckets stalls on its write fronts:
// a 3 MB node took 1.6x longer split 4 ways than shuffled directly) and at most 256.
unsigned bucket_bits_for(std::uint64_t n, std::size_t element_bytes, std::uint64_t bucket_bytes) noexcept;

template <class T>
class scatter_shuffler {
 public:
  scatter_shuffler(const engine_spec& spec, std::uint64_t bucket_bytes) : spec_(spec), bucket_bytes_(bucket_bytes) {}

  // Shuffles d[0, n) (at `offset` of the whole array, `depth` levels down), sequentially.
  void shuffle(T* d, std::uint64_t n, unsigned depth, std::uint64_t offset) const {
    const unsigned bits = depth >= max_depth ? 0 : bucket_bits_for(n, sizeof(T), bucket_bytes_);
    if (bits == 0) {
      visit_engine(spec_, stream_id(depth, role_fisher_yates, offset), [&](auto& e) { fisher_yates(std::span<T>(d, n), e); });
      return;
    }
    scatter::regions r(n, bits, 1);
    rough_lane(d, r, bits, 0, depth, offset);
    const auto start = settle(d, r, bits, depth, offset, nullptr);
    for (std::uint64_t j = 0; j < r.k; ++j) shuffle(d + start[j], start[j + 1] - start[j], depth + 1, offset + start[j]);
  }

  void rough_lane(T* d, scatter::regions& r, unsigned bits, unsigned lane, unsigned depth, std::uint64_t offset) const {
    visit_engine(spec_, stream_id(depth, lane, offset), [&](auto& e) {
      scatter::rough_scatter(d, r.front.data() + r.at(0, lane), r.hi.data() + r.at(0, lane), bits, e);
    });
  }

  std::vector<std::uint64_t> settle(T* d, const scatter::regions& r, unsigned bits, unsigned depth, std::uint64_t offset,
                                    scatter::settle_report* report) const {
    return visit_engine(spec_, stream_id(depth, role_settle, offset),
                        [&](auto& e) { return scatter::settle(d, r, bits, e, report); });
  }

 private:
  const engine_spec& spec_;
  std::uint64_t bucket_bytes_;
};

template <class T>
bool shuffle(std::span<T> data, const engine_spec& user_spec, const huge_shuffle_options& options) {
  if (data.size() >= max_elements) throw std::length_error("huge_shuffle: more than 2^48 elements");
  if (options.lanes > max_lanes) throw std::invalid_argument("huge_shuffle: more than 64 lanes");
  const huge_shuffle_plan plan = plan_huge_shuffle(data.size(), sizeof(T), options);
  engine_spec spec = keyed_once(user_spec);
  struct key_wiper {
    engine_spec& s;
    ~key_wiper() {
      if (s.key) detail::secure_wipe(s.key->data(), s.key->size());
    }
  } wipe_key_on_exit{spec};

  const run_control& rc = options.control;
  const std::uint64_t n = data.size();
  const scatter_shuffler<T> shuffler(spec, options.bucket_bytes ? options.bucket_bytes : default_bucket_bytes);
  if (options.stats) *options.stats = huge_shuffle_stats{plan.bucket_bits ? plan.buckets() : 0, plan.lanes, 0, 0, 0};
  if (rc.stopped()) return false;
  if (plan.bucket_bits == 0) {
    shuffler.shuffle(data.data(), n, 0, 0);
    rc.progress(n, n);
    return true;
  }
  const unsigned threads = resolve_threads(options.threads);
  progress_meter ps(rc, 2 * n);
  T* const d = data.data();
  scatter::regions r(n, plan.bucket_bits, plan.lanes);
  // 1. Rough scatter, one task per lane (a stopped run leaves a permutation: lanes only swap).
  if (!metered_parallel_for(plan.lanes, threads, ps, [&](std::uint64_t lane) {
        shuffler.rough_lane(d, r, plan.bucket_bits, static_cast<unsigned>(lane), 0, 0);
        return r.lane_elements(static_cast<unsigned>(lane));
      }))
    return false;
  // 2. Settle (short: a few percent of the elements).
  scatter::settle_report report;
  const auto start = shuffler.settle(d, r, plan.bucket_bits, 0, 0, &report);
  if (options.stats) {
    options.stats->unlabelled = report.unlabelled;
    options.stats->moved = report.moved;
    options.stats->buffer_bytes = report.buffer_bytes;
  }
  // 3. Each bucket, recursively; a bucket is shuffled whole or not at all.
  return metered_parallel_for(r.k, threads, ps, [&](std::uint64_t j) {
    shuffler.shuffle(d + start[j], start[j + 1] - start[j], 1, start[j]);
    return start[j + 1] - start[j];
  });
}

}  // namespace detail
}  // namespace fairdeck
