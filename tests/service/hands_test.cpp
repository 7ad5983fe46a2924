// Hands with seat commitments (issue #30), through fairdeckd's API on a real SQLite store.
//
// The attacks are real: an operator process that reads the key file and the database (so it
// holds the live server seed) and controls every seat but one grinds its seats' seeds, changes
// a commitment, reveals a different seed, deals twice, aborts a hand it does not like, forges
// the database's hand state and rolls a dealt hand back; each either fails or shows in the
// public log. The refusals (changed reveals, late commits, double deals, deals before every
// reveal, reveals before every commit) are each checked, and an older store opens.
#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/cards/card.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/store.hpp"
#include "service_test_support.hpp"
#include "sqlite_test_support.hpp"

namespace fairdeck::service {
namespace {

using json = nlohmann::json;

struct hands_test : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  std::unique_ptr<api> handler;
  std::string token;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    start();
  }
  void start() {
    s = open_store(opts);
    token = generate_token();
    s->add_token_hash(token_hash(token));
    handler = std::make_unique<api>(*s);
  }
  void stop() {
    handler.reset();
    s.reset();
  }
  std::pair<unsigned, json> call(std::string_view method, const std::string& target, const json& body = nullptr) {
    const auto r = call_api(*handler, token, method, target, body.is_null() ? std::string() : body.dump(), "c");
    return {r.status, r.content_type.starts_with("application/json") ? json::parse(r.body) : json(r.body)};
  }
  void open_table(unsigned seats) {
    ASSERT_EQ(call("POST", "/v1/tables", {{"seats", seats}, {"table", "t"}}).first, 201u);
  }
  json open_hand() {
    auto [status, j] = call("POST", "/v1/tables/t/hands");
    EXPECT_EQ(status, 201u) << j;
    return j;
  }
  unsigned commit(std::uint64_t hand, unsigned seat, const std::string& seed) {
    return commit_hex(hand, seat, fair::seat_commitment(seed));
  }
  unsigned commit_hex(std::uint64_t hand, unsigned seat, const std::string& c) {
    return call("PUT", fmt_path(hand, seat, "commit"), {{"commitment", c}}).first;
  }
  unsigned reveal(std::uint64_t hand, unsigned seat, const std::string& seed) {
    return call("PUT", fmt_path(hand, seat, "reveal"), {{"client_seed", seed}}).first;
  }
  static std::string fmt_path(std::uint64_t hand, unsigned seat, std::string_view what) {
    return "/v1/tables/t/hands/" + std::to_string(hand) + "/seats/" + std::to_string(seat) + "/" + std::string(what);
  }
  std::pair<unsigned, json> deal(std::uint64_t hand) {
    return call("POST", "/v1/tables/t/hands/" + std::to_string(hand) + "/deal");
  }
  std::pair<unsigned, json> abort_hand(std::uint64_t hand) {
    return call("POST", "/v1/tables/t/hands/" + std::to_string(hand) + "/abort");
  }
  std::vector<record> log() { return s->log("t", std::nullopt, 1u << 20).value(); }
  // The operator's own view: the key file and the database give it the live server seed.
  fair::server_seed steal_server_seed() {
    const secret_key key = read_key_file(key_path(opts));
    const auto t = s->table("t").value();
    return open_seed(t.sealed_seed, key, "t", t.commitment);
  }
};

bool two_aces_on_top(const std::vector<card_t>& deck) { return deck[0] % 13 == 0 && deck[1] % 13 == 0; }

// Finds seeds for seats 2..n (n = others + 1) that put two aces on top of the deck the
// operator *predicts* with `seat1` as seat 1's seed: the grinding attack of the review.
std::vector<std::string> grind(const fair::server_seed& server, const std::string& seat1, std::size_t others,
                               std::uint64_t nonce, int& tries, std::string_view tag = "house") {
  for (tries = 1; tries < 100000; ++tries) {
    std::vector<std::string> seeds{seat1};
    for (std::size_t i = 0; i < others; ++i) seeds.push_back(fmt::format("{}-{}-{}", tag, i, tries));
    if (two_aces_on_top(fair::deal_deck(server, fair::combine_client_seeds(seeds), nonce, {})))
      return {seeds.begin() + 1, seeds.end()};
  }
  ADD_FAILURE() << "grinding found nothing in 100000 tries";
  return {};
}

