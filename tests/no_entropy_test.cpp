// Security review #12, item 3: a machine without OS entropy. An LD_PRELOAD shim
// (tests/noentropy_shim.cpp) makes getrandom/getentropy fail and /dev/*random unopenable;
// every command then either works without entropy or fails with ONE line naming the cause
// and exit 1 -- never libsodium's abort() (exit 134) -- and leaves no seed file behind.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <sys/wait.h>

#include "test_support.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "sanitizer_build.hpp"

namespace {

using fairdeck::testing::temp_dir;

struct result {
  int exit_code = -1;
  std::string out, err;
};

// Runs the CLI in `dir` with the shim preloaded into the CLI only.
result run_without_entropy(const std::filesystem::path& dir, const std::string& args, bool enosys = false) {
  const auto err_path = dir / ".stderr";
  std::string cmd = "cd '" + dir.string() + "' && env " + (enosys ? "FAIRDECK_SHIM_ENOSYS=1 " : "") +
                    "LD_PRELOAD='" FAIRDECK_NOENTROPY_SHIM "' '" FAIRDECK_CLI "' " + args + " 2>'" + err_path.string() +
                    "' </dev/null";
  auto [exit_code, out] = fairdeck::testing::run_shell(cmd);
  result r{exit_code, std::move(out), fairdeck::testing::slurp(err_path)};
  std::filesystem::remove(err_path);
  return r;
}

// The shim works in this build (ASan's interceptors pass getrandom/open on to it), i.e. a
// process started with it really sees no entropy.
bool shim_effective(const std::filesystem::path& dir) {
  const auto r = run_without_entropy(dir, "shuffle --engine xoshiro256pp");
  return r.exit_code != 0;
}

void expect_clean_failure(const result& r, const std::string& what) {
  EXPECT_EQ(r.exit_code, 1) << what << "\nstderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << what << "\nstderr: " << r.err;
  EXPECT_NE(r.err.find("no entropy"), std::string::npos) << what << "\nstderr: " << r.err;
  EXPECT_NE(r.err.find("getrandom"), std::string::npos) << what << ": the cause is named\nstderr: " << r.err;
  EXPECT_TRUE(r.out.empty()) << what << "\nstdout: " << r.out;
}

class NoEntropy : public ::testing::Test {
 protected:
  void SetUp() override {
    // The sanitizer runtime reads entropy itself at start-up and intercepts open/getrandom
    // before any LD_PRELOAD library: under ASan the shim cannot model "no entropy" cleanly.
    if (FAIRDECK_SLOW_BUILD) GTEST_SKIP() << "LD_PRELOAD shim tests are skipped under AddressSanitizer";
    if (!shim_effective(dir.path)) GTEST_SKIP() << "LD_PRELOAD shim not effective in this build (sanitizer runtime)";
  }
  temp_dir dir;
};

TEST_F(NoEntropy, EveryCommandNeedingEntropyFailsWithOneLine) {
  for (const std::string& args : std::vector<std::string>{
           "shuffle",                                      // the default secure engine
           "shuffle --json --decks 2",
           "shuffle --seed 7",                             // seeded chacha20 still touches libsodium
           "shuffle --engine chacha20 --key " + std::string(64, 'a'),
           "shuffle --engine pcg64",                       // a fresh seed comes from the OS
           "deal --hands 2 --cards 2",
           "deal holdem --players 3 --seed 1",
           "random --count 3",
           "random --engine chacha20 --seed 1",
           "fair commit --out seed.txt",
           "fair commit",
       })
    expect_clean_failure(run_without_entropy(dir.path, args), args);
  // No seed file (or anything else) was created.
  EXPECT_TRUE(std::filesystem::is_empty(dir.path));
}

TEST_F(NoEntropy, EnosysFallsBackToUrandomAndNamesBoth) {
  const auto r = run_without_entropy(dir.path, "shuffle", true);
  expect_clean_failure(r, "ENOSYS");
  EXPECT_NE(r.err.find("/dev/urandom"), std::string::npos) << r.err;
}

TEST_F(NoEntropy, CommandsWithoutEntropyStillWork) {
  const auto seeded = run_without_entropy(dir.path, "shuffle --engine xoshiro256pp --seed 7 --indices");
  EXPECT_EQ(seeded.exit_code, 0) << seeded.err;
  const auto legacy = run_without_entropy(dir.path, "random --engine glibc-rand --seed 1 --count 1");
  EXPECT_EQ(legacy.exit_code, 0) << legacy.err;
  EXPECT_EQ(legacy.out, "1804289383\n");
  // Verifying a published deal needs SHA-256 and HMAC only.
  const auto verify = run_without_entropy(
      dir.path,
      "fair verify --server-seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f "
      "--commitment 630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd --client-seed alice --nonce 0 "
      "--deck 'Ah 9s 9c 7s As Tc 5c 9h 3c 6h 8d Ks 2c 9d Jd 7d Qh 3d 7c Ac Qc 6c 3s 8c Jh Qs Jc 8h 5d Kd Ts 4d 8s Th "
      "Qd Td 2h 5h 4s 7h 6s 3h Kc Kh 5s 2d Ad 2s 6d 4c 4h Js'");
  EXPECT_EQ(verify.exit_code, 0) << verify.err;
}

// In-process: the library's own reader reports failure as entropy_error for every engine
// that needs the OS, including a seeded chacha20 (which needs libsodium initialised).
TEST(NoEntropyLibrary, SourceFailureIsAnException) {
  fairdeck::set_entropy_source_for_testing([](std::span<std::byte>) { return false; });
  EXPECT_THROW(fairdeck::secure_engine{}, fairdeck::entropy_error);
  std::array<std::byte, 8> b{};
  EXPECT_THROW(fairdeck::os_entropy(b), fairdeck::entropy_error);
  fairdeck::set_entropy_source_for_testing(nullptr);
  EXPECT_NO_THROW(fairdeck::os_entropy(b));
}

}  // namespace
