// fairdeckd's mental-poker table mode (docs/mental-poker.md §10) through the API, on SQLite:
// a 3-player hand played over HTTP with the library the CLI uses, refused forgeries (a wrong
// proof, out of turn, replayed), a stalled hand, a restart, the log re-verified, and that the
// server stores no secret. Two players' steps cost ~30 ms per shuffle to verify; the whole file
// runs in a few seconds.
#include <chrono>
#include <fstream>
#include <iterator>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/mental/transcript.hpp"
#include "fairdeck/service/mental.hpp"
#include "fairdeck/service/store.hpp"
#include "fairdeck/util/hex.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

using json = nlohmann::json;
using role = http_request::listener_role;

struct mental_table_test : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  std::unique_ptr<api> handler;
  std::string token;
  std::vector<mental::key_pair> keys;

  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    token = generate_token();
    start();
    s->add_token_hash(token_hash(token));
    for (int i = 0; i < 3; ++i) keys.push_back(mental::generate_key());
  }
  void start() {
    s = open_store(opts);
    api_options o;
    o.mental_check_interval = std::chrono::milliseconds(20);
    handler = std::make_unique<api>(*s, o);
  }
  void stop() {
    handler.reset();
    s.reset();
  }
  http_response call(std::string_view method, std::string_view target, std::string_view body = "") {
    return call_api(*handler, token, method, target, body, "c");
  }
  std::string players_json() const {
    json players = json::array();
    for (const auto& k : keys) players.push_back(json::parse(mental::to_json(mental::make_public_share(k))));
    return players.dump();
  }
  void open_table(unsigned timeout = 60) {
    const auto r = call("POST", "/v1/tables",
                        fmt::format(R"({{"seats": 3, "table": "m", "mode": "mental", "players": {}, "timeout": {}}})",
                                    players_json(), timeout));
    ASSERT_EQ(r.status, 201u) << r.body;
    const auto h = call("POST", "/v1/tables/m/mental/hands");
    ASSERT_EQ(h.status, 201u) << h.body;
    ASSERT_EQ(json::parse(h.body).at("hand"), 1);
  }
  mental::hand transcript() {
    const auto r = call("GET", "/v1/tables/m/mental/hands/1/transcript");
    EXPECT_EQ(r.status, 200u) << r.body;
    return mental::parse_hand(r.body);
  }
  static json last_step(const mental::hand& h) { return json::parse(mental::to_json(h)).at("steps").back(); }
  // The player's shuffle, built by the library the CLI uses on the server's transcript.
  json shuffle_by(unsigned player) {
    auto h = transcript();
    mental::add_shuffle(h, keys[player - 1]);
    return last_step(h);
  }
  json reveal_by(unsigned player, std::vector<std::uint32_t> positions, std::uint32_t to) {
    auto h = transcript();
    mental::add_reveal(h, keys[player - 1], positions, to);
    return last_step(h);
  }
  http_response post(const json& step) { return call("POST", "/v1/tables/m/mental/hands/1/steps", step.dump()); }
  std::size_t log_size() { return s->log("m", std::nullopt, 100000)->size(); }
  static std::string error_of(const http_response& r) { return json::parse(r.body).at("error").get<std::string>(); }
  void shuffle_all() {
    for (unsigned p = 1; p <= 3; ++p) {
      const auto r = post(shuffle_by(p));
      ASSERT_EQ(r.status, 200u) << r.body;
    }
  }
};