// ---- the flow ----

TEST_F(hands_test, AHandDealsFromThePublishedSpecAndEveryVerifierAgrees) {
  open_table(3);
  const auto h = open_hand();
  EXPECT_EQ(h["hand"], 1);
  EXPECT_EQ(h["nonce"], 0);
  EXPECT_EQ(h["commitment"], s->table("t")->commitment);
  std::vector<std::string> seeds{fair::fresh_seat_seed(), fair::fresh_seat_seed(), "seat three"};
  for (unsigned i = 0; i < 3; ++i) ASSERT_EQ(commit(1, i + 1, seeds[i]), 200u);
  for (unsigned i = 0; i < 3; ++i) ASSERT_EQ(reveal(1, i + 1, seeds[i]), 200u);
  const auto [status, d] = call("POST", "/v1/tables/t/hands/1/deal", {{"game", "holdem"}});
  ASSERT_EQ(status, 200u) << d;
  EXPECT_EQ(d["hand"], 1);
  EXPECT_EQ(d["mode"], "hand");
  EXPECT_EQ(d["seat_seeds"], json(seeds));
  EXPECT_TRUE(d.contains("players")) << d;  // the game fields, as the standing-seed deal has them
  // The seed is revealed at the next rotation: then the player's own check passes.
  const auto [rs, rot] = call("POST", "/v1/tables/t/rotate");
  ASSERT_EQ(rs, 200u);
  const auto server = fair::server_seed::from_hex(rot["revealed_seed"].get<std::string>());
  const deck_spec spec{};
  fair::dealt_hand dealt{d["seat_seeds"].get<std::vector<std::string>>(), d["client_seed"].get<std::string>(),
                         d["nonce"].get<std::uint64_t>(), d["commitment"].get<std::string>(),
                         fair::parse_faces(d["cards"].get<std::string>(), spec)};
  const auto check = fair::check_hand(dealt, 2, seeds[1], fair::seat_commitment(seeds[1]), server, spec);
  EXPECT_TRUE(check.ok()) << check.describe(spec).front();
  EXPECT_FALSE(fair::check_hand(dealt, 1, seeds[1], "", server, spec).ok());  // not seat 1's seed
  const auto lc = verify_log(log());
  EXPECT_TRUE(lc.ok) << lc.reason;
  EXPECT_EQ(lc.hands, 1u);
  EXPECT_EQ(lc.hands_dealt, 1u);
  EXPECT_EQ(lc.deals_verified, 1u);
  EXPECT_TRUE(log_contains(log(), d["seq"], d["hash"].get<std::string>()));
  // A second hand takes the next nonce.
  EXPECT_EQ(open_hand()["nonce"], 1);
}

// ---- refusals ----

