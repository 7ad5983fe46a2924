// The tables' transparency log (issue #29) on the SQLite store and through the API: the tree
// after N deals equals an independent recomputation (RFC 9162 §2.1.1 written out here over
// the records' hashes, not through tlog::frontier); receipts, inclusion and consistency proofs
// verify; the tree survives a reopen; an older store gets its log key and trees on open, and
// a schema-1 store's nodes are re-keyed (stored hash index) with the same proofs after; a
// database rolled back and re-dealt under the same nonces gives a checkpoint that is NOT
// consistent with a receipt's (verify_consistency fails); cosignatures are checked and served.
#include <bit>
#include <filesystem>
#include <fstream>
#include <future>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <sodium.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/service/store.hpp"
#include "service_test_support.hpp"
#include "sqlite_test_support.hpp"

namespace fairdeck::service {
namespace {

using tlog::hash;

// MTH over leaf hashes, straight from RFC 9162 §2.1.1.
hash mth(const std::vector<hash>& leaves, std::size_t b, std::size_t e) {
  if (e - b == 1) return leaves[b];
  std::size_t k = 1;
  while (k * 2 < e - b) k *= 2;
  return tlog::node_hash(mth(leaves, b, b + k), mth(leaves, b + k, e));
}

struct opened_checkpoint {
  tlog::checkpoint c;
  std::string text;
};

struct log_fixture : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    opts.log_name = "test.example/log";
    init_store(opts);
    s = open_store(opts);
  }
  tlog::note_verifier log_key() { return tlog::note_verifier::parse(log_verifier_key(*s).value()); }
  void open(const std::string& t, unsigned seats = 2) {
    ASSERT_EQ(s->execute(open_table{seats, {}, t}).code, outcome::ok);
    for (unsigned i = 1; i <= seats; ++i) {
      std::string seed = "player";
      seed += std::to_string(i);
      ASSERT_EQ(s->execute(set_client_seed{t, i, seed, std::nullopt}).code, outcome::ok);
    }
  }
  std::vector<hash> leaves(const std::string& t) {
    std::vector<hash> out;
    const auto records = s->log(t, std::nullopt, 1'000'000).value();
    for (const auto& r : records) out.push_back(record_leaf(r.hash));
    return out;
  }
  // Checks the log key's signature and parses.
  opened_checkpoint verified(std::string_view note_text) {
    const auto k = log_key();
    const auto o = tlog::open_note(note_text, std::span(&k, 1));
    EXPECT_EQ(o.verified.size(), 1u) << note_text;
    return {tlog::parse_checkpoint(o.text), o.text};
  }
  opened_checkpoint latest(const std::string& t) { return verified(checkpoint_with_cosignatures(*s, t).value()); }
  // Many deals submitted at once: group-committed in batches of several.
  std::vector<write_result> deal_many(const std::string& t, int n) {
    std::vector<std::promise<write_result>> ps(static_cast<std::size_t>(n));
    for (auto& p : ps) s->submit(deal{t, {}}, [&p](write_result r) { p.set_value(std::move(r)); });
    std::vector<write_result> out;
    for (auto& p : ps) out.push_back(p.get_future().get());
    return out;
  }
};

void expect_receipt(const write_result& r, const tlog::note_verifier& key) {
  ASSERT_EQ(r.code, outcome::ok) << r.error;
  const auto j = receipt_json(r);
  ASSERT_TRUE(j.is_object());
  EXPECT_EQ(j["seq"], r.rec->seq);
  EXPECT_EQ(j["hash"], r.rec->hash);
  const auto text = j["checkpoint"].get<std::string>();
  const auto o = tlog::open_note(text, std::span(&key, 1));
  ASSERT_EQ(o.verified.size(), 1u);
  const auto c = tlog::parse_checkpoint(o.text);
  EXPECT_GT(c.size, r.rec->seq);
  std::vector<hash> proof;
  for (const auto& h : j["inclusion"]) proof.push_back(tlog::hash_from_hex(h.get<std::string>()).value());
  EXPECT_TRUE(tlog::verify_inclusion(r.rec->seq, c.size, record_leaf(r.rec->hash), proof, c.root));
}

