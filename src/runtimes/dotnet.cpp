// .NET Framework System.Random as Mono 6.8 runs it (fairdeck::dotnet_random, legacy.hpp:
// Knuth's subtractive generator, Next(n) = (int)(Sample() * n)) with the two idioms C# code
// uses to shuffle a list:
//   Fisher–Yates: for (int i = n - 1; i > 0; i--) { int j = r.Next(i + 1); swap(a, i, j); }
//   OrderBy:      a = a.OrderBy(_ => r.Next()).ToList();
// OrderBy draws one key per element in list order, then sorts stably by key (Enumerable's
// sorter breaks ties by original index), so equal keys keep list order.
#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "fairdeck/random/legacy.hpp"
#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {

struct dotnet_shuffle final : runtime_shuffler::impl {
  dotnet_random rnd;
  bool orderby;
  dotnet_shuffle(std::uint64_t seed, bool by_key) : rnd(static_cast<std::int32_t>(seed)), orderby(by_key) {}
  void shuffle(std::span<std::uint32_t> list) override {
    if (list.size() > 0x7fffffffu) throw std::invalid_argument("dotnet-framework: a List holds at most 2^31-1 elements");
    if (!orderby) {
      for (std::size_t i = list.size(); i > 1; --i) std::swap(list[i - 1], list[rnd.native_below(i)]);
      return;
    }
    std::vector<std::uint32_t> key(list.size()), order(list.size());
    for (auto& k : key) k = rnd();
    std::iota(order.begin(), order.end(), 0u);
    std::ranges::stable_sort(order, [&](std::uint32_t a, std::uint32_t b) { return key[a] < key[b]; });
    std::vector<std::uint32_t> sorted(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) sorted[i] = list[order[i]];
    std::ranges::copy(sorted, list.begin());
  }
};

}  // namespace

impl_ptr make_dotnet_framework(std::uint64_t seed, bool orderby) {
  return std::make_unique<dotnet_shuffle>(seed, orderby);
}

}  // namespace fairdeck::runtimes::internal