TEST_F(hands_test, RevealsBeforeEveryCommitLateOrChangedCommitsAndChangedRevealsAreRefused) {
  open_table(2);
  open_hand();
  ASSERT_EQ(commit(1, 1, "a1"), 200u);
  EXPECT_EQ(reveal(1, 1, "a1"), 409u);                      // seat 2 has not committed
  EXPECT_EQ(commit(1, 1, "other"), 409u);                    // a commitment cannot be changed
  const auto [st, again] = call("PUT", fmt_path(1, 1, "commit"), {{"commitment", fair::seat_commitment("a1")}});
  EXPECT_EQ(st, 200u);
  EXPECT_EQ(again["repeated"], true);                        // the same one again: answered, nothing logged
  ASSERT_EQ(commit(1, 2, "b2"), 200u);
  EXPECT_EQ(reveal(1, 1, "not a1"), 409u);                   // does not hash to the commitment
  ASSERT_EQ(reveal(1, 1, "a1"), 200u);
  EXPECT_EQ(reveal(1, 1, "a1"), 200u);                       // idempotent
  EXPECT_EQ(commit(1, 2, "b2-late"), 409u);                  // late commit: reveals have begun
  EXPECT_EQ(deal(1).first, 409u);                            // seat 2 has not revealed
  ASSERT_EQ(reveal(1, 2, "b2"), 200u);
  EXPECT_EQ(reveal(1, 2, "b3"), 409u);                       // a revealed seed cannot be changed
  EXPECT_EQ(abort_hand(1).first, 409u);                      // all revealed: the outcome is known, no abort
  ASSERT_EQ(deal(1).first, 200u);
  EXPECT_EQ(deal(1).first, 409u);                            // never twice
  EXPECT_EQ(abort_hand(1).first, 409u);
  EXPECT_EQ(commit(1, 1, "x"), 409u);                        // the hand is over
  EXPECT_EQ(call("PUT", fmt_path(2, 1, "commit"), {{"commitment", fair::seat_commitment("x")}}).first, 404u);
  EXPECT_EQ(call("PUT", fmt_path(0, 1, "commit"), {{"commitment", fair::seat_commitment("x")}}).first, 404u);
  EXPECT_EQ(call("PUT", fmt_path(1, 3, "commit"), {{"commitment", fair::seat_commitment("x")}}).first, 409u);
  // Records: open, hand_open, 2 commits, 2 reveals, hand_deal = 7; the repeats wrote nothing.
  const auto records = log();
  EXPECT_EQ(records.size(), 7u);
  EXPECT_TRUE(verify_log(records).ok);
}

TEST_F(hands_test, BadBodiesAre400AndUnknownHandsOrSeats404) {
  open_table(2);
  open_hand();
  EXPECT_EQ(commit_hex(1, 1, "abc"), 400u);
  EXPECT_EQ(commit_hex(1, 1, std::string(64, 'g')), 400u);
  EXPECT_EQ(call("PUT", fmt_path(1, 1, "commit"), {{"commitment", 5}}).first, 400u);
  EXPECT_EQ(call("PUT", fmt_path(1, 1, "commit"), {{"client_seed", "x"}}).first, 400u);
  EXPECT_EQ(call("PUT", fmt_path(1, 3, "commit"), {{"commitment", fair::seat_commitment("x")}}).first, 404u);
  EXPECT_EQ(call("PUT", "/v1/tables/t/hands/x/seats/1/commit", {{"commitment", fair::seat_commitment("x")}}).first, 404u);
  EXPECT_EQ(call("PUT", "/v1/tables/t/hands/01/seats/1/commit", {{"commitment", fair::seat_commitment("x")}}).first, 404u);
  EXPECT_EQ(call("POST", "/v1/tables/t/hands", {{"x", 1}}).first, 400u);
  EXPECT_EQ(call("POST", "/v1/tables/nope/hands").first, 404u);
  // Upper-case hex is the same commitment (stored lowercase).
  std::string upper = fair::seat_commitment("x");
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  EXPECT_EQ(commit_hex(1, 1, upper), 200u);
  EXPECT_EQ(commit(1, 1, "x"), 200u);
}

TEST_F(hands_test, AHandInProgressBlocksAnotherHandARotationAndStandingDeals) {
  open_table(1);
  ASSERT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", {{"client_seed", "s"}}).first, 200u);
  open_hand();
  EXPECT_EQ(call("POST", "/v1/tables/t/hands").first, 409u);
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate").first, 409u);  // the seed stays sealed until the deal
  EXPECT_EQ(call("POST", "/v1/tables/t/deals").first, 409u);
  ASSERT_EQ(abort_hand(1).first, 200u);
  const auto [st, d] = call("POST", "/v1/tables/t/deals");
  ASSERT_EQ(st, 200u);
  EXPECT_EQ(d["nonce"], 1);  // the aborted hand's nonce 0 is consumed
  EXPECT_EQ(d["mode"], "standing");
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate").first, 200u);
  EXPECT_TRUE(verify_log(log()).ok);
}

