// `fairdeck shuffle --algorithm NAME --seed S --indices` and `fairdeck audit --algorithm NAME`
// for the runtime shuffles (src/runtimes), end to end against the real runtimes' golden vectors.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "runtimes_test_support.hpp"

namespace {

using fairdeck::testing::run_cli;
using nlohmann::json;

// First shuffles (K = 1) of the golden file for one length: {seed, "V0 V1 ..."}.
std::vector<std::pair<std::string, std::string>> first_shuffles(const std::string& name, const std::string& length) {
  std::ifstream in(std::string(FAIRDECK_SOURCE_DIR) + "/tests/runtimes/golden/" + name + ".txt");
  std::vector<std::pair<std::string, std::string>> out;
  const std::regex line("^(\\d+) " + length + " 1 (.*)$");
  for (std::string text; std::getline(in, text);)
    if (std::smatch m; std::regex_match(text, m, line)) out.emplace_back(m[1], m[2]);
  return out;
}

class RuntimeShuffleCli : public ::testing::TestWithParam<const char*> {};

TEST_P(RuntimeShuffleCli, PrintsExactlyTheRuntimesList) {
  const std::string name = GetParam();
  const auto decks = first_shuffles(name, "52");
  ASSERT_GE(decks.size(), 20u);
  for (const auto& [seed, expected] : decks) {
    const auto r = run_cli("shuffle --algorithm " + name + " --seed " + seed + " --indices");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, expected + "\n") << name << " seed " << seed;
    EXPECT_NE(r.err.find("NOT secure"), std::string::npos) << r.err;
  }
  // Two decks: the runtime shuffles the list 0..103.
  const auto shoe = first_shuffles(name, "104");
  ASSERT_EQ(shoe.size(), 1u);
  const auto r = run_cli("shuffle --algorithm " + name + " --seed " + shoe[0].first + " --decks 2 --indices");
  EXPECT_EQ(r.out, shoe[0].second + "\n") << r.err;
}

TEST_P(RuntimeShuffleCli, JsonAndAFreshSeedThatRepeats) {
  const std::string name = GetParam();
  const auto r = run_cli("shuffle --algorithm " + name + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_EQ(j["algorithm"], name);
  EXPECT_EQ(j["engine"]["secure"], false);
  EXPECT_EQ(j["engine"]["reproducible"], true);
  EXPECT_EQ(j["fair"], true);
  EXPECT_EQ(j["indices"].size(), 52u);
  EXPECT_NE(r.err.find("fresh; repeat with --seed"), std::string::npos) << r.err;
  const auto seed = j["engine"]["seed"].get<std::uint64_t>();
  const auto again = json::parse(run_cli("shuffle --algorithm " + name + " --json --seed " + std::to_string(seed)).out);
  EXPECT_EQ(again["indices"], j["indices"]);
}

INSTANTIATE_TEST_SUITE_P(Runtimes, RuntimeShuffleCli, fairdeck::testing::golden_runtimes, fairdeck::testing::runtime_test_name);

TEST(RuntimeCli, UsageErrors) {
  auto r = run_cli("shuffle --algorithm php --engine mt19937 --seed 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("brings its own generator"), std::string::npos) << r.err;
  r = run_cli("shuffle --algorithm php --seed 9223372036854775808");  // above PHP_INT_MAX
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("php takes a seed in [0, 9223372036854775807]"), std::string::npos) << r.err;
  r = run_cli("audit --algorithm python --engine chacha20 --trials 10");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  r = run_cli("audit --algorithm php --seed 9223372036854775808 --trials 10");
  EXPECT_EQ(r.exit_code, 2) << r.err;
}

TEST(RuntimeCli, HelpNamesEveryRuntimeFromTheCatalogue) {
  const auto shuffle = run_cli("shuffle --help").out, audit = run_cli("audit --help").out;
  for (const auto& row : fairdeck::runtimes::runtime_catalog()) {
    EXPECT_NE(shuffle.find(std::string(row.name)), std::string::npos) << row.name;
    EXPECT_NE(audit.find(std::string(row.name)), std::string::npos) << row.name;
  }
}

TEST(RuntimeCli, AuditsTheRuntimesOwnGeneratorReproducibly) {
  const std::string args = "audit --json --seed 7 --trials 70000 --algorithm php --algorithm naive --algorithm libc++";
  const auto r = run_cli(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;  // naive caught, the runtimes fair: as expected
  const auto j = json::parse(r.out);
  ASSERT_EQ(j["audits"].size(), 3u);
  EXPECT_EQ(j["seed"], 7u);
  std::set<std::string> names;
  for (const auto& a : j["audits"]) {
    names.insert(a["algorithm"].get<std::string>());
    EXPECT_EQ(a["trials"], 70000u);
    EXPECT_EQ(a["as_expected"], true) << a["algorithm"];
  }
  EXPECT_EQ(names, (std::set<std::string>{"php", "naive", "libc++"}));
  const auto& php = j["audits"][1];
  EXPECT_EQ(php["algorithm"], "php");
  EXPECT_EQ(php["verdict"], "fair");
  EXPECT_NE(php["engine"].get<std::string>().find("not secure"), std::string::npos);
  EXPECT_NE(r.err.find("mt_srand(S); shuffle($a);"), std::string::npos) << r.err;
  // One generator, one stream: the same seed gives the same counts, whatever --threads says.
  const auto again = json::parse(run_cli(args + " --threads 1").out);
  EXPECT_EQ(again["audits"][1]["position_card"], php["position_card"]);
  EXPECT_EQ(again["audits"][2]["position_card"], j["audits"][2]["position_card"]);
}

TEST(RuntimeCli, AuditWithoutSeedDrawsOneTheRuntimeAccepts) {
  const auto r = run_cli("audit --json --trials 2000 --algorithm php");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = json::parse(r.out);
  EXPECT_LE(j["seed"].get<std::uint64_t>(), 0x7fffffffffffffffu);
  EXPECT_NE(r.err.find("repeat with --seed"), std::string::npos) << r.err;
  ASSERT_EQ(j["audits"].size(), 1u);
}

}  // namespace
