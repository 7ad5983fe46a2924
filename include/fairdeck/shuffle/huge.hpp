// Exactly uniform, cache-aware, multi-threaded shuffles of huge arrays (10^8..10^9 items).
//
// Plain Fisher–Yates on an array far bigger than the caches pays a cache (and TLB) miss per
// element. Instead (Sanders, "Random Permutations on Distributed, External and Hierarchical
// Memory", IPL 67, 1998; Rao 1961 / Sandelius 1962):
//   1. every element gets an independent, uniform bucket label (B = 2^b buckets, b bits of
//      an engine word each, so no rejection is needed);
//   2. elements are scattered to their buckets, in input order, into a scratch array;
//   3. each bucket (~1 MB, cache-resident) is copied home in uniformly random order in one
//      pass (inside-out Fisher–Yates with batched dice).
// Why exactly uniform: the labels are i.i.d. uniform, so the bucket sizes are exactly
// multinomial(n; 1/B, ..., 1/B) and which elements share a bucket does not depend on what
// the elements are; every bucket is then shuffled uniformly and independently. For a target
// order, the label vectors that can produce it are exactly those whose bucket sizes
// (n_1..n_B) match, one per size vector, and each yields it with probability
// B^-n * prod_b 1/n_b!; summing over size vectors, B^-n * sum n!/prod n_b! / n! = 1/n!
// (the multinomial theorem). Every one of the n! orders is equally likely.
//
// Determinism: the work is cut into chunks and buckets that depend only on n, the element
// size and the tuning options, never on the thread count; chunk c draws its labels from
// engine stream c and bucket b shuffles with stream 2^62 + b (visit_engine's counter-based
// streams). Same seed, same n → same order with 1, 2 or 64 threads. A `secure` spec is
// turned into chacha20 under a fresh 256-bit key from the OS, so the run stays
// unpredictable (and the key is wiped afterwards).
//
// Memory: one scratch copy of the data (n * sizeof(T)) plus chunks * buckets * 8 bytes of
// offsets (a few MiB at most); huge_shuffle_plan::overhead_bytes() says exactly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

struct huge_shuffle_options {
  unsigned threads = 0;                // 0: std::thread::hardware_concurrency(); never changes the result
  std::uint64_t bucket_bytes = 0;      // target bucket size (0: 1 MiB, L2-resident); changes the result
  std::uint64_t chunk_elements = 0;    // label/scatter work unit (0: automatic); changes the result
  run_control control;                 // progress (reported from the calling thread) and Ctrl-C
};

// The deterministic decomposition of n elements of element_bytes each.
struct huge_shuffle_plan {
  std::uint64_t elements = 0;
  std::size_t element_bytes = 0;
  unsigned bucket_bits = 0;          // buckets = 2^bucket_bits; 0: small input, one Fisher–Yates (stream 0)
  std::uint64_t chunks = 1;          // label/scatter work units
  std::uint64_t chunk_elements = 0;  // the last chunk may be shorter
  [[nodiscard]] std::uint64_t buckets() const noexcept { return std::uint64_t{1} << bucket_bits; }
  [[nodiscard]] std::uint64_t overhead_bytes() const noexcept {
    return bucket_bits == 0 ? 0 : elements * element_bytes + (chunks + 1) * buckets() * sizeof(std::uint64_t);
  }
};

[[nodiscard]] huge_shuffle_plan plan_huge_shuffle(std::uint64_t n, std::size_t element_bytes,
                                                  const huge_shuffle_options& options = {}) noexcept;

// The scratch copy, kept between calls: fresh memory must be zeroed by the kernel on first
// touch, which costs about as much as the scatter itself, so code that shuffles again and
// again (an epoch loop) should keep one workspace.
class huge_shuffle_workspace {
 public:
  huge_shuffle_workspace() = default;
  ~huge_shuffle_workspace();
  huge_shuffle_workspace(const huge_shuffle_workspace&) = delete;
  huge_shuffle_workspace& operator=(const huge_shuffle_workspace&) = delete;
  [[nodiscard]] std::size_t capacity_bytes() const noexcept { return bytes_; }
  void release() noexcept;
  // At least `bytes`, 2 MiB-aligned. Throws std::bad_alloc.
  [[nodiscard]] void* reserve(std::size_t bytes);

 private:
  void* base_ = nullptr;
  std::size_t mapped_ = 0;
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

// Shuffles `data` exactly uniformly. Returns false if options.control.stop was raised: data
// is then still a permutation of its input (nothing lost or duplicated) but not a uniform
// shuffle. Throws std::bad_alloc if the scratch copy cannot be allocated.
bool huge_shuffle(std::span<std::uint32_t> data, const engine_spec& spec, const huge_shuffle_options& options = {});
bool huge_shuffle(std::span<std::uint64_t> data, const engine_spec& spec, const huge_shuffle_options& options = {});
// The same, reusing `workspace` (same result as without it).
bool huge_shuffle(std::span<std::uint32_t> data, const engine_spec& spec, const huge_shuffle_options& options,
                  huge_shuffle_workspace& workspace);
bool huge_shuffle(std::span<std::uint64_t> data, const engine_spec& spec, const huge_shuffle_options& options,
                  huge_shuffle_workspace& workspace);

// Fills `out` with a uniformly random permutation of 0..n-1: the same order huge_shuffle
// gives an array holding 0..n-1 (same seed, same options), but with no scratch copy — the
// indices are generated, scattered straight into `out` and each bucket is shuffled in
// place. Overhead: the offsets table only. Returns false if stopped (out's contents are
// then unspecified). uint32_t needs n <= 2^32 (else std::length_error).
bool random_permutation(std::span<std::uint32_t> out, const engine_spec& spec, const huge_shuffle_options& options = {});
bool random_permutation(std::span<std::uint64_t> out, const engine_spec& spec, const huge_shuffle_options& options = {});

}  // namespace fairdeck