TEST_F(mental_table_test, AThreePlayerHandPlayedOverHttpVerifiesFromTheServersCopy) {
  open_table();
  auto st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  EXPECT_EQ(st.at("next"), "shuffle");
  EXPECT_EQ(st.at("awaited"), json::array({1}));
  EXPECT_EQ(st.at("stalled"), false);
  shuffle_all();
  // Hole cards of player 1 (positions 0, 1): players 2 and 3 reveal to player 1.
  auto r = post(reveal_by(2, {0, 1}, 1));
  ASSERT_EQ(r.status, 200u) << r.body;
  st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  EXPECT_EQ(st.at("next"), "reveal");
  EXPECT_EQ(st.at("awaited"), json::array({3}));  // player 3 still owes player 1 its shares
  ASSERT_EQ(post(reveal_by(3, {0, 1}, 1)).status, 200u);
  // The flop, to everyone.
  for (unsigned p = 1; p <= 3; ++p) ASSERT_EQ(post(reveal_by(p, {6, 7, 8}, mental::to_all)).status, 200u);
  st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  EXPECT_TRUE(st.at("next").is_null());
  EXPECT_EQ(st.at("steps"), 8);
  EXPECT_EQ(st.at("reveals"), 5);

  // The transcript is the canonical text `fairdeck mental verify` accepts, unchanged.
  const auto text = call("GET", "/v1/tables/m/mental/hands/1/transcript").body;
  const auto tv = mental::verify_text(text);
  ASSERT_TRUE(tv.readable);
  ASSERT_TRUE(tv.v.ok) << tv.v.problem;
  EXPECT_EQ(tv.v.public_cards.size(), 3u);
  EXPECT_EQ(fairdeck::to_hex(std::span<const std::uint8_t>(tv.v.head)), st.at("head"));
  const auto h = mental::parse_hand(text);
  const auto mine = mental::open_cards(h, keys[0]);
  EXPECT_EQ(mine.size(), 5u);                            // 2 hole cards + the flop
  EXPECT_EQ(mental::open_cards(h, keys[1]).size(), 3u);  // player 2 sees the flop only

  // The table's log: a mental_hand and 8 mental_step records, re-verified by the log verifier.
  const auto log = *s->log("m", std::nullopt, 1000);
  ASSERT_EQ(log.size(), 10u);
  EXPECT_EQ(log[1].type, record_type::mental_hand);
  EXPECT_EQ(log[9].type, record_type::mental_step);
  EXPECT_EQ(log[9].head, st.at("head"));
  const auto check = verify_log(log);
  EXPECT_TRUE(check.ok) << check.reason;
  EXPECT_EQ(check.mental_hands, 1u);
  EXPECT_EQ(check.mental_steps, 8u);
  EXPECT_EQ(check.mental_hands_verified, 1u);
  // Each record's JSON (GET .../log) reads back to the same record, so the CLI's log verifier
  // sees exactly what was hashed.
  for (const auto& rec : log) EXPECT_EQ(record_from_json(to_json(rec)), rec);
  // The table answer shows the mode and the players' public shares.
  const auto t = json::parse(call("GET", "/v1/tables/m").body);
  EXPECT_EQ(t.at("mode"), "mental");
  EXPECT_EQ(t.at("players").size(), 3u);
  EXPECT_EQ(t.at("mental_hand"), 1);
}

