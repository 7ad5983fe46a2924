// Security review #12, items 5 and 7 (fair): one client seed per seat, verifying a sequence
// of deals with nonce contiguity, --deck-file, and the directory fsync of a new seed file.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fair_test_vectors.hpp"
#include "cli_runner.hpp"
#include "test_support.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "sanitizer_build.hpp"

namespace {

using namespace fairdeck;
using fairdeck::testing::run_cli;
using fairdeck::testing::temp_dir;

using fairdeck::testing::commitment1;
using fairdeck::testing::seed1_hex;

std::string seed_file(const temp_dir& dir) {
  const auto path = dir.path / "seed.txt";
  if (!std::filesystem::exists(path)) fair::save_seed_file(path, fair::server_seed::from_hex(seed1_hex));
  return path.string();
}

// One line of 'fair deal --json' output (compacted).
std::string deal_line(const temp_dir& dir, const std::string& args) {
  const auto r = run_cli("fair deal --json --server-seed-file " + seed_file(dir) + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.err;
  return nlohmann::json::parse(r.out).dump() + "\n";
}

std::string verify_deals(const std::string& extra = "") {
  return std::string("fair verify --deals - --server-seed ") + seed1_hex + " --commitment " + commitment1 + extra;
}

TEST(FairSeats, DealDerivesTheHandSeedFromEverySeat) {
  temp_dir dir;
  const auto r = run_cli("fair deal --json --server-seed-file " + seed_file(dir) +
                         " --client-seed alice --client-seed bob --nonce 0");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  // docs/provably-fair.md, "Several players": the documented vector.
  EXPECT_EQ(j["client_seed"], "a5195abbbba1c6f6166a75a4e5422ccda605c740adeca49baf969ab2f0f039a5");
  EXPECT_EQ(j["seat_seeds"], nlohmann::json::array({"alice", "bob"}));
  const std::vector<std::string> first10 = {"4s", "Jd", "7d", "Ts", "Kh", "6d", "9c", "Kd", "8s", "Qc"};
  for (std::size_t i = 0; i < first10.size(); ++i) EXPECT_EQ(j["cards"][i], first10[i]);
  // One seed is used unchanged, and still reported as the only seat seed.
  const auto one = nlohmann::json::parse(deal_line(dir, "--client-seed alice --nonce 0"));
  EXPECT_EQ(one["client_seed"], "alice");
  EXPECT_EQ(one["seat_seeds"], nlohmann::json::array({"alice"}));
  // Text output lists the seats.
  const auto text = run_cli("fair deal --server-seed-file " + seed_file(dir) + " --client-seed alice --client-seed bob --nonce 0");
  EXPECT_NE(text.out.find("Seat seed  2: bob"), std::string::npos) << text.out;
  // A bad seat seed names its seat.
  const auto bad = run_cli("fair deal --server-seed-file " + seed_file(dir) + " --client-seed alice --client-seed '' --nonce 0");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("seat 2"), std::string::npos) << bad.err;
}

TEST(FairSequence, ConsecutiveNoncesVerify) {
  temp_dir dir;
  std::string deals;
  for (int n = 0; n < 3; ++n) deals += deal_line(dir, "--client-seed alice --client-seed bob --nonce " + std::to_string(n));
  const auto r = run_cli(verify_deals(), deals);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "verified: 3 deals, nonces 0..2 consecutive\n");
  // A JSON array works too, and --first-nonce pins the start.
  std::string array = "[";
  std::istringstream lines(deals);
  for (std::string l; std::getline(lines, l);) array += (array.size() > 1 ? "," : "") + l;
  array += "]";
  const auto j = run_cli(verify_deals(" --json --first-nonce 0"), array);
  EXPECT_EQ(j.exit_code, 0) << j.out << j.err;
  EXPECT_TRUE(nlohmann::json::parse(j.out)["nonces_contiguous"].get<bool>());
}