TEST_F(log_fixture, TreeAfterDealsEqualsAnIndependentRecomputation) {
  open("a");
  open("b", 3);
  for (int round = 0; round < 3; ++round) {
    (void)deal_many("a", 40);
    (void)deal_many("b", 7);
    ASSERT_EQ(s->execute(rotate{"a"}).code, outcome::ok);  // every record type is a leaf
  }
  for (const std::string t : {"a", "b"}) {
    const auto l = leaves(t);
    const auto c = latest(t);
    EXPECT_EQ(c.c.origin, "test.example/log/" + t);
    EXPECT_EQ(c.c.size, l.size());
    EXPECT_EQ(c.c.root, mth(l, 0, l.size())) << t;
    EXPECT_TRUE(c.c.extensions.empty());
    EXPECT_EQ(s->tree_head(t)->size, l.size());
  }
  EXPECT_EQ(latest("a").c.size, 1u + 3u * 41u);
}

TEST_F(log_fixture, EveryReceiptVerifiesIncludingDealsSharingABatch) {
  open("t");
  const auto key = log_key();
  const auto results = deal_many("t", 200);
  std::set<std::uint64_t> sizes;
  for (const auto& r : results) {
    expect_receipt(r, key);
    sizes.insert(tlog::parse_checkpoint(tlog::parse_note(receipt_json(r)["checkpoint"].get<std::string>()).text).size);
  }
  EXPECT_LT(sizes.size(), results.size()) << "no two deals shared a batch: the test did not test batching";
  expect_receipt(s->execute(deal{"t", {}}), key);
}

TEST_F(log_fixture, ProofsFromTheStoreVerifyAgainstTheRecomputedTree) {
  open("t");
  (void)deal_many("t", 70);
  const auto l = leaves("t");
  const std::uint64_t n = l.size();
  for (std::uint64_t size = 1; size <= n; ++size) {
    const hash root = mth(l, 0, size);
    EXPECT_EQ(stored_root(*s, "t", size), root);
    for (std::uint64_t seq = 0; seq < size; seq += 1 + size / 9) {
      const auto p = inclusion_proof(*s, "t", seq, size).value();
      EXPECT_TRUE(tlog::verify_inclusion(seq, size, l[seq], p, root)) << seq << " " << size;
      EXPECT_FALSE(tlog::verify_inclusion(seq, size, l[(seq + 1) % size], p, root) && size > 1);
    }
    for (std::uint64_t from = 0; from <= size; from += 1 + size / 7) {
      const auto p = consistency_proof(*s, "t", from, size).value();
      const hash old = from == 0 ? tlog::empty_root() : mth(l, 0, from);
      EXPECT_TRUE(tlog::verify_consistency(from, size, old, root, p)) << from << " " << size;
    }
  }
  EXPECT_THROW((void)inclusion_proof(*s, "t", 0, n + 1), std::out_of_range);
  EXPECT_THROW((void)inclusion_proof(*s, "t", 5, 5), std::out_of_range);
  EXPECT_THROW((void)consistency_proof(*s, "t", 3, 2), std::out_of_range);
  EXPECT_FALSE(inclusion_proof(*s, "nope", 0, 1).has_value());
}

TEST_F(log_fixture, ReopenKeepsTheTreeAndItsCheckpointsConsistent) {
  open("t");
  (void)deal_many("t", 30);
  const auto before = latest("t");
  s.reset();
  s = open_store(opts);
  EXPECT_EQ(latest("t").c, before.c);
  (void)deal_many("t", 30);
  const auto after = latest("t");
  const auto p = consistency_proof(*s, "t", before.c.size, after.c.size).value();
  EXPECT_TRUE(tlog::verify_consistency(before.c.size, after.c.size, before.c.root, after.c.root, p));
  const auto l = leaves("t");
  EXPECT_EQ(after.c.root, mth(l, 0, l.size()));
}

