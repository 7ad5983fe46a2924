// The deal answer written directly (deal_answer_text, apps/fairdeckd/deal_answer.hpp) is byte
// for byte what the nlohmann tree gives (json_response(200, deal_json(...))): over hundreds of
// real deals from the SQLite store (group-committed, with receipts of many tree sizes and
// proof lengths), every game (none, hold'em for 2..9 seats, hands of cards), shoes with
// several decks and jokers, the hand-deal mode, a missing receipt, and strings that need
// escaping (quotes, backslashes, every control character, DEL, multi-byte UTF-8, and
// invalid UTF-8 that nlohmann replaces).
#include <future>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "deal_answer.hpp"
#include "fairdeck/service/store.hpp"
#include "http_util.hpp"
#include "service_test_support.hpp"
#include "sqlite_test_support.hpp"

namespace fairdeck::service {
namespace {

std::string reference(const write_result& r, const game_spec& g) {
  return http_util::json_response(200, deal_json(r, g)).body;
}

// `valid_utf8`: the record's strings are valid UTF-8, so the answer parses back to the tree
// itself (otherwise both writers replace the bad bytes with U+FFFD, and the bytes must agree).
void expect_same(const write_result& r, const game_spec& g, const std::string& what, bool valid_utf8 = true) {
  const std::string want = reference(r, g);
  const std::string got = deal_answer_text(r, g);
  ASSERT_EQ(got, want) << what;
  if (valid_utf8) {
    EXPECT_EQ(nlohmann::json::parse(got), deal_json(r, g)) << what;
  }
}

struct deal_answer_fixture : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    opts.log_name = "test.example/log";
    init_store(opts);
    s = open_store(opts);
  }
  void open(const std::string& t, unsigned seats, deck_spec spec = {}) {
    ASSERT_EQ(s->execute(open_table{seats, spec, t}).code, outcome::ok);
    for (unsigned i = 1; i <= seats; ++i)
      ASSERT_EQ(s->execute(set_client_seed{t, i, "player " + std::to_string(i), std::nullopt}).code, outcome::ok);
  }
  std::vector<write_result> deal_many(const std::string& t, const game_spec& g, int n) {
    std::vector<std::promise<write_result>> ps(static_cast<std::size_t>(n));
    for (auto& p : ps) s->submit(deal{t, g}, [&p](write_result r) { p.set_value(std::move(r)); });
    std::vector<write_result> out;
    for (auto& p : ps) out.push_back(p.get_future().get());
    return out;
  }
};

TEST_F(deal_answer_fixture, DirectWriterMatchesTheTreeForManyDeals) {
  struct table_case {
    std::string id;
    unsigned seats;
    deck_spec spec;
    std::vector<game_spec> games;
  };
  const std::vector<table_case> tables{
      {"heads-up", 2, {}, {{}, {true, 0, 0}, {false, 2, 5}}},
      {"nine", 9, {}, {{true, 0, 0}, {false, 9, 2}, {false, 4, 13}}},
      {"shoe", 6, {6, 2}, {{true, 0, 0}, {false, 6, 5}, {}}},
  };
  std::size_t checked = 0;
  for (const auto& t : tables) {
    open(t.id, t.seats, t.spec);
    for (const auto& g : t.games) {
      for (int round = 0; round < 4; ++round) {  // 1 + 3 concurrent batches: receipts of many tree sizes
        for (const auto& r : deal_many(t.id, g, round == 0 ? 1 : 37)) {
          ASSERT_EQ(r.code, outcome::ok) << r.error;
          ASSERT_TRUE(r.log) << "no receipt";
          expect_same(r, g, t.id);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 9u * (1 + 3 * 37));
}

TEST_F(deal_answer_fixture, HandModeNoReceiptAndEscapedStrings) {
  open("esc", 3, {2, 1});
  const game_spec holdem{true, 0, 0};
  const auto dealt = deal_many("esc", holdem, 5);
  ASSERT_EQ(dealt[0].code, outcome::ok) << dealt[0].error;

  write_result hand = dealt[1];
  hand.rec->type = record_type::hand_deal;
  hand.rec->hand = 12345678901234ULL;
  expect_same(hand, holdem, "hand mode");
  expect_same(hand, {false, 3, 4}, "hand mode, hands");
  expect_same(hand, {}, "hand mode, no game");

  write_result bare = dealt[2];
  bare.log = nullptr;
  expect_same(bare, holdem, "no receipt");

  std::string controls;
  for (int c = 0; c < 0x20; ++c) controls.push_back(static_cast<char>(c));
  const std::vector<std::pair<std::string, bool>> strings{
      // text, valid UTF-8
      {"", true},
      {"plain", true},
      {"quote \" and backslash \\ and slash /", true},
      {controls, true},
      {"DEL \x7f end", true},
      {"caf\xc3\xa9 \xe2\x80\x94 \xf0\x9f\x82\xa1 \xef\xbf\xbd", true},  // é — 🂡 U+FFFD
      {"bad \xff byte", false},                                          // invalid byte
      {"truncated \xe2\x80", false},                                     // cut sequence
      {"overlong \xc0\xaf and surrogate \xed\xa0\x80 and big \xf4\x90\x80\x80", false},
      {std::string("nul \0 inside", 13), true},
  };
  for (const auto& [str, valid] : strings) {
    for (const write_result& base : {dealt[3], hand}) {
      write_result r = base;
      r.rec->client_seed = str;
      r.rec->seat_seeds = {str, "x", str};
      r.rec->table = "t" + str;
      r.rec->cards = str + " Ac";
      expect_same(r, holdem,
                  "escaping: " + nlohmann::json(str).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  valid);
      std::string direct;
      append_json_string(direct, str);
      EXPECT_EQ(direct, nlohmann::json(str).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
    }
  }
}

// append_json_string skips 8 plain bytes at a time: a byte that needs escaping or checking at
// every position of strings of every length up to 40 (word boundaries, tails shorter than a
// word), alone and next to another, against nlohmann's writer.
TEST(AppendJsonString, EveryByteKindAtEveryPosition) {
  const std::vector<std::string> kinds{"\"",   "\\",   "\n",       std::string(1, '\0'),
                                       "\x1f", "\x7f", "\xc3\xa9", "\xf0\x9f\x82\xa1",
                                       "\xff", " ",    "~"};
  std::size_t checked = 0;
  for (std::size_t len = 0; len <= 40; ++len) {
    for (std::size_t at = 0; at <= len; ++at) {
      for (const auto& k : kinds) {
        for (const auto& k2 : {std::string(), std::string("\"")}) {
          std::string str(len, 'a');
          for (std::size_t i = 0; i < len; ++i) str[i] = static_cast<char>('A' + i % 26);
          str.insert(at, k + k2);
          std::string direct = "x";  // appended to what is there
          append_json_string(direct, str);
          ASSERT_EQ(direct, "x" + nlohmann::json(str).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace))
              << "length " << len << ", at " << at;
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 861u * 11u * 2u);
}

}  // namespace
}  // namespace fairdeck::service
