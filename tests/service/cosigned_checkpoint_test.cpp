// GET /v1/tables/{t}/checkpoint/cosigned (docs/transparency.md "A player's receipt and a
// witnessed checkpoint"): the newest checkpoint witnesses cosigned stays retrievable, whole and
// signed, after new checkpoints replaced it as the latest; a player's later receipt is linked
// to it by a consistency proof without the log (service::verify_without_log), and a proof that
// does not link them is caught.
#include <algorithm>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/service/store.hpp"
#include "fairdeck/service/transparency.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

struct cosigned_api : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  std::unique_ptr<api> handler;
  std::string token;
  tlog::note_signer witness = tlog::note_signer::generate("witness.example", tlog::key_type::cosignature_v1);
  tlog::note_signer regulator = tlog::note_signer::generate("regulator.example", tlog::key_type::cosignature_v1);
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    opts.log_name = "casino.example/log";
    init_store(opts);
    s = open_store(opts);
    token = generate_token();
    s->add_token_hash(token_hash(token));
    api_options o;
    o.witness_keys = {witness.verifier(), regulator.verifier()};
    handler = std::make_unique<api>(*s, o);
  }
  tlog::note_verifier log_key() { return tlog::note_verifier::parse(log_verifier_key(*s).value()); }
  http_response call(std::string_view method, std::string_view target, std::string_view body = "") {
    return call_api(*handler, token, method, target, body);
  }
  void open_demo() {
    ASSERT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "table": "demo"})").status, 201u);
    ASSERT_EQ(call("PUT", "/v1/tables/demo/seats/1/client-seed", R"({"client_seed": "a"})").status, 200u);
    ASSERT_EQ(call("PUT", "/v1/tables/demo/seats/2/client-seed", R"({"client_seed": "b"})").status, 200u);
  }
  std::string deal() {
    const auto d = call("POST", "/v1/tables/demo/deals", R"({"game": "holdem"})");
    EXPECT_EQ(d.status, 200u) << d.body;
    return d.body;
  }
  // The latest checkpoint, cosigned by `w` and posted; returns what GET .../checkpoint served then.
  std::string cosign_latest(const tlog::note_signer& w) {
    const std::string cp = call("GET", "/v1/tables/demo/checkpoint").body;
    const auto n = tlog::parse_note(cp);
    const auto posted = call("POST", "/v1/tables/demo/checkpoint/cosignatures",
                             cp + tlog::signature_line(w.cosign(n.text, 1'700'000'000)));
    EXPECT_EQ(posted.status, 200u) << posted.body;
    return call("GET", "/v1/tables/demo/checkpoint").body;
  }
};

std::uint64_t size_of(const std::string& note) { return tlog::parse_checkpoint(tlog::parse_note(note).text).size; }

TEST_F(cosigned_api, TheCosignedCheckpointOutlivesNewerOnesAndLinksALaterReceipt) {
  open_demo();
  const auto none = call("GET", "/v1/tables/demo/checkpoint/cosigned");
  EXPECT_EQ(none.status, 404u);
  EXPECT_EQ(nlohmann::json::parse(none.body)["error"], "no checkpoint of table 'demo' is cosigned yet");
  EXPECT_EQ(call("GET", "/v1/tables/nope/checkpoint/cosigned").status, 404u);
  for (int i = 0; i < 5; ++i) (void)deal();

  const std::string witnessed = cosign_latest(witness);  // the checkpoint and its cosignature line
  ASSERT_NE(witnessed.find("— witness.example "), std::string::npos) << witnessed;
  EXPECT_EQ(call("GET", "/v1/tables/demo/checkpoint/cosigned").body, witnessed);

  // 100 more deals, one commit each: a new checkpoint every time, none cosigned.
  std::string later;
  for (int i = 0; i < 100; ++i) later = deal();
  const std::string latest = call("GET", "/v1/tables/demo/checkpoint").body;
  EXPECT_EQ(latest.find("witness.example"), std::string::npos);
  EXPECT_EQ(size_of(latest), size_of(witnessed) + 100);
  const auto served = call("GET", "/v1/tables/demo/checkpoint/cosigned");
  ASSERT_EQ(served.status, 200u) << served.body;
  EXPECT_TRUE(served.content_type.starts_with("text/plain"));
  EXPECT_EQ(served.body, witnessed);  // byte for byte: the log's signature and the cosignature
  const std::vector<tlog::note_verifier> keys{log_key(), witness.verifier()};
  const auto opened = tlog::open_note(served.body, keys);
  EXPECT_EQ(opened.verified.size(), 2u);
  EXPECT_TRUE(opened.unverified.empty());

  // The player: a receipt of a later deal, the cosigned checkpoint, the proof between them.
  const std::uint64_t from = size_of(witnessed),
                      to = size_of(nlohmann::json::parse(later)["receipt"]["checkpoint"].get<std::string>());
  ASSERT_GT(to, from);
  const auto proof = call("GET",
                          fmt::format("/v1/tables/demo/proof/consistency?from={}&to={}&encoding=base64", from, to));
  ASSERT_EQ(proof.status, 200u);
  const std::vector<named_text> cps{{"cosigned", served.body}}, receipts{{"later", later}}, proofs{{"p", proof.body}};
  const auto v = verify_without_log(log_key(), cps, receipts, proofs);
  EXPECT_TRUE(v.ok) << (v.problems.empty() ? "" : v.problems.front());
  EXPECT_FALSE(v.log_given);
  EXPECT_EQ(v.table, "demo");
  EXPECT_TRUE(v.consistency_proved);
  ASSERT_EQ(v.proofs.size(), 1u);
  EXPECT_TRUE(v.proofs[0].ok);
  ASSERT_EQ(v.receipts.size(), 1u);
  EXPECT_TRUE(v.receipts[0].ok);
  // Without the proof the link is not claimed; with a proof for other sizes or altered, it fails.
  const auto unlinked = verify_without_log(log_key(), cps, receipts, {});
  EXPECT_TRUE(unlinked.ok);
  EXPECT_FALSE(unlinked.consistency_proved);
  EXPECT_NE(std::find_if(unlinked.skipped.begin(), unlinked.skipped.end(),
                         [](const std::string& x) { return x.starts_with("consistency between checkpoints"); }),
            unlinked.skipped.end());
  auto altered = nlohmann::json::parse(proof.body);
  altered["hashes"][0] = tlog::to_base64(tlog::hash{});
  const std::vector<named_text> bad{{"altered", altered.dump()}};
  const auto caught = verify_without_log(log_key(), cps, receipts, bad);
  EXPECT_FALSE(caught.ok);
  EXPECT_NE(caught.problems.front().find("rewritten or forked"), std::string::npos) << caught.problems.front();
  const auto other = call("GET", fmt::format("/v1/tables/demo/proof/consistency?from={}&to={}", from - 1, to));
  const std::vector<named_text> mismatched{{"other", other.body}};
  EXPECT_FALSE(verify_without_log(log_key(), cps, receipts, mismatched).ok);

  // A second witness on a newer checkpoint: that one is served now, with its line only.
  const std::string newer = cosign_latest(regulator);
  EXPECT_EQ(call("GET", "/v1/tables/demo/checkpoint/cosigned").body, newer);
  EXPECT_NE(newer.find("— regulator.example "), std::string::npos);
  // Both witnesses on one checkpoint: both lines.
  (void)deal();
  (void)cosign_latest(witness);
  const std::string both = cosign_latest(regulator);
  const auto both_served = call("GET", "/v1/tables/demo/checkpoint/cosigned").body;
  EXPECT_EQ(both_served, both);
  const std::vector<tlog::note_verifier> all{log_key(), witness.verifier(), regulator.verifier()};
  EXPECT_EQ(tlog::open_note(both_served, all).verified.size(), 3u);
  // The latest checkpoint carries the log's signature once, not again as a "cosignature".
  EXPECT_EQ(tlog::parse_note(both).signatures.size(), 3u);
}

TEST_F(cosigned_api, AWithoutLogCheckNeedsSomethingToCheckAndKeepsTheOtherRules) {
  open_demo();
  const std::string d = deal();
  const auto key = log_key();
  EXPECT_FALSE(verify_without_log(key, {}, {}, {}).ok);
  // A receipt alone: its inclusion in its signed checkpoint.
  const std::vector<named_text> receipts{{"d", d}};
  const auto alone = verify_without_log(key, {}, receipts, {});
  EXPECT_TRUE(alone.ok) << alone.problems.front();
  // A checkpoint signed by another key is refused without the log too.
  auto forged = tlog::parse_checkpoint(
      tlog::parse_note(nlohmann::json::parse(d)["receipt"]["checkpoint"].get<std::string>()).text);
  forged.root[0] ^= 1;
  const auto other_log = tlog::note_signer::generate("casino.example/log");
  const std::vector<named_text> not_signed{
      named_text{"x", tlog::sign_note(tlog::note{tlog::checkpoint_text(forged), {}}, other_log)}};
  EXPECT_FALSE(verify_without_log(key, not_signed, receipts, {}).ok);
  // A proof that names sizes no checkpoint has.
  const std::vector<named_text> stray{{"p", R"({"from": 1, "to": 2, "hashes": []})"}};
  const auto r = verify_without_log(key, {}, receipts, stray);
  EXPECT_FALSE(r.ok);
  EXPECT_NE(r.problems.front().find("no signed checkpoint of size"), std::string::npos) << r.problems.front();
}

}  // namespace
}  // namespace fairdeck::service
