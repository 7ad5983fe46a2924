// Security review #12, item 7: parser limits and output hygiene, end to end.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "cli_runner.hpp"
#include "test_support.hpp"
#include "fairdeck/cards/card.hpp"
#include "fairdeck/stats/deck_reader.hpp"
#include "fairdeck/util/printable.hpp"

namespace {

using fairdeck::testing::run_cli;
using fairdeck::testing::temp_dir;

bool has_raw_controls(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

TEST(Hygiene, CardParseErrorsEscapeTerminalControls) {
  // ESC ] 0 ; title BEL sets a terminal's title; ESC [ 2 J clears the screen.
  const std::string evil = "\"$(printf '\\033]0;pwned\\007\\033[2J')\"";
  for (const std::string& args : std::vector<std::string>{
           "attack --seeds 0..10 --known 0=" + evil,
        "fair verify --server-seed 000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f --commitment "
        "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd --client-seed a --nonce 0 --deck " + evil,
        "audit --input - --evil-in-stdin"}) {
    const bool via_stdin = args.find("--evil-in-stdin") != std::string::npos;
    const auto r = via_stdin ? run_cli("audit --input -", "2c \x1b]0;pwned\x07\x1b[2J 3c\n") : run_cli(args);
    EXPECT_NE(r.exit_code, 0) << args;
    EXPECT_FALSE(has_raw_controls(r.err)) << args << "\n" << r.err;
    EXPECT_NE(r.err.find("\\x1b"), std::string::npos) << args << "\n" << r.err;
  }
  // The library function itself: text kept, controls escaped, UTF-8 kept, malformed escaped.
  EXPECT_EQ(fairdeck::printable("A\xe2\x99\xa0\x1b[\x07\xff"), "A\xe2\x99\xa0\\x1b[\\x07\\xff");
  try {
    (void)fairdeck::parse_card("\x1b[31m");
    ADD_FAILURE();
  } catch (const fairdeck::card_parse_error& e) {
    EXPECT_FALSE(has_raw_controls(e.what())) << e.what();
  }
}

TEST(Limits, AuditInputRefusesAnEndlessLine) {
  // 1 MB without a newline: refused at the cap, naming the line, instead of buffered whole.
  const std::string endless(1'000'000, 'A');
  const auto r = run_cli("audit --input -", endless);
  EXPECT_EQ(r.exit_code, 1) << r.err;  // bad data (not bad usage): exit 1
  EXPECT_NE(r.err.find("line 1: line is longer than 32768 bytes"), std::string::npos) << r.err;
  // A second line over the cap is named too; shorter lines still parse.
  const std::string ok = "Ac 2c 3c 4c\n4c 3c 2c Ac\n";
  const auto r2 = run_cli("audit --input -", ok + std::string(40'000, ' ') + "\n");
  EXPECT_NE(r2.err.find("line 3: line is longer"), std::string::npos) << r2.err;
}

TEST(Limits, DeckReaderLineCapInLibrary) {
  fairdeck::stats::deck_reader reader(fairdeck::stats::deck_format::text, {});
  std::istringstream in("Ac 2c\n" + std::string(fairdeck::stats::deck_reader::max_line_bytes, 'x') + "\n" +
                        std::string(fairdeck::stats::deck_reader::max_line_bytes + 1, 'y'));
  std::string line;
  ASSERT_TRUE(reader.read_line(in, line));
  EXPECT_EQ(line, "Ac 2c");
  ASSERT_TRUE(reader.read_line(in, line));  // exactly at the cap: accepted
  EXPECT_EQ(line.size(), fairdeck::stats::deck_reader::max_line_bytes);
  EXPECT_THROW((void)reader.read_line(in, line), fairdeck::stats::deck_input_error);
}

TEST(Secrets, KeyFileKeepsTheKeyOffTheCommandLine) {
  temp_dir dir;
  const std::string key = "00112233445566778899aabbccddeeff00112233445566778899AABBCCDDEEFF";
  const auto file = dir.path / "key.hex";
  std::ofstream(file) << key << "\n";
  const auto by_arg = run_cli("shuffle --indices --engine chacha20 --key " + key);
  const auto by_file = run_cli("shuffle --indices --key-file " + file.string());
  ASSERT_EQ(by_file.exit_code, 0) << by_file.err;
  EXPECT_EQ(by_file.out, by_arg.out);
  EXPECT_NE(by_file.err.find("--key-file makes this run reproducible"), std::string::npos) << by_file.err;
  const auto from_stdin = run_cli("shuffle --indices --key-file -", key);
  EXPECT_EQ(from_stdin.out, by_arg.out);
  // A bad key file is a usage error that never echoes the file's content.
  std::ofstream(dir.path / "bad.hex") << key.substr(0, 63) << "g\n";
  const auto bad = run_cli("shuffle --key-file " + (dir.path / "bad.hex").string());
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err.find(key.substr(0, 16)), std::string::npos) << bad.err;
  EXPECT_NE(bad.err.find("non-hex"), std::string::npos) << bad.err;
  EXPECT_EQ(run_cli("shuffle --seed 1 --key-file " + file.string()).exit_code, 2);
  EXPECT_EQ(run_cli("shuffle --key-file " + (dir.path / "none").string()).exit_code, 1);
}

TEST(PythonVerifier, ValidatesInputsAsTheCliDoes) {
  if (std::system("command -v python3 >/dev/null 2>&1") != 0) GTEST_SKIP() << "python3 not installed";
  const std::string py = "python3 " + std::string(FAIRDECK_SOURCE_DIR) + "/tools/verify_fair.py ";
  const std::string seed = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
  auto status = [&](const std::string& args) {
    const int s = std::system((py + args + " >/dev/null 2>&1").c_str());
    return WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  };
  EXPECT_EQ(status(seed + " alice 0"), 0);
  EXPECT_EQ(status(seed + " alice 007"), 2);           // leading zeros: a different hashed text
  EXPECT_EQ(status("abcd alice 7"), 2);                // a 2-byte seed
  EXPECT_EQ(status(seed + " '' 7"), 2);                // empty client seed
  EXPECT_EQ(status(seed + " \"$(printf 'a\\tb')\" 7"), 2);    // control character
  EXPECT_EQ(status(seed + " \"$(printf 'a\\377b')\" 7"), 2);  // not UTF-8
  EXPECT_EQ(status(seed + " alice 18446744073709551616"), 2);
  EXPECT_EQ(status(seed + " alice 1 0"), 2);           // no decks
}

}  // namespace
