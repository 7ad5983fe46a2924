// End-to-end: fairdeck fair commit / deal / reveal / verify, and the Python verifier.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "fair_test_vectors.hpp"
#include "cli_runner.hpp"
#include "fairdeck/cards/deal.hpp"
#include "test_support.hpp"
#include "fairdeck/security/provably_fair.hpp"

using namespace fairdeck;
using fairdeck::testing::temp_dir;
using fairdeck::testing::run_cli;

namespace {

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string trimmed(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

// "Ah Kd ..." from a JSON array of card names.
std::string join_cards(const nlohmann::json& cards) {
  std::string out;
  for (const auto& c : cards) {
    if (!out.empty()) out += ' ';
    out += c.get<std::string>();
  }
  return out;
}

std::size_t count_lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }

using fairdeck::testing::commitment1;
using fairdeck::testing::seed1_hex;
constexpr const char* deck1 =
    "Ah 9s 9c 7s As Tc 5c 9h 3c 6h 8d Ks 2c 9d Jd 7d Qh 3d 7c Ac Qc 6c 3s 8c Jh Qs Jc 8h 5d Kd Ts 4d 8s Th Qd Td 2h 5h "
    "4s 7h 6s 3h Kc Kh 5s 2d Ad 2s 6d 4c 4h Js";

std::string verify_args(const std::string& seed, const std::string& commitment, const std::string& client,
                        const std::string& nonce, const std::string& deck, const std::string& extra = "") {
  return "fair verify --server-seed '" + seed + "' --commitment '" + commitment + "' --client-seed '" + client +
         "' --nonce '" + nonce + "' --deck '" + deck + "'" + extra;
}

// A seed file with a known seed, as 'fair commit' would write it.
std::filesystem::path known_seed_file(const temp_dir& dir) {
  const auto path = dir.path / "known.txt";
  fair::save_seed_file(path, fair::server_seed::from_hex(seed1_hex));
  return path;
}

}  // namespace

TEST(FairCli, CommitWritesPrivateSeedFileAndPrintsOnlyTheCommitment) {
  temp_dir dir;
  const auto path = dir.path / "s.txt";
  const auto r = run_cli("fair commit --out " + path.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string commitment = trimmed(r.out);
  EXPECT_EQ(commitment.size(), 64u);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  const auto seed = fair::read_seed_file(path);
  EXPECT_EQ(fair::commitment(seed), commitment);
  EXPECT_EQ(r.out.find(seed.hex()), std::string::npos);  // the secret is not printed
  EXPECT_EQ(r.err.find(seed.hex()), std::string::npos);
  EXPECT_NE(r.err.find(path.string()), std::string::npos);

  const auto again = run_cli("fair commit --out " + path.string());
  EXPECT_EQ(again.exit_code, 1);
  EXPECT_EQ(again.err, "fairdeck: error: " + path.string() + " already exists: a server seed file is never overwritten\n");
  EXPECT_TRUE(again.out.empty());
  EXPECT_EQ(fair::read_seed_file(path), seed);

  const auto reveal = run_cli("fair reveal --server-seed-file " + path.string());
  EXPECT_EQ(reveal.exit_code, 0);
  EXPECT_EQ(reveal.out, seed.hex() + "\n");
  const auto reveal_json = nlohmann::json::parse(run_cli("fair reveal --json --server-seed-file " + path.string()).out);
  EXPECT_EQ(reveal_json["server_seed"], seed.hex());
  EXPECT_EQ(reveal_json["commitment"], commitment);
}

TEST(FairCli, CommitWithoutOutNamesTheFileAfterTheCommitment) {
  temp_dir dir;
  const auto old = std::filesystem::current_path();
  std::filesystem::current_path(dir.path);
  const auto r = run_cli("fair commit --json");
  std::filesystem::current_path(old);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const std::string commitment = j["commitment"];
  const std::string file = j["server_seed_file"];
  EXPECT_EQ(file, "fairdeck-seed-" + commitment.substr(0, 16) + ".txt");
  EXPECT_EQ(fair::commitment(fair::read_seed_file(dir.path / file)), commitment);
}

TEST(FairCli, DealPrintsTheVectorDeckWithItsCommitment) {
  temp_dir dir;
  const auto file = known_seed_file(dir).string();
  const auto text = run_cli("fair deal --server-seed-file " + file + " --client-seed alice --nonce 0");
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_EQ(text.out, std::string("Commitment:  ") + commitment1 + "\nClient seed: alice\nNonce:       0\nDeck:        " +
                          deck1 + "\n");
  EXPECT_EQ(text.out.find(seed1_hex), std::string::npos);

  const auto r = run_cli("fair deal --json --server-seed-file " + file + " --client-seed alice --nonce 0");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["commitment"], commitment1);
  EXPECT_EQ(j["client_seed"], "alice");
  EXPECT_EQ(j["nonce"], "0");
  EXPECT_EQ(j["decks"], 1);
  EXPECT_EQ(j["jokers"], 0);
  EXPECT_EQ(j["n"], 52);
  EXPECT_EQ(join_cards(j["cards"]), deck1);
}

