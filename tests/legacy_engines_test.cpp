// Legacy engines against the vendors' own published outputs (sources cited per test).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/random/legacy.hpp"
#include "fairdeck/shuffle/algorithm.hpp"

namespace fairdeck {
namespace {

static_assert(random_engine<glibc_rand> && random_engine<msvc_rand> && random_engine<delphi_random> &&
              random_engine<java_random> && random_engine<dotnet_random> && random_engine<mt19937_32> &&
              random_engine<minstd_rand>);
static_assert(has_native_below<glibc_rand> && has_native_below<msvc_rand> && has_native_below<delphi_random> &&
              has_native_below<java_random> && has_native_below<dotnet_random> && has_native_below<mt19937_32> &&
              has_native_below<minstd_rand>);
static_assert(glibc_rand::max() == 0x7fffffff && msvc_rand::max() == 32767 && minstd_rand::min() == 1 &&
              minstd_rand::max() == 0x7ffffffe && dotnet_random::max() == 0x7ffffffe);

template <class E>
std::vector<std::uint64_t> first(E&& e, std::size_t n) {
  std::vector<std::uint64_t> v;
  for (std::size_t i = 0; i < n; ++i) v.push_back(e());
  return v;
}

TEST(LegacyGlibc, Srand1MatchesTheWellKnownSequence) {
  // glibc: srand(1) (also the state before any srand) gives 1804289383, 846930886, ...
  EXPECT_EQ(first(glibc_rand(1), 10),
            (std::vector<std::uint64_t>{1804289383, 846930886, 1681692777, 1714636915, 1957747793, 424238335, 719885386,
                                        1649760492, 596516649, 1189641421}));
  EXPECT_EQ(first(glibc_rand(0), 5), first(glibc_rand(1), 5));  // srand(0) acts as srand(1)
}

#ifdef __GLIBC__
TEST(LegacyGlibc, MatchesTheHostGlibcForManySeeds) {
  // The host C library is the vendor: compare with random_r (what rand() calls) on a
  // private TYPE_3 state, including seeds >= 2^31 (negative as the int32 glibc stores).
  for (std::uint32_t seed : {0u, 1u, 2u, 42u, 12345u, 0x7fffffffu, 0x80000000u, 0xdeadbeefu, 0xffffffffu}) {
    std::array<char, 128> state{};
    random_data buf{};
    ASSERT_EQ(initstate_r(seed, state.data(), state.size(), &buf), 0);
    glibc_rand ours(seed);
    for (int i = 0; i < 1000; ++i) {
      std::int32_t theirs = 0;
      random_r(&buf, &theirs);
      ASSERT_EQ(ours(), static_cast<std::uint32_t>(theirs)) << "seed " << seed << " output " << i;
    }
  }
}
#endif

TEST(LegacyMsvc, Seed1MatchesTheDocumentedSequence) {
  // Microsoft CRT rand() with the default seed 1: 41, 18467, 6334, 26500, ...
  EXPECT_EQ(first(msvc_rand(1), 10), (std::vector<std::uint64_t>{41, 18467, 6334, 26500, 19169, 15724, 11478, 29358,
                                                                  26962, 24464}));
  msvc_rand e(1);
  EXPECT_EQ(e.native_below(10), 41u % 10);  // rand() % n
  EXPECT_EQ(e.native_below(100), 18467u % 100);
}

TEST(LegacyDelphi, RecurrenceAndRangeMapping) {
  // Delphi System._RandInt: RandSeed := RandSeed * $08088405 + 1; Random(n) = (RandSeed * n) shr 32.
  // From RandSeed = 0 (the value before Randomize) the seeds are 1, 134775814, 3698175007, ...
  EXPECT_EQ(first(delphi_random(0), 5), (std::vector<std::uint64_t>{1, 134775814, 3698175007, 870078620, 1172187917}));
  delphi_random e(0);
  std::vector<std::uint64_t> draws;
  for (int i = 0; i < 5; ++i) draws.push_back(e.native_below(52));
  EXPECT_EQ(draws, (std::vector<std::uint64_t>{0, 1, 44, 10, 14}));
  // Stack Overflow 3946869: "randseed := -1498392781 ... Random will return exactly 0.5",
  // i.e. the next RandSeed is 2^31 (Random = RandSeed / 2^32).
  delphi_random half(static_cast<std::uint32_t>(-1498392781));
  EXPECT_EQ(half(), 0x80000000u);
  EXPECT_THROW((void)delphi_random(0).native_below(std::uint64_t{1} << 31), std::invalid_argument);
}

TEST(LegacyJava, NextIntMatchesPublishedValues) {
  // new Random(42).nextInt() = -1170105035, then 234785527 (JVM test suites).
  java_random r42(42);
  EXPECT_EQ(static_cast<std::int32_t>(r42()), -1170105035);
  EXPECT_EQ(static_cast<std::int32_t>(r42()), 234785527);
  // new Random(2): nextInt() x3 = -1154715079, 1260042744, -423279216; nextInt(10) = 7; nextInt(5) = 4.
  java_random r2(2);
  EXPECT_EQ(static_cast<std::int32_t>(r2()), -1154715079);
  EXPECT_EQ(static_cast<std::int32_t>(r2()), 1260042744);
  EXPECT_EQ(static_cast<std::int32_t>(r2()), -423279216);
  EXPECT_EQ(r2.native_below(10), 7u);
  EXPECT_EQ(r2.native_below(5), 4u);
  // new Random(1L).nextInt(3): 0, 1, 1, 0.
  java_random r1(1);
  std::vector<std::uint64_t> v;
  for (int i = 0; i < 4; ++i) v.push_back(r1.native_below(3));
  EXPECT_EQ(v, (std::vector<std::uint64_t>{0, 1, 1, 0}));
}

TEST(LegacyJava, PowerOfTwoBoundUsesTheHighBits) {
  java_random a(7), b(7);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.native_below(32), b.next(31) >> 26);  // (32 * next(31)) >> 31
}

TEST(LegacyDotnet, MatchesTheRuntimeExpectedValues) {
  // dotnet/runtime src/libraries/System.Runtime.Extensions/tests/System/Random.cs, ExpectedValues.
  EXPECT_EQ(first(dotnet_random(0), 10),
            (std::vector<std::uint64_t>{1559595546, 1755192844, 1649316166, 1198642031, 442452829, 1200195957,
                                        1945678308, 949569752, 2099272109, 587775847}));
  EXPECT_EQ(first(dotnet_random(1), 10),
            (std::vector<std::uint64_t>{534011718, 237820880, 1002897798, 1657007234, 1412011072, 929393559, 760389092,
                                        2026928803, 217468053, 1379662799}));
  EXPECT_EQ(first(dotnet_random(19), 3), (std::vector<std::uint64_t>{1400855637, 842412939, 104785409}));
  // Next(n) = (int)(Sample() * n): 1559595546 / int.MaxValue * 100 = 72.6...
  dotnet_random r(0);
  EXPECT_EQ(r.native_below(100), 72u);
  EXPECT_EQ(first(dotnet_random(-5), 4), first(dotnet_random(5), 4));  // only |seed| matters
}

TEST(LegacyStd, MersenneTwisterAndMinstdMatchTheStandard) {
  // [rand.predef]: the 10000th output of a default-constructed mt19937 (seed 5489) is
  // 4123659995, of minstd_rand (seed 1) 399268537.
  mt19937_32 mt(5489);
  std::uint64_t x = 0;
  for (int i = 0; i < 10000; ++i) x = mt();
  EXPECT_EQ(x, 4123659995u);
  minstd_rand ms(1);
  for (int i = 0; i < 10000; ++i) x = ms();
  EXPECT_EQ(x, 399268537u);
  EXPECT_EQ(first(minstd_rand(0), 3), first(minstd_rand(1), 3));  // seed 0 becomes 1
  mt19937_32 a(1), b(1);
  for (int i = 0; i < 100; ++i) ASSERT_EQ(a.native_below(52), b() % 52);
}

TEST(LegacyRegistry, EveryLegacyEngineIsCataloguedAndNeverSecure) {
  int legacy = 0;
  for (const auto& row : engine_catalog()) {
    if (!row.legacy) continue;
    ++legacy;
    const std::string name(row.name);
    const auto id = parse_engine_name(name);
    EXPECT_EQ(id, row.id) << name;
    EXPECT_FALSE(info(id).secure) << name;
    const auto spec = make_engine_spec(name, 7, std::nullopt);
    EXPECT_FALSE(spec.secure()) << name;
    EXPECT_TRUE(spec.reproducible()) << name;
  }
  EXPECT_EQ(legacy, 7);  // docs/engines.md lists the seven
  EXPECT_FALSE(info(engine_id::pcg64).legacy);
}

TEST(LegacyRegistry, SeedsBeyondTheVendorsWidthAreRejected) {
  EXPECT_THROW((void)make_engine_spec("delphi", std::uint64_t{1} << 32, std::nullopt), std::invalid_argument);
  EXPECT_NO_THROW((void)make_engine_spec("delphi", (std::uint64_t{1} << 32) - 1, std::nullopt));
  EXPECT_THROW((void)make_engine_spec("dotnet", std::uint64_t{1} << 31, std::nullopt), std::invalid_argument);
  EXPECT_NO_THROW((void)make_engine_spec("java", ~std::uint64_t{0}, std::nullopt));
  try {
    (void)make_engine_spec("glibc-rand", std::uint64_t{1} << 40, std::nullopt);
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("2^32"), std::string::npos) << e.what();
  }
  // Without a seed, the fresh OS seed fits the engine.
  for (int i = 0; i < 20; ++i) EXPECT_LT(make_engine_spec("dotnet", std::nullopt, std::nullopt).seed, 1u << 31);
}

