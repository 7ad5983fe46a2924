// The runtime emulations (src/runtimes/) against golden vectors the real runtimes printed
// (tests/runtimes/golden/NAME.txt for every runtime of the catalogue, in the format of
// tests/runtimes/cases.txt; regenerated live by the RuntimeGoldenLive.* CTest tests), deck for deck.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <numeric>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fairdeck/runtimes/runtime.hpp"

namespace fairdeck::runtimes {
namespace {

struct golden_line {
  std::uint64_t seed = 0;
  std::size_t n = 0, k = 0;
  std::string body;  // "V0 V1 ..." or "fnv1a64=HEX" (tests/runtimes/cases.txt)
};

std::vector<golden_line> read_golden(const std::string& name) {
  const std::string path = std::string(FAIRDECK_SOURCE_DIR) + "/tests/runtimes/golden/" + name + ".txt";
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<golden_line> lines;
  for (std::string text; std::getline(in, text);) {
    std::istringstream f(text);
    golden_line g;
    if (!(f >> g.seed >> g.n >> g.k)) throw std::runtime_error("bad golden line in " + path + ": " + text);
    std::getline(f >> std::ws, g.body);
    lines.push_back(std::move(g));
  }
  return lines;
}

std::uint64_t fnv1a64(const std::vector<std::uint32_t>& v) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (std::uint32_t x : v)
    for (int b = 0; b < 4; ++b) h = (h ^ ((x >> (8 * b)) & 0xffu)) * 0x100000001b3u;
  return h;
}

std::string render(const std::vector<std::uint32_t>& v) {
  return v.size() > 1000 ? fmt::format("fnv1a64={:016x}", fnv1a64(v)) : fmt::format("{}", fmt::join(v, " "));
}

// Every runtime of the catalogue, by name: a new row needs its golden file.
std::vector<std::string> catalogue_names() {
  std::vector<std::string> out;
  for (const auto& row : runtime_catalog()) out.emplace_back(row.name);
  return out;
}

class RuntimeGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(RuntimeGolden, EveryDeckMatchesTheRealRuntime) {
  const auto id = find_runtime(GetParam());
  ASSERT_TRUE(id) << GetParam();
  const runtime_info& row = info(*id);
  const auto lines = read_golden(std::string(row.name));
  ASSERT_GE(lines.size(), 55u) << "golden file too short";
  std::optional<runtime_shuffler> rt;
  std::size_t next_k = 1, decks_52 = 0, continued = 0, lengths_other = 0;
  bool lowest_seed = false, highest_seed = false;
  for (const auto& g : lines) {
    if (g.k == 1) rt.emplace(row.id, g.seed);  // a new generator
    ASSERT_TRUE(rt);
    ASSERT_EQ(g.k, g.k == 1 ? 1 : next_k) << row.name << " seed " << g.seed << ": shuffles out of order";
    next_k = g.k + 1;
    std::vector<std::uint32_t> list(g.n);  // every shuffle starts from 0..n-1
    std::iota(list.begin(), list.end(), 0u);
    rt->shuffle(list);
    EXPECT_EQ(render(list), g.body) << row.name << " seed " << g.seed << " n " << g.n << " shuffle " << g.k;
    decks_52 += g.n == 52;
    continued += g.k > 1;
    lengths_other += g.n != 52;
    lowest_seed |= g.seed == row.min_seed;
    highest_seed |= g.seed == row.max_seed;
  }
  // The golden files cover what the contract promises, not just the easy case: both ends of
  // the seed range, generators that keep going, lists other than one deck.
  EXPECT_GE(decks_52, 20u);
  EXPECT_GE(continued, 10u);
  EXPECT_GE(lengths_other, 15u);
  EXPECT_TRUE(lowest_seed) << row.name << ": no golden line for seed " << row.min_seed;
  EXPECT_TRUE(highest_seed) << row.name << ": no golden line for seed " << row.max_seed;
}

INSTANTIATE_TEST_SUITE_P(Runtimes, RuntimeGolden, ::testing::ValuesIn(catalogue_names()),
                         [](const ::testing::TestParamInfo<std::string>& p) {  // "libstdc++-default" -> "libstdcxx_default"
                           std::string s;
                           for (char c : p.param) s += c == '+' ? std::string("x") : c == '-' ? std::string("_") : std::string(1, c);
                           return s;
                         });

std::vector<std::uint32_t> deck(runtime_id id, std::uint64_t seed, std::size_t n = 52) {
  std::vector<std::uint32_t> v(n);
  std::iota(v.begin(), v.end(), 0u);
  runtime_shuffler(id, seed).shuffle(v);
  return v;
}

TEST(RuntimeSeeds, EachRuntimeKeepsWhatItsSeedingCallKeeps) {
  // mt_srand and std::mt19937 keep the low 32 bits; Python uses every bit of its int.
  EXPECT_EQ(deck(runtime_id::php, 0x100000007u), deck(runtime_id::php, 7));
  EXPECT_EQ(deck(runtime_id::libstdcxx, 0x100000007u), deck(runtime_id::libstdcxx, 7));
  EXPECT_EQ(deck(runtime_id::libcxx, 0x100000007u), deck(runtime_id::libcxx, 7));
  EXPECT_NE(deck(runtime_id::python, 0x100000007u), deck(runtime_id::python, 7));
  // The minimal-standard LCGs reduce mod 2^31-1, and a multiple of it acts as 1.
  EXPECT_EQ(deck(runtime_id::libstdcxx_default, 0x7fffffffu + 9), deck(runtime_id::libstdcxx_default, 9));
  EXPECT_EQ(deck(runtime_id::libcxx_default, 0), deck(runtime_id::libcxx_default, 1));
  EXPECT_EQ(deck(runtime_id::libcxx_default, 0x7fffffffu), deck(runtime_id::libcxx_default, 1));
}

TEST(RuntimeSeeds, RangesFollowTheSeedingCalls) {
  // new Random(int): negative seeds are outside the row (|seed| is used, the same decks).
  EXPECT_THROW(runtime_shuffler(runtime_id::dotnet_framework, 0x80000000u), std::invalid_argument);
  // node --random_seed=0 means "unseeded".
  EXPECT_THROW(runtime_shuffler(runtime_id::node, 0), std::invalid_argument);
  EXPECT_THROW(runtime_shuffler(runtime_id::node, std::uint64_t{1} << 32), std::invalid_argument);
  // Go reduces mod 2^31-1: S and S + (2^31-1) are the same source; 0 and 2^31-1 both become 89482311.
  EXPECT_EQ(deck(runtime_id::go, 5), deck(runtime_id::go, 5 + 0x7fffffffu));
  EXPECT_EQ(deck(runtime_id::go, 0), deck(runtime_id::go, 89482311));
  // Java keeps 48 bits: S and S + 2^48 are one generator.
  EXPECT_EQ(deck(runtime_id::java, 7), deck(runtime_id::java, 7 + (std::uint64_t{1} << 48)));
}

TEST(RuntimeSeeds, SeedsAboveTheRuntimesRangeAreRefused) {
  for (const auto& row : runtime_catalog()) {
    if (row.max_seed == UINT64_MAX) continue;
    EXPECT_THROW(runtime_shuffler(row.id, row.max_seed + 1), std::invalid_argument) << row.name;
  }
  EXPECT_NO_THROW(runtime_shuffler(runtime_id::php, 0x7fffffffffffffffu));  // PHP_INT_MAX
}

TEST(RuntimeShuffle, ShortListsAndPermutations) {
  for (runtime_id id : {runtime_id::php, runtime_id::python, runtime_id::libstdcxx, runtime_id::libstdcxx_default,
                        runtime_id::libcxx, runtime_id::libcxx_default}) {
    runtime_shuffler rt(id, 2024);
    std::vector<std::uint32_t> empty, one{7};
    rt.shuffle(empty);
    rt.shuffle(one);
    EXPECT_EQ(one, std::vector<std::uint32_t>{7}) << info(id).name;
    auto v = deck(id, 99, 300);
    std::vector<std::uint32_t> sorted = v;
    std::sort(sorted.begin(), sorted.end());
    std::vector<std::uint32_t> iota(300);
    std::iota(iota.begin(), iota.end(), 0u);
    EXPECT_EQ(sorted, iota) << info(id).name;
    EXPECT_NE(v, iota) << info(id).name;
  }
}

}  // namespace
}  // namespace fairdeck::runtimes
