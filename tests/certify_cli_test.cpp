// fairdeck certify end to end: the JSON contract, exit codes, inputs, signing, and
// fairdeck random --raw.
#include <gtest/gtest.h>

#include <cstdlib>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>
#include <unistd.h>

#include "cli_runner.hpp"

using fairdeck::testing::run_cli;

namespace {

struct temp_dir {
  std::string path;
  temp_dir() {
    char tmpl[] = "/tmp/fairdeck_certify_cli_XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~temp_dir() { (void)!std::system(("rm -rf " + path).c_str()); }
  [[nodiscard]] std::string file(const std::string& name) const { return path + "/" + name; }
};

std::string slurp(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

}  // namespace

TEST(CertifyCli, JsonContractOnAPassingEngine) {
  const auto r = run_cli("certify --engine xoshiro256pp --seed 11 --values 200000 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["verdict"], "pass");
  ASSERT_TRUE(j["tests"].is_array());
  EXPECT_GE(j["tests"].size(), 12u);
  for (const auto& t : j["tests"]) {
    EXPECT_TRUE(t["name"].is_string());
    EXPECT_TRUE(t["p_value"].is_number());
    EXPECT_TRUE(t["result"] == "pass") << t.dump();
  }
  EXPECT_EQ(j["executable"]["sha256"].get<std::string>().size(), 64u);
  EXPECT_EQ(j["engine"]["name"], "xoshiro256pp");
  EXPECT_NE(j["engine"]["seeding"].get<std::string>().find("seed 11"), std::string::npos);
  EXPECT_EQ(j["inputs"][0]["volume"], 200000);
  EXPECT_EQ(j["inputs"][0]["bytes"], 1600000);
  EXPECT_EQ(j["decision_rule"]["method"], "holm");
  EXPECT_EQ(j["families"][0]["name"], "raw");
  EXPECT_TRUE(j["date"].is_string());
  EXPECT_TRUE(j["fairdeck_version"].is_string());
}

TEST(CertifyCli, ExitCodesFailInvalidUsage) {
  EXPECT_EQ(run_cli("certify --known-bad randu --values 100000").exit_code, 3);
  const auto tiny = run_cli("certify --engine pcg64 --seed 1 --values 100 --json");
  EXPECT_EQ(tiny.exit_code, 4) << tiny.err;
  const auto j = nlohmann::json::parse(tiny.out);
  EXPECT_EQ(j["verdict"], "invalid");
  for (const auto& t : j["tests"])
    if (t["result"] == "invalid") {
      EXPECT_TRUE(t["p_value"].is_null());
    }
  EXPECT_EQ(run_cli("certify --scaled x.txt").exit_code, 2);              // needs --range
  EXPECT_EQ(run_cli("certify --raw - --word-bits 16").exit_code, 2);       // 32 or 64
  EXPECT_EQ(run_cli("certify --known-bad nosuch").exit_code, 2);
  EXPECT_EQ(run_cli("certify --values 10 --bytes 80").exit_code, 2);
  EXPECT_EQ(run_cli("certify --raw /nonexistent/file").exit_code, 1);
}

TEST(CertifyCli, RawScaledAndHandsInputs) {
  temp_dir d;
  // 64-bit raw words from `fairdeck random --raw` (deterministic with a seed).
  const auto raw = run_cli("random --raw --engine pcg64 --seed 3 --bytes 800000 > " + d.file("raw.bin"));
  ASSERT_EQ(raw.exit_code, 0) << raw.err;
  EXPECT_EQ(slurp(d.file("raw.bin")).size(), 800000u);
  // A reader that stops early (dieharder, PractRand, head) ends the stream: exit 0, no error.
  const std::string status_file = d.file("raw.status");
  const std::string pipeline = "sh -c '{ " + std::string(FAIRDECK_CLI) + " random --raw --engine pcg64 --seed 3 2>" +
                               d.file("raw.err") + "; echo $? >" + status_file + "; } | head -c 100000 >/dev/null'";
  ASSERT_EQ(std::system(pipeline.c_str()), 0);
  EXPECT_EQ(slurp(status_file), "0\n") << slurp(d.file("raw.err"));
  EXPECT_EQ(slurp(d.file("raw.err")).find("error"), std::string::npos) << slurp(d.file("raw.err"));
  auto r = run_cli("certify --raw " + d.file("raw.bin") + " --json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"][0]["volume"], 100000);
  EXPECT_EQ(j["inputs"][0]["sha256"].get<std::string>().size(), 64u);
  EXPECT_FALSE(j.contains("engine"));
  // The same bytes through stdin as 32-bit words (--max-values sizes the birthday test for a
  // stream of unknown length).
  r = run_cli("certify --raw - --word-bits 32 --max-values 200000 --json", slurp(d.file("raw.bin")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(nlohmann::json::parse(r.out)["inputs"][0]["volume"], 200000);
  // stdin's SHA-256 covers exactly the bytes the tests read: all of them here (the file's
  // hash), the first 400,000 when --max-values stops early.
  EXPECT_EQ(nlohmann::json::parse(r.out)["inputs"][0]["sha256"], j["inputs"][0]["sha256"]);
  r = run_cli("certify --raw - --word-bits 32 --max-values 100000 --json", slurp(d.file("raw.bin")));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string head;
  if (FILE* sh = ::popen(("head -c 400000 " + d.file("raw.bin") + " | sha256sum | cut -c1-64").c_str(), "r")) {
    char line[128];
    while (std::fgets(line, sizeof line, sh)) head += line;
    ::pclose(sh);
  }
  EXPECT_EQ(nlohmann::json::parse(r.out)["inputs"][0]["sha256"].get<std::string>() + "\n", head);
  // A partial word is an error naming the byte count.
  r = run_cli("certify --raw - --json", std::string(12, 'x'));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("partial"), std::string::npos) << r.err;

  // Scaled draws: the engine's bounded draws, then a file with one value per line.
  r = run_cli("random --engine chacha20 --seed 4 --below 52 --count 60000 > " + d.file("scaled.txt"));
  ASSERT_EQ(r.exit_code, 0);
  r = run_cli("certify --scaled " + d.file("scaled.txt") + " --range 52 --json");
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["families"][0]["name"], "scaled");
  r = run_cli("certify --scaled - --range 52", "1\n2\n52\n");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("line 3"), std::string::npos) << r.err;
  EXPECT_EQ(run_cli("certify --known-bad java-abs-mod52 --values 400000").exit_code, 3);

