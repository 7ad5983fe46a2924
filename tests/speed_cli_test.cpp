// End-to-end: `fairdeck shuffle-file` (permutation, determinism across --threads, records,
// errors) and `fairdeck bench --json` (schema on a tiny run).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

using fairdeck::testing::run_cli;

namespace {

using fairdeck::testing::temp_dir;

using fairdeck::testing::write_file;
std::string read_file(const std::string& path) { return fairdeck::testing::slurp(path); }

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string line; std::getline(ss, line);) out.push_back(line);
  return out;
}

std::string numbered_lines(int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += "line " + std::to_string(i) + "\n";
  return s;
}

using fairdeck::testing::one_error_line;

}  // namespace

TEST(SpeedCli, ShuffleFileLinesIsAPermutationAndThreadIndependent) {
  temp_dir dir;
  // 600k lines: more than two 1 MiB buckets of 32-bit indices, so the bucketed path runs.
  const std::string input = numbered_lines(600'000);
  write_file(dir.file("in.txt"), input);
  const auto one = run_cli("shuffle-file " + dir.file("in.txt") + " --seed 11 --threads 1");
  const auto two = run_cli("shuffle-file " + dir.file("in.txt") + " --seed 11 --threads 2 -o " + dir.file("out.txt"));
  ASSERT_EQ(one.exit_code, 0) << one.err;
  ASSERT_EQ(two.exit_code, 0) << two.err;
  EXPECT_EQ(one.out, read_file(dir.file("out.txt")));
  EXPECT_NE(one.out, input);
  auto a = split_lines(one.out), b = split_lines(input);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
  const auto other = run_cli("shuffle-file " + dir.file("in.txt") + " --seed 12");
  EXPECT_NE(other.out, one.out);
}

TEST(SpeedCli, ShuffleFileSmallInputsRecordsAndStdin) {
  temp_dir dir;
  write_file(dir.file("u.txt"), "a\nb\nc");  // last line unterminated: so is the output's (issue #16)
  const auto u = run_cli("shuffle-file " + dir.file("u.txt") + " --seed 1");
  ASSERT_EQ(u.exit_code, 0) << u.err;
  EXPECT_EQ(u.out.size(), 5u);
  EXPECT_NE(u.out.back(), '\n');
  auto lines = split_lines(u.out);
  std::sort(lines.begin(), lines.end());
  EXPECT_EQ(lines, (std::vector<std::string>{"a", "b", "c"}));

  std::string records;
  for (int i = 0; i < 1000; ++i) records += std::string("r") + static_cast<char>('A' + i % 26) + std::to_string(1000 + i);
  write_file(dir.file("r.bin"), records);  // 1000 records of 6 bytes
  const auto r = run_cli("shuffle-file " + dir.file("r.bin") + " --records 6 --seed 4 -o " + dir.file("r.out") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["mode"], "records");
  EXPECT_EQ(j["items"], 1000);
  EXPECT_EQ(j["record_size"], 6);
  EXPECT_EQ(j["engine"]["name"], "chacha20");
  const std::string shuffled = read_file(dir.file("r.out"));
  ASSERT_EQ(shuffled.size(), records.size());
  std::vector<std::string> in_recs, out_recs;
  for (std::size_t i = 0; i < records.size(); i += 6) {
    in_recs.push_back(records.substr(i, 6));
    out_recs.push_back(shuffled.substr(i, 6));
  }
  EXPECT_NE(in_recs, out_recs);
  std::sort(in_recs.begin(), in_recs.end());
  std::sort(out_recs.begin(), out_recs.end());
  EXPECT_EQ(in_recs, out_recs);

  const auto s = run_cli("shuffle-file - --seed 2", "x\ny\n");
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(s.out == "x\ny\n" || s.out == "y\nx\n");
  const auto empty = run_cli("shuffle-file - --seed 2");
  EXPECT_EQ(empty.exit_code, 0);
  EXPECT_EQ(empty.out, "");
}

TEST(SpeedCli, ShuffleFileBadInputIsOneLineError) {
  temp_dir dir;
  write_file(dir.file("odd.bin"), std::string(1001, 'x'));
  const struct {
    std::string args, needle;
  } cases[] = {
      {"shuffle-file " + dir.file("missing.txt"), "cannot open"},
      {"shuffle-file " + dir.file("odd.bin") + " --records 4", "not a whole number of 4-byte records"},
      {"shuffle-file " + dir.file("odd.bin") + " --records 0", "at least 1 byte"},
      {"shuffle-file " + dir.file("odd.bin") + " --records 7 --lines", "excludes"},
      {"shuffle-file " + dir.file("odd.bin") + " --json", "needs -o"},
      {"shuffle-file " + dir.file("odd.bin") + " --threads 257", "must be 0..256"},  // one rule: 0 = all cores
      {"shuffle-file " + dir.path.string(), "directory"},
      {"shuffle-file", "IN"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << ": " << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
  }
  // A failed run leaves no output file behind.
  const auto r = run_cli("shuffle-file " + dir.file("odd.bin") + " --records 4 -o " + dir.file("out.bin"));
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(std::ifstream(dir.file("out.bin")).good());
  EXPECT_FALSE(std::ifstream(dir.file("out.bin.fairdeck-partial")).good());
}

TEST(SpeedCli, BenchJsonSchemaOnATinyRun) {
  const auto r = run_cli("bench --quick --json --repetitions 1 --huge-size 100000 --huge-type uint64");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["quick"], true);
  EXPECT_EQ(j["repetitions"], 1);
  EXPECT_EQ(j["huge_size"], 100000);
  EXPECT_EQ(j["huge_type"], "uint64");
  EXPECT_EQ(j["statistic"], "median");
  ASSERT_TRUE(j["all_goals_met"].is_boolean());
  std::vector<std::string> ids;
  for (const auto& s : j["sections"]) {
    ids.push_back(s["id"]);
    // One-thread sections in thread CPU time (not the preemption of a busy machine), the
    // multi-threaded huge rows in wall time.
    EXPECT_EQ(s["clock"], s["id"] == "huge" ? "wall" : "thread_cpu") << s["id"];
    ASSERT_FALSE(s["rows"].empty());
    EXPECT_TRUE(s["rows"][0]["baseline"].get<bool>());
    EXPECT_DOUBLE_EQ(s["rows"][0]["ratio"].get<double>(), 1.0);
    for (const auto& row : s["rows"]) {
      EXPECT_GT(row["ns_per_op"].get<double>(), 0.0);
      EXPECT_GT(row["ratio"].get<double>(), 0.0);
      EXPECT_EQ(row["samples_ns"].size(), 1u);
      if (row.contains("goal")) {
        EXPECT_TRUE(row["meets_goal"].is_boolean());
      }
    }
  }
  EXPECT_EQ(ids, (std::vector<std::string>{"shuffle52", "deal7of52", "engines", "huge"}));
}

// Each round times the baseline and every row back to back: round_ratios are baseline sample /
// row sample per round, ratio_min/ratio_max their extremes, and a goal is "met" only when every
// round clears it, "NOT MET" only when none does, otherwise "unclear".
TEST(SpeedCli, BenchGoalVerdictsUseTheSpreadOverRounds) {
  const auto r = run_cli("bench --quick --json --repetitions 3 --no-huge");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  bool all_met = true;
  unsigned goals = 0;
  for (const auto& s : j["sections"]) {
    const auto& base = s["rows"][0]["samples_ns"];
    for (const auto& row : s["rows"]) {
      const auto& samples = row["samples_ns"];
      ASSERT_EQ(row["round_ratios"].size(), 3u);
      double lo = 1e300, hi = 0;
      for (std::size_t k = 0; k < 3; ++k) {
        const double want = base[k].get<double>() / samples[k].get<double>();
        EXPECT_DOUBLE_EQ(row["round_ratios"][k].get<double>(), want);
        lo = std::min(lo, want), hi = std::max(hi, want);
      }
      EXPECT_DOUBLE_EQ(row["ratio_min"].get<double>(), lo);
      EXPECT_DOUBLE_EQ(row["ratio_max"].get<double>(), hi);
      EXPECT_LE(lo, row["ratio"].get<double>() * (1 + 1e-12));
      EXPECT_GE(hi, row["ratio"].get<double>() * (1 - 1e-12));
      if (!row.contains("goal")) continue;
      ++goals;
      const double goal = row["goal"].get<double>();
      const std::string want = lo >= goal ? "met" : hi < goal ? "NOT MET" : "unclear";
      EXPECT_EQ(row["goal_verdict"], want);
      EXPECT_EQ(row["meets_goal"].get<bool>(), want == "met");
      all_met = all_met && want == "met";
    }
  }
  EXPECT_GT(goals, 0u);
  EXPECT_EQ(j["all_goals_met"].get<bool>(), all_met);
}

TEST(SpeedCli, BenchRejectsBadOptions) {
  for (const std::string args : {"bench --repetitions 0", "bench --huge-size 1", "bench --no-huge --huge-size 1000",
                                 "bench --threads 257", "bench --huge-type int8", "bench --frobnicate"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_TRUE(one_error_line(r.err)) << args << ": " << r.err;
  }
}
