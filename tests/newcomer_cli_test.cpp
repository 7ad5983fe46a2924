// What a newcomer meets first: suggestions for typos, --version everywhere, JSON errors for
// scripts, progress only where it helps (a terminal, not TERM=dumb, not --quiet).
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "sanitizer_build.hpp"

using fairdeck::testing::run_cli;

TEST(NewcomerCli, UnknownCommandIsNamedWithTheClosestSuggestion) {
  auto r = run_cli("shufle --seed 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "fairdeck: error: unknown command 'shufle'; did you mean 'shuffle'? (see --help)\n");
  r = run_cli("audti");
  EXPECT_NE(r.err.find("did you mean 'audit'?"), std::string::npos) << r.err;
  r = run_cli("frobnicate");
  EXPECT_EQ(r.err, "fairdeck: error: unknown command 'frobnicate' (see --help)\n");
}

TEST(NewcomerCli, VersionUnderEverySubcommandNamesTheCommit) {
  const auto top = run_cli("--version");
  ASSERT_EQ(top.exit_code, 0);
  EXPECT_TRUE(top.out.starts_with("fairdeck 0.1.0 (git ")) << top.out;
  for (const std::string sub : {"audit", "shuffle", "fair commit", "shuffle-file", "bench"}) {
    const auto r = run_cli(sub + " --version");
    EXPECT_EQ(r.exit_code, 0) << sub << r.err;
    EXPECT_EQ(r.out, top.out) << sub;
  }
}

TEST(NewcomerCli, JsonRunsReportErrorsAsJson) {
  auto r = run_cli("shuffle --json --decks 0");
  EXPECT_EQ(r.exit_code, 2);
  const auto j = nlohmann::json::parse(r.err);
  EXPECT_EQ(j["error"], "--decks: a shoe needs at least 1 deck");
  r = run_cli("audit --json --html /no/such/dir/r.html --trials 100");
  EXPECT_EQ(r.exit_code, 1);
  // notes (here: the fresh audit seed) stay text lines; the error is the last line, as JSON
  const auto last = r.err.substr(r.err.rfind('\n', r.err.size() - 2) + 1);
  EXPECT_NE(nlohmann::json::parse(last)["error"].get<std::string>().find("No such file or directory"),
            std::string::npos);
  r = run_cli("shuffle --decks 0");
  EXPECT_EQ(r.err, "fairdeck: error: --decks: a shoe needs at least 1 deck\n");
}

TEST(NewcomerCli, ProgressOnlyOnCapableTerminalsAndNotWithQuiet) {
  if (!std::filesystem::exists("/usr/bin/script")) GTEST_SKIP() << "needs script(1) for a pseudo-terminal";
  auto on_tty = [](const std::string& env, const std::string& args) {
    const std::string cmd = env + " script -qec \"" + std::string(FAIRDECK_CLI) + " " + args +
                            " >/dev/null\" /dev/null </dev/null";
    return fairdeck::testing::shell_output(cmd);
  };
  const std::string args = std::string("odds --trials ") + (FAIRDECK_SLOW_BUILD ? "2000000" : "20000000") +
                           " --seed 1 --engine xoshiro256pp";
  const auto xterm = on_tty("TERM=xterm", args);
  EXPECT_NE(xterm.find("left"), std::string::npos) << xterm;  // the bar: "... 12.0%  1s left"
  EXPECT_NE(xterm.find('\033'), std::string::npos);
  // a stream of unknown length: decks read so far and the rate
  {
    std::string decks;
    for (int i = 0; i < 140000; ++i) decks += (i % 3 == 0 ? "0 1 2\n" : i % 3 == 1 ? "2 0 1\n" : "1 2 0\n");
    const std::string path = "/tmp/fairdeck_progress_decks.txt";
    FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fwrite(decks.data(), 1, decks.size(), f);
    std::fclose(f);
    const auto input = on_tty("TERM=xterm", "audit --input " + path);
    std::remove(path.c_str());
    EXPECT_NE(input.find("reading decks: 65536 so far"), std::string::npos) << input;
  }
  const auto dumb = on_tty("TERM=dumb", args);
  EXPECT_EQ(dumb.find('\033'), std::string::npos) << dumb;
  const auto quiet = on_tty("TERM=xterm", args + " --quiet");
  EXPECT_EQ(quiet.find("left"), std::string::npos) << quiet;
  EXPECT_EQ(quiet.find('\033'), std::string::npos) << quiet;
}

TEST(NewcomerCli, ManPageAndBashCompletionComeFromTheOptionTree) {
  const auto man = run_cli("man");
  ASSERT_EQ(man.exit_code, 0) << man.err;
  EXPECT_TRUE(man.out.starts_with(".TH FAIRDECK 1")) << man.out.substr(0, 80);
  EXPECT_NE(man.out.find(".SS \"fair commit\""), std::string::npos);
  EXPECT_NE(man.out.find("\\fB\\-\\-html\\fR \\fITEXT\\fR"), std::string::npos);
  EXPECT_TRUE(std::filesystem::exists(std::filesystem::path(FAIRDECK_CLI).parent_path() / "fairdeck.1"));  // built

  const auto script = std::filesystem::path(FAIRDECK_CLI).parent_path() / "fairdeck.bash-completion";
  ASSERT_TRUE(std::filesystem::exists(script));
  auto complete = [&](const std::string& words, int cword) {
    const std::string cmd = "bash -c 'source " + script.string() + "; COMP_WORDS=(" + words + "); COMP_CWORD=" +
                            std::to_string(cword) + "; _fairdeck; echo ${COMPREPLY[@]}'";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[4096];
      while (std::fgets(buf, sizeof buf, p)) out += buf;
      ::pclose(p);
    }
    return out;
  };
  EXPECT_EQ(complete("fairdeck shuf", 1), "shuffle shuffle-file\n");
  EXPECT_EQ(complete("fairdeck fair co", 2), "commit\n");
  EXPECT_EQ(complete("fairdeck audit --ht", 2), "--html\n");
  EXPECT_EQ(complete("fairdeck fair commit --j", 3), "--json\n");
}

TEST(NewcomerCli, ErrorsCarryTheOsReason) {
  auto r = run_cli("audit --input /nonexistent/decks.txt");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  r = run_cli("audit --input /tmp");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << r.err;
  r = run_cli("riffle --n 8 --svg /tmp");
  EXPECT_NE(r.err.find("Is a directory"), std::string::npos) << r.err;
}

TEST(NewcomerCli, HelpKeepsOptionsAndDescriptionsApart) {
  for (const std::string cmd : {"shuffle", "audit", "fair deal", "random"}) {
    const auto r = run_cli(cmd + " --help");
    ASSERT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.out.find("--key 64-bit"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("--input Audit"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("REQUIRED The player"), std::string::npos) << r.out;
  }
}
