// Exactly uniform, in-place, cache-aware, multi-threaded shuffles of huge arrays (10^8..10^9
// items).
//
// Plain Fisher–Yates on an array far bigger than the caches pays a cache (and TLB) miss per
// element. Instead, following Sanders (IPL 67, 1998; Rao 1961 / Sandelius 1962) in the in-place
// form of Penschuck ("Engineering Shared-Memory Parallel Shuffling to Generate Random
// Permutations In-Place", SEA 2023):
//   1. Rough scatter, in place: the array is cut into k = 2^b equal regions, one per bucket. An
//      "active" element draws a uniform bucket label and is swapped into the first unfilled
//      slot of that bucket's region; the element it displaces becomes active. Every bucket's
//      region fills from its front, so only k write fronts are live (k <= 256: they stay in L1
//      and in the TLB) and every element is read and written once. It stops when the first
//      region is full. For parallelism the regions are split into `lanes` parts, each lane
//      scattering its own parts with its own random stream.
//   2. Settle: the elements left unlabelled (about sqrt(2 ln k * k * lanes * n), 0.2–2 %)
//      draw their labels now; bucket j's final range is [F_j, F_j+1) with F the running sum
//      of the label counts, and the few elements outside their final range move there.
//   3. Each bucket is shuffled on its own, recursively (Fisher–Yates once it fits the cache).
// Why exactly uniform: every element gets one fresh uniform label (the order in which elements
// are labelled depends only on earlier labels, so the label vector is i.i.d. uniform), buckets
// hold exactly the elements of their label in an order that depends only on the labels, and
// each bucket is then shuffled uniformly and independently. For a target order, the label
// vectors that produce it are exactly one per vector of bucket sizes (n_1..n_k), each yielding
// it with probability k^-n * prod 1/n_b!; summing, k^-n * sum n!/prod n_b! / n! = 1/n! (the
// multinomial theorem). Every one of the n! orders is equally likely.
//
// Determinism: the recursion, the lanes and the engine stream of every step depend only on n,
// the element size and the tuning options, never on the thread count (stream ids encode depth,
// role and offset; visit_engine's streams are counter-based). Same seed, same n -> same order
// with 1, 2 or 64 threads. A `secure` spec becomes chacha20 under a fresh 256-bit OS key, so
// the run stays unpredictable (the key is wiped afterwards).
//
// Memory: in place. Settling copies the unlabelled and the out-of-range elements through
// small buffers (about 3 % of the array at 10^8; huge_shuffle_stats reports the exact peak).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

// What one call did at the top level (filled when options.stats is set).
struct huge_shuffle_stats {
  std::uint64_t buckets = 0;          // top-level buckets (0: shuffled directly)
  unsigned lanes = 0;                 // top-level rough-scatter lanes
  std::uint64_t unlabelled = 0;       // elements left for the settle step
  std::uint64_t moved = 0;            // labelled elements moved into their final range
  std::uint64_t buffer_bytes = 0;     // peak extra memory of the top-level settle step
};

struct huge_shuffle_options {
  unsigned threads = 0;             // 0: one per hardware thread (util/parallel.hpp); never changes the result
  std::uint64_t bucket_bytes = 0;   // target bucket size (0: 1 MiB, L2-resident); changes the result
  unsigned lanes = 0;               // top-level rough-scatter lanes, <= 64 (0: from n, at most 8); changes the result
  run_control control;              // progress (one report at a time, from any worker) and Ctrl-C
  huge_shuffle_stats* stats = nullptr;
};

// The top level of the deterministic decomposition of n elements of element_bytes each.
struct huge_shuffle_plan {
  std::uint64_t elements = 0;
  std::size_t element_bytes = 0;
  unsigned bucket_bits = 0;  // 2^bucket_bits buckets; 0: small input, one Fisher–Yates
  unsigned lanes = 1;
  [[nodiscard]] std::uint64_t buckets() const noexcept { return std::uint64_t{1} << bucket_bits; }
};

[[nodiscard]] huge_shuffle_plan plan_huge_shuffle(std::uint64_t n, std::size_t element_bytes,
                                                  const huge_shuffle_options& options = {}) noexcept;

}  // namespace fairdeck

#include "fairdeck/shuffle/internal/huge_driver.hpp"  // needs the declarations above

namespace fairdeck {

// Elements huge_shuffle can move: copied bytewise, default-constructible (for the settle buffers).
template <class T>
concept huge_shufflable = std::is_trivially_copyable_v<T> && std::default_initializable<T> && !std::is_const_v<T>;

// Shuffles `data` exactly uniformly, in place. Returns false if options.control.stop was
// raised: data is then still a permutation of its input (nothing lost or duplicated) but not a
// uniform shuffle. Throws std::bad_alloc if the settle buffers cannot be allocated,
// std::length_error for n >= 2^48 and std::invalid_argument for options.lanes > 64.
// Any element type works (records, structs); bucket sizes are in bytes, so the order for a
// seed depends on sizeof(T). uint32_t and uint64_t are compiled into the library.
template <huge_shufflable T>
bool huge_shuffle(std::span<T> data, const engine_spec& spec, const huge_shuffle_options& options = {}) {
  return detail::shuffle(data, spec, options);
}
extern template bool huge_shuffle<std::uint32_t>(std::span<std::uint32_t>, const engine_spec&, const huge_shuffle_options&);
extern template bool huge_shuffle<std::uint64_t>(std::span<std::uint64_t>, const engine_spec&, const huge_shuffle_options&);

// Fills `out` with a uniformly random permutation of 0..n-1: exactly what huge_shuffle makes
// of an array holding 0..n-1 (same seed, same options). Returns false if stopped (out is
// then a permutation of 0..n-1, not uniformly shuffled). uint32_t needs n <= 2^32 (else
// std::length_error).
bool random_permutation(std::span<std::uint32_t> out, const engine_spec& spec, const huge_shuffle_options& options = {});
bool random_permutation(std::span<std::uint64_t> out, const engine_spec& spec, const huge_shuffle_options& options = {});

}  // namespace fairdeck
