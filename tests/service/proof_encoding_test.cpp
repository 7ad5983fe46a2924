// The proofs' encodings (docs/log-format.md "Proof encodings"): GET .../proof/inclusion and
// .../proof/consistency answer JSON with hex hashes (the contract, by default), JSON with base64
// hashes (?encoding=base64) and the raw hashes (?encoding=binary or Accept:
// application/octet-stream, the sizes in Fairdeck-* headers). Every encoding of every proof of
// a real table decodes to the same hashes, which verify; an answer's size is a function of the
// proof's length only, so the sizes at a million records follow from the real proof lengths
// there (every seq and every `from` swept): the raw form is under 1 KB.
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

using tlog::hash;

struct proof_api : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  std::unique_ptr<api> handler;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    s = open_store(opts);
    handler = std::make_unique<api>(*s);
  }
  http_response get(std::string_view target, std::string_view accept = {}) {
    http_request req{"GET", target, {}, {}, "c1", {}, {}};
    req.accept = accept;
    return handle_now(*handler, req);
  }
  // A table of `records` records (open + deals), committed.
  void table(const std::string& t, std::uint64_t records) {
    ASSERT_EQ(s->execute(open_table{1, {}, t}).code, outcome::ok);
    ASSERT_EQ(s->execute(set_client_seed{t, 1, "p", std::nullopt}).code, outcome::ok);
    for (std::uint64_t i = 1; i < records; ++i) ASSERT_EQ(s->execute(deal{t, {}}).code, outcome::ok);
  }
};

std::string header(const http_response& r, std::string_view name) {
  for (const auto& [k, v] : r.headers)
    if (k == name) return v;
  return "";
}

// The size of a JSON proof answer with `k` hashes of `hash_chars` characters each: what the
// route writes (nlohmann's compact dump, keys in order, a final newline).
std::size_t json_size(std::string_view first, std::uint64_t a, std::string_view second, std::uint64_t b, std::size_t k,
                      std::size_t hash_chars) {
  nlohmann::json hashes = nlohmann::json::array();
  for (std::size_t i = 0; i < k; ++i) hashes.push_back(std::string(hash_chars, 'x'));
  return nlohmann::json{{std::string(first), a}, {std::string(second), b}, {"hashes", hashes}}.dump().size() + 1;
}

TEST_F(proof_api, EveryEncodingOfEveryProofDecodesToTheSameVerifiedHashes) {
  table("demo", 23);
  const auto head = s->tree_head("demo").value();
  ASSERT_EQ(head.size, 23u);
  const auto root_of = [&](std::uint64_t size) { return stored_root(*s, "demo", size); };
  std::vector<hash> leaves;
  const auto records = s->log("demo", std::nullopt, 100).value();
  for (const auto& r : records) leaves.push_back(record_leaf(r.hash));
  for (std::uint64_t size = 1; size <= 23; ++size)
    for (std::uint64_t seq = 0; seq < size; ++seq) {
      const std::string q = fmt::format("/v1/tables/demo/proof/inclusion?seq={}&size={}", seq, size);
      const auto hex = get(q), b64 = get(q + "&encoding=base64"), raw = get(q + "&encoding=binary"),
                 acc = get(q, "application/octet-stream"), named_hex = get(q + "&encoding=hex");
      ASSERT_EQ(hex.status, 200u) << hex.body;
      ASSERT_EQ(b64.status, 200u) << b64.body;
      ASSERT_EQ(raw.status, 200u) << raw.body;
      EXPECT_EQ(named_hex.body, hex.body);
      EXPECT_EQ(hex.content_type, "application/json");
      EXPECT_EQ(raw.content_type, "application/octet-stream");
      EXPECT_EQ(acc.body, raw.body);
      EXPECT_EQ(acc.content_type, "application/octet-stream");
      const auto p = proof_from_json(nlohmann::json::parse(hex.body), "seq", "tree_size");
      const auto p64 = proof_from_json(nlohmann::json::parse(b64.body), "seq", "tree_size");
      EXPECT_EQ(p.first, seq);
      EXPECT_EQ(p.second, size);
      EXPECT_EQ(p64.first, seq);
      EXPECT_EQ(p64.hashes, p.hashes);
      EXPECT_EQ(tlog::proof_from_bytes(raw.body).value(), p.hashes);
      EXPECT_EQ(header(raw, "Fairdeck-Seq"), std::to_string(seq));
      EXPECT_EQ(header(raw, "Fairdeck-Tree-Size"), std::to_string(size));
      EXPECT_TRUE(tlog::verify_inclusion(seq, size, leaves[seq], p.hashes, root_of(size)));
      // The sizes are a function of the proof's length alone.
      EXPECT_EQ(hex.body.size(), json_size("seq", seq, "tree_size", size, p.hashes.size(), 64));
      EXPECT_EQ(b64.body.size(), json_size("seq", seq, "tree_size", size, p.hashes.size(), 44));
      EXPECT_EQ(raw.body.size(), 32 * p.hashes.size());
      EXPECT_EQ(header(hex, "Cache-Control"), "public, max-age=31536000, immutable");
    }
  for (std::uint64_t to = 1; to <= 23; ++to)
    for (std::uint64_t from = 0; from <= to; ++from) {
      const std::string q = fmt::format("/v1/tables/demo/proof/consistency?from={}&to={}", from, to);
      const auto hex = get(q), b64 = get(q + "&encoding=base64"), raw = get(q, "application/octet-stream");
      ASSERT_EQ(hex.status, 200u) << hex.body;
      const auto p = proof_from_json(nlohmann::json::parse(hex.body), "from", "to");
      EXPECT_EQ(proof_from_json(nlohmann::json::parse(b64.body), "from", "to").hashes, p.hashes);
      EXPECT_EQ(tlog::proof_from_bytes(raw.body).value(), p.hashes);
      EXPECT_EQ(header(raw, "Fairdeck-From"), std::to_string(from));
      EXPECT_EQ(header(raw, "Fairdeck-To"), std::to_string(to));
      EXPECT_TRUE(tlog::verify_consistency(from, to, from ? root_of(from) : tlog::empty_root(), root_of(to), p.hashes));
      EXPECT_EQ(b64.body.size(), json_size("from", from, "to", to, p.hashes.size(), 44));
      EXPECT_EQ(raw.body.size(), 32 * p.hashes.size());
    }
}

