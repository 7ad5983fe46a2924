// Issue #29: the attacks the review found (each passes the hash chain alone, which the tests
// assert first) caught by service::verify_transparency with a receipt or an earlier signed
// checkpoint, and by a witness; plus the checks of seats and shoe against the open record.
// Every log here is built with the library (service::records, tlog signer): no server.
#include <algorithm>
#include <cstdio>
#include <fstream>

#include <gtest/gtest.h>

#include "service_test_support.hpp"
#include "transparency_support.hpp"

namespace fairdeck::service {
namespace {

using testing::table_sim;
using testing::ten_record_table;
using testing::test_signer;
using testing::log_key;

transparency_check check(const table_sim& t, std::vector<std::string> cps, std::vector<nlohmann::json> receipts,
                         std::size_t from = 0) {
  std::vector<record> records(t.log.begin() + static_cast<std::ptrdiff_t>(from), t.log.end());
  std::vector<named_text> c, r;
  for (std::size_t i = 0; i < cps.size(); ++i) c.push_back({fmt::format("cp{}", i + 1), cps[i]});
  for (std::size_t i = 0; i < receipts.size(); ++i) r.push_back({fmt::format("r{}", i + 1), receipts[i].dump()});
  return verify_transparency(log_key().verifier(), records, c, r);
}

bool mentions(const transparency_check& v, std::string_view what) {
  return std::any_of(v.problems.begin(), v.problems.end(), [&](const std::string& p) { return p.find(what) != p.npos; });
}

std::string all_problems(const transparency_check& v) {
  std::string s;
  for (const auto& p : v.problems) s += p + "\n";
  return s;
}

TEST(Transparency, HonestLogWithCheckpointsAndReceiptsVerifies) {
  const table_sim t = ten_record_table();
  const auto v = check(t, {t.checkpoint(log_key(), 1), t.checkpoint(log_key(), 6), t.checkpoint(log_key(), 10)},
                       {t.receipt(log_key(), 1, 2), t.receipt(log_key(), 5, 7), t.receipt(log_key(), 9, 10)});
  ASSERT_TRUE(v.ok) << all_problems(v);
  EXPECT_FALSE(v.partial);
  EXPECT_TRUE(v.shoe_checked);
  EXPECT_TRUE(v.skipped.empty());
  EXPECT_EQ(v.chain.deals, 8u);
  EXPECT_EQ(v.chain.deals_verified, 5u);
  EXPECT_EQ(v.chain.deals_unrevealed, 3u);
  for (const auto& c : v.checkpoints) EXPECT_TRUE(c.ok && c.root_checked) << c.name;
  for (const auto& r : v.receipts) EXPECT_TRUE(r.ok && r.in_log) << r.name;
}

TEST(Transparency, RecordTreeMatchesTheRfcTreeOfTheRecordHashes) {
  // Root of every prefix against the RFC's recursive definition over leaf_hash(raw record hash).
  const table_sim t = ten_record_table();
  const record_tree tree = t.tree();
  std::vector<tlog::hash> leaves;
  for (const auto& r : t.log) leaves.push_back(tlog::leaf_hash(*tlog::hash_from_hex(r.hash)));
  const std::function<tlog::hash(std::size_t, std::size_t)> mth = [&](std::size_t b, std::size_t e) {
    if (e - b == 1) return leaves[b];
    std::size_t k = 1;
    while (k * 2 < e - b) k *= 2;
    return tlog::node_hash(mth(b, b + k), mth(b + k, e));
  };
  for (std::size_t n = 1; n <= leaves.size(); ++n) EXPECT_EQ(tree.root(n), mth(0, n)) << n;
  EXPECT_EQ(tree.root(0), tlog::empty_root());
}

// Attack 1: a deal rewritten after its seed was revealed: new seat seeds, cards re-dealt from
// the revealed seed, every later hash recomputed.
TEST(Transparency, DealRewrittenAfterRevealIsCaughtByReceiptAndEarlierCheckpoint) {
  const table_sim honest = ten_record_table();
  const std::string cp_before = honest.checkpoint(log_key(), 8);  // signed after the reveal (record 6)
  const auto receipt = honest.receipt(log_key(), 3, 4);           // the player's receipt of deal 2
  table_sim forged = honest;
  forged.redeal(3, {"alice2", "mallory"}, 0);
  ASSERT_TRUE(verify_log(forged.log).ok) << "the attack must pass the chain alone";
  ASSERT_EQ(verify_log(forged.log).deals_verified, 5u);

  const auto with_cp = check(forged, {cp_before}, {});
  EXPECT_FALSE(with_cp.ok);
  EXPECT_TRUE(mentions(with_cp, "does not match the log's first 8 records: the log was rewritten or forked"))
      << all_problems(with_cp);
  const auto with_receipt = check(forged, {}, {receipt});
  EXPECT_FALSE(with_receipt.ok);
  EXPECT_TRUE(mentions(with_receipt, "the log's record 3 is not the one the receipt proves")) << all_problems(with_receipt);
  // The same evidence against the honest log passes: the catch is the rewrite, not the inputs.
  EXPECT_TRUE(check(honest, {cp_before}, {receipt}).ok);
}

// Attack 2: a log whose first records were dropped: partial, never "whole".
TEST(Transparency, DroppedPrefixIsReportedPartialWithTheSkippedChecks) {
  const table_sim t = ten_record_table();
  const auto v = check(t, {t.checkpoint(log_key(), 10)}, {t.receipt(log_key(), 8, 10), t.receipt(log_key(), 2, 10)}, 4);
  ASSERT_TRUE(v.ok) << all_problems(v);
  EXPECT_TRUE(v.partial);
  EXPECT_EQ(v.first_seq, 4u);
  EXPECT_FALSE(v.shoe_checked);
  EXPECT_FALSE(v.checkpoints[0].root_checked);
  EXPECT_TRUE(v.receipts[0].in_log);   // seq 8: in the partial log, same hash
  EXPECT_FALSE(v.receipts[1].in_log);  // seq 2: before it
  const auto skipped = [&](std::string_view what) {
    return std::any_of(v.skipped.begin(), v.skipped.end(), [&](const std::string& s) { return s.find(what) != s.npos; });
  };
  EXPECT_TRUE(skipped("seat counts and shoes"));
  EXPECT_TRUE(skipped("checkpoint roots"));
  EXPECT_TRUE(skipped("record 2 precedes this partial log"));
  // A partial log is still checked where it can be: a checkpoint bigger than it, a receipt
  // whose record it holds differently.
  table_sim cut = t;
  cut.log.resize(9);
  EXPECT_FALSE(check(cut, {t.checkpoint(log_key(), 10)}, {}, 4).ok);
}

// Attack 3: the tail cut off.
TEST(Transparency, CutTailIsCaughtByALaterCheckpointOrReceipt) {
  const table_sim honest = ten_record_table();
  table_sim cut = honest;
  cut.log.resize(7);
  ASSERT_TRUE(verify_log(cut.log).ok);
  const auto v = check(cut, {honest.checkpoint(log_key(), 10)}, {});
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(mentions(v, "is signed for 10 records but the log has 7: the log's tail was cut")) << all_problems(v);
  const auto r = check(cut, {}, {honest.receipt(log_key(), 8, 9)});
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(mentions(r, "record 8 is not in the log (it has 7 records)")) << all_problems(r);
}

// Attack 4: a database rolled back and the deal dealt again under the same nonce.
TEST(Transparency, RollbackAndRedealUnderTheSameNonceIsCaughtByTheReceipt) {
  const table_sim honest = ten_record_table();
  const auto receipt = honest.receipt(log_key(), 9, 10);  // deal nonce 7, the last one
  table_sim rolled = honest;
  rolled.log.resize(9);
  rolled.nonce = 7;
  rolled.deal({"alice7", "carol"});  // nonce 7 again, other cards
  ASSERT_EQ(rolled.log[9].nonce, honest.log[9].nonce);
  ASSERT_NE(rolled.log[9].cards, honest.log[9].cards);
  ASSERT_TRUE(verify_log(rolled.log).ok);
  const auto v = check(rolled, {}, {receipt});
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(mentions(v, "rewritten, or rolled back and dealt again")) << all_problems(v);
  // The operator's new checkpoint of size 10 conflicts with the one in the receipt.
  const auto both = check(rolled, {rolled.checkpoint(log_key(), 10)}, {receipt});
  EXPECT_TRUE(mentions(both, "both signed for size 10 with different roots: the log forked")) << all_problems(both);
}

// Attack 5: a forked log, one view per witness.
TEST(Transparency, ForkedLogShownToTwoWitnessesConflicts) {
  table_sim a = ten_record_table();
  a.log.resize(6);
  a.nonce = 5;
  table_sim b = a;
  a.deal({"alice5", "bob5"});
  b.deal({"alice5", "eve"});
  const std::string cp_a = a.checkpoint(log_key(), 7), cp_b = b.checkpoint(log_key(), 7);
  const auto& k = log_key().verifier();
  // Each witness accepts its own view (first use), and the log growing consistently after it.
  const auto w1 = witness_check(k, "demo", std::nullopt, cp_a, {});
  const auto w2 = witness_check(k, "demo", std::nullopt, cp_b, {});
  EXPECT_EQ(w1.outcome, witness_outcome::first);
  EXPECT_EQ(w2.outcome, witness_outcome::first);
  a.deal({"alice6", "bob6"});
  const auto grown = witness_check(k, "demo", cp_a, a.checkpoint(log_key(), 8), a.tree().consistency_proof(7, 8));
  EXPECT_EQ(grown.outcome, witness_outcome::grown) << grown.message;
  // Shown the other view, each refuses it.
  const auto x1 = witness_check(k, "demo", cp_a, cp_b, {});
  EXPECT_EQ(x1.outcome, witness_outcome::conflict);
  EXPECT_NE(x1.message.find("different roots"), std::string::npos) << x1.message;
  b.deal({"alice6", "bob6"});
  const auto x2 = witness_check(k, "demo", cp_a, b.checkpoint(log_key(), 8), b.tree().consistency_proof(7, 8));
  EXPECT_EQ(x2.outcome, witness_outcome::conflict) << x2.message;
  // The two signed checkpoints are evidence on their own.
  EXPECT_TRUE(mentions(check(a, {cp_a, cp_b}, {}), "both signed for size 7 with different roots"));
}

TEST(Transparency, WitnessRefusesRollbackAndTruncation) {
  const table_sim t = ten_record_table();
  const auto& k = log_key().verifier();
  const auto shrunk = witness_check(k, "demo", t.checkpoint(log_key(), 9), t.checkpoint(log_key(), 6), {});
  EXPECT_EQ(shrunk.outcome, witness_outcome::conflict);
  EXPECT_NE(shrunk.message.find("shrank from 9 to 6"), std::string::npos);
  EXPECT_EQ(witness_check(k, "demo", t.checkpoint(log_key(), 9), t.checkpoint(log_key(), 9), {}).outcome,
            witness_outcome::unchanged);
  // A larger checkpoint with a proof for other sizes, or none, is not accepted.
  EXPECT_EQ(witness_check(k, "demo", t.checkpoint(log_key(), 6), t.checkpoint(log_key(), 10), t.tree().consistency_proof(5, 10)).outcome,
            witness_outcome::conflict);
  // Extension lines (the same size and root, or a first checkpoint): never cosigned unchecked.
  tlog::checkpoint extended{log_key().verifier().name() + "/demo", 9, t.tree().root(9), {"cosign me"}};
  const auto with_lines = tlog::sign_note(tlog::note{tlog::checkpoint_text(extended), {}}, log_key());
  EXPECT_THROW((void)witness_check(k, "demo", t.checkpoint(log_key(), 9), with_lines, {}), std::invalid_argument);
  EXPECT_THROW((void)witness_check(k, "demo", std::nullopt, with_lines, {}), std::invalid_argument);
  // Not signed by the log key: nothing to accept and no evidence.
  const auto other = test_signer("fairdeckd.test", 8);
  EXPECT_THROW((void)witness_check(k, "demo", std::nullopt, t.checkpoint(other, 9), {}), std::invalid_argument);
}

TEST(Transparency, DealsMustHaveTheOpenRecordsSeatsAndShoe) {
  table_sim t;
  t.open(2);
  t.deal({"a", "b"});
  t.deal({"a", "b", "c"});  // a third seat the table never had
  ASSERT_TRUE(verify_log(t.log).ok);
  EXPECT_TRUE(mentions(check(t, {}, {}), "record 2: the deal has 3 seat seeds, the table was opened with 2 seats"));
  table_sim s;
  s.open(2);
  s.deal({"a", "b"}, deck_spec{2, 1});  // a two-deck shoe with a joker on a one-deck table
  ASSERT_TRUE(verify_log(s.log).ok);
  EXPECT_TRUE(mentions(check(s, {}, {}), "record 1: the deal's shoe (2 decks, 1 jokers) is not the table's"));
  // A hand's deal too: its seeds are revealed before it, so a shoe picked then grinds the cards.
  table_sim h;
  h.open(2);
  h.hand({"a", "b"});
  const record& ground = h.hand({"c", "d"}, deck_spec{2, 2});
  ASSERT_TRUE(verify_log(h.log).ok);
  EXPECT_TRUE(mentions(check(h, {}, {}), fmt::format("record {}: the deal's shoe (2 decks, 2 jokers) is not the table's",
                                                      ground.seq)))
      << all_problems(check(h, {}, {}));
  table_sim fine;
  fine.open(2);
  fine.hand({"a", "b"});
  const auto v = check(fine, {}, {});
  EXPECT_TRUE(v.ok && v.shoe_checked) << all_problems(v);
}

TEST(Transparency, AHandsDealReceiptVerifiesWithAndWithoutTheLog) {
  table_sim t;
  t.open(2);
  t.deal({"a", "b"});
  const record& d = t.hand({"c", "d"});
  const std::uint64_t size = t.log.size();
  const auto receipt = t.receipt(log_key(), d.seq, size);
  ASSERT_EQ(receipt["mode"], "hand");
  const auto with_log = check(t, {}, {receipt});
  EXPECT_TRUE(with_log.ok && with_log.receipts.at(0).in_log) << all_problems(with_log);
  const named_text r{"r1", receipt.dump()};
  const auto alone = verify_without_log(log_key().verifier(), {}, {&r, 1}, {});
  EXPECT_TRUE(alone.ok && alone.receipts.at(0).ok) << all_problems(alone);
}

TEST(Transparency, AReceiptIsOfItsCheckpointsTable) {
  // The operator proves table t1's deal inside a tree it signs for table t2: the t1 player's
  // receipt check must not pass while t1's own log never holds the deal.
  table_sim t1;
  t1.id = "t1";
  t1.open(2);
  t1.deal({"a", "b"});
  table_sim t2 = t1;
  t2.id = "t2";  // the same records (of table t1) in a tree signed as t2's
  const named_text r{"r1", t2.receipt(log_key(), 1, 2).dump()};
  const auto v = verify_without_log(log_key().verifier(), {}, {&r, 1}, {});
  EXPECT_FALSE(v.ok);
  EXPECT_TRUE(mentions(v, "the deal answer is of table 't1', its checkpoint of table 't2'")) << all_problems(v);
  const named_text honest{"r1", t1.receipt(log_key(), 1, 2).dump()};
  EXPECT_TRUE(verify_without_log(log_key().verifier(), {}, {&honest, 1}, {}).ok);
}

TEST(Transparency, CheckpointsMustBeSignedByTheLogKeyForThisTable) {
  const table_sim t = ten_record_table();
  const auto other = test_signer("fairdeckd.test", 9);
  EXPECT_TRUE(mentions(check(t, {t.checkpoint(other, 5)}, {}), "not signed by the log key"));
  table_sim elsewhere = t;
  elsewhere.id = "other";
  EXPECT_TRUE(mentions(check(t, {elsewhere.checkpoint(log_key(), 5)}, {}), "a checkpoint of 'fairdeckd.test/other'"));
  std::string edited = t.checkpoint(log_key(), 5);
  edited.replace(edited.find("\n5\n"), 3, "\n4\n");  // the size changed after signing
  EXPECT_TRUE(mentions(check(t, {edited}, {}), "signature does not verify"));
}

TEST(Transparency, ReceiptsMustHoldTogether) {
  const table_sim t = ten_record_table();
  auto r = t.receipt(log_key(), 3, 10);
  r["cards"] = t.log[4].cards;  // the answer shows other cards than the record it proves
  EXPECT_TRUE(mentions(check(t, {}, {r}), "do not hash to its record hash"));
  auto p = t.receipt(log_key(), 3, 10);
  p["receipt"]["inclusion"][0] = std::string(64, '0');
  EXPECT_TRUE(mentions(check(t, {}, {p}), "inclusion proof of record 3 does not verify"));
  auto s = t.receipt(log_key(), 3, 3 + 1);
  s["receipt"]["checkpoint"] = t.checkpoint(log_key(), 3);
  EXPECT_TRUE(mentions(check(t, {}, {s}), "does not contain record 3"));
  EXPECT_TRUE(mentions(check(t, {}, {nlohmann::json{{"seq", 1}}}), "missing 'hash'"));
}

// The other side of the contract: the worked example of docs/log-format.md on branch tlog-svc
// (fairdeckd's own signer and store, an independent implementation) opens and verifies here.
TEST(Transparency, TheServiceSidesWorkedExampleVerifies) {
  const tlog::note_verifier key = tlog::note_verifier::parse("casino.example/fairdeck+36279130+AXm1Vi6P5lT5QHixEuipi6eQH4U65pW+1+DjkQutBJZk");
  const std::string note =
      "casino.example/fairdeck/demo\n3\n8I4xKj930nbMbelBJhRmPoOdOhy3QUKZKV1WeKSrQF4=\n\n"
      "\xE2\x80\x94 casino.example/fairdeck NieRMHD0bpiYNk4nimrK92a/4ChErB8/Ww0RiNGSlNB13+9/KM58FzI/8fXVykTPBVgu1rokZBfQIDPOVlcLH2Bu7wg=\n";
  const signed_checkpoint cp = open_checkpoint(note, key, "demo");
  record_tree tree;
  for (const char* h : {"e00d4616051cce59f50090fafabb0d9b5172e50b72037a7a85c603b117257648",
                        "3dba37bb0871edefb95b6655128dbe1922522f17be0cd1089ef7dd45c9badcd1",
                        "55f3858e9bf30865a06984a61ea4e7c0f078549cd1106a11281ab39ff8cd7801"})
    tree.append(tlog::leaf_hash(*tlog::hash_from_hex(h)));
  EXPECT_EQ(cp.cp.size, 3u);
  EXPECT_EQ(tlog::to_hex(tree.root(3)), "f08e312a3f77d276cc6de9412614663e839d3a1cb7414299295d5678a4ab405e");
  EXPECT_EQ(tree.root(3), cp.cp.root);
  const auto proof = tree.inclusion_proof(0, 3);
  ASSERT_EQ(proof.size(), 2u);
  EXPECT_EQ(tlog::to_hex(proof[0]), "2a9ae6cea3c5305a8edaa8730929cc283d0198e811b245cacbc927228f1905e6");
  EXPECT_EQ(tlog::to_hex(proof[1]), "237ecc9cefae91e77353be0f08d8e792fbf81100edce9de63924dab2f3e12dc8");
  const auto receipt = receipt_from_json(nlohmann::json{
      {"seq", 0}, {"hash", "e00d4616051cce59f50090fafabb0d9b5172e50b72037a7a85c603b117257648"}, {"checkpoint", note},
      {"inclusion", {"2a9ae6cea3c5305a8edaa8730929cc283d0198e811b245cacbc927228f1905e6",
                     "237ecc9cefae91e77353be0f08d8e792fbf81100edce9de63924dab2f3e12dc8"}}});
  EXPECT_TRUE(tlog::verify_inclusion(0, 3, tlog::leaf_hash(*tlog::hash_from_hex(receipt.hash)), receipt.inclusion,
                                     cp.cp.root));
  const auto consistency = tree.consistency_proof(2, 3);
  ASSERT_EQ(consistency.size(), 1u);
  EXPECT_EQ(tlog::to_hex(consistency[0]), "237ecc9cefae91e77353be0f08d8e792fbf81100edce9de63924dab2f3e12dc8");
  EXPECT_THROW((void)open_checkpoint(note, key, "other"), std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck::service
