// Each layer speaks its own language (issue #21): the library says what is wrong with a value
// in domain words ("a shoe needs at least 1 deck"); only the front ends (apps/) know which
// option the value came from and add it ("--decks: a shoe needs at least 1 deck"). So no
// string literal in src/ or include/ may name a command-line option, except facts about
// other programs (node's own --random_seed flag), listed below.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "fairdeck/cards/card.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/seed_space.hpp"

namespace fs = std::filesystem;

namespace {

// Options of other programs that library text may state facts about.
constexpr std::string_view allowed_flags[] = {
    "--random_seed",  // node's seeding flag (runtimes/node.cpp, security/runtime_attack.cpp)
};

struct literal {
  std::string text;
  std::size_t line;
};

// The string literals of a C++ source (ordinary, prefixed and raw), with the line each starts
// on; comments and character literals are skipped, and a ' after a digit or letter is taken
// as a digit separator (1'000'000).
std::vector<literal> string_literals(const std::string& src) {
  std::vector<literal> out;
  std::size_t line = 1;
  const auto advance = [&](std::size_t& i) {
    if (src[i] == '\n') ++line;
    ++i;
  };
  const auto word_char = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; };
  // R"( starts a raw string after a non-identifier character or an encoding prefix (u8R, LR).
  const auto raw_prefix_ok = [&](std::size_t i) {
    if (i == 0 || !word_char(src[i - 1])) return true;
    const std::size_t start = src.find_last_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_", i - 1);
    const std::string_view prefix = std::string_view(src).substr(start + 1, i - start - 1);
    return prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L";
  };
  for (std::size_t i = 0; i < src.size();) {
    const char c = src[i];
    const char next = i + 1 < src.size() ? src[i + 1] : '\0';
    if (c == '/' && next == '/') {
      while (i < src.size() && src[i] != '\n') ++i;
    } else if (c == '/' && next == '*') {
      i += 2;
      while (i + 1 < src.size() && !(src[i] == '*' && src[i + 1] == '/')) advance(i);
      i += 2;
    } else if (c == 'R' && next == '"' && raw_prefix_ok(i)) {
      const std::size_t open = src.find('(', i + 2);
      const std::string close = ")" + src.substr(i + 2, open - i - 2) + "\"";
      const std::size_t end = src.find(close, open);
      literal lit{src.substr(open + 1, end - open - 1), line};
      for (std::size_t k = i; k < end + close.size(); ++k)
        if (src[k] == '\n') ++line;
      out.push_back(std::move(lit));
      i = end + close.size();
    } else if (c == '"') {
      literal lit{"", line};
      ++i;
      while (i < src.size() && src[i] != '"') {
        if (src[i] == '\\' && i + 1 < src.size()) lit.text += src[i++];
        lit.text += src[i];
        advance(i);
      }
      ++i;
      out.push_back(std::move(lit));
    } else if (c == '\'' && !(i > 0 && std::isalnum(static_cast<unsigned char>(src[i - 1])))) {
      ++i;
      while (i < src.size() && src[i] != '\'') i += src[i] == '\\' ? 2 : 1;
      ++i;
    } else {
      advance(i);
    }
  }
  return out;
}

// "--name" at a word start (not "---" rules, not "a--b", not "x--" decrements), or "".
std::vector<std::string> option_names(std::string_view text) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i + 2 < text.size(); ++i) {
    if (text[i] != '-' || text[i + 1] != '-' || !std::islower(static_cast<unsigned char>(text[i + 2]))) continue;
    if (i > 0 && (std::isalnum(static_cast<unsigned char>(text[i - 1])) || text[i - 1] == '-' || text[i - 1] == '_')) continue;
    std::size_t end = i + 2;
    while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '-' || text[end] == '_'))
      ++end;
    out.emplace_back(text.substr(i, end - i));
  }
  return out;
}

bool allowed(std::string_view flag) {
  for (auto a : allowed_flags)
    if (flag == a) return true;
  return false;
}

}  // namespace

TEST(ErrorLanguage, TheScannerFindsOptionsInLiteralsOnly) {
  const auto lits = string_literals(
      "// \"--in-a-comment\"\n"
      "int n = 1'000'000; char q = '\"';\n"
      "/* \"--in-a-block\" */ auto s = \"--decks must be\";\n"
      "auto r = R\"x(a \"--raw\" b)x\"; auto t = \"i--; ---- a--b --random_seed=1\";\n");
  ASSERT_EQ(lits.size(), 3u);
  EXPECT_EQ(lits[0].line, 3u);
  EXPECT_EQ(option_names(lits[0].text), std::vector<std::string>{"--decks"});
  EXPECT_EQ(lits[1].line, 4u);
  EXPECT_EQ(option_names(lits[1].text), std::vector<std::string>{"--raw"});
  EXPECT_EQ(option_names(lits[2].text), std::vector<std::string>{"--random_seed"});
  EXPECT_TRUE(allowed("--random_seed"));
  EXPECT_FALSE(allowed("--seed"));
}