TEST(FairSequence, GapsRepeatsAndTamperingAreNamed) {
  temp_dir dir;
  const auto d0 = deal_line(dir, "--client-seed alice --nonce 0");
  const auto d1 = deal_line(dir, "--client-seed alice --nonce 1");
  const auto d3 = deal_line(dir, "--client-seed alice --nonce 3");
  auto r = run_cli(verify_deals(), d0 + d1 + d3);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("nonce 3 follows nonce 1, so nonce 2 is missing"), std::string::npos) << r.out;
  r = run_cli(verify_deals(), d0 + d1 + d1);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("nonce 1 repeats (deals 2 and 3)"), std::string::npos) << r.out;
  r = run_cli(verify_deals(" --first-nonce 0"), d1);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("must start at nonce 0"), std::string::npos) << r.out;
  // A tampered card in deal 2 is reported with its deal and nonce.
  auto tampered = nlohmann::json::parse(d1);
  std::swap(tampered["cards"][0], tampered["cards"][1]);
  r = run_cli(verify_deals(), d0 + tampered.dump() + "\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("deal 2 (nonce 1): deck differs at position 0"), std::string::npos) << r.out;
  // Seat seeds that do not derive the stated client seed.
  auto forged = nlohmann::json::parse(deal_line(dir, "--client-seed alice --client-seed bob --nonce 2"));
  forged["seat_seeds"] = nlohmann::json::array({"alice", "mallory"});
  r = run_cli(verify_deals(), d0 + d1 + forged.dump() + "\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("not the one derived from its seat_seeds"), std::string::npos) << r.out;
  // Malformed input is a usage error naming the line.
  r = run_cli(verify_deals(), d0 + "{not json\n");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  r = run_cli(verify_deals(" --nonce 0"), d0);
  EXPECT_EQ(r.exit_code, 2);
}

TEST(FairSequence, NonceSequenceProblemLibrary) {
  const std::vector<std::uint64_t> ok = {5, 6, 7};
  EXPECT_FALSE(fair::nonce_sequence_problem(ok));
  EXPECT_TRUE(fair::nonce_sequence_problem(ok, 0));
  const std::vector<std::uint64_t> gap = {0, 1, 5};
  EXPECT_EQ(*fair::nonce_sequence_problem(gap), "nonce gap after deal 2: nonce 5 follows nonce 1, so nonces 2..4 are missing");
  const std::vector<std::uint64_t> back = {3, 2};
  EXPECT_NE(fair::nonce_sequence_problem(back)->find("backwards"), std::string::npos);
  const std::vector<std::uint64_t> top = {~std::uint64_t{0}, 0};  // no wrap-around
  EXPECT_TRUE(fair::nonce_sequence_problem(top));
}

TEST(FairVerify, DeckFileTakesAThousandDeckShoe) {
  temp_dir dir;
  const auto r = run_cli("fair deal --json --decks 1000 --client-seed alice --nonce 9 --server-seed-file " + seed_file(dir));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string deck;
  const auto dealt = nlohmann::json::parse(r.out);
  for (const auto& c : dealt["cards"]) deck += c.get<std::string>() + " ";
  ASSERT_GT(deck.size(), 150'000u);  // beyond what one command-line argument may hold
  const auto file = dir.path / "deck.txt";
  std::ofstream(file) << deck << "\n";
  const std::string args = std::string("fair verify --decks 1000 --client-seed alice --nonce 9 --server-seed ") + seed1_hex +
                           " --commitment " + commitment1;
  auto v = run_cli(args + " --deck-file " + file.string());
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  v = run_cli(args + " --deck-file -", deck);
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  v = run_cli(args + " --deck-file " + (dir.path / "missing").string());
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.err.find("cannot open deck file"), std::string::npos) << v.err;
  v = run_cli(args + " --deck-file " + file.string() + " --deck 'Ah'");
  EXPECT_EQ(v.exit_code, 2);
}

TEST(FairSeedFile, DirectoryIsSyncedAfterTheFile) {
  if (FAIRDECK_SLOW_BUILD) GTEST_SKIP() << "LD_PRELOAD shim tests are skipped under AddressSanitizer";
  temp_dir dir;
  const auto log = dir.path / "fsync.log";
  const std::string cmd = "env FAIRDECK_SHIM_FSYNC_LOG='" + log.string() + "' LD_PRELOAD='" FAIRDECK_NOENTROPY_SHIM "' '" +
                          std::string(FAIRDECK_CLI) + "' fair commit --out '" + (dir.path / "s.txt").string() +
                          "' >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(log);
  std::stringstream ss;
  ss << in.rdbuf();
  if (ss.str().empty()) GTEST_SKIP() << "fsync interposition not effective in this build";
  EXPECT_EQ(ss.str(), "file\ndir\n");
}

}  // namespace
