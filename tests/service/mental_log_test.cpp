// The log verifier's rule for mental-poker hands (docs/log-format.md "Checking a log", rule 7)
// on logs built record by record: a hand that replays an earlier hand's id (and so its
// transcript), a hand whose players or shoe are not the table's, a record whose head is not
// the transcript hash after it. Two players, one deck: a shuffle costs tens of milliseconds.
#include <array>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/mental/transcript.hpp"
#include "fairdeck/service/mental.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/util/hex.hpp"

namespace fairdeck::service {
namespace {

std::string mental_head_hex(const std::array<std::uint8_t, 64>& h) {
  return fairdeck::to_hex(std::span<const std::uint8_t>(h));
}

// A mental table's log, each record sealed after the one before.
struct mental_log {
  std::vector<record> recs;
  std::string prev = std::string(zero_hash);

  explicit mental_log(unsigned seats, deck_spec spec = {}) {
    record open;
    open.type = record_type::open;
    open.seats = seats;
    open.decks = spec.decks;
    open.jokers = spec.jokers;
    open.commitment = std::string(64, '0');
    push(open);
  }
  const record& push(record r) {
    r.seq = recs.size();
    r.table = "m";
    r.time = "2026-11-23T12:00:00.000Z";
    seal(r, prev);
    prev = r.hash;
    recs.push_back(r);
    return recs.back();
  }
  // Hand n's mental_hand record and one mental_step record per step of h, each with the
  // transcript hash after it (as fairdeckd writes them).
  void hand(std::uint64_t n, const mental::hand& h) {
    mental::hand prefix = h;
    prefix.steps.clear();
    record r;
    r.type = record_type::mental_hand;
    r.hand = n;
    r.mental_id = h.id;
    r.seats = static_cast<unsigned>(h.players.size());
    r.decks = h.spec.decks;
    r.jokers = h.spec.jokers;
    r.players = players_text(h.players);
    r.head = mental_head_hex(mental::verify_hand(prefix).head);
    push(r);
    for (std::size_t k = 0; k < h.steps.size(); ++k) {
      prefix.steps.push_back(h.steps[k]);
      record s;
      s.type = record_type::mental_step;
      s.hand = n;
      s.step = k;
      s.seat = player_of(h.steps[k]);
      s.head = mental_head_hex(mental::verify_hand(prefix).head);
      s.body = step_body(h.steps[k]);
      push(s);
    }
  }
  // Re-seals every record from `from` on (an operator who rewrote the log and its chain).
  void reseal(std::size_t from) {
    prev = from == 0 ? std::string(zero_hash) : recs[from - 1].hash;
    for (std::size_t i = from; i < recs.size(); ++i) {
      seal(recs[i], prev);
      prev = recs[i].hash;
    }
  }
};

struct mental_log_test : ::testing::Test {
  std::vector<mental::key_pair> keys{mental::generate_key(), mental::generate_key()};
  std::vector<mental::public_share> pubs{mental::make_public_share(keys[0]), mental::make_public_share(keys[1])};
  static constexpr std::array<std::uint32_t, 3> board{6, 7, 8};

  // Every player shuffles, then the board is opened to all.
  mental::hand played(const std::vector<mental::public_share>& players, deck_spec spec = {},
                      const std::vector<mental::key_pair>* by = nullptr) {
    const auto& ks = by ? *by : keys;
    mental::hand h = mental::new_hand("m", players, spec);
    for (const auto& k : ks) mental::add_shuffle(h, k, false);
    for (const auto& k : ks) mental::add_reveal(h, k, board, mental::to_all, false);
    return h;
  }
};

TEST_F(mental_log_test, HonestHandsVerify) {
  mental_log log(2);
  log.hand(1, played(pubs));
  log.hand(2, played(pubs));
  const auto c = verify_log(log.recs);
  ASSERT_TRUE(c.ok) << c.reason;
  EXPECT_EQ(c.mental_hands_verified, 2u);
}

// The operator logs hand 2 with hand 1's id and copies hand 1's shuffles: every proof verifies
// (they are bound to the same header), and hand 2's deck is hand 1's, whose board is known.
TEST_F(mental_log_test, AHandThatReusesAnEarlierHandsIdIsRefused) {
  const mental::hand h1 = played(pubs);
  mental::hand h2 = h1;
  h2.steps.resize(2);  // the shuffles replayed
  for (const auto& k : keys) mental::add_reveal(h2, k, std::vector<std::uint32_t>{9, 10}, mental::to_all, false);
  ASSERT_TRUE(mental::verify_hand(h2).ok);
  mental_log log(2);
  log.hand(1, h1);
  log.hand(2, played(pubs));
  const std::size_t at = log.recs.size();
  log.hand(3, h2);
  const auto c = verify_log(log.recs);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failed_seq, at) << c.reason;
  EXPECT_NE(c.reason.find("mental_id"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("hand 1"), std::string::npos) << c.reason;
  // A partial log that starts after hand 1 cannot know its id (documented).
  EXPECT_TRUE(verify_log(std::vector<record>(log.recs.begin() + at, log.recs.end()), at - 1).ok);
}

// A hand's shoe and seats are the open record's; its players are the table's first hand's.
TEST_F(mental_log_test, AHandNotOfTheTablesPlayersOrShoeIsRefused) {
  {
    mental_log log(2);
    log.hand(1, played(pubs, deck_spec{1, 2}));
    const auto c = verify_log(log.recs);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.failed_seq, 1u) << c.reason;
    EXPECT_NE(c.reason.find("shoe"), std::string::npos) << c.reason;
  }
  {
    mental_log log(3);  // the table has 3 seats; the hand 2 players
    log.hand(1, played(pubs));
    const auto c = verify_log(log.recs);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.failed_seq, 1u) << c.reason;
    EXPECT_NE(c.reason.find("seats"), std::string::npos) << c.reason;
  }
  // Player 2 replaced by a key the operator holds, from hand 2 on.
  const std::vector<mental::key_pair> evil{keys[0], mental::generate_key()};
  const std::vector<mental::public_share> swapped{pubs[0], mental::make_public_share(evil[1])};
  mental_log log(2);
  log.hand(1, played(pubs));
  const std::size_t at = log.recs.size();
  log.hand(2, played(swapped, {}, &evil));
  const auto c = verify_log(log.recs);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failed_seq, at) << c.reason;
  EXPECT_NE(c.reason.find("players"), std::string::npos) << c.reason;
}

// The head of the mental_hand record (h_0) and of every step record is the transcript hash
// after it, not only the last record's.
TEST_F(mental_log_test, EveryRecordsHeadIsChecked) {
  for (const std::size_t bad : {1u, 2u, 3u}) {  // the mental_hand record, step 0, step 1
    mental_log log(2);
    log.hand(1, played(pubs));
    ASSERT_TRUE(verify_log(log.recs).ok);
    log.recs[bad].head = std::string(128, 'a');
    log.reseal(bad);
    const auto c = verify_log(log.recs);
    EXPECT_FALSE(c.ok) << "record " << bad;
    EXPECT_EQ(c.failed_seq, bad) << c.reason;
    EXPECT_NE(c.reason.find("head"), std::string::npos) << c.reason;
  }
}

}  // namespace
}  // namespace fairdeck::service
