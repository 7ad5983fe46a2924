// `fairdeck random --engine E` reproduces each vendor's documented outputs end to end.
#include <gtest/gtest.h>

#include <string>

#include "cli_runner.hpp"

namespace fairdeck {
namespace {

using testing::run_cli;

TEST(LegacyCli, GlibcSrand1) {
  const auto r = run_cli("random --engine glibc-rand --seed 1 --count 5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1804289383\n846930886\n1681692777\n1714636915\n1957747793\n");
}

TEST(LegacyCli, MsvcSeed1AndRandModN) {
  auto r = run_cli("random --engine msvc-rand --seed 1 --count 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "41\n18467\n6334\n26500\n");
  r = run_cli("random --engine msvc-rand --seed 1 --count 4 --below 52");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "41\n7\n42\n32\n");  // 41, 18467, 6334, 26500 mod 52
}

TEST(LegacyCli, DotnetAndJavaAndDelphi) {
  auto r = run_cli("random --engine dotnet --seed 0 --count 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "1559595546\n1755192844\n1649316166\n");
  r = run_cli("random --engine java --seed 42 --count 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3124862261\n234785527\n");  // nextInt() = -1170105035, 234785527 as unsigned
  r = run_cli("random --engine java --seed 1 --count 4 --below 3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0\n1\n1\n0\n");
  r = run_cli("random --engine delphi --seed 0 --count 5 --below 52");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "0\n1\n44\n10\n14\n");
}

TEST(LegacyCli, StdEngines) {
  auto r = run_cli("random --engine mt19937 --seed 5489 --count 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "3499211612\n581869302\n");
  r = run_cli("random --engine minstd --seed 1 --count 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "48271\n182605794\n");
}

TEST(LegacyCli, OversizedSeedIsAUsageError) {
  const auto r = run_cli("random --engine delphi --seed 4294967296 --count 1");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("2^32"), std::string::npos) << r.err;
  const auto d = run_cli("random --engine dotnet --seed 2147483648 --count 1");
  EXPECT_EQ(d.exit_code, 2);
  EXPECT_NE(d.err.find("2^31"), std::string::npos) << d.err;
}

TEST(LegacyCli, OutOfDomainBoundIsAUsageError) {
  const auto r = run_cli("random --engine delphi --seed 1 --count 1 --below 4294967296");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("Random(n)"), std::string::npos) << r.err;
}

TEST(LegacyCli, ShuffleWithALegacyEngineIsReproducible) {
  const auto a = run_cli("shuffle --engine delphi --seed 1000 --algorithm asf1999");
  const auto b = run_cli("shuffle --engine delphi --seed 1000 --algorithm asf1999");
  ASSERT_EQ(a.exit_code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
}

}  // namespace
}  // namespace fairdeck
