// fairdeck mental (docs/mental-poker.md §9): a 2-player hand between "terminals" on one
// transcript file; key files 0600 and never overwritten; steps out of turn are usage errors;
// verify's exit codes 0 verified, 1 not (naming the step), 2 unreadable.
#include <gtest/gtest.h>

#include <filesystem>

#include <sys/stat.h>
#include <unistd.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;
using fairdeck::testing::run_cli;

TEST(MentalCli, TwoPlayerHandBetweenTerminals) {
  const fs::path dir = fs::temp_directory_path() / ("fairdeck_mental_cli_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string d = dir.string() + "/";
  for (const char* p : {"A", "B"}) {
    const auto r = run_cli(std::string("mental keygen -o ") + d + p + ".key > " + d + p + ".pub");
    ASSERT_EQ(r.exit_code, 0) << r.err;
  }
  struct stat st {};
  ASSERT_EQ(::stat((d + "A.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(run_cli("mental keygen -o " + d + "A.key").exit_code, 2);  // never overwritten
  const std::string hand = d + "hand.json";
  ASSERT_EQ(run_cli("mental new --players " + d + "A.pub," + d + "B.pub -o " + hand).exit_code, 0);
  EXPECT_EQ(run_cli("mental new --players " + d + "A.pub," + d + "A.pub -o " + d + "x.json").exit_code, 2);
  const auto early = run_cli("mental shuffle --key " + d + "B.key " + hand);
  EXPECT_EQ(early.exit_code, 2);
  EXPECT_NE(early.err.find("player 1's turn"), std::string::npos) << early.err;
  ASSERT_EQ(run_cli("mental shuffle --key " + d + "A.key " + hand).exit_code, 0);
  ASSERT_EQ(run_cli("mental shuffle --key " + d + "B.key " + hand).exit_code, 0);
  ASSERT_EQ(run_cli("mental reveal --key " + d + "B.key " + hand + " --positions 0,1 --to 1").exit_code, 0);
  EXPECT_EQ(run_cli("mental reveal --key " + d + "B.key " + hand + " --positions 0 --to 2").exit_code, 2);
  EXPECT_EQ(run_cli("mental reveal --key " + d + "B.key " + hand + " --positions 0 --to 3").exit_code, 2);
  for (const char* p : {"A", "B"})
    ASSERT_EQ(run_cli(std::string("mental reveal --key ") + d + p + ".key " + hand + " --positions 4 --to all")
                  .exit_code,
              0);
  const auto a = run_cli("mental open --key " + d + "A.key " + hand + " --json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto cards = nlohmann::json::parse(a.out).at("cards");
  EXPECT_EQ(cards.size(), 3u);  // two hole cards and the board card
  EXPECT_TRUE(cards.contains("0") && cards.contains("1") && cards.contains("4"));
  const auto b = nlohmann::json::parse(run_cli("mental open --key " + d + "B.key " + hand + " --json").out).at("cards");
  EXPECT_EQ(b.size(), 1u);  // only the board: A's hole cards stay hidden from B
  EXPECT_EQ(b.at("4"), cards.at("4"));
  const auto v = run_cli("mental verify " + hand);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("verified: 2 players, 2 shuffles, 3 reveals"), std::string::npos) << v.out;
  // An edited partial decryption: exit 1 naming the step.
  auto j = nlohmann::json::parse(fairdeck::testing::slurp(hand));
  auto& share = j["steps"][2]["shares"][0];
  share = j["steps"][2]["shares"][1];
  fairdeck::testing::write_file(d + "bad.json", j.dump(1) + "\n");
  const auto bad = run_cli("mental verify " + d + "bad.json");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("step 2 (reveal by player 2 to player 1)"), std::string::npos) << bad.out;
  fairdeck::testing::write_file(d + "junk.json", "not json");
  EXPECT_EQ(run_cli("mental verify " + d + "junk.json").exit_code, 2);
  EXPECT_EQ(run_cli("mental verify " + d + "missing.json").exit_code, 2);
  fs::remove_all(dir);
}

}  // namespace
