// The layer guard (docs/architecture.md): every `#include "fairdeck/..."` in the library goes
// down the layer picture, never up or sideways, and nothing outside apps/ includes apps/.
//   util < cards, random < shuffle < stats < runtimes < security, poker, mental < certify, service
//        < report < the front ends (apps/fairdeck, apps/fairdeckd, python/)
// A module may include its own files and any module of a lower layer. Reads the source tree
// (FAIRDECK_SOURCE_DIR), so a new include that breaks the picture fails here, naming the line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

namespace fs = std::filesystem;

const std::map<std::string, int>& layers() {
  static const std::map<std::string, int> m{
      {"util", 0},     {"cards", 1},    {"random", 1}, {"tlog", 1}, {"shuffle", 2}, {"stats", 3},   {"runtimes", 4},
      {"security", 5}, {"poker", 5},    {"mental", 5},    {"certify", 6}, {"service", 6}, {"report", 7},
      {"fairdeck.hpp", 6},  // the umbrella header: the library below certify/service
  };
  return m;
}

struct include_line {
  fs::path file;
  int line;
  std::string target;
};

std::vector<include_line> quoted_includes(const fs::path& root) {
  std::vector<include_line> out;
  if (!fs::exists(root)) return out;
  static const std::regex inc(R"re(^\s*#\s*include\s*"([^"]+)")re");
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    const auto ext = e.path().extension();
    if (!e.is_regular_file() || (ext != ".hpp" && ext != ".cpp" && ext != ".h")) continue;
    std::ifstream in(e.path());
    std::string text;
    for (int n = 1; std::getline(in, text); ++n) {
      std::smatch m;
      if (std::regex_search(text, m, inc)) out.push_back({e.path(), n, m[1]});
    }
  }
  return out;
}

// "include/fairdeck/poker/x.hpp" or "src/poker/x.cpp" -> "poker"; the umbrella -> "fairdeck.hpp".
std::string module_of(const fs::path& file, const fs::path& base) {
  return fs::relative(file, base).begin()->string();
}

std::string where(const include_line& i) {
  return i.file.lexically_relative(FAIRDECK_SOURCE_DIR).string() + ":" + std::to_string(i.line) + ": #include \"" +
         i.target + "\"";
}

void check_tree(const fs::path& base, std::vector<std::string>& violations) {
  for (const auto& i : quoted_includes(base)) {
    const std::string from = module_of(i.file, base);
    const auto from_layer = layers().find(from);
    if (from_layer == layers().end()) {
      violations.push_back(where(i) + " — module '" + from + "' has no layer (add it to docs/architecture.md and here)");
      continue;
    }
    if (i.target.find("apps/") != std::string::npos || i.target.starts_with("../")) {
      violations.push_back(where(i) + " — the library includes a front end or climbs out of its tree");
      continue;
    }
    if (!i.target.starts_with("fairdeck/")) continue;  // a file of its own module (src/x/private.hpp)
    const fs::path target(i.target.substr(std::string("fairdeck/").size()));
    const std::string to = target.begin()->string();
    if (to == from) continue;
    const auto to_layer = layers().find(to);
    if (to_layer == layers().end()) {
      violations.push_back(where(i) + " — unknown module '" + to + "'");
    } else if (to_layer->second >= from_layer->second) {
      violations.push_back(where(i) + " — " + from + " (layer " + std::to_string(from_layer->second) + ") includes " +
                           to + " (layer " + std::to_string(to_layer->second) + "): includes must go down");
    }
  }
}

TEST(Layering, LibraryIncludesOnlyGoDown) {
  std::vector<std::string> violations;
  check_tree(fs::path(FAIRDECK_SOURCE_DIR) / "include" / "fairdeck", violations);
  check_tree(fs::path(FAIRDECK_SOURCE_DIR) / "src", violations);
  std::string all;
  for (const auto& v : violations) all += v + "\n";
  EXPECT_TRUE(violations.empty()) << all;
}

TEST(Layering, NothingIncludesTheFrontEnds) {
  // The front ends share fairdeck/report; none compiles or includes another's sources.
  std::vector<std::string> violations;
  for (const char* dir : {"include", "src", "python", "tests", "fuzz", "bench", "tools", "apps/fairdeck", "apps/fairdeckd"}) {
    for (const auto& i : quoted_includes(fs::path(FAIRDECK_SOURCE_DIR) / dir)) {
      if (i.target.find("apps/") != std::string::npos || i.target.find("../fairdeck") != std::string::npos ||
          i.target.find("../fairdeckd") != std::string::npos)
        violations.push_back(where(i));
    }
  }
  std::string all;
  for (const auto& v : violations) all += v + "\n";
  EXPECT_TRUE(violations.empty()) << "these include a front end's sources:\n" << all;
}

TEST(Layering, TheGuardSeesAViolation) {
  // The checker itself: a planted upward include is reported (so a silent regex cannot pass).
  const fs::path dir = fs::temp_directory_path() / ("fairdeck_layering_" + std::to_string(::getpid()));
  fs::create_directories(dir / "cards");
  { std::ofstream(dir / "cards" / "bad.hpp") << "#pragma once\n#include \"fairdeck/poker/equity.hpp\"\n"; }
  { std::ofstream(dir / "cards" / "ok.hpp") << "#include \"fairdeck/util/hex.hpp\"\n#include \"fairdeck/cards/card.hpp\"\n"; }
  std::vector<std::string> violations;
  check_tree(dir, violations);
  fs::remove_all(dir);
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_NE(violations[0].find("cards (layer 1) includes poker (layer 5)"), std::string::npos) << violations[0];
}

}  // namespace