TEST_F(hands_test, AbortsNameTheSeatsAndAreCountedPerSeatInPublic) {
  open_table(3);
  // Hand 1: seat 3 never commits.
  open_hand();
  ASSERT_EQ(commit(1, 1, "a"), 200u);
  ASSERT_EQ(commit(1, 2, "b"), 200u);
  const auto [s1, a1] = abort_hand(1);
  ASSERT_EQ(s1, 200u);
  EXPECT_EQ(a1["uncommitted"], json({3}));
  EXPECT_EQ(a1["unrevealed"], json({1, 2, 3}));
  // Hand 2: everyone commits, seat 1 reveals, seats 2 and 3 withhold (the lever).
  EXPECT_EQ(open_hand()["nonce"], 1);
  for (unsigned i = 1; i <= 3; ++i) ASSERT_EQ(commit(2, i, "s" + std::to_string(i)), 200u);
  ASSERT_EQ(reveal(2, 1, "s1"), 200u);
  const auto [s2, a2] = abort_hand(2);
  ASSERT_EQ(s2, 200u);
  EXPECT_EQ(a2["uncommitted"], json::array());
  EXPECT_EQ(a2["unrevealed"], json({2, 3}));
  const auto [gs, table] = call("GET", "/v1/tables/t");
  ASSERT_EQ(gs, 200u);
  EXPECT_EQ(table["aborts"], json({0, 1, 1}));
  EXPECT_EQ(table["missed_commits"], json({0, 0, 1}));
  EXPECT_EQ(table["hands"], 2);
  EXPECT_TRUE(table["hand"].is_null());
  EXPECT_EQ(table["next_nonce"], 2);
  const auto lc = verify_log(log());
  ASSERT_TRUE(lc.ok) << lc.reason;
  EXPECT_EQ(lc.hands_aborted, 2u);
  EXPECT_EQ(lc.aborts, (std::vector<std::uint64_t>{0, 1, 1}));
  EXPECT_EQ(lc.missed_commits, (std::vector<std::uint64_t>{0, 0, 1}));
  // Survives a restart: the counts are stored.
  stop();
  start();
  EXPECT_EQ(call("GET", "/v1/tables/t").second["aborts"], json({0, 1, 1}));
}

TEST_F(hands_test, CommitmentsSurviveARestartBetweenCommitAndReveal) {
  open_table(2);
  open_hand();
  ASSERT_EQ(commit(1, 1, "one"), 200u);
  ASSERT_EQ(commit(1, 2, "two"), 200u);
  stop();
  start();
  const auto table = call("GET", "/v1/tables/t").second;
  EXPECT_EQ(table["hand"]["committed"], json({true, true}));
  EXPECT_EQ(reveal(1, 1, "changed"), 409u);
  ASSERT_EQ(reveal(1, 1, "one"), 200u);
  ASSERT_EQ(reveal(1, 2, "two"), 200u);
  EXPECT_EQ(deal(1).first, 200u);
}

// ---- the attacks ----

