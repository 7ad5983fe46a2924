// One rule per idea across subcommands: --threads, interrupted = 130, audit seeds that every
// named engine accepts.
#include <cstdio>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

using fairdeck::testing::run_cli;

TEST(CliRules, AuditOfLegacyEnginesWithoutSeedDrawsASeedTheyAccept) {
  for (const std::string engine : {"glibc-rand", "msvc-rand", "delphi", "dotnet", "mt19937", "minstd"}) {
    SCOPED_TRACE(engine);
    const auto r = run_cli("audit --engine " + engine + " --algorithm fisher-yates --trials 2000 --json");
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 3) << r.exit_code << r.err;  // 3: the engine's own bias found
    std::smatch m;
    ASSERT_TRUE(std::regex_search(r.err, m, std::regex("audit seed ([0-9]+)"))) << r.err;
    EXPECT_LT(std::stoull(m[1]), 1ULL << 32);
  }
  const auto both = run_cli("audit --engine chacha20 --engine dotnet --algorithm fisher-yates --trials 2000 --json");
  EXPECT_TRUE(both.exit_code == 0 || both.exit_code == 3) << both.err;
}

TEST(CliRules, ThreadsHaveOneRuleEverywhere) {
  for (const std::string cmd : {"attack --engine delphi --seeds 0..1000 --known 0=Ah", "odds --trials 100",
                                "equity AhKh QsQd --trials 100", "audit --trials 100", "shuffle-file -", "bench --quick"}) {
    SCOPED_TRACE(cmd);
    const auto r = run_cli(cmd + " --threads 100000");
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_NE(r.err.find("must be 0..256 (0: one per hardware thread), not 100000"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  // One known card over 1001 seeds: matches are likely coincidences (exit 4), but the thread count is accepted.
  EXPECT_EQ(run_cli("attack --engine delphi --seeds 0..1000 --known 0=Ah --threads 256").exit_code, 4);
  EXPECT_EQ(run_cli("shuffle-file --seed 1 --threads 0 -", "a\nb\n").exit_code, 0);
}

TEST(CliRules, InterruptedBenchExits130) {
  // The full bench (tens of seconds), not --quick: on a fast CPU --quick ended within the
  // second (1.07 s on an Intel Xeon model 167), before the interrupt came.
  const std::string script = std::string(FAIRDECK_CLI) +
                             " bench >/dev/null 2>&1 & p=$!; sleep 1; kill -INT $p; wait $p; echo $?";
  FILE* p = ::popen(("sh -c '" + script + "'").c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[32] = {};
  (void)!std::fgets(buf, sizeof buf, p);
  ::pclose(p);
  EXPECT_STREQ(buf, "130\n");
}