TEST(FairCli, DealHoldemHands) {
  temp_dir dir;
  const auto file = known_seed_file(dir).string();
  const auto r = run_cli("fair deal --json --server-seed-file " + file +
                         " --client-seed 'Bob \xe2\x99\xa0' --nonce 18446744073709551615 --decks 2 --jokers 1 "
                         "--game holdem --players 4");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const deck_spec shoe{2, 1};
  const auto deck = fair::deal_deck(fair::server_seed::from_hex(seed1_hex), "Bob \xe2\x99\xa0",
                                    18446744073709551615ull, shoe);
  const auto d = deal_holdem(deck, 4);
  EXPECT_EQ(j["nonce"], "18446744073709551615");
  EXPECT_EQ(j["n"], 105);
  EXPECT_EQ(j["game"], "holdem");
  EXPECT_EQ(j["players"], 4);
  ASSERT_EQ(j["seats"].size(), 4u);
  for (unsigned s = 0; s < 4; ++s)
    for (unsigned k = 0; k < 2; ++k) EXPECT_EQ(j["seats"][s][k], format_card(d.hole[s][k], shoe));
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(j["flop"][i], format_card(d.flop[i], shoe));
    EXPECT_EQ(j["burns"][i], format_card(d.burns[i], shoe));
  }
  EXPECT_EQ(j["turn"], format_card(d.turn, shoe));
  EXPECT_EQ(j["river"], format_card(d.river, shoe));

  const auto text = run_cli("fair deal --server-seed-file " + file + " --client-seed x --nonce 1 --game holdem --players 2");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("Seat  2: "), std::string::npos);
  EXPECT_NE(text.out.find("River:   "), std::string::npos);
}

TEST(FairCli, DealHandsRoundTheTable) {
  temp_dir dir;
  const auto file = known_seed_file(dir).string();
  const auto r = run_cli("fair deal --json --server-seed-file " + file + " --client-seed alice --nonce 0 --hands 4 --cards 13");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(join_cards(j["cards"]), deck1);  // the dealt deck is the spec's, unchanged
  ASSERT_EQ(j["hands"].size(), 4u);
  EXPECT_EQ(j["cards_per_hand"], 13);
  for (unsigned h = 0; h < 4; ++h)
    for (unsigned c = 0; c < 13; ++c) EXPECT_EQ(j["hands"][h][c], j["cards"][4 * c + h]) << h << " " << c;
  const auto text = run_cli("fair deal --server-seed-file " + file + " --client-seed alice --nonce 0 --hands 2 --cards 5");
  EXPECT_EQ(text.exit_code, 0);
  EXPECT_NE(text.out.find("Hand  1: Ah 9c As 5c 3c\n"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("Hand  2: 9s 7s Tc 9h 6h\n"), std::string::npos) << text.out;
}

TEST(FairCli, DealWarnsAboutAReadableSeedFile) {
  temp_dir dir;
  const auto file = known_seed_file(dir);
  std::filesystem::permissions(file, std::filesystem::perms::group_read, std::filesystem::perm_options::add);
  const auto r = run_cli("fair reveal --server-seed-file " + file.string());
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("accessible to other users (mode 0640)"), std::string::npos) << r.err;
}

