#include "fairdeck/shuffle/huge.hpp"

#include <algorithm>
#include <bit>
#include <span>
#include <stdexcept>

#include "fairdeck/random/os_entropy.hpp"

namespace fairdeck {
namespace detail {

// `secure` has no reproducible streams, and the steps need many: use chacha20 under a fresh
// OS key instead — equally unpredictable.
engine_spec keyed_once(const engine_spec& spec) {
  if (spec.id != engine_id::secure) return spec;
  engine_spec out;
  out.id = engine_id::chacha20;
  out.key.emplace();
  os_entropy(std::as_writable_bytes(std::span(*out.key)));  // throws if the OS has no entropy
  return out;
}

// (declared with its rationale in huge_driver.hpp)
unsigned bucket_bits_for(std::uint64_t n, std::size_t element_bytes, std::uint64_t bucket_bytes) noexcept {
  const std::uint64_t bytes = n * element_bytes;
  if (n < 4 || (bytes + 3) / 4 <= bucket_bytes) return 0;  // (no overflow for any bucket_bytes)
  const std::uint64_t want = (bytes + bucket_bytes - 1) / bucket_bytes;
  return std::clamp(static_cast<unsigned>(std::bit_width(want - 1)), min_bucket_bits, max_bucket_bits);
}

}  // namespace detail

using detail::bucket_bits_for;
using detail::bytes_per_lane;
using detail::default_bucket_bytes;
using detail::max_auto_lanes;

huge_shuffle_plan plan_huge_shuffle(std::uint64_t n, std::size_t element_bytes, const huge_shuffle_options& options) noexcept {
  huge_shuffle_plan plan;
  plan.elements = n;
  plan.element_bytes = element_bytes;
  plan.bucket_bits = bucket_bits_for(n, element_bytes, options.bucket_bytes ? options.bucket_bytes : default_bucket_bytes);
  if (plan.bucket_bits == 0) return plan;
  if (options.lanes) {
    plan.lanes = options.lanes;
  } else {
    const std::uint64_t by_size = n * element_bytes / bytes_per_lane;
    plan.lanes = by_size == 0 ? 1u : static_cast<unsigned>(std::bit_floor(std::min<std::uint64_t>(by_size, max_auto_lanes)));
  }
  return plan;
}

template bool huge_shuffle<std::uint32_t>(std::span<std::uint32_t>, const engine_spec&, const huge_shuffle_options&);
template bool huge_shuffle<std::uint64_t>(std::span<std::uint64_t>, const engine_spec&, const huge_shuffle_options&);

namespace {
template <class T>
bool permutation_impl(std::span<T> out, const engine_spec& spec, const huge_shuffle_options& options) {
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<T>(i);
  return huge_shuffle(out, spec, options);
}
}  // namespace

bool random_permutation(std::span<std::uint32_t> out, const engine_spec& spec, const huge_shuffle_options& options) {
  if (out.size() > std::uint64_t{0xFFFFFFFF} + 1) throw std::length_error("random_permutation: n exceeds 2^32 for uint32_t");
  return permutation_impl(out, spec, options);
}

bool random_permutation(std::span<std::uint64_t> out, const engine_spec& spec, const huge_shuffle_options& options) {
  return permutation_impl(out, spec, options);
}

}  // namespace fairdeck