// The operator holds the key file and the database (so the live server seed) and seats 2..4;
// seat 1 is an honest client. Over 20 hands it grinds its seats' seeds for two aces on top,
// then, once seat 1 has revealed, tries every lever left. Two aces on top happen by chance with
// p = 1/221 per hand; the test fails if more than 4 of 20 hands have them (false-failure rate
// P(Binomial(20, 1/221) >= 5) < 4e-8); a working grind would give 20 of 20.
TEST_F(hands_test, AnOperatorWithKeyDatabaseAndAllOtherSeatsCannotSteerAHand) {
  open_table(4);
  int steered = 0, aborted = 0;
  for (std::uint64_t hand = 1; hand <= 20; ++hand) {
    const auto opened = open_hand();
    const std::uint64_t nonce = opened["nonce"];
    const std::string honest = fair::fresh_seat_seed();
    ASSERT_EQ(commit(hand, 1, honest), 200u);
    const auto server = steal_server_seed();
    ASSERT_EQ(fair::commitment(server), opened["commitment"]);  // it really has the live seed
    // 1. Grind with a guess for seat 1's seed: all it knows of it is the commitment.
    int tries = 0;
    const auto house = grind(server, "a guess at seat 1", 3, nonce, tries);
    ASSERT_EQ(house.size(), 3u);
    for (unsigned i = 0; i < 3; ++i) ASSERT_EQ(commit(hand, i + 2, house[i]), 200u);
    ASSERT_EQ(reveal(hand, 1, honest), 200u);  // the honest client reveals once all commitments are in
    // 2. Now it knows seat 1's seed and grinds again: a commitment cannot be changed...
    // (other seed names than the first grind's: the same name would be the committed seed again)
    const auto better = grind(server, honest, 3, nonce, tries, "better");
    EXPECT_EQ(commit(hand, 2, better[0]), 409u);
    // ... and a different seed does not hash to the commitment.
    EXPECT_EQ(reveal(hand, 2, better[0]), 409u);
    // 3. It knows the outcome before its own reveals: it can abort (which the log counts) ...
    std::vector<std::string> all{honest, house[0], house[1], house[2]};
    const auto outcome = fair::deal_deck(server, fair::combine_client_seeds(all), nonce, {});
    if (hand % 5 == 0) {
      ASSERT_EQ(abort_hand(hand).first, 200u);
      ++aborted;
      continue;
    }
    for (unsigned i = 0; i < 3; ++i) ASSERT_EQ(reveal(hand, i + 2, house[i]), 200u);
    // 4. ... but not after them, and not deal twice.
    EXPECT_EQ(abort_hand(hand).first, 409u);
    const auto [st, d] = deal(hand);
    ASSERT_EQ(st, 200u);
    EXPECT_EQ(deal(hand).first, 409u);
    EXPECT_EQ(d["cards"], format_cards(outcome, {}));
    if (two_aces_on_top(outcome)) ++steered;
  }
  EXPECT_LE(steered, 4) << "the grind steered hands";
  ASSERT_EQ(call("POST", "/v1/tables/t/rotate").first, 200u);
  const auto lc = verify_log(log());
  ASSERT_TRUE(lc.ok) << lc.reason;
  EXPECT_EQ(lc.hands_dealt, 16u);
  EXPECT_EQ(lc.deals_verified, 16u);
  // Every abort came after all commitments, while seats 2..4 withheld: counted against them.
  EXPECT_EQ(lc.aborts, (std::vector<std::uint64_t>{0, 4, 4, 4}));
  EXPECT_EQ(aborted, 4);
}

// With write access to the database the operator replaces its seat's stored commitment by one
// of a seed ground against the honest seed. The server (reading the forged row) accepts the
// reveal -- but the log holds the original commitment, and every verifier fails the hand.
TEST_F(hands_test, ForgingTheStoredCommitmentIsCaughtByTheLog) {
  open_table(2);
  open_hand();
  const std::string honest = fair::fresh_seat_seed();
  ASSERT_EQ(commit(1, 1, honest), 200u);
  ASSERT_EQ(commit(1, 2, "house"), 200u);
  ASSERT_EQ(reveal(1, 1, honest), 200u);
  const auto server = steal_server_seed();
  int tries = 0;
  const auto better = grind(server, honest, 1, 0, tries);
  const std::string state = query_sql(opts.db, "SELECT hands FROM fairdeck_tables WHERE id = 't'");
  std::string forged = state;
  const std::string old_c = fair::seat_commitment("house");
  forged.replace(forged.find(old_c), old_c.size(), fair::seat_commitment(better[0]));
  run_sql(opts.db, "UPDATE fairdeck_tables SET hands = '" + forged + "' WHERE id = 't'");
  ASSERT_EQ(reveal(1, 2, better[0]), 200u);
  const auto [st, d] = deal(1);
  ASSERT_EQ(st, 200u);
  const auto lc = verify_log(log());
  EXPECT_FALSE(lc.ok);
  EXPECT_NE(lc.reason.find("does not hash to its commitment"), std::string::npos) << lc.reason;
}