TEST(LegacyRegistry, StreamZeroIsTheVendorSeedItself) {
  const auto spec = make_engine_spec("msvc-rand", 1, std::nullopt);
  const auto v = visit_engine(spec, 0, [](auto& e) { return static_cast<std::uint64_t>(e()); });
  EXPECT_EQ(v, 41u);
  EXPECT_EQ(legacy_stream_seed(spec, 0), 1u);
  EXPECT_NE(legacy_stream_seed(spec, 1), 1u);
  EXPECT_LT(legacy_stream_seed(spec, 1), std::uint64_t{1} << 32);
}

TEST(LegacyShuffle, GenericShufflesUseTheHistoricalMapping) {
  // asf1999_shuffle with Delphi: card i swaps with Random(51) (0-based), replayed by hand.
  std::vector<int> deck(52), manual(52);
  for (int i = 0; i < 52; ++i) deck[static_cast<std::size_t>(i)] = manual[static_cast<std::size_t>(i)] = i;
  delphi_random e(123456), f(123456);
  asf1999_shuffle(deck, e);
  for (std::size_t i = 0; i < 52; ++i) {
    const std::uint32_t s = f();
    std::swap(manual[i], manual[(std::uint64_t{s} * 51) >> 32]);
  }
  EXPECT_EQ(deck, manual);
}

}  // namespace
}  // namespace fairdeck
