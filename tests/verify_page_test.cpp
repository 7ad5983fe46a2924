// The embedded browser verifier: fairdeck::fair::verify_page() and `fairdeck fair page` give
// exactly the bytes of web/verify.html (what fairdeckd serves at GET /verify). The page's own
// behaviour is tested in Chromium by tests/browser/verify_page_test.mjs. Also: what lets the
// audit HTML fit a phone's screen (the rendered width is measured by tests/browser/phone_width.mjs).
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "cli_runner.hpp"
#include "test_support.hpp"
#include "fairdeck/security/verify_page.hpp"

using fairdeck::testing::run_cli;
using fairdeck::testing::temp_dir;

namespace {

std::string read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const std::string& source_page() {
  static const std::string page = read_bytes(std::filesystem::path(FAIRDECK_SOURCE_DIR) / "web" / "verify.html");
  return page;
}

TEST(VerifyPage, EmbeddedBytesAreTheSourceFile) {
  ASSERT_GT(source_page().size(), 10000u);
  EXPECT_EQ(fairdeck::fair::verify_page(), source_page());
  // Self-contained: no external script, style, font or fetch, and a policy forbidding them.
  const auto page = fairdeck::fair::verify_page();
  EXPECT_NE(page.find("default-src 'none'"), std::string_view::npos);
  for (const char* needle : {"<script src", "<link", "@import", "fetch(", "XMLHttpRequest", "http://", "https://"})
    EXPECT_EQ(page.find(needle), std::string_view::npos) << needle;
}

TEST(VerifyPageCli, WritesTheSamePageToAFileAndToStdout) {
  temp_dir dir;
  const auto file = dir.path / "verify.html";
  auto r = run_cli("fair page -o " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.out.empty());
  EXPECT_EQ(read_bytes(file), source_page());

  r = run_cli("fair page");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, source_page());
}

TEST(VerifyPageCli, ReplacesAFileWholeKeepingItsModeAndWritesThroughASymlink) {
  temp_dir dir;
  const auto file = dir.path / "page.html";
  { std::ofstream(file) << "old"; }
  ASSERT_EQ(::chmod(file.c_str(), 0640), 0);
  auto r = run_cli("fair page --out " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_bytes(file), source_page());
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0640u);

  const auto target = dir.path / "target.html", link = dir.path / "link.html";
  { std::ofstream(target) << "old"; }
  std::filesystem::create_symlink(target, link);
  r = run_cli("fair page -o " + link.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(read_bytes(target), source_page());
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++entries;
  EXPECT_EQ(entries, 3u);  // no temporary file left behind
}

TEST(VerifyPageCli, UnwritablePlacesAreOneLineErrors) {
  temp_dir dir;
  auto r = run_cli("fair page -o " + (dir.path / "no-such-dir" / "verify.html").string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("no-such-dir"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);

  r = run_cli("fair page -o " + dir.path.string());
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << r.err;

  r = run_cli("fair page > /dev/full");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("standard output"), std::string::npos) << r.err;
}

// Issue #27 item 19: the audit HTML (`fairdeck audit --html`, also fairdeckd's
// /audit?format=html) was cut off on a 390-px phone. What makes it fit, checked in the bytes;
// tests/browser/phone_width.mjs measures the rendered page in Chromium at 390 px.
TEST(AuditHtmlPhone, HasAViewportAndEveryTableScrollsInItsOwnBox) {
  temp_dir dir;
  const auto file = dir.path / "audit.html";
  const auto r = run_cli("audit --seed 3 --trials 2000 --algorithm naive --algorithm fisher-yates --html " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string html = read_bytes(file);
  const auto head_end = html.find("</head>");
  ASSERT_NE(head_end, std::string::npos);
  EXPECT_LT(html.find(R"(<meta name="viewport" content="width=device-width, initial-scale=1">)"), head_end);
  // Every table sits directly in a sideways-scrolling box, so a wide table scrolls by itself.
  std::size_t tables = 0;
  for (auto at = html.find("<table"); at != std::string::npos; at = html.find("<table", at + 1)) {
    ++tables;
    EXPECT_EQ(html.rfind(R"(<div class="scroll">)", at) + 20, at) << "table at byte " << at << " is not in a scroll box";
  }
  EXPECT_EQ(tables, 3u);  // the summary and one test table per pair
  EXPECT_NE(html.find(".scroll{overflow-x:auto"), std::string::npos);
  EXPECT_NE(html.find("svg{max-width:100%;height:auto}"), std::string::npos);  // the charts scale down
}

}  // namespace