// Rollback: the operator restores the table row and deletes the hand's records, then replays
// the hand with the honest seat's (now public) commit and reveal and seeds of its own ground
// against them. The new log verifies -- a log alone cannot show what is missing -- but the
// player who kept the deal answer finds its record gone.
TEST_F(hands_test, ARolledBackAndReDealtHandIsCaughtByTheKeptAnswer) {
  open_table(2);
  const std::string before = query_sql(opts.db, "SELECT next_nonce || ',' || next_seq || ',' || head_hash || ',' || hands "
                                                "FROM fairdeck_tables WHERE id = 't'");
  const std::string honest = fair::fresh_seat_seed();
  open_hand();
  ASSERT_EQ(commit(1, 1, honest), 200u);
  ASSERT_EQ(commit(1, 2, "house"), 200u);
  ASSERT_EQ(reveal(1, 1, honest), 200u);
  ASSERT_EQ(reveal(1, 2, "house"), 200u);
  const auto [st, kept] = deal(1);
  ASSERT_EQ(st, 200u);
  EXPECT_EQ(kept["receipt"]["seq"], kept["seq"]);  // the hand deal answer carries its receipt too
  EXPECT_EQ(kept["receipt"]["hash"], kept["hash"]);
  const std::string head = before.substr(before.find(',', before.find(',') + 1) + 1, 64);
  // The transparency log's tables are rolled back too (a tree left with more leaves than the
  // table has records makes every write on it fail): without a head the writer rebuilds the
  // tree from the remaining records.
  run_sql(opts.db, "DELETE FROM fairdeck_records WHERE table_id = 't' AND seq >= 1; "
                   "DELETE FROM fairdeck_tree_heads WHERE table_id = 't'; DELETE FROM fairdeck_tree_nodes WHERE table_id = 't'; "
                   "UPDATE fairdeck_tables SET next_nonce = 0, next_seq = 1, hands = '', head_hash = '" + head +
                       "' WHERE id = 't'");
  int tries = 0;
  const auto better = grind(steal_server_seed(), honest, 1, 0, tries);
  open_hand();
  ASSERT_EQ(commit(1, 1, honest), 200u);
  ASSERT_EQ(commit(1, 2, better[0]), 200u);
  ASSERT_EQ(reveal(1, 1, honest), 200u);
  ASSERT_EQ(reveal(1, 2, better[0]), 200u);
  const auto [st2, redealt] = deal(1);
  ASSERT_EQ(st2, 200u);
  EXPECT_TRUE(two_aces_on_top(fair::parse_faces(redealt["cards"].get<std::string>(), {})));
  const auto records = log();
  EXPECT_TRUE(verify_log(records).ok);
  EXPECT_FALSE(log_contains(records, kept["seq"], kept["hash"].get<std::string>()));
  EXPECT_TRUE(log_contains(records, redealt["seq"], redealt["hash"].get<std::string>()));
}

// A store from before hands (no `hands` column, a table with standing deals) opens; its log
// still verifies byte for byte, and it deals hands.
TEST_F(hands_test, AStoreFromBeforeHandsOpensAndItsOldLogStillVerifies) {
  open_table(2);
  ASSERT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", {{"client_seed", "a"}}).first, 200u);
  ASSERT_EQ(call("PUT", "/v1/tables/t/seats/2/client-seed", {{"client_seed", "b"}}).first, 200u);
  ASSERT_EQ(call("POST", "/v1/tables/t/deals").first, 200u);
  const auto old_log = log();
  stop();
  run_sql(opts.db, "ALTER TABLE fairdeck_tables DROP COLUMN hands");
  ASSERT_EQ(query_sql(opts.db, "SELECT count(*) FROM pragma_table_info('fairdeck_tables') WHERE name = 'hands'"), "0");
  start();
  EXPECT_EQ(log(), old_log);
  open_hand();
  ASSERT_EQ(commit(1, 1, "x"), 200u);
  ASSERT_EQ(commit(1, 2, "y"), 200u);
  ASSERT_EQ(reveal(1, 1, "x"), 200u);
  ASSERT_EQ(reveal(1, 2, "y"), 200u);
  ASSERT_EQ(deal(1).first, 200u);
  ASSERT_EQ(call("POST", "/v1/tables/t/rotate").first, 200u);
  const auto lc = verify_log(log());
  EXPECT_TRUE(lc.ok) << lc.reason;
  EXPECT_EQ(lc.deals_verified, 2u);
}