TEST_F(log_fixture, AStoreFromBeforeTheLogGetsItsKeyAndTreesOnOpen) {
  open("t");
  (void)deal_many("t", 50);
  s.reset();
  // What a store from before this change looks like: no log key, no tree tables.
  run_sql(opts.db, "DELETE FROM fairdeck_meta WHERE key = 'log_key'; DROP TABLE fairdeck_tree_heads; "
                   "DROP TABLE fairdeck_tree_nodes; DROP TABLE fairdeck_cosignatures; "
                   "UPDATE fairdeck_meta SET value = '1' WHERE key = 'schema'");
  s = open_store(opts);
  const auto key = log_key();
  EXPECT_TRUE(key.name().starts_with("fairdeckd.local-")) << key.name();
  const auto l = leaves("t");
  const auto c = latest("t");
  EXPECT_EQ(c.c.size, l.size());
  EXPECT_EQ(c.c.root, mth(l, 0, l.size()));
  expect_receipt(s->execute(deal{"t", {}}), key);  // and it goes on from there
  const auto p = inclusion_proof(*s, "t", 3, l.size()).value();
  EXPECT_TRUE(tlog::verify_inclusion(3, l.size(), l[3], p, c.c.root));
}

TEST_F(log_fixture, AStoreOfSchemaOneHasItsNodesReKeyedOnOpenAndProvesTheSame) {
  open("t");
  open("u");
  (void)deal_many("t", 300);
  (void)deal_many("u", 37);
  const auto t_before = latest("t"), u_before = latest("u");
  const std::uint64_t n = t_before.c.size;
  const std::vector<std::pair<std::uint64_t, std::uint64_t>> pairs = {{0, n}, {5, 6}, {77, 200}, {255, n}, {n - 1, n}};
  std::vector<std::vector<hash>> inclusions, consistencies;
  for (const auto& [a, b] : pairs) {
    inclusions.push_back(inclusion_proof(*s, "t", a, b).value());
    consistencies.push_back(consistency_proof(*s, "t", a, b).value());
  }
  const auto u_proof = inclusion_proof(*s, "u", 11, u_before.c.size).value();
  const std::string nodes = query_sql(opts.db, "SELECT count(*) FROM fairdeck_tree_nodes");
  s.reset();
  // The store as schema 1 kept it: every complete subtree of level >= 1 keyed (level, idx).
  std::string sql =
      "BEGIN; CREATE TABLE old(table_id TEXT NOT NULL, level INTEGER NOT NULL, idx INTEGER NOT NULL, hash BLOB NOT "
      "NULL, PRIMARY KEY(table_id, level, idx)) WITHOUT ROWID;";
  for (const auto& [table, size] : {std::pair{"t", n}, std::pair{"u", u_before.c.size}})
    for (unsigned level = 1; (size >> level) > 0; ++level)
      for (std::uint64_t i = 0; i < (size >> level); ++i)
        sql += fmt::format(" INSERT INTO old SELECT table_id, {}, {}, hash FROM fairdeck_tree_nodes WHERE table_id = '{}' "
                           "AND pos = {};",
                           level, i, table, tlog::stored_hash_index(level, i));
  sql += " DROP TABLE fairdeck_tree_nodes; ALTER TABLE old RENAME TO fairdeck_tree_nodes; "
         "UPDATE fairdeck_meta SET value = '1' WHERE key = 'schema'; COMMIT;";
  run_sql(opts.db, sql);
  ASSERT_EQ(query_sql(opts.db, "SELECT count(*) FROM fairdeck_tree_nodes"), nodes);  // every node, once
  ASSERT_EQ(query_sql(opts.db, "SELECT count(*) FROM fairdeck_tree_nodes WHERE level = 3 AND table_id = 't'"),
            std::to_string(n / 8));

  s = open_store(opts);
  EXPECT_EQ(query_sql(opts.db, "SELECT value FROM fairdeck_meta WHERE key = 'schema'"), "2");
  EXPECT_EQ(query_sql(opts.db, "SELECT count(*) FROM fairdeck_tree_nodes"), nodes);
  EXPECT_EQ(query_sql(opts.db, "SELECT count(*) FROM sqlite_master WHERE name LIKE '%schema1%'"), "0");
  std::uint64_t last = 0;  // the position of the newest node: the highest of each level's last
  for (unsigned level = 1; (n >> level) > 0; ++level) last = std::max(last, tlog::stored_hash_index(level, (n >> level) - 1));
  EXPECT_EQ(query_sql(opts.db, "SELECT max(pos) FROM fairdeck_tree_nodes WHERE table_id = 't'"), std::to_string(last));
  EXPECT_GE(last + 2, 2 * n - static_cast<std::uint64_t>(std::popcount(n)));  // and it is near the end
  EXPECT_EQ(latest("t").c, t_before.c);
  for (std::size_t k = 0; k < pairs.size(); ++k) {
    EXPECT_EQ(inclusion_proof(*s, "t", pairs[k].first, pairs[k].second).value(), inclusions[k]) << k;
    EXPECT_EQ(consistency_proof(*s, "t", pairs[k].first, pairs[k].second).value(), consistencies[k]) << k;
  }
  EXPECT_EQ(inclusion_proof(*s, "u", 11, u_before.c.size).value(), u_proof);
  // And it goes on: new nodes under the new key, old and new proving together.
  (void)deal_many("t", 45);
  const auto after = latest("t");
  const auto l = leaves("t");
  EXPECT_EQ(after.c.root, mth(l, 0, l.size()));
  EXPECT_TRUE(tlog::verify_consistency(n, after.c.size, t_before.c.root, after.c.root,
                                       consistency_proof(*s, "t", n, after.c.size).value()));
  for (const std::uint64_t i : {0ull, 150ull, 299ull, 300ull, 344ull})
    EXPECT_TRUE(tlog::verify_inclusion(i, after.c.size, l[i], inclusion_proof(*s, "t", i, after.c.size).value(),
                                       after.c.root)) << i;
  s.reset();
  s = open_store(opts);  // opening an up-to-date store changes nothing
  EXPECT_EQ(latest("t").c, after.c);
}