  // Hands: five-card hands and hold'em boards, one per line.
  r = run_cli("certify --hands - --json", "Ah Kd 7c 7s 2h\n");
  EXPECT_EQ(r.exit_code, 4) << r.err;  // 1 hand: too little data, never a pass
  r = run_cli("certify --hands - --json", "Ah Kd 7c 7s\n");
  EXPECT_EQ(r.exit_code, 1);
}

TEST(CertifyCli, DeckReportsShowWhereEachCardLanded) {
  temp_dir d;
  std::string decks;
  std::mt19937_64 g(7);
  std::vector<int> deck(52);
  for (int k = 0; k < 3000; ++k) {
    std::iota(deck.begin(), deck.end(), 0);
    std::shuffle(deck.begin(), deck.end(), g);
    for (int i = 0; i < 52; ++i) decks += std::to_string(deck[i]) + (i == 51 ? "\n" : " ");
  }
  const auto r = run_cli("certify --input - --format indices --json --html " + d.file("decks.html"), decks);
  ASSERT_NE(r.exit_code, 1) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["inputs"][0]["volume"], 3000);
  EXPECT_EQ(j["inputs"][0]["sha256"].get<std::string>().size(), 64u);  // stdin: the bytes read
  const std::string html = slurp(d.file("decks.html"));
  EXPECT_NE(html.find("position by card heat map"), std::string::npos);
  EXPECT_NE(html.find("first card"), std::string::npos);
}

TEST(CertifyCli, SignedReportVerifiesAndTamperingIsCaught) {
  temp_dir d;
  const std::string prefix = d.file("lab");
  auto k = run_cli("certify keygen " + prefix);
  ASSERT_EQ(k.exit_code, 0) << k.err;
  EXPECT_EQ(run_cli("certify keygen " + prefix).exit_code, 1);  // never overwrites a key
  auto r = run_cli("certify --engine pcg64 --seed 2 --values 50000 --sign " + prefix + ".key --report " +
                   d.file("report.json") + " --html " + d.file("report.html"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.find(slurp(prefix + ".key").substr(28, 20)), std::string::npos);  // no secret in output
  auto v = run_cli("certify verify " + d.file("report.json") + " --public-key " + prefix + ".pub");
  EXPECT_EQ(v.exit_code, 0) << v.out << v.err;
  EXPECT_NE(v.out.find("signature valid"), std::string::npos);
  const std::string html = slurp(d.file("report.html"));
  EXPECT_NE(html.find("<!DOCTYPE html>"), std::string::npos);
  EXPECT_NE(html.find("birthday-spacings"), std::string::npos);

  // Change one p-value: the signature no longer holds.
  auto j = nlohmann::json::parse(slurp(d.file("report.json")));
  j["tests"][0]["p_value"] = 0.999;
  std::ofstream(d.file("tampered.json")) << j.dump(2);
  EXPECT_EQ(run_cli("certify verify " + d.file("tampered.json")).exit_code, 3);
  // Another key pair does not match the pinned public key.
  ASSERT_EQ(run_cli("certify keygen " + d.file("other")).exit_code, 0);
  EXPECT_EQ(run_cli("certify verify " + d.file("report.json") + " --public-key " + d.file("other.pub")).exit_code, 3);
  // Unsigned report.
  ASSERT_EQ(run_cli("certify --engine pcg64 --seed 2 --values 500 --report " + d.file("plain.json")).exit_code, 4);
  EXPECT_EQ(run_cli("certify verify " + d.file("plain.json")).exit_code, 3);
}

TEST(CertifyCli, RandomRawWritesExactlyTheRequestedBytes) {
  const auto a = run_cli("random --raw --engine xoshiro256pp --seed 8 --bytes 1001");
  ASSERT_EQ(a.exit_code, 0);
  EXPECT_EQ(a.out.size(), 1001u);
  EXPECT_EQ(run_cli("random --raw --engine xoshiro256pp --seed 8 --bytes 1001").out, a.out);
  EXPECT_EQ(run_cli("random --raw --json").exit_code, 2);
  // A reader that stops early ends the stream quietly.
  const auto h = run_cli("random --raw --engine pcg64 --seed 1 | head -c 10 | wc -c");
  EXPECT_EQ(h.exit_code, 0);
}