// ---- the log verifier's hand rule, against logs an operator rewrote and re-chained ----

std::vector<record> rechain(std::vector<record> rs) {
  std::string prev(zero_hash);
  for (std::size_t i = 0; i < rs.size(); ++i) {
    rs[i].seq = i;
    seal(rs[i], prev);
    prev = rs[i].hash;
  }
  return rs;
}

TEST_F(hands_test, ARechainedLogThatBreaksAHandRuleFailsNamingIt) {
  open_table(2);
  open_hand();  // hand 1: dealt
  ASSERT_EQ(commit(1, 1, "a"), 200u);
  ASSERT_EQ(commit(1, 2, "b"), 200u);
  ASSERT_EQ(reveal(1, 1, "a"), 200u);
  ASSERT_EQ(reveal(1, 2, "b"), 200u);
  ASSERT_EQ(deal(1).first, 200u);
  open_hand();  // hand 2: aborted after seat 1 revealed
  ASSERT_EQ(commit(2, 1, "c"), 200u);
  ASSERT_EQ(commit(2, 2, "d"), 200u);
  ASSERT_EQ(reveal(2, 1, "c"), 200u);
  ASSERT_EQ(abort_hand(2).first, 200u);
  ASSERT_EQ(call("POST", "/v1/tables/t/rotate").first, 200u);
  const auto good = log();
  // 0 open, 1 hand_open, 2-3 commit, 4-5 reveal, 6 hand_deal, 7 hand_open, 8-9 commit, 10 reveal, 11 abort, 12 rotate
  ASSERT_EQ(good.size(), 13u);
  ASSERT_TRUE(verify_log(good).ok);
  ASSERT_TRUE(verify_log(rechain(good)).ok);  // re-chaining alone changes nothing
  const auto fails = [](std::vector<record> rs, std::string_view why) {
    const auto c = verify_log(rechain(std::move(rs)));
    EXPECT_FALSE(c.ok) << why;
    EXPECT_NE(c.reason.find(why), std::string::npos) << c.reason;
  };
  auto rs = good;
  std::swap(rs[3], rs[4]);  // seat 1 reveals before seat 2 committed
  fails(rs, "before every seat");
  rs = good;
  rs[5].client_seed = "b'";  // a seed ground later
  fails(rs, "does not hash to its commitment");
  rs = good;
  rs.insert(rs.begin() + 5, rs[2]);  // a second commit by seat 1, after a reveal
  fails(rs, "committed twice");
  rs = good;
  rs.insert(rs.begin() + 7, rs[6]);  // dealt twice
  fails(rs, "not in progress");
  rs = good;
  rs[6].seat_seeds = {"a", "z"};
  rs[6].client_seed = fair::combine_client_seeds(rs[6].seat_seeds);
  fails(rs, "not the seeds its seats revealed");
  rs = good;
  rs.erase(rs.begin() + 5);  // dealt before seat 2 revealed
  fails(rs, "before every seat revealed");
  rs = good;
  rs[11].unrevealed = {};  // an abort hiding who withheld
  fails(rs, "exactly the seats");
  rs = good;
  rs[6].nonce = 5;
  fails(rs, "not its nonce");
  rs = good;
  rs.insert(rs.begin() + 9, rs[12]);  // a rotation in the middle of hand 2
  fails(rs, "rotation while hand 2");
  rs = good;
  rs[7].hand = 3;
  fails(rs, "where hand 2 was expected");
  // A partial log from inside hand 1 verifies (what came before is taken on trust).
  std::vector<record> tail(good.begin() + 4, good.end());
  const auto partial = verify_log(tail, 3);
  EXPECT_TRUE(partial.ok) << partial.reason;
  EXPECT_EQ(partial.deals_verified, 1u);
}

}  // namespace
}  // namespace fairdeck::service