TEST_F(log_fixture, AStoreOfAnUnknownSchemaIsRefusedUntouched) {
  s.reset();
  run_sql(opts.db, "UPDATE fairdeck_meta SET value = '3' WHERE key = 'schema'");
  try {
    s = open_store(opts);
    ADD_FAILURE() << "opened";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("schema \"3\"; this fairdeckd reads schemas 1 and 2"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(query_sql(opts.db, "SELECT value FROM fairdeck_meta WHERE key = 'schema'"), "3");
  EXPECT_EQ(query_sql(opts.db, "SELECT count(*) FROM pragma_table_info('fairdeck_tree_nodes') WHERE name = 'pos'"), "1");
}

TEST_F(log_fixture, ARollbackAndReDealIsNotConsistentWithAnEarlierReceipt) {
  open("t");
  (void)deal_many("t", 5);
  s.reset();  // the last connection checkpoints the WAL into the file
  const auto copy = dir.path / "copy.db";
  std::filesystem::copy_file(opts.db, copy);
  s = open_store(opts);
  std::vector<write_result> kept;
  for (int i = 0; i < 3; ++i) kept.push_back(s->execute(deal{"t", {}}));
  const auto receipt = receipt_json(kept.back());
  const auto player = verified(receipt["checkpoint"].get<std::string>());
  const std::uint64_t nonce = kept.front().rec->nonce;
  s.reset();
  // Someone with write access to the database restores the older copy and re-deals the same
  // nonces with other seeds (other cards).
  std::filesystem::copy_file(copy, opts.db, std::filesystem::copy_options::overwrite_existing);
  std::filesystem::remove(opts.db + "-wal");
  s = open_store(opts);
  ASSERT_EQ(s->execute(set_client_seed{"t", 1, "another", std::nullopt}).code, outcome::ok);
  std::vector<write_result> redealt;
  for (int i = 0; i < 4; ++i) redealt.push_back(s->execute(deal{"t", {}}));
  EXPECT_EQ(redealt.front().rec->nonce, nonce);  // the same nonces, dealt again
  const auto now = latest("t");
  ASSERT_GE(now.c.size, player.c.size);
  // The log's own consistency proof cannot connect the player's checkpoint to today's...
  const auto p = consistency_proof(*s, "t", player.c.size, now.c.size).value();
  EXPECT_FALSE(tlog::verify_consistency(player.c.size, now.c.size, player.c.root, now.c.root, p));
  // ... and the player's deal is not in today's tree.
  const auto incl = inclusion_proof(*s, "t", kept.back().rec->seq, now.c.size).value();
  EXPECT_FALSE(tlog::verify_inclusion(kept.back().rec->seq, now.c.size, record_leaf(kept.back().rec->hash), incl, now.c.root));
  // The new tree is itself consistent (the forgery is internally sound; only the receipt catches it).
  const auto l = leaves("t");
  EXPECT_EQ(now.c.root, mth(l, 0, l.size()));
}

// ---- through the API ----

struct log_api_fixture : log_fixture {
  std::unique_ptr<api> handler;
  std::string token;
  tlog::note_signer witness = tlog::note_signer::generate("witness.example", tlog::key_type::cosignature_v1);
  tlog::note_signer stranger = tlog::note_signer::generate("stranger.example", tlog::key_type::cosignature_v1);
  void SetUp() override {
    log_fixture::SetUp();
    token = generate_token();
    s->add_token_hash(token_hash(token));
    api_options o;
    o.witness_keys.push_back(witness.verifier());
    handler = std::make_unique<api>(*s, o);
  }
  http_response call(std::string_view method, std::string_view target, std::string_view body = "") {
    return call_api(*handler, token, method, target, body);
  }
};

TEST_F(log_api_fixture, RoutesAnswerPerTheContract) {
  const auto k = call("GET", "/v1/log-key");
  EXPECT_EQ(k.status, 200u);
  EXPECT_EQ(k.body, log_verifier_key(*s).value() + "\n");
  EXPECT_TRUE(k.content_type.starts_with("text/plain"));
  ASSERT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "table": "demo"})").status, 201u);
  ASSERT_EQ(call("PUT", "/v1/tables/demo/seats/1/client-seed", R"({"client_seed": "a"})").status, 200u);
  ASSERT_EQ(call("PUT", "/v1/tables/demo/seats/2/client-seed", R"({"client_seed": "b"})").status, 200u);
  nlohmann::json last;
  for (int i = 0; i < 6; ++i) {
    const auto d = call("POST", "/v1/tables/demo/deals", R"({"game": "holdem"})");
    ASSERT_EQ(d.status, 200u) << d.body;
    last = nlohmann::json::parse(d.body);
  }
  ASSERT_TRUE(last.contains("receipt"));
  EXPECT_EQ(last["receipt"]["seq"], last["seq"]);
  EXPECT_EQ(last["receipt"]["hash"], last["hash"]);
  const auto cp = call("GET", "/v1/tables/demo/checkpoint");
  EXPECT_EQ(cp.status, 200u);
  EXPECT_TRUE(cp.content_type.starts_with("text/plain"));
  EXPECT_EQ(cp.body, last["receipt"]["checkpoint"]);
  const auto c = verified(cp.body).c;
  EXPECT_EQ(c.size, 7u);

  const auto incl = call("GET", "/v1/tables/demo/proof/inclusion?seq=2&size=7");
  ASSERT_EQ(incl.status, 200u) << incl.body;
  const auto ij = nlohmann::json::parse(incl.body);
  EXPECT_EQ(ij["seq"], 2);
  EXPECT_EQ(ij["tree_size"], 7);
  std::vector<hash> proof;
  for (const auto& h : ij["hashes"]) proof.push_back(tlog::hash_from_hex(h.get<std::string>()).value());
  EXPECT_TRUE(tlog::verify_inclusion(2, 7, leaves("demo")[2], proof, c.root));
  const auto cons = call("GET", "/v1/tables/demo/proof/consistency?from=3&to=7");
  ASSERT_EQ(cons.status, 200u);
  const auto cj = nlohmann::json::parse(cons.body);
  EXPECT_EQ(cj["from"], 3);
  EXPECT_EQ(cj["to"], 7);
  std::vector<hash> cproof;
  for (const auto& h : cj["hashes"]) cproof.push_back(tlog::hash_from_hex(h.get<std::string>()).value());
  const auto l = leaves("demo");
  EXPECT_TRUE(tlog::verify_consistency(3, 7, mth(l, 0, 3), c.root, cproof));

  for (const char* bad : {"/v1/tables/demo/proof/inclusion?seq=2", "/v1/tables/demo/proof/inclusion?seq=7&size=7",
                          "/v1/tables/demo/proof/inclusion?seq=0&size=8", "/v1/tables/demo/proof/inclusion?seq=-1&size=3",
                          "/v1/tables/demo/proof/inclusion?seq=01&size=3", "/v1/tables/demo/proof/inclusion?seq=0&size=0",
                          "/v1/tables/demo/proof/consistency?from=4&to=3", "/v1/tables/demo/proof/consistency?from=1&to=8",
                          "/v1/tables/demo/proof/consistency?from=x&to=3",
                          "/v1/tables/demo/proof/consistency?from=1&to=99999999999999999999"})
    EXPECT_EQ(call("GET", bad).status, 400u) << bad;
  EXPECT_EQ(call("GET", "/v1/tables/nope/proof/inclusion?seq=0&size=1").status, 404u);
  EXPECT_EQ(call("GET", "/v1/tables/nope/proof/consistency?from=0&to=1").status, 404u);
  EXPECT_EQ(call("GET", "/v1/tables/nope/checkpoint").status, 404u);
  EXPECT_EQ(call("POST", "/v1/tables/demo/checkpoint").status, 405u);
}

