// End-to-end: `fairdeck riffle` (text, --json contract, --svg, bad input) and the physical
// algorithms through `fairdeck shuffle --algorithm`.
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace fairdeck {
namespace {

using testing::run_cli;

TEST(MixingCli, JsonHasTheContractKeysAndTheBayerDiaconisNumbers) {
  const auto r = run_cli("riffle --json --max-shuffles 10");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("n"), 52);
  ASSERT_EQ(j.at("tv").size(), 10U);
  ASSERT_EQ(j.at("separation").size(), 10U);
  EXPECT_NEAR(j.at("tv")[6].get<double>(), 0.334, 0.0005);
  EXPECT_NEAR(j.at("tv")[9].get<double>(), 0.043, 0.0005);
  EXPECT_EQ(j.at("tv_below_threshold_at"), 7);
  EXPECT_TRUE(j.at("separation_below_threshold_at").is_null());  // 11 riffles, beyond 10
  EXPECT_EQ(j.at("threshold"), 0.5);
  EXPECT_EQ(j.at("complete"), true);
  EXPECT_EQ(j.at("tv_exact")[6].get<std::string>().substr(0, 8), "0.334060");
}

TEST(MixingCli, DecksAndThresholdSelectTheCutoff) {
  const auto r = run_cli("riffle --decks 8 --threshold 0.25 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("n"), 416);
  EXPECT_EQ(j.at("tv").size(), 20U);  // default --max-shuffles
  EXPECT_EQ(j.at("tv_below_threshold_at"), 12);
  const auto n = run_cli("riffle --n 13 --max-shuffles 3 --json");
  EXPECT_EQ(nlohmann::json::parse(n.out).at("n"), 13);
}

TEST(MixingCli, TextNamesTheCutoff) {
  const auto r = run_cli("riffle");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("total variation first below 0.5 after 7 riffles"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0.334061"), std::string::npos) << r.out;
}

TEST(MixingCli, WritesASelfContainedSvg) {
  char name[] = "/tmp/fairdeck_riffle_svg_XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const auto r = run_cli(std::string("riffle --max-shuffles 12 --svg ") + name);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(name);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string svg = ss.str();
  std::remove(name);
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0U);
  EXPECT_NE(svg.find("</svg>"), std::string::npos);
  EXPECT_EQ(svg.find("href"), std::string::npos);  // nothing external
  std::size_t polylines = 0, circles = 0;
  for (auto p = svg.find("<polyline"); p != std::string::npos; p = svg.find("<polyline", p + 1)) ++polylines;
  for (auto p = svg.find("<circle"); p != std::string::npos; p = svg.find("<circle", p + 1)) ++circles;
  EXPECT_EQ(polylines, 2U);  // TV and separation
  EXPECT_EQ(circles, 24U);   // one marker per K per curve
  EXPECT_NE(svg.find("TV &lt; 0.5 at K = 7"), std::string::npos);
}

TEST(MixingCli, BadInputIsAOneLineUsageError) {
  for (const char* args : {"riffle --n 0", "riffle --n 100000", "riffle --n 52 --decks 2", "riffle --max-shuffles 0",
                           "riffle --max-shuffles 100000", "riffle --threshold 0", "riffle --threshold 1.5",
                           "riffle --decks 41", "riffle --n x"}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find("error"), std::string::npos) << args;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << args << ": " << r.err;
    EXPECT_TRUE(r.out.empty()) << args;
  }
  const auto r = run_cli("riffle --svg /nonexistent-dir/x.svg");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("cannot write '/nonexistent-dir/x.svg': No such file or directory"), std::string::npos) << r.err;
}

TEST(MixingCli, TrialsAddDetectability) {
  const auto r = run_cli("riffle --max-shuffles 12 --trials 100000 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("trials"), 100000);
  EXPECT_EQ(j.at("alpha"), 1e-6);
  ASSERT_EQ(j.at("any_test_power_bound").size(), 12U);
  ASSERT_EQ(j.at("rising_sequence_test_power").size(), 12U);
  EXPECT_GT(j.at("rising_sequence_test_power")[4].get<double>(), 0.99);  // riffle:5
  const auto text = run_cli("riffle --max-shuffles 5 --trials 1000");
  EXPECT_NE(text.out.find("rising-seq power"), std::string::npos) << text.out;
  const auto big = run_cli("riffle --decks 9 --trials 1000");
  EXPECT_EQ(big.exit_code, 2);
  EXPECT_NE(big.err.find("--trials needs at most 416 cards"), std::string::npos) << big.err;
  EXPECT_EQ(run_cli("riffle --trials 0").exit_code, 2);
  EXPECT_EQ(run_cli("riffle --trials 10 --alpha 2").exit_code, 2);
}

TEST(MixingCli, ShuffleAcceptsPhysicalAlgorithmsAndCompositions) {
  const auto a = run_cli("shuffle --seed 1 --algorithm riffle:3+cut+overhand:5 --json");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const auto j = nlohmann::json::parse(a.out);
  EXPECT_EQ(j.at("algorithm"), "riffle:3+cut+overhand:5");
  EXPECT_EQ(j.at("fair"), false);
  EXPECT_EQ(j.at("cards").size(), 52U);
  EXPECT_NE(a.err.find("biased"), std::string::npos);
  EXPECT_EQ(run_cli("shuffle --seed 1 --algorithm riffle:3+cut+overhand:5 --json").out, a.out);  // reproducible
  EXPECT_EQ(run_cli("shuffle --seed 1 --algorithm riffle").exit_code, 0);
  const auto bad = run_cli("shuffle --seed 1 --algorithm riffle:3+");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("empty step"), std::string::npos) << bad.err;
}

}  // namespace
}  // namespace fairdeck