TEST_F(mental_table_test, ForgedStepsAreRefusedAndNotStored) {
  open_table();
  const std::size_t before = log_size();
  // Out of turn: player 2 shuffles first (the library refuses to build it; a client sends it).
  auto good = shuffle_by(1);
  auto early = good;
  early["player"] = 2;
  auto r = post(early);
  EXPECT_EQ(r.status, 409u) << r.body;
  EXPECT_NE(error_of(r).find("player 1's turn"), std::string::npos) << r.body;
  // A reveal before the shuffles are done is out of turn too.
  auto reveal_early = json{{"type", "reveal"},
                           {"player", 2},
                           {"to", "all"},
                           {"positions", json::array({0})},
                           {"shares", json::array({good.at("deck")[0].get<std::string>().substr(0, 64)})},
                           {"proofs", json::array({good.at("key_proof")})}};
  r = post(reveal_early);
  EXPECT_EQ(r.status, 409u) << r.body;
  // A wrong proof: player 1's shuffle with one byte of its shuffle proof changed.
  auto forged = good;
  std::string proof = forged.at("proof");
  const std::size_t at = proof.size() - 64;  // the low byte of the last response scalar
  proof[at] = proof[at] == '0' ? '1' : '0';
  forged["proof"] = proof;
  r = post(forged);
  EXPECT_EQ(r.status, 400u) << r.body;
  EXPECT_NE(error_of(r).find("does not verify"), std::string::npos) << r.body;
  // A deck that replaces a card (a ciphertext of the previous deck swapped in) fails too.
  auto swapped = good;
  swapped["deck"][0] = swapped["deck"][1];
  r = post(swapped);
  EXPECT_EQ(r.status, 400u) << r.body;
  // A step that is not a step.
  EXPECT_EQ(call("POST", "/v1/tables/m/mental/hands/1/steps", R"({"type": "deal"})").status, 400u);
  EXPECT_EQ(call("POST", "/v1/tables/m/mental/hands/1/steps", "[1]").status, 400u);
  EXPECT_EQ(log_size(), before);  // nothing refused was stored
  EXPECT_EQ(transcript().steps.size(), 0u);
  // The honest step is accepted; sent again (a replay) it is out of turn.
  ASSERT_EQ(post(good).status, 200u);
  r = post(good);
  EXPECT_EQ(r.status, 409u) << r.body;
  ASSERT_EQ(post(shuffle_by(2)).status, 200u);
  ASSERT_EQ(post(shuffle_by(3)).status, 200u);
  const auto reveal = reveal_by(2, {4}, mental::to_all);
  ASSERT_EQ(post(reveal).status, 200u);
  r = post(reveal);  // replayed reveal
  EXPECT_EQ(r.status, 409u) << r.body;
  EXPECT_NE(error_of(r).find("already revealed"), std::string::npos) << r.body;
  // A reveal of player 3 built on an older transcript (before player 2's reveal): its proofs are
  // bound to another place in the transcript.
  auto old = transcript();
  old.steps.pop_back();
  mental::add_reveal(old, keys[2], std::vector<std::uint32_t>{5}, mental::to_all);
  r = post(last_step(old));
  EXPECT_EQ(r.status, 400u) << r.body;
  // Another player's shares claimed as player 1's.
  auto h = transcript();
  mental::add_reveal(h, keys[2], std::vector<std::uint32_t>{9}, mental::to_all);
  auto claimed = last_step(h);
  claimed["player"] = 1;
  EXPECT_EQ(post(claimed).status, 400u);
  EXPECT_EQ(transcript().steps.size(), 4u);
  EXPECT_TRUE(verify_log(*s->log("m", std::nullopt, 1000)).ok);
}

TEST_F(mental_table_test, AStalledHandIsReportedAndLoggedOnce) {
  open_table(1);  // a one-second timeout
  ::testing::internal::CaptureStderr();
  ASSERT_EQ(post(shuffle_by(1)).status, 200u);
  std::this_thread::sleep_for(std::chrono::milliseconds(1300));
  const auto st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::string logged = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(st.at("stalled"), true) << st.dump();
  EXPECT_EQ(st.at("next"), "shuffle");
  EXPECT_EQ(st.at("awaited"), json::array({2}));
  const std::string line = "mental hand stalled: table m hand 1 step 1: waiting for seat 2 to shuffle";
  const auto at = logged.find(line);
  ASSERT_NE(at, std::string::npos) << logged;
  EXPECT_EQ(logged.find(line, at + 1), std::string::npos) << "logged twice: " << logged;
  // Acting ends the stall.
  ASSERT_EQ(post(shuffle_by(2)).status, 200u);
  EXPECT_EQ(json::parse(call("GET", "/v1/tables/m/mental/hands/1").body).at("stalled"), false);
}

TEST_F(mental_table_test, ARestartKeepsTheHand) {
  open_table();
  ASSERT_EQ(post(shuffle_by(1)).status, 200u);
  const auto head = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body).at("head");
  stop();
  start();
  const auto st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  EXPECT_EQ(st.at("head"), head);
  EXPECT_EQ(st.at("awaited"), json::array({2}));
  ASSERT_EQ(post(shuffle_by(2)).status, 200u);
  ASSERT_EQ(post(shuffle_by(3)).status, 200u);
  EXPECT_TRUE(mental::verify_text(call("GET", "/v1/tables/m/mental/hands/1/transcript").body).v.ok);
  // A second hand replaces the first as the table's hand; the first stays readable, and over.
  const auto h2 = call("POST", "/v1/tables/m/mental/hands");
  ASSERT_EQ(h2.status, 201u) << h2.body;
  EXPECT_EQ(json::parse(h2.body).at("hand"), 2);
  const auto first = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  EXPECT_EQ(first.at("current"), false);
  EXPECT_EQ(first.at("steps"), 3);
  EXPECT_EQ(call("POST", "/v1/tables/m/mental/hands/1/steps", reveal_by(1, {0}, 2).dump()).status, 409u);
  EXPECT_EQ(call("GET", "/v1/tables/m/mental/hands/3").status, 404u);
  const auto check = verify_log(*s->log("m", std::nullopt, 1000));
  EXPECT_TRUE(check.ok) << check.reason;
  EXPECT_EQ(check.mental_hands_verified, 2u);
}

