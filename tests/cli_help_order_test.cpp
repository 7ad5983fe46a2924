// `fairdeck --help` lists the subcommands in one fixed order, whatever order the linker runs
// the cmd_*.cpp registrations in: main sorts by the FAIRDECK_REGISTER_COMMAND position, so every
// position must be unique (a tie would fall back on link order), and the order is pinned here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

TEST(CliHelpOrder, EveryCommandHasItsOwnPosition) {
  std::map<int, std::string> owner;
  const std::regex reg(R"re(^FAIRDECK_REGISTER_COMMAND\((\d+),)re");
  std::size_t commands = 0;
  for (const auto& e : fs::directory_iterator(fs::path(FAIRDECK_SOURCE_DIR) / "apps" / "fairdeck")) {
    const std::string file = e.path().filename().string();
    if (!file.starts_with("cmd_") || e.path().extension() != ".cpp") continue;
    std::ifstream in(e.path());
    for (std::string line; std::getline(in, line);) {
      std::smatch m;
      if (!std::regex_search(line, m, reg)) continue;
      ++commands;
      const auto [it, fresh] = owner.emplace(std::stoi(m[1]), file);
      EXPECT_TRUE(fresh) << file << " and " << it->second << " share --help position " << m[1]
                         << ": their order would depend on the link order";
    }
  }
  EXPECT_GE(commands, 14u);
}

TEST(CliHelpOrder, SubcommandsAreListedInTheirFixedOrder) {
  const auto r = fairdeck::testing::run_cli("--help");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream in(r.out.substr(r.out.find("ubcommands:")));
  std::vector<std::string> names;
  std::string line;
  std::getline(in, line);  // the heading
  while (std::getline(in, line) && line.starts_with("  ")) names.push_back(line.substr(2, line.find(' ', 2) - 2));
  const std::vector<std::string> want{"shuffle", "deal",    "audit",  "monitor", "certify", "fair",         "log",
                                      "witness", "entropy", "odds",   "equity",  "riffle",       "shelf",   "mental",
                                      "attack",  "shuffle-file", "completion", "random", "bench"};
  EXPECT_EQ(names, want);
}

}  // namespace