TEST(ErrorLanguage, NoLibraryStringNamesACommandLineOption) {
  const fs::path root(FAIRDECK_SOURCE_DIR);
  std::size_t files = 0;
  std::vector<std::string> found;
  for (const char* dir : {"src", "include"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const auto ext = entry.path().extension();
      if (!entry.is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h" && ext != ".inc")) continue;
      std::ifstream f(entry.path());
      std::stringstream ss;
      ss << f.rdbuf();
      ++files;
      for (const auto& lit : string_literals(ss.str()))
        for (const auto& flag : option_names(lit.text))
          if (!allowed(flag))
            found.push_back(fmt::format("{}:{}: {}", fs::relative(entry.path(), root).string(), lit.line, flag));
    }
  }
  EXPECT_GT(files, 100u);  // the tree was found
  std::string list;
  for (const auto& f : found) list += "\n  " + f;
  EXPECT_TRUE(found.empty()) << "library strings name command-line options (say what is wrong with the value; the "
                                "front end adds the option):"
                             << list;
}

namespace {

// The message of what `f` throws as std::invalid_argument ("" when it does not throw).
std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST(ErrorLanguage, LibraryErrorsDescribeTheValue) {
  using namespace fairdeck;
  const std::string key(64, '0');
  const std::vector<std::pair<std::string, std::string>> cases = {
      {message_of([] { (void)make_deck(deck_spec{0, 0}); }), "a shoe needs at least 1 deck"},
      {message_of([] { validate(deck_spec{max_decks + 1, 0}); }), "a shoe holds at most 1000 decks"},
      {message_of([] { validate(deck_spec{1, max_jokers + 1}); }), "a shoe holds at most 1000 jokers"},
      {message_of([] { (void)make_engine_spec(std::nullopt, 1, "00"); }), "a seed and a key are mutually exclusive"},
      {message_of([&] { (void)make_engine_spec("pcg64", std::nullopt, key); }),
       "a key applies only to the chacha20 engine"},
      {message_of([] { (void)make_engine_spec("secure", 1, std::nullopt); }), "the secure engine takes no seed or key"},
      {message_of([] {
         const std::vector<card_t> deck(52);
         (void)deal_hands(deck, 0, 5);
       }),
       "a deal needs at least 1 hand"},
      {message_of([] { (void)parse_seed_range("5..3", engine_id::delphi); }), "the seed range '5..3' is empty"},
      {message_of([] { (void)parse_seed_range("5..x", engine_id::delphi); }), "'x' is not a whole number"},
      {message_of([] { (void)parse_seed_range("all", engine_id::pcg64); }), "the search needs a seed range"},
      {message_of([] { (void)parse_seed_range("all", runtimes::runtime_id::java); }),
       "the search needs a seed range or a clock window"},
      {message_of([] { (void)parse_known_cards("0Ah"); }), "known card '0Ah' is not POSITION=CARD"},
      {message_of([] { (void)parse_time_of_day("25:00"); }), "'25:00' is not a time of day"},
      {message_of([] { validate(attack_spec{}); }), "the search needs at least one known card"},
      {message_of([] { (void)deck_outcomes(deck_spec{}, 60); }), "60 cards exceed the 52-card shoe"},
  };
  for (const auto& [what, want] : cases) {
    SCOPED_TRACE(want);
    EXPECT_NE(what.find(want), std::string::npos) << what;
    EXPECT_TRUE(option_names(what).empty()) << what;
  }
}

// The front end still tells the user which option held the bad value.
TEST(ErrorLanguage, TheCliAddsTheOption) {
  using fairdeck::testing::run_cli;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"shuffle --decks 0", "fairdeck: error: --decks: a shoe needs at least 1 deck\n"},
      {"shuffle --jokers 5000", "fairdeck: error: --jokers: a shoe holds at most 1000 jokers\n"},
      {"shuffle --engine pcg64 --key " + std::string(64, '0'),
       "fairdeck: error: --key: a key applies only to the chacha20 engine\n"},
      {"attack --seeds 5..3 --known 0=Ah", "fairdeck: error: --seeds: the seed range '5..3' is empty (first > last)\n"},
      {"attack --around 25:00 --known 0=Ah", "fairdeck: error: --around: '25:00' is not a time of day HH:MM:SS[.mmm]\n"},
      {"entropy --cards 60", "fairdeck: error: --cards: 60 cards exceed the 52-card shoe\n"},
  };
  for (const auto& [args, want] : cases) {
    SCOPED_TRACE(args);
    const auto r = run_cli(args);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, want);
  }
}
