// The audit's bottom line: expected verdicts, as_expected, one summary line, exit 0 exactly
// when as expected, aligned columns, wrapped sentences, 0-based positions.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include "cli_runner.hpp"

using fairdeck::testing::run_cli;

namespace {

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

}  // namespace

TEST(AuditBottomLine, CataloguedRowsCarryTheirExpectedVerdict) {
  const std::string args = "--algorithm fisher-yates --algorithm naive --trials 20000 --seed 3";
  const auto r = run_cli("audit --json " + args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "biased");  // naive is, on purpose
  EXPECT_EQ(j["as_expected"], true);
  EXPECT_EQ(j["bottom_line"], "2 pairs: every fair shuffle passed, every broken one was caught.");
  EXPECT_EQ(j["audits"][0]["expected_verdict"], "fair");
  EXPECT_EQ(j["audits"][1]["expected_verdict"], "biased");
  EXPECT_EQ(j["audits"][1]["as_expected"], true);

  const auto text = run_cli("audit " + args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  const auto l = lines(text.out);
  ASSERT_GE(l.size(), 3u);
  EXPECT_EQ(l[l.size() - 2], "2 pairs: every fair shuffle passed, every broken one was caught.") << text.out;
  EXPECT_NE(l.back().find("--html report.html"), std::string::npos) << text.out;
  EXPECT_NE(l[1].find("expected"), std::string::npos) << text.out;
}

TEST(AuditBottomLine, AMissedBrokenShuffleIsNotAsExpected) {
  const auto r = run_cli("audit --json --algorithm naive --trials 20 --seed 1");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["as_expected"], false);
  EXPECT_NE(j["bottom_line"].get<std::string>().find("naive with chacha20 was not caught"), std::string::npos)
      << j["bottom_line"];
}

TEST(AuditBottomLine, OutsideInputHasNoExpectationAndNamesTheDecks) {
  std::string decks;
  for (int i = 0; i < 400; ++i) decks += (i % 2 ? "2 0 1\n" : "1 2 0\n");
  const auto r = run_cli("audit --json --input -", decks);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["audits"][0]["expected_verdict"].is_null());
  EXPECT_EQ(j["as_expected"], false);
  EXPECT_EQ(j["bottom_line"], "Bottom line: the decks from stdin are BIASED.");
  EXPECT_EQ(j["audits"][0]["summary"].get<std::string>().rfind("the decks from stdin are BIASED", 0), 0u);
}

TEST(AuditBottomLine, ColumnsStayAlignedAndSentencesWrap) {
  const auto r = run_cli("audit --algorithm riffle:3+cut+riffle:2 --algorithm naive --engine xoshiro256pp --engine "
                         "chacha20 --trials 3000 --seed 2 --n 12");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto l = lines(r.out);
  ASSERT_GE(l.size(), 6u);
  const auto col = l[1].find("verdict");
  ASSERT_NE(col, std::string::npos);
  for (std::size_t i = 2; i < 6; ++i) {
    const std::string cell = l[i].substr(col, 6);
    EXPECT_TRUE(cell.starts_with("fair") || cell == "BIASED" || cell.starts_with("n/a")) << r.out;
  }
  // Piped output is not wrapped; $COLUMNS (or the terminal) sets the width.
  ::unsetenv("COLUMNS");
  std::size_t longest = 0;
  for (const auto& line : lines(run_cli("audit --algorithm naive --trials 20000 --seed 2").out))
    longest = std::max(longest, line.size());
  EXPECT_GT(longest, 60u);
  ::setenv("COLUMNS", "60", 1);
  const auto narrow = run_cli("audit --algorithm naive --trials 20000 --seed 2");
  ::unsetenv("COLUMNS");
  const auto nl = lines(narrow.out);
  bool in_sentences = false;
  for (const auto& line : nl) {
    if (line.empty()) in_sentences = true;  // after the table
    if (in_sentences) {
      EXPECT_LE(line.size(), 60u) << line;
    }
  }
}

TEST(AuditBottomLine, PositionsCountFromZeroLikeFairVerify) {
  const auto r = run_cli("audit --json --algorithm naive --trials 20000 --seed 2");
  const auto j = nlohmann::json::parse(r.out);
  const auto& e = j["audits"][0]["effect_size"];
  const std::string cell = e["card"].get<std::string>() + " at position " + std::to_string(e["position"].get<int>());
  EXPECT_NE(j["audits"][0]["summary"].get<std::string>().find(cell), std::string::npos) << j["audits"][0]["summary"];
}

TEST(AuditBottomLine, HtmlReportReadsOnPaper) {
  char name[] = "/tmp/fairdeck_html_XXXXXX";
  const int fd = ::mkstemp(name);
  ASSERT_GE(fd, 0);
  ::close(fd);
  const auto r = run_cli(std::string("audit --algorithm fisher-yates --algorithm naive --trials 20000 --seed 3 --html ") + name);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream f(name);
  std::stringstream ss;
  ss << f.rdbuf();
  const std::string html = ss.str();
  std::remove(name);
  EXPECT_EQ(html.find("<1e"), std::string::npos) << "every '<' in text is escaped";
  EXPECT_NE(html.find("<td class=\"num\">&lt;1e-300</td>"), std::string::npos);  // p-values never wrap
  EXPECT_NE(html.find("2 pairs: every fair shuffle passed, every broken one was caught."), std::string::npos);
  EXPECT_NE(html.find("<nav><b>Contents</b>"), std::string::npos);
  EXPECT_NE(html.find("<details id=\"pair-0\"><summary>"), std::string::npos);       // fair, as expected: folded
  EXPECT_NE(html.find("<details id=\"pair-1\" open><summary>"), std::string::npos);  // biased: open
  EXPECT_NE(html.find(">Ac</text>"), std::string::npos);  // printed tick labels, not only hover titles
  EXPECT_NE(html.find("text-anchor=\"end\">+"), std::string::npos);  // bar charts' y axis
  EXPECT_NE(html.find("(top = 0)"), std::string::npos);

  char in_name[] = "/tmp/fairdeck_html_in_XXXXXX";
  const int ifd = ::mkstemp(in_name);
  ASSERT_GE(ifd, 0);
  ::close(ifd);
  std::string decks;
  for (int i = 0; i < 400; ++i) decks += (i % 2 ? "2 0 1\n" : "1 2 0\n");
  const auto in = run_cli(std::string("audit --input - --html ") + in_name, decks);
  EXPECT_EQ(in.exit_code, 3);
  std::ifstream g(in_name);
  std::stringstream gs;
  gs << g.rdbuf();
  std::remove(in_name);
  EXPECT_NE(gs.str().find("the decks from stdin"), std::string::npos);
  EXPECT_EQ(gs.str().find("stdin is BIASED"), std::string::npos);
}
