// runtimes::resolve_algorithm (runtimes/algorithm.hpp): one reading of --algorithm NAME for
// shuffle, audit and attack.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <variant>

#include "fairdeck/runtimes/algorithm.hpp"

namespace fairdeck::runtimes {
namespace {

TEST(RuntimesAlgorithm, EveryRuntimeNameResolvesToItsRuntime) {
  for (const auto& row : runtime_catalog()) {
    const algorithm_choice c = resolve_algorithm(row.name);
    ASSERT_TRUE(std::holds_alternative<runtime_id>(c)) << row.name;
    EXPECT_EQ(std::get<runtime_id>(c), row.id);
  }
}

TEST(RuntimesAlgorithm, RuntimeAndShuffleNamesAreDisjoint) {
  for (const auto& row : runtime_catalog()) EXPECT_THROW((void)parse_shuffle_spec(row.name), std::invalid_argument) << row.name;
  for (const auto& a : shuffle_catalog()) EXPECT_FALSE(find_runtime(a.name)) << a.name;
}

TEST(RuntimesAlgorithm, OtherNamesAreShuffleSpecs) {
  EXPECT_EQ(std::get<shuffle_spec>(resolve_algorithm("fisher-yates")), shuffle_spec{});
  EXPECT_EQ(std::get<shuffle_spec>(resolve_algorithm("fy")), shuffle_spec{});
  EXPECT_EQ(std::get<shuffle_spec>(resolve_algorithm("riffle:3+cut")), parse_shuffle_spec("riffle:3+cut"));
  try {
    (void)resolve_algorithm("phpp");
    ADD_FAILURE() << "phpp resolved";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("unknown algorithm 'phpp'", 0), 0u) << e.what();
  }
  EXPECT_THROW((void)resolve_algorithm(""), std::invalid_argument);
  EXPECT_THROW((void)resolve_algorithm("PHP"), std::invalid_argument);  // names are exact
}

}  // namespace
}  // namespace fairdeck::runtimes