// The server never learns a card because it never holds a secret share: a card opened to player
// t is a_p minus every player's partial decryption, and t's own share x_t never leaves t (it is
// not a field of any request). Here: no byte of the store (the database file and its WAL) holds
// any player's secret scalar, in hex or raw, after a whole hand.
TEST_F(mental_table_test, TheStoreHoldsNoSecretShare) {
  open_table();
  shuffle_all();
  ASSERT_EQ(post(reveal_by(1, {2, 3}, 2)).status, 200u);
  ASSERT_EQ(post(reveal_by(3, {2, 3}, 2)).status, 200u);
  for (unsigned p = 1; p <= 3; ++p) ASSERT_EQ(post(reveal_by(p, {10}, mental::to_all)).status, 200u);
  handler->flush();
  stop();  // close the database so every page is in the files
  std::string bytes;
  for (const auto& f : std::filesystem::directory_iterator(dir.path)) {
    std::ifstream in(f.path(), std::ios::binary);
    bytes.append(std::istreambuf_iterator<char>(in), {});
  }
  ASSERT_GT(bytes.size(), 10000u);
  for (const auto& k : keys) {
    const std::string hex = fairdeck::to_hex(std::span<const std::uint8_t>(k.secret.b));
    const std::string raw(reinterpret_cast<const char*>(k.secret.b.data()), k.secret.b.size());
    EXPECT_EQ(bytes.find(hex), std::string::npos);
    EXPECT_EQ(bytes.find(raw), std::string::npos);
    const std::string pub = fairdeck::to_hex(std::span<const std::uint8_t>(k.pub));
    EXPECT_NE(bytes.find(pub), std::string::npos);  // the search works: public shares are there
  }
}

TEST_F(mental_table_test, BadTablesAndOtherWaysOfDealingAreRefused) {
  const std::string players = players_json();
  const auto open = [&](const std::string& body) { return call("POST", "/v1/tables", body); };
  EXPECT_EQ(open(R"({"seats": 3, "mode": "mental"})").status, 400u);  // no players
  EXPECT_EQ(open(fmt::format(R"({{"seats": 2, "mode": "mental", "players": {}}})", players)).status, 400u);
  EXPECT_EQ(open(fmt::format(R"({{"seats": 3, "mode": "poker", "players": {}}})", players)).status, 400u);
  EXPECT_EQ(open(fmt::format(R"({{"seats": 3, "players": {}}})", players)).status, 400u);
  EXPECT_EQ(open(fmt::format(R"({{"seats": 3, "mode": "mental", "players": {}, "timeout": 0}})", players)).status,
            400u);
  auto twice = json::parse(players);
  twice[2] = twice[0];
  EXPECT_EQ(open(fmt::format(R"({{"seats": 3, "mode": "mental", "players": {}}})", twice.dump())).status, 400u);
  auto bad_proof = json::parse(players);
  bad_proof[1]["proof"] = bad_proof[0]["proof"];  // a rogue key: no proof of knowledge
  const auto r = open(fmt::format(R"({{"seats": 3, "mode": "mental", "players": {}}})", bad_proof.dump()));
  EXPECT_EQ(r.status, 400u);
  EXPECT_NE(error_of(r).find("players[1]"), std::string::npos) << r.body;
  open_table();
  EXPECT_EQ(call("POST", "/v1/tables/m/deals").status, 409u);
  EXPECT_EQ(call("PUT", "/v1/tables/m/seats/1/client-seed", R"({"client_seed": "a"})").status, 409u);
  EXPECT_EQ(call("POST", "/v1/tables/m/hands").status, 409u);
  // A standing-seed table has no mental hands.
  ASSERT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "table": "s"})").status, 201u);
  EXPECT_EQ(call("POST", "/v1/tables/s/mental/hands").status, 409u);
  EXPECT_EQ(call("GET", "/v1/tables/s/mental/hands/1").status, 409u);
  // Steps need the operator's token, like every write; reading is public.
  EXPECT_EQ(call_api(*handler, "", "POST", "/v1/tables/m/mental/hands/1/steps", shuffle_by(1).dump(), "c").status,
            401u);
}

