#include "fairdeck/random/legacy.hpp"

#include <limits>

namespace fairdeck {

// System.Random(int Seed) of the .NET Framework reference source (Numerical Recipes ran3
// initialisation with MSEED = 161803398), kept bit for bit, including its C# wrap-around.
dotnet_random::dotnet_random(std::int32_t seed) noexcept {
  const std::int32_t subtraction =
      seed == std::numeric_limits<std::int32_t>::min() ? std::numeric_limits<std::int32_t>::max() : (seed < 0 ? -seed : seed);
  std::int32_t mj = 161803398 - subtraction;
  seed_array_[55] = mj;
  std::int32_t mk = 1;
  for (int i = 1; i < 55; ++i) {
    const int ii = (21 * i) % 55;
    seed_array_[static_cast<std::size_t>(ii)] = mk;
    mk = wrapping_sub(mj, mk);
    if (mk < 0) mk += mbig;
    mj = seed_array_[static_cast<std::size_t>(ii)];
  }
  for (int k = 1; k < 5; ++k) {
    for (std::size_t i = 1; i < 56; ++i) {
      seed_array_[i] = wrapping_sub(seed_array_[i], seed_array_[1 + (i + 30) % 55]);
      if (seed_array_[i] < 0) seed_array_[i] += mbig;
    }
  }
  inext_ = 0;
  inextp_ = 21;
}

}  // namespace fairdeck
