// End-to-end: `fairdeck shelf` (JSON contract keys, DFH numbers, bad input), shelf:M and
// shelf:MxK through `fairdeck shuffle`, and `fairdeck audit --input --before` on recorded decks.
#include <algorithm>
#include <fstream>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/shelf.hpp"

namespace fairdeck {
namespace {

using testing::run_cli;

TEST(ShelfCli, JsonHasTheContractKeysAndTheDfhNumbers) {
  const auto r = run_cli("shelf --shelves 20 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_NEAR(j.at("tv").get<double>(), 0.720, 0.0005);
  EXPECT_EQ(j.at("separation").get<double>(), 1.0);
  EXPECT_NEAR(j.at("expected_guesses").get<double>(), 6.13, 0.05);
  EXPECT_FALSE(j.contains("decks_needed"));
  const auto two = nlohmann::json::parse(run_cli("shelf --shelves 10 --passes 2 --json").out);
  const auto two_hundred = nlohmann::json::parse(run_cli("shelf --shelves 200 --json").out);
  EXPECT_EQ(two.at("tv_exact"), two_hundred.at("tv_exact"));  // 2 passes of m = 1 pass of 2 m^2
  EXPECT_NEAR(two.at("tv").get<double>(), 0.0103, 0.00005);
}

TEST(ShelfCli, AlphaAndPowerAddDecksNeeded) {
  const auto j = nlohmann::json::parse(run_cli("shelf --shelves 10 --alpha 1e-5 --power 0.9 --json").out);
  const auto decks = j.at("decks_needed").get<int>();
  EXPECT_GE(decks, 3);
  EXPECT_LE(decks, 6);
  const auto r = run_cli("shelf --shelves 10 --alpha 1e-5 --power 0.9");
  EXPECT_NE(r.out.find("decks needed"), std::string::npos) << r.out;
}

TEST(ShelfCli, BadInputIsAOneLineUsageError) {
  for (const char* args : {"shelf --shelves 0", "shelf --passes 0", "shelf --cards 0", "shelf --cards 1000",
                           "shelf --alpha 0.01", "shelf --power 0.9", "shelf --alpha 2 --power 0.5",
                           "shelf --shelves 10 --passes 1000", "shelf --shelves x"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
}

TEST(ShelfCli, ShuffleTakesShelfAlgorithms) {
  for (const char* algo : {"shelf", "shelf:10", "shelf:10x2", "shelf:3x5+cut"}) {
    const auto r = run_cli(std::string("shuffle --indices --seed 1 --algorithm ") + algo);
    ASSERT_EQ(r.exit_code, 0) << algo << ": " << r.err;
    std::istringstream in(r.out);
    std::vector<int> cards;
    for (int c; in >> c;) cards.push_back(c);
    std::vector<int> sorted = cards;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> all(52);
    std::iota(all.begin(), all.end(), 0);
    EXPECT_EQ(sorted, all) << algo;
  }
  for (const char* algo : {"shelf:0", "shelf:10x0", "shelf:10x", "shelf:x2", "shelf:10x1001", "shelf:2000000"}) {
    const auto r = run_cli(std::string("shuffle --seed 1 --algorithm ") + algo);
    EXPECT_EQ(r.exit_code, 2) << algo << ": " << r.err;
  }
}

TEST(ShelfCli, AuditInputCatchesAMachineRelativeToItsBeforeOrder) {
  xoshiro256pp engine(9);
  std::string decks, before;
  std::vector<int> deck(52);
  for (int d = 0; d < 10; ++d) {
    std::iota(deck.begin(), deck.end(), 0);
    std::reverse(deck.begin(), deck.end());  // the decks went in upside down
    for (std::size_t i = 0; i < 52; ++i) {
      if (i) before += ' ';
      before += std::to_string(deck[i]);
    }
    before += '\n';
    shelf_shuffle(deck, 10, 1, engine);
    for (std::size_t i = 0; i < 52; ++i) {
      if (i) decks += ' ';
      decks += std::to_string(deck[i]);
    }
    decks += '\n';
  }
  const std::string dir = ::testing::TempDir();
  const std::string in = dir + "/shelf_in.txt", out = dir + "/shelf_out.txt";
  {
    std::ofstream(in) << before;
    std::ofstream(out) << decks;
  }
  const auto r = run_cli("audit --json --input " + out + " --before " + in);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool found = false;
  for (const auto& t : j.at("audits")[0].at("tests"))
    if (t.at("name") == "guessing") found = true;
  EXPECT_TRUE(found) << r.out;
  const auto missing = run_cli("audit --input " + out + " --before /nonexistent/x");
  EXPECT_EQ(missing.exit_code, 2);
  const auto without_input = run_cli("audit --before " + in);
  EXPECT_EQ(without_input.exit_code, 2);
}

}  // namespace
}  // namespace fairdeck