// A player cannot start the opening of another player's private cards: the owner reveals its
// own hole cards (to all, or to a player), the others follow. Otherwise any player could make
// the owner look like the one who stalls (it is awaited for an opening it never asked for).
TEST_F(mental_table_test, OnlyTheOwnerStartsOpeningItsPrivateCards) {
  open_table();
  shuffle_all();
  ASSERT_EQ(post(reveal_by(2, {0, 1}, 1)).status, 200u);  // player 1's hole cards
  ASSERT_EQ(post(reveal_by(3, {0, 1}, 1)).status, 200u);
  auto r = post(reveal_by(2, {0, 1}, mental::to_all));
  EXPECT_EQ(r.status, 409u) << r.body;
  EXPECT_NE(error_of(r).find("only player 1"), std::string::npos) << r.body;
  EXPECT_EQ(post(reveal_by(3, {5, 1}, 2)).status, 409u);  // one of them to player 2
  EXPECT_EQ(transcript().steps.size(), 5u);
  ASSERT_EQ(post(reveal_by(2, {9}, mental::to_all)).status, 200u);     // an unopened position: anyone
  ASSERT_EQ(post(reveal_by(1, {0, 1}, mental::to_all)).status, 200u);  // the showdown: player 1 first
  ASSERT_EQ(post(reveal_by(2, {0, 1}, mental::to_all)).status, 200u);
  ASSERT_EQ(post(reveal_by(3, {0, 1}, mental::to_all)).status, 200u);
  const auto st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  EXPECT_EQ(st.at("awaited"), json::array({1, 3})) << st.dump();  // position 9 only
  EXPECT_TRUE(verify_log(*s->log("m", std::nullopt, 1000)).ok);
}

// A hand id is never used twice at a table: the write refuses the id of the table's hand.
TEST_F(mental_table_test, AHandIdIsNotUsedTwice) {
  open_table();
  const auto st = json::parse(call("GET", "/v1/tables/m/mental/hands/1").body);
  const auto r = s->execute(open_mental_hand{"m", st.at("id").get<std::string>(), st.at("head").get<std::string>()});
  EXPECT_EQ(r.code, outcome::conflict) << r.error;
  EXPECT_NE(r.error.find("already"), std::string::npos) << r.error;
  ASSERT_EQ(call("POST", "/v1/tables/m/mental/hands").status, 201u);  // a fresh id
  EXPECT_TRUE(verify_log(*s->log("m", std::nullopt, 1000)).ok);
}

// An operator who rewrites a logged step and re-hashes the chain after it is caught by the log
// verifier's re-verification of the transcript (the hash chain alone would pass).
TEST_F(mental_table_test, TheLogVerifierReverifiesTheTranscript) {
  open_table();
  shuffle_all();
  ASSERT_EQ(post(reveal_by(1, {5}, mental::to_all)).status, 200u);
  auto log = *s->log("m", std::nullopt, 1000);
  ASSERT_TRUE(verify_log(log).ok);
  // Player 1's partial decryption replaced by player 2's share of another position... any other
  // valid point: the second shuffle's first ciphertext half.
  auto body = json::parse(log[5].body);
  body["shares"][0] = std::string(json::parse(log[3].body).at("deck")[0]).substr(0, 64);
  log[5].body = body.dump();
  std::string prev = log[4].hash;
  for (std::size_t i = 5; i < log.size(); ++i) {
    seal(log[i], prev);
    prev = log[i].hash;
  }
  const auto check = verify_log(log);
  EXPECT_FALSE(check.ok);
  EXPECT_EQ(check.failed_seq, log[5].seq) << check.reason;
  EXPECT_NE(check.reason.find("mental hand 1"), std::string::npos) << check.reason;
  // A step dropped (and the chain re-hashed) is caught too: the next step number is wrong.
  auto dropped = *s->log("m", std::nullopt, 1000);
  dropped.erase(dropped.begin() + 3);
  prev = dropped[2].hash;
  for (std::size_t i = 3; i < dropped.size(); ++i) {
    dropped[i].seq -= 1;
    seal(dropped[i], prev);
    prev = dropped[i].hash;
  }
  EXPECT_FALSE(verify_log(dropped).ok);
}

}  // namespace
}  // namespace fairdeck::service