TEST_F(proof_api, AcceptNegotiatesOnlyWhatItMustAndABadEncodingIsA400) {
  table("demo", 5);
  const std::string q = "/v1/tables/demo/proof/inclusion?seq=1&size=5";
  for (const char* json_accept :
       {"", "*/*", "application/json", "application/json, application/octet-stream", "application/octet-stream;q=0",
        "application/octet-stream; q=0.000, */*", "text/html,application/xhtml+xml,*/*;q=0.8"})
    EXPECT_EQ(get(q, json_accept).content_type, "application/json") << json_accept;
  for (const char* raw_accept : {"application/octet-stream", "Application/Octet-Stream",
                                 "text/plain, application/octet-stream;q=0.5", "application/octet-stream;q=0.01"})
    EXPECT_EQ(get(q, raw_accept).content_type, "application/octet-stream") << raw_accept;
  // The query wins over Accept.
  EXPECT_EQ(get(q + "&encoding=hex", "application/octet-stream").content_type, "application/json");
  for (const char* bad : {"&encoding=", "&encoding=BASE64", "&encoding=base32", "&encoding=raw"}) {
    const auto r = get(q + bad);
    EXPECT_EQ(r.status, 400u) << bad;
    const auto j = nlohmann::json::parse(r.body);
    EXPECT_EQ(j["error"], "encoding must be hex, base64 or binary");
    EXPECT_EQ(r.body.find('\n'), r.body.size() - 1);  // one line
    EXPECT_EQ(get("/v1/tables/demo/proof/consistency?from=1&to=5" + std::string(bad)).status, 400u) << bad;
  }
}

