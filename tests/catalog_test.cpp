// The engine and shuffle catalogs cannot fall silent: row i describes enumerator i (also a
// static_assert in the library), every name parses back to its row, every engine x algorithm
// pair shuffles through the one dispatch, and docs/engines.md names every engine. Tests that
// need "every engine" or "every algorithm" walk these catalogs, never a list of names.
#include <algorithm>
#include <bit>
#include <fstream>
#include <numeric>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/shuffle_deck.hpp"

namespace {

using namespace fairdeck;

TEST(Catalog, EveryEngineRowIsItsOwnAndParsesBack) {
  const auto cat = engine_catalog();
  ASSERT_FALSE(cat.empty());
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const auto id = static_cast<engine_id>(i);
    SCOPED_TRACE(cat[i].name);
    EXPECT_EQ(cat[i].id, id);
    EXPECT_EQ(&info(id), &cat[i]);
    EXPECT_EQ(parse_engine_name(cat[i].name), id);
    EXPECT_TRUE(names.insert(cat[i].name).second) << "name given twice";
    EXPECT_FALSE(cat[i].description.empty());
    if (cat[i].legacy) {
      EXPECT_FALSE(cat[i].secure) << "a legacy emulation is never secure";
    }
    if (cat[i].seed_limit) {
      EXPECT_EQ(std::popcount(cat[i].seed_limit), 1);
    }
  }
  EXPECT_EQ(std::ranges::count_if(cat, [](const engine_info& e) { return e.secure; }), 2) << "secure and chacha20 only";
}

TEST(Catalog, EveryShuffleRowIsItsOwnAndParsesBack) {
  const auto cat = shuffle_catalog();
  ASSERT_FALSE(cat.empty());
  for (std::size_t i = 0; i < cat.size(); ++i) {
    const auto kind = static_cast<shuffle_kind>(i);
    SCOPED_TRACE(cat[i].name);
    EXPECT_EQ(cat[i].kind, kind);
    EXPECT_EQ(&info(kind), &cat[i]);
    const auto spec = parse_shuffle_spec(cat[i].name);
    EXPECT_EQ(spec.kind, kind);
    EXPECT_EQ(parse_shuffle_spec(spec.name()), spec);
    EXPECT_EQ(spec.fair(), cat[i].fair);
    EXPECT_FALSE(cat[i].guarantee.empty());
  }
  EXPECT_EQ(default_audit_algorithms().size(),
            static_cast<std::size_t>(std::ranges::count_if(cat, [](const auto& a) { return a.in_default_audit; })));
}

// shuffle_deck is exactly visit_engine + apply_shuffle, and a permutation, for every pair.
TEST(Catalog, EveryEngineShufflesWithEveryAlgorithmThroughTheOneDispatch) {
  for (const auto& e : engine_catalog()) {
    engine_spec es;
    es.id = e.id;
    es.seed = e.id == engine_id::secure ? 0 : 12345;
    for (const auto& a : shuffle_catalog()) {
      SCOPED_TRACE(std::string(e.name) + " " + std::string(a.name));
      const shuffle_spec spec = parse_shuffle_spec(a.name);
      std::vector<card_t> deck(52), expected(52);
      std::iota(deck.begin(), deck.end(), card_t{0});
      expected = deck;
      shuffle_deck(es, 3, spec, deck);
      std::vector<card_t> sorted = deck;
      std::ranges::sort(sorted);
      EXPECT_EQ(sorted, expected) << "not a permutation";
      if (!es.reproducible()) continue;
      visit_engine(es, 3, [&](auto& eng) { apply_shuffle(spec, expected, eng); });
      EXPECT_EQ(deck, expected);
    }
  }
}

TEST(Catalog, DealsRunOnFromOneEngineStream) {
  engine_spec es;
  es.id = engine_id::pcg64;
  es.seed = 8;
  std::vector<card_t> start(10), deck(10);
  std::iota(start.begin(), start.end(), card_t{0});
  std::vector<std::vector<card_t>> got;
  const auto done = shuffle_deals(es, 1, shuffle_spec{}, start, deck, 5, [&](std::span<const card_t> d) {
    got.emplace_back(d.begin(), d.end());
    return got.size() < 3;  // stop after the third deal
  });
  EXPECT_EQ(done, 3u);
  ASSERT_EQ(got.size(), 3u);
  visit_engine(es, 1, [&](auto& eng) {
    for (const auto& g : got) {
      std::vector<card_t> d = start;
      fisher_yates(d, eng);
      EXPECT_EQ(d, g);
    }
  });
}

TEST(Catalog, DocsNameEveryEngine) {
  std::ifstream in(std::string(FAIRDECK_SOURCE_DIR) + "/docs/engines.md");
  ASSERT_TRUE(in) << "docs/engines.md";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  for (const auto& e : engine_catalog()) {
    std::string quoted(1, '`');
    quoted.append(e.name);
    quoted.push_back('`');
    EXPECT_NE(doc.find(quoted), std::string::npos) << e.name << " missing from docs/engines.md";
  }
}

}  // namespace
