// OpenJDK 17: Collections.shuffle(list, new Random(S)). The loop (for RandomAccess lists and
// for the array copy it makes of the others) is
//   for (int i = size; i > 1; i--) swap(list, i - 1, rnd.nextInt(i));
// with java.util.Random's 48-bit LCG and nextInt(bound) (fairdeck::java_random, legacy.hpp).
#include <stdexcept>

#include "fairdeck/random/legacy.hpp"
#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {

struct java_shuffle final : runtime_shuffler::impl {
  java_random rnd;
  explicit java_shuffle(std::uint64_t seed) : rnd(seed) {}  // new Random(long): S as a 64-bit pattern
  void shuffle(std::span<std::uint32_t> list) override {
    if (list.size() > 0x7fffffffu) throw std::invalid_argument("java: a List holds at most 2^31-1 elements");
    for (std::size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[rnd.native_below(i)]);
  }
};

}  // namespace

impl_ptr make_java(std::uint64_t seed) { return std::make_unique<java_shuffle>(seed); }

}  // namespace fairdeck::runtimes::internal