// The proofs of a tree of a million leaves through the RFC 9162 algorithms themselves (the
// lengths depend on the sizes only, not on the hashes): an inclusion proof has at most
// ceil(log2 n) = 20 hashes and a consistency proof at most ceil(log2 n) + 1 = 21 (RFC 9162
// §2.1.3, §2.1.4); both bounds are reached (seq 0; from 3) and no proof of a sweep exceeds them.
TEST(ProofSizes, TheRawFormIsUnderOneKilobyteAtAMillionRecords) {
  constexpr std::uint64_t n = 1'000'000;
  const tlog::node_source any = [](unsigned, std::uint64_t) { return hash{}; };
  const std::size_t incl = 20, cons = 21;
  const std::uint64_t incl_seq = 0, cons_from = 3;
  EXPECT_EQ(tlog::inclusion_proof(incl_seq, n, any).size(), incl);
  EXPECT_EQ(tlog::consistency_proof(cons_from, n, any).size(), cons);
  const auto sweep = [&](const auto& each) {
    for (std::uint64_t i = 1; i < 4096; ++i) each(i);              // the small ones
    for (std::uint64_t i = 4096; i < n - 4096; i += 331) each(i);  // across the tree
    for (std::uint64_t i = n - 4096; i < n; ++i) each(i);          // the right edge
  };
  sweep([&](std::uint64_t i) {
    ASSERT_LE(tlog::inclusion_proof(i, n, any).size(), incl) << i;
    ASSERT_LE(tlog::consistency_proof(i, n, any).size(), cons) << i;
  });
  // Raw: the hashes alone.
  EXPECT_LT(32 * incl, 1000u);
  EXPECT_LT(32 * cons, 1000u);
  // JSON, the worst seq/from at that size, and the largest numbers.
  const auto worst = [&](std::string_view a, std::string_view b, std::size_t k, std::uint64_t at, std::size_t chars) {
    return std::max(json_size(a, at, b, n, k, chars), json_size(a, n - 1, b, n, k, chars));
  };
  const std::size_t hex_incl = worst("seq", "tree_size", incl, incl_seq, 64),
                    hex_cons = worst("from", "to", cons, cons_from, 64);
  const std::size_t b64_incl = worst("seq", "tree_size", incl, incl_seq, 44),
                    b64_cons = worst("from", "to", cons, cons_from, 44);
  EXPECT_GT(hex_incl, 1024u);  // why the compact forms exist
  EXPECT_LT(b64_incl, 1000u);
  EXPECT_LT(b64_cons, 1100u);
  RecordProperty("raw_inclusion_bytes", static_cast<int>(32 * incl));
  RecordProperty("raw_consistency_bytes", static_cast<int>(32 * cons));
  std::printf(
      "at n = 10^6: inclusion %zu hashes (hex %zu B, base64 %zu B, raw %zu B); consistency %zu hashes "
      "(hex %zu B, base64 %zu B, raw %zu B)\n",
      incl, hex_incl, b64_incl, 32 * incl, cons, hex_cons, b64_cons, 32 * cons);
}

TEST(ProofEncodings, HashesAndProofsRoundTripAndRejectMalformedText) {
  hash h{};
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 7 + 1);
  EXPECT_EQ(tlog::to_base64(h).size(), 44u);
  EXPECT_EQ(tlog::hash_from_text(tlog::to_base64(h)), h);
  EXPECT_EQ(tlog::hash_from_text(tlog::to_hex(h)), h);
  for (const std::string& bad : {std::string(), std::string(43, 'A'), std::string(45, 'A'),
                                 tlog::to_base64(h).substr(0, 42) + "==", std::string(44, '!'),
                                 tlog::to_hex(h).substr(1) + "g", std::string("AAAA")})
    EXPECT_FALSE(tlog::hash_from_text(bad).has_value()) << bad;
  // 44 base64 characters that are not 32 bytes (33 with no padding is 44 chars too).
  EXPECT_FALSE(tlog::hash_from_text(tlog::base64(std::vector<std::uint8_t>(33, 1))).has_value());
  const std::vector<hash> proof{h, hash{}, h};
  EXPECT_EQ(tlog::proof_to_bytes(proof).size(), 96u);
  EXPECT_EQ(tlog::proof_from_bytes(tlog::proof_to_bytes(proof)), proof);
  EXPECT_EQ(tlog::proof_from_bytes(""), std::vector<hash>{});
  EXPECT_FALSE(tlog::proof_from_bytes(std::string(33, 'x')).has_value());
  // A JSON proof with a hash that is neither form, or a number that is not one: refused.
  EXPECT_THROW((void)proof_from_json(nlohmann::json{{"from", 1}, {"to", 2}, {"hashes", {"zz"}}}, "from", "to"),
               std::invalid_argument);
  EXPECT_THROW((void)proof_from_json(nlohmann::json{{"from", -1}, {"to", 2}, {"hashes", nlohmann::json::array()}},
                                     "from", "to"),
               std::invalid_argument);
  EXPECT_THROW((void)proof_from_json(nlohmann::json{{"from", 1}, {"to", 2}}, "from", "to"), std::invalid_argument);
}

}  // namespace
}  // namespace fairdeck::service