TEST(FairCli, VerifyAcceptsTheGenuineDealAndNamesEachTamperedField) {
  const auto ok = run_cli(verify_args(seed1_hex, commitment1, "alice", "0", deck1));
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "verified\n");

  std::string seed2 = seed1_hex;
  seed2[63] = '0';
  const auto bad_seed = run_cli(verify_args(seed2, commitment1, "alice", "0", deck1));
  EXPECT_EQ(bad_seed.exit_code, 1);
  EXPECT_NE(bad_seed.out.find("not verified: commitment does not match"), std::string::npos) << bad_seed.out;
  EXPECT_NE(bad_seed.out.find("not verified: deck differs at position"), std::string::npos);

  std::string commitment2 = commitment1;
  commitment2[10] = 'f';
  const auto bad_commitment = run_cli(verify_args(seed1_hex, commitment2, "alice", "0", deck1));
  EXPECT_EQ(bad_commitment.exit_code, 1);
  EXPECT_EQ(bad_commitment.out,
            std::string("not verified: commitment does not match: SHA-256(server seed) is ") + commitment1 + "\n");

  for (const auto& args : {verify_args(seed1_hex, commitment1, "Alice", "0", deck1),
                           verify_args(seed1_hex, commitment1, "alice", "1", deck1)}) {
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << args;
    EXPECT_NE(r.out.find("not verified: deck differs at position 0 (card 1 dealt)"), std::string::npos) << r.out;
  }

  std::string swapped = deck1;  // "Ah 9s 9c 7s" -> swap positions 2 and 3
  swapped.replace(6, 5, "7s 9c");
  const auto sw = run_cli(verify_args(seed1_hex, commitment1, "alice", "0", swapped));
  EXPECT_EQ(sw.exit_code, 1);
  EXPECT_EQ(sw.out, "not verified: deck differs at position 2 (card 3 dealt): expected 9c, got 7s\n");

  const std::string short_deck = std::string(deck1).substr(0, std::string(deck1).size() - 3);
  const auto sh = run_cli(verify_args(seed1_hex, commitment1, "alice", "0", short_deck));
  EXPECT_EQ(sh.exit_code, 1);
  EXPECT_EQ(sh.out, "not verified: deck size does not match: the deck has 51 cards, the shoe (1 deck, 0 jokers) has 52\n");

  const auto js = run_cli(verify_args(seed1_hex, commitment1, "alice", "0", swapped, " --json"));
  EXPECT_EQ(js.exit_code, 1);
  const auto j = nlohmann::json::parse(js.out);
  EXPECT_EQ(j["verified"], false);
  EXPECT_EQ(j["commitment_matches"], true);
  EXPECT_EQ(j["first_difference"]["position"], 2);
  EXPECT_EQ(j["first_difference"]["expected"], "9c");
  EXPECT_EQ(j["first_difference"]["got"], "7s");
  EXPECT_EQ(j["deck_size"], 52);
  EXPECT_EQ(j["expected_deck_size"], 52);
  EXPECT_EQ(j["problems"].size(), 1u);
}

TEST(FairCli, MultiDeckVerifyMatchesFaces) {
  temp_dir dir;
  const auto file = known_seed_file(dir).string();
  const auto deal = run_cli("fair deal --json --server-seed-file " + file + " --client-seed s --nonce 3 --decks 6 --jokers 2");
  const auto j = nlohmann::json::parse(deal.out);
  std::string cards;
  for (const auto& c : j["cards"]) cards += c.get<std::string>() + ",";
  const auto r = run_cli(verify_args(seed1_hex, commitment1, "s", "3", cards, " --decks 6 --jokers 2"));
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out, "verified\n");
  const auto wrong_shoe = run_cli(verify_args(seed1_hex, commitment1, "s", "3", cards, " --decks 6 --jokers 3"));
  EXPECT_EQ(wrong_shoe.exit_code, 1);
  EXPECT_NE(wrong_shoe.out.find("deck size does not match"), std::string::npos);
}

