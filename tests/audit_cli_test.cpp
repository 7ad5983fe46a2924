// `fairdeck audit` end to end: JSON contract, thread independence, --n orders, --input,
// --html, usage errors and Ctrl-C.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {

using fairdeck::testing::run_cli;
using nlohmann::json;

json audit_json(const std::string& args, int expected_exit = 0, const std::string& input = {}) {
  const auto r = run_cli("audit --json " + args, input);
  EXPECT_EQ(r.exit_code, expected_exit) << r.err;
  return json::parse(r.out);
}

TEST(AuditCli, DefaultSetFlagsOnlyTheBrokenAlgorithms) {
  const auto j = audit_json("--seed 11 --trials 3000");
  EXPECT_EQ(j["seed"], 11u);
  EXPECT_EQ(j["verdict"], "biased");
  ASSERT_GE(j["audits"].size(), 8u);  // 5 algorithms on chacha20 + fisher-yates on 3 other engines, at least
  for (const auto& a : j["audits"]) {
    for (const char* key : {"algorithm", "engine", "n", "trials", "verdict", "tests", "effect_size", "threshold"})
      EXPECT_TRUE(a.contains(key)) << key;
    EXPECT_EQ(a["n"], 52u);
    EXPECT_EQ(a["trials"], 3000u);
    // Only pairs whose answer is known: algorithms and engines added later may be flagged.
    const auto& algo = a["algorithm"];
    if (algo == "naive" || algo == "asf1999") {
      EXPECT_EQ(a["verdict"], "biased") << algo;
    } else if (a["engine"] == "chacha20" && (algo == "fisher-yates" || algo == "partial" || algo == "sort")) {
      EXPECT_EQ(a["verdict"], "fair") << algo;
    }
    for (const auto& t : a["tests"]) {
      for (const char* key : {"name", "statistic", "df", "p_value"}) EXPECT_TRUE(t.contains(key)) << key;
    }
    EXPECT_FALSE(a.contains("permutations"));  // only n <= 8
  }
}

TEST(AuditCli, ThreadCountNeverChangesTheResult) {
  const std::string args = "--seed 5 --trials 150000 --algorithm fisher-yates --algorithm naive --engine xoshiro256pp ";
  const auto one = run_cli("audit --json " + args + "--threads 1");
  const auto two = run_cli("audit --json " + args + "--threads 2");
  const auto five = run_cli("audit --json " + args + "--threads 5");
  ASSERT_EQ(one.exit_code, 0) << one.err;
  EXPECT_EQ(one.out, two.out);
  EXPECT_EQ(one.out, five.out);
}

TEST(AuditCli, SmallDecksCountEveryOrder) {
  const auto j = audit_json("--seed 2 --trials 2400 --n 4 --algorithm fisher-yates");
  const auto& a = j["audits"][0];
  ASSERT_TRUE(a.contains("permutations"));
  EXPECT_EQ(a["permutations"].size(), 24u);
  EXPECT_TRUE(a["permutations"].contains("Ac 2c 3c 4c"));
  std::uint64_t sum = 0;
  for (const auto& [order, count] : a["permutations"].items()) sum += count.get<std::uint64_t>();
  EXPECT_EQ(sum, 2400u);
  bool has_orders_test = false;
  for (const auto& t : a["tests"]) has_orders_test |= t["name"] == "orders" && t["df"] == 23.0;
  EXPECT_TRUE(has_orders_test);
}

TEST(AuditCli, ReadsExternalDecksAndNamesBadLines) {
  std::string decks;
  for (int i = 0; i < 400; ++i) decks += (i % 2 ? "2 0 1\n" : "1 2 0\n");  // only 2 of 6 orders: biased
  const auto j = audit_json("--input -", 3, decks);
  EXPECT_EQ(j["source"], "input");
  EXPECT_EQ(j["audits"][0]["verdict"], "biased");
  EXPECT_EQ(j["audits"][0]["trials"], 400u);
  EXPECT_EQ(j["audits"][0]["engine"], "stdin");

  const auto bad = run_cli("audit --input -", "1 2 0\n2 0 1\n2 2 1\n");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.err.find("line 3: card index 2 appears twice"), std::string::npos) << bad.err;
  EXPECT_EQ(bad.out, "");

  const auto missing = run_cli("audit --input /nonexistent/decks.txt");
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("cannot open input file"), std::string::npos);
}

TEST(AuditCli, WritesASelfContainedHtmlReport) {
  char name[] = "/tmp/fairdeck_audit_html_XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const auto r = run_cli(std::string("audit --seed 3 --trials 2000 --algorithm naive --algorithm fisher-yates --html ") + name);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(name);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string html = ss.str();
  std::remove(name);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("</html>"), std::string::npos);
  EXPECT_NE(html.find("<svg"), std::string::npos);
  EXPECT_NE(html.find("naive with chacha20 is BIASED"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);  // nothing fetched from anywhere
  EXPECT_EQ(html.find("https:"), std::string::npos);
}

TEST(AuditCli, UsageErrorsExitTwoWithOneLine) {
  for (const char* args : {"--trials 0", "--alpha 1.5", "--algorithm bogus", "--engine bogus", "--n 1", "--n 60",
                           "--format text", "--input - --seed 3", "--algorithm partial:60",
                           "--input - --format csv", "--threads 1000"}) {
    const auto r = run_cli(std::string("audit --trials 100 ") + args);
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
  }
}

TEST(AuditCli, CtrlCStopsAndReportsPartialCounts) {
  // A run far too long to finish, interrupted after a moment: exit 130 with partial counts.
  const auto r = run_cli(
      "audit --seed 1 --trials 100000000000 --algorithm fisher-yates --engine xoshiro256pp --threads 2 & "
      "p=$!; sleep 1; kill -INT $p; wait $p");
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_NE(r.out.find("(partial)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Interrupted"), std::string::npos) << r.out;
}

}  // namespace
