// Go 1.19: rand.New(rand.NewSource(S)).Shuffle(n, swap). Shuffle is Fisher–Yates from the
// top, j = int31n(i + 1) for i = n-1 .. 1 (Int63n only above 2^31-2 elements).
#include <stdexcept>

#include "fairdeck/runtimes/internal/factories.hpp"
#include "fairdeck/runtimes/internal/go_source.hpp"

namespace fairdeck::runtimes {
namespace go {
const std::array<std::uint64_t, rng_len> rng_cooked{
#include "go_cooked.inc"
};
}  // namespace go

namespace internal {
namespace {

struct go_shuffle final : runtime_shuffler::impl {
  go::source src;
  explicit go_shuffle(std::uint64_t seed) : src(seed) {}
  void shuffle(std::span<std::uint32_t> list) override {
    if (list.size() > go::int32max)
      throw std::invalid_argument("go: this emulation shuffles at most 2^31-1 elements (Shuffle's int31n range)");
    for (std::size_t i = list.size(); i > 1; --i) {
      const std::uint32_t j = src.int31n(static_cast<std::uint32_t>(i));
      std::swap(list[i - 1], list[j]);
    }
  }
};

}  // namespace

impl_ptr make_go(std::uint64_t seed) { return std::make_unique<go_shuffle>(seed); }

}  // namespace internal
}  // namespace fairdeck::runtimes