TEST(FairCli, BadInputIsAOneLineUsageError) {
  temp_dir dir;
  const auto file = known_seed_file(dir).string();
  const std::string deal = "fair deal --server-seed-file " + file;
  struct bad_case {
    std::string args;
    std::string message;
  };
  const std::vector<bad_case> cases = {
      {deal + " --client-seed a --nonce abc", "nonce 'abc' is not a decimal integer"},
      {deal + " --client-seed a --nonce 18446744073709551616", "is larger than 2^64-1"},
      {deal + " --client-seed a --nonce -1", "digits only"},
      {deal + " --client-seed a --nonce 01", "leading zeros"},
      {deal + " --client-seed '' --nonce 1", "client seed is empty"},
      {deal + " --client-seed \"$(printf 'a\\tb')\" --nonce 1", "client seed contains a control character (byte 2 is 0x09)"},
      {deal + " --client-seed a --nonce 1 --players 3", "--players needs --game holdem"},
      {deal + " --client-seed a --nonce 1 --game holdem", "needs --players"},
      {deal + " --client-seed a --nonce 1 --game holdem --players 23", "--players must be 2..22"},
      {deal + " --client-seed a --nonce 1 --game bridge", "unknown --game 'bridge'"},
      {deal + " --client-seed a --nonce 1 --hands 4", "--hands H and --cards C go together"},
      {deal + " --client-seed a --nonce 1 --hands 5 --cards 11", "this deal needs 55 cards but the deck has 52"},
      {deal + " --client-seed a --nonce 1 --game holdem --players 2 --hands 2 --cards 2", "takes --players, not --hands"},
      {deal + " --client-seed a --nonce 1 --decks 0", "--decks: a shoe needs at least 1 deck"},
      {deal + " --nonce 1", "--client-seed is required"},
      {"fair", "fair"},
      {"fair commit --out -", "--out - would print the secret seed"},
      {verify_args("abc", commitment1, "a", "1", deck1), "server seed must be 64 hex digits"},
      {verify_args(seed1_hex, std::string(commitment1).substr(1) + "g", "a", "1", deck1),
       "--commitment has a non-hex character 'g' at position 64"},
      {verify_args(seed1_hex, commitment1, "a", "1", "Ah Zz"), "invalid card 'Zz'"},
      {verify_args(seed1_hex, commitment1, "", "1", deck1), "client seed is empty"},
  };
  for (const auto& c : cases) {
    const auto r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.message), std::string::npos) << c.args << "\n" << r.err;
    EXPECT_EQ(count_lines(r.err), 1u) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  const auto missing = run_cli("fair deal --server-seed-file " + (dir.path / "none").string() + " --client-seed a --nonce 1");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.err.find("cannot open"), std::string::npos);
}

TEST(FairCli, PythonVerifierAgrees) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not installed";
  const std::string script = std::string(FAIRDECK_SOURCE_DIR) + "/tools/verify_fair.py";
  temp_dir dir;
  struct py_case {
    std::string client, nonce, shoe_args, py_shoe;
  };
  const std::vector<py_case> cases = {{"alice", "0", "", ""},
                                      {"Bob \xe2\x99\xa0", "18446744073709551615", " --decks 2 --jokers 2", " 2 2"},
                                      {"table:7", "123456789", " --decks 8", " 8"}};
  for (int trial = 0; trial < 3; ++trial) {
    const auto file = dir.path / ("seed" + std::to_string(trial));
    const auto seed = trial == 0 ? fair::server_seed::from_hex(seed1_hex) : fair::create_seed_file(file);
    if (trial == 0) fair::save_seed_file(file, seed);
    for (const auto& c : cases) {
      const auto cli = run_cli("fair deal --json --server-seed-file " + file.string() + " --client-seed '" + c.client +
                               "' --nonce " + c.nonce + c.shoe_args);
      ASSERT_EQ(cli.exit_code, 0) << cli.err;
      const auto j = nlohmann::json::parse(cli.out);
      const std::string cards = join_cards(j["cards"]);

      const std::string cmd = "python3 " + script + " " + seed.hex() + " '" + c.client + "' " + c.nonce + c.py_shoe;
      std::string py;
      if (FILE* p = ::popen(cmd.c_str(), "r")) {
        std::array<char, 4096> buf{};
        std::size_t n;
        while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) py.append(buf.data(), n);
        EXPECT_EQ(::pclose(p), 0) << cmd;
      }
      EXPECT_EQ(py, j["commitment"].get<std::string>() + "\n" + cards + "\n") << cmd;
    }
  }
}

TEST(FairDocs, DocumentShowsTheVerifierAndTheVectors) {
  const std::string doc = read_text(std::string(FAIRDECK_SOURCE_DIR) + "/docs/provably-fair.md");
  const std::string script = read_text(std::string(FAIRDECK_SOURCE_DIR) + "/tools/verify_fair.py");
  ASSERT_FALSE(script.empty());
  EXPECT_NE(doc.find(script), std::string::npos) << "docs/provably-fair.md must quote tools/verify_fair.py verbatim";
  for (const char* vector : {seed1_hex, commitment1, deck1, "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051",
                             "84c7e56eaffcd2065261cd27963fc979f24c7dc50a72d86a9dd8b8f410467a3c"})
    EXPECT_NE(doc.find(vector), std::string::npos) << vector;
}