TEST_F(log_api_fixture, CosignaturesAreCheckedKeptAndServedOnTheirCheckpoint) {
  open("demo", 1);
  (void)deal_many("demo", 3);
  const std::string cp = checkpoint_with_cosignatures(*s, "demo").value();
  const auto n = tlog::parse_note(cp);
  const auto cosigned = [&](const tlog::note_signer& w, std::string base) {
    return base + tlog::signature_line(w.cosign(n.text, 1'700'000'000));
  };
  // A known witness: kept, and served on that checkpoint.
  const auto ok = call("POST", "/v1/tables/demo/checkpoint/cosignatures", cosigned(witness, cp));
  ASSERT_EQ(ok.status, 200u) << ok.body;
  EXPECT_TRUE(ok.body.starts_with("— witness.example ")) << ok.body;
  const auto served = call("GET", "/v1/tables/demo/checkpoint");
  EXPECT_EQ(served.body, cp + ok.body);
  const auto w = witness.verifier();
  const auto opened = tlog::open_note(served.body, std::span(&w, 1));
  ASSERT_EQ(opened.cosigned_at.size(), 1u);
  EXPECT_EQ(opened.cosigned_at[0], 1'700'000'000u);
  // An unknown witness: 403. Garbage: 400.
  EXPECT_EQ(call("POST", "/v1/tables/demo/checkpoint/cosignatures", cosigned(stranger, cp)).status, 403u);
  EXPECT_EQ(call("POST", "/v1/tables/demo/checkpoint/cosignatures", "hello").status, 400u);
  // A checkpoint this log never signed (another root, signed by someone else): 409.
  tlog::checkpoint forged = tlog::parse_checkpoint(n.text);
  forged.root[0] ^= 1;
  const auto other_log = tlog::note_signer::generate("test.example/log");
  const std::string forged_note = tlog::sign_note(tlog::note{tlog::checkpoint_text(forged), {}}, other_log);
  const auto fn = tlog::parse_note(forged_note);
  EXPECT_EQ(call("POST", "/v1/tables/demo/checkpoint/cosignatures",
                 forged_note + tlog::signature_line(witness.cosign(fn.text, 1)))
                .status,
            409u);
  // Our checkpoint of table demo posted to another table: 409; to no table: 404.
  open("other", 1);
  EXPECT_EQ(call("POST", "/v1/tables/other/checkpoint/cosignatures", cosigned(witness, cp)).status, 409u);
  EXPECT_EQ(call("POST", "/v1/tables/nope/checkpoint/cosignatures", cosigned(witness, cp)).status, 404u);
  // Once the table moves on, the latest checkpoint carries no old cosignature.
  (void)s->execute(deal{"demo", {}});
  const auto moved = call("GET", "/v1/tables/demo/checkpoint");
  EXPECT_EQ(moved.body.find("witness.example"), std::string::npos);
  // The cosignatures survive a restart.
  handler.reset();
  s.reset();
  s = open_store(opts);
  // (the witness's line and the log's own, kept to serve the checkpoint whole: GET .../checkpoint/cosigned)
  EXPECT_EQ(s->cosignatures("demo", tlog::parse_checkpoint(n.text).size, tlog::parse_checkpoint(n.text).root).size(), 2u);
  EXPECT_EQ(cosigned_checkpoint(*s, "demo", log_key()).value(), cosigned(witness, cp));
}

}  // namespace
}  // namespace fairdeck::service

namespace fairdeck::service {
namespace {

// docs/log-format.md's worked example of the transparency log, reproduced: three record
// hashes (SHA-256 of "record 0", "record 1", "record 2"), their tree, a proof of each kind
// and the checkpoint signed by a log key made from a fixed seed (Ed25519 is deterministic).
std::string worked_example() {
  std::vector<hash> leaves;
  std::string out = "record hashes and leaf hashes (leaf = SHA-256(0x00 || raw record hash)):\n";
  for (int i = 0; i < 3; ++i) {
    const std::string text = "record " + std::to_string(i);
    hash rec{};
    crypto_hash_sha256(rec.data(), reinterpret_cast<const unsigned char*>(text.data()), text.size());
    leaves.push_back(tlog::leaf_hash(rec));
    out += fmt::format("  seq {}: hash {}\n         leaf {}\n", i, tlog::to_hex(rec), tlog::to_hex(leaves.back()));
  }
  const hash n01 = tlog::node_hash(leaves[0], leaves[1]);
  const hash root = tlog::node_hash(n01, leaves[2]);
  out += fmt::format("node (level 1, index 0) = SHA-256(0x01 || leaf0 || leaf1) = {}\n", tlog::to_hex(n01));
  out += fmt::format("root of size 3 = SHA-256(0x01 || node(1,0) || leaf2)    = {}\n", tlog::to_hex(root));
  out += fmt::format("root of size 2 = node (1, 0)\n");
  std::array<std::uint8_t, 32> seed{};
  for (std::size_t i = 0; i < seed.size(); ++i) seed[i] = static_cast<std::uint8_t>(i + 1);
  const tlog::note_signer signer("casino.example/fairdeck", tlog::key_type::ed25519, seed);
  out += fmt::format("log key (seed 01 02 .. 20): {}\n", signer.verifier().text());
  out += "GET /v1/tables/demo/checkpoint:\n" + sign_checkpoint(signer, "demo", 3, root);
  const tlog::node_source nodes = [&](unsigned level, std::uint64_t index) { return level == 0 ? leaves[index] : n01; };
  std::string incl, cons;
  for (const auto& h : tlog::inclusion_proof(0, 3, nodes)) incl += (incl.empty() ? "\"" : ",\"") + tlog::to_hex(h) + "\"";
  for (const auto& h : tlog::consistency_proof(2, 3, nodes)) cons += (cons.empty() ? "\"" : ",\"") + tlog::to_hex(h) + "\"";
  out += fmt::format("GET /v1/tables/demo/proof/inclusion?seq=0&size=3:\n{{\"hashes\":[{}],\"seq\":0,\"tree_size\":3}}\n", incl);
  out += fmt::format("GET /v1/tables/demo/proof/consistency?from=2&to=3:\n{{\"from\":2,\"hashes\":[{}],\"to\":3}}\n", cons);
  EXPECT_TRUE(tlog::verify_inclusion(0, 3, leaves[0], tlog::inclusion_proof(0, 3, nodes), root));
  EXPECT_TRUE(tlog::verify_consistency(2, 3, n01, root, tlog::consistency_proof(2, 3, nodes)));
  return out;
}

TEST(LogFormatDoc, TheWorkedExampleIsReproduced) {
  std::ifstream in(FAIRDECK_SOURCE_DIR "/docs/log-format.md");
  std::stringstream doc;
  doc << in.rdbuf();
  const std::string example = worked_example();
  EXPECT_NE(doc.str().find(example), std::string::npos) << "docs/log-format.md should contain:\n" << example;
}

}  // namespace
}  // namespace fairdeck::service
