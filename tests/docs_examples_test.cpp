// Examples in docs/*.md are the binary's real output, so they cannot drift: a block
//
//   <!-- example: shuffle --seed 42 -->
//   ```
//   Qh Jc ...
//   ```
//
// must equal what `fairdeck shuffle --seed 42` prints on stdout, line by line; a block line
// that is only "..." (after indentation) stands for any number of output lines, so long JSON
// may be abridged. FAIRDECK_UPDATE_DOC_EXAMPLES=1 rewrites every block with the full output.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace fs = std::filesystem;

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool is_ellipsis(const std::string& line) {
  const auto first = line.find_first_not_of(' ');
  return first != std::string::npos && (line.substr(first) == "..." || line.substr(first) == "\u2026");
}

// doc[i..] against out[j..]; "..." lines match any run of output lines.
bool matches(const std::vector<std::string>& doc, std::size_t i, const std::vector<std::string>& out, std::size_t j) {
  if (i == doc.size()) return j == out.size();
  if (is_ellipsis(doc[i])) {
    for (std::size_t k = j; k <= out.size(); ++k)
      if (matches(doc, i + 1, out, k)) return true;
    return false;
  }
  return j < out.size() && doc[i] == out[j] && matches(doc, i + 1, out, j + 1);
}

struct example {
  std::string args;
  std::size_t first, last;  // block body lines [first, last) in the file
};

std::vector<example> find_examples(const std::vector<std::string>& lines) {
  std::vector<example> out;
  const std::string tag = "<!-- example: ";
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    if (!lines[i].starts_with(tag) || !lines[i].ends_with(" -->") || !lines[i + 1].starts_with("```")) continue;
    const std::string args = lines[i].substr(tag.size(), lines[i].size() - tag.size() - 4);
    std::size_t end = i + 2;
    while (end < lines.size() && lines[end] != "```") ++end;
    out.push_back({args, i + 2, end});
    i = end;
  }
  return out;
}

}  // namespace

TEST(DocsExamples, EveryMarkedExampleIsWhatTheBinaryPrints) {
  const bool update = std::getenv("FAIRDECK_UPDATE_DOC_EXAMPLES") != nullptr;
  ::unsetenv("COLUMNS");  // the examples show unwrapped (piped) output
  int checked = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(FAIRDECK_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream f(entry.path());
    std::stringstream ss;
    ss << f.rdbuf();
    auto lines = split_lines(ss.str());
    const auto examples = find_examples(lines);
    bool changed = false;
    for (auto it = examples.rbegin(); it != examples.rend(); ++it) {  // back to front: edits keep indices
      SCOPED_TRACE(entry.path().filename().string() + ": fairdeck " + it->args);
      const auto r = fairdeck::testing::run_cli(it->args);
      ASSERT_EQ(r.exit_code, 0) << r.err;
      const auto out = split_lines(r.out);
      const std::vector<std::string> doc(lines.begin() + static_cast<std::ptrdiff_t>(it->first),
                                         lines.begin() + static_cast<std::ptrdiff_t>(it->last));
      ++checked;
      if (matches(doc, 0, out, 0)) continue;
      if (update) {
        lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(it->first), lines.begin() + static_cast<std::ptrdiff_t>(it->last));
        lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(it->first), out.begin(), out.end());
        changed = true;
      } else {
        ADD_FAILURE() << "the documented output differs from the binary's; rerun with FAIRDECK_UPDATE_DOC_EXAMPLES=1\n"
                      << r.out;
      }
    }
    if (changed) {
      std::ofstream w(entry.path());
      for (const auto& l : lines) w << l << '\n';
    }
  }
  EXPECT_GE(checked, 3);  // cli.md, cli-odds.md at least
}
