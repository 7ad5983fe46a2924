// Java, .NET Framework (Mono), Go and Node shuffles against golden vectors the real runtimes
// printed (tests/runtimes/generate_b.sh; regenerated live by the RuntimesGoldenLive* tests
// where the runtime is installed). Deck for deck: every line is one shuffle call.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "fairdeck/runtimes/runtime.hpp"

namespace fairdeck::runtimes {
namespace {

struct golden_line {
  std::uint64_t seed;
  unsigned call;
  std::vector<std::uint32_t> list;
};

std::vector<golden_line> read_golden(const std::string& name) {
  std::ifstream in(std::string(FAIRDECK_SOURCE_DIR) + "/tests/runtimes/golden/" + name + ".txt");
  EXPECT_TRUE(in) << "missing golden file for " << name;
  std::vector<golden_line> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream s(line);
    golden_line g{};
    std::size_t n = 0;
    char colon = 0;
    s >> g.seed >> g.call >> n >> colon;
    EXPECT_EQ(colon, ':') << line;
    for (std::uint32_t v; s >> v;) g.list.push_back(v);
    EXPECT_EQ(g.list.size(), n) << line;
    out.push_back(std::move(g));
  }
  return out;
}

// Replays every golden line: one runtime_shuffler per seed, calls in file order.
void check_golden(const std::string& name, std::size_t min_lines) {
  const auto id = find_runtime(name);
  ASSERT_TRUE(id) << name;
  const auto lines = read_golden(name);
  ASSERT_GE(lines.size(), min_lines);
  std::map<std::uint64_t, runtime_shuffler> gens;
  std::map<std::uint64_t, unsigned> next_call;
  std::size_t decks_52 = 0;
  for (const auto& g : lines) {
    auto it = gens.find(g.seed);
    if (it == gens.end()) it = gens.emplace(g.seed, runtime_shuffler(*id, g.seed)).first;
    ASSERT_EQ(next_call[g.seed]++, g.call) << name << " seed " << g.seed << ": calls out of order";
    std::vector<std::uint32_t> list(g.list.size());
    std::iota(list.begin(), list.end(), 0u);
    it->second.shuffle(list);
    EXPECT_EQ(list, g.list) << name << " seed " << g.seed << " call " << g.call << " n " << g.list.size();
    decks_52 += g.list.size() == 52;
  }
  EXPECT_GE(decks_52, 3 * gens.size());  // three consecutive decks per seed
}

TEST(RuntimesGolden, Java) { check_golden("java", 12 * 7); }
TEST(RuntimesGolden, DotnetFrameworkFisherYates) { check_golden("dotnet-framework", 9 * 7); }
TEST(RuntimesGolden, DotnetFrameworkOrderBy) { check_golden("dotnet-framework-orderby", 9 * 7); }
TEST(RuntimesGolden, Go) { check_golden("go", 13 * 7); }
TEST(RuntimesGolden, NodeFisherYates) { check_golden("node", 8 * 7); }
TEST(RuntimesGolden, NodeSort) { check_golden("node-sort", 8 * 7); }

TEST(RuntimesSeeds, RangesFollowTheSeedingCalls) {
  // new Random(int): negative seeds are outside the row (|seed| is used, the same decks).
  EXPECT_THROW(runtime_shuffler(runtime_id::dotnet_framework, 0x80000000u), std::invalid_argument);
  // node --random_seed=0 means "unseeded".
  EXPECT_THROW(runtime_shuffler(runtime_id::node, 0), std::invalid_argument);
  EXPECT_THROW(runtime_shuffler(runtime_id::node, std::uint64_t{1} << 32), std::invalid_argument);
  // Go reduces mod 2^31-1: S and S + (2^31-1) are the same source; 0 and 2^31-1 both become 89482311.
  auto deck = [](runtime_id id, std::uint64_t seed) {
    std::vector<std::uint32_t> v(52);
    std::iota(v.begin(), v.end(), 0u);
    runtime_shuffler(id, seed).shuffle(v);
    return v;
  };
  EXPECT_EQ(deck(runtime_id::go, 5), deck(runtime_id::go, 5 + 0x7fffffffu));
  EXPECT_EQ(deck(runtime_id::go, 0), deck(runtime_id::go, 89482311));
  // Java keeps 48 bits: S and S + 2^48 are one generator.
  EXPECT_EQ(deck(runtime_id::java, 7), deck(runtime_id::java, 7 + (std::uint64_t{1} << 48)));
}

}  // namespace
}  // namespace fairdeck::runtimes
