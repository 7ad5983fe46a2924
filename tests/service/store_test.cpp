// The SQLite store: deals, concurrency and group commit, durability across reopen, seeds
// encrypted at rest, refused writes leave no trace, the API's status codes.
#include <fstream>
#include <future>
#include <set>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/service/store.hpp"
#include "service_test_support.hpp"
#include "sqlite_test_support.hpp"

namespace fairdeck::service {
namespace {

struct sqlite_fixture : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    s = open_store(opts);
  }
  std::string open(unsigned seats, deck_spec spec = {}, std::string id = "") {
    auto r = s->execute(open_table{seats, spec, std::move(id)});
    EXPECT_EQ(r.code, outcome::ok) << r.error;
    return r.table;
  }
  void seed_all(const std::string& t, unsigned seats) {
    for (unsigned i = 1; i <= seats; ++i) {
      auto r = s->execute(set_client_seed{t, i, "player" + std::to_string(i), std::nullopt});
      ASSERT_EQ(r.code, outcome::ok) << r.error;
    }
  }
  std::vector<record> log(const std::string& t) { return s->log(t, std::nullopt, 1'000'000).value(); }
};

using fairdeck::testing::slurp;

TEST_F(sqlite_fixture, DealFollowsTheSpecAndTheChainVerifies) {
  const auto t = open(2, {}, "demo");
  EXPECT_EQ(s->execute(deal{t, {}}).code, outcome::conflict);  // seats without seeds
  seed_all(t, 2);
  auto d0 = s->execute(deal{t, {}});
  ASSERT_EQ(d0.code, outcome::ok) << d0.error;
  EXPECT_EQ(d0.rec->nonce, 0u);
  EXPECT_EQ(d0.rec->seq, 1u);
  EXPECT_EQ(d0.rec->client_seed, fair::combine_client_seeds(std::vector<std::string>{"player1", "player2"}));
  auto d1 = s->execute(deal{t, {}});
  EXPECT_EQ(d1.rec->nonce, 1u);
  auto rot = s->execute(rotate{t});
  ASSERT_EQ(rot.code, outcome::ok);
  // the revealed seed deals exactly what was answered
  const auto seed = fair::server_seed::from_hex(rot.rec->revealed_seed);
  EXPECT_EQ(fair::commitment(seed), d0.rec->commitment);
  EXPECT_EQ(fair::deal_deck(seed, d0.rec->client_seed, 0, {}), d0.deck);
  EXPECT_EQ(fair::deal_deck(seed, d1.rec->client_seed, 1, {}), d1.deck);
  auto d2 = s->execute(deal{t, {}});
  EXPECT_EQ(d2.rec->nonce, 2u);  // nonces never reset at a rotation
  EXPECT_EQ(d2.rec->commitment, rot.rec->next_commitment);
  const auto records = log(t);
  ASSERT_EQ(records.size(), 5u);
  const auto check = verify_log(records);
  EXPECT_TRUE(check.ok) << check.reason;
  EXPECT_EQ(check.deals_verified, 2u);
  EXPECT_EQ(check.deals_unrevealed, 1u);
  EXPECT_EQ(records[2], *d1.rec);
  const auto tail = s->log(t, 3, 10).value();
  ASSERT_EQ(tail.size(), 1u);
  EXPECT_EQ(tail[0].seq, 4u);
  EXPECT_FALSE(s->log("nope", std::nullopt, 10).has_value());
}

TEST_F(sqlite_fixture, RefusedWritesLeaveNoTrace) {
  const auto t = open(3, {}, "x");
  EXPECT_EQ(s->execute(open_table{3, {}, "x"}).code, outcome::conflict);
  EXPECT_EQ(s->execute(open_table{0, {}, ""}).code, outcome::bad_request);
  EXPECT_EQ(s->execute(open_table{2, {0, 0}, ""}).code, outcome::bad_request);
  EXPECT_EQ(s->execute(set_client_seed{t, 4, "a", std::nullopt}).code, outcome::not_found);
  EXPECT_EQ(s->execute(set_client_seed{t, 1, "bad\nseed", std::nullopt}).code, outcome::bad_request);
  EXPECT_EQ(s->execute(set_client_seed{"nope", 1, "a", std::nullopt}).code, outcome::not_found);
  seed_all(t, 3);
  EXPECT_EQ(s->execute(deal{t, {false, 2, 30}}).code, outcome::bad_request);  // 60 cards > 52
  EXPECT_EQ(s->execute(deal{t, {}}).code, outcome::ok);
  // the seed for hand 0 arrives after hand 0 was dealt: refused
  EXPECT_EQ(s->execute(set_client_seed{t, 1, "late", 0}).code, outcome::conflict);
  EXPECT_EQ(s->execute(set_client_seed{t, 1, "early", 5}).code, outcome::conflict);
  EXPECT_EQ(s->execute(set_client_seed{t, 1, "for hand 1", 1}).code, outcome::ok);
  auto d = s->execute(deal{t, {}});
  EXPECT_EQ(d.rec->nonce, 1u);
  EXPECT_EQ(d.rec->seat_seeds[0], "for hand 1");
  EXPECT_EQ(log(t).size(), 3u);
  EXPECT_TRUE(verify_log(log(t)).ok);
}

TEST_F(sqlite_fixture, ConcurrentDealsAreGroupCommittedWithoutNonceReuse) {
  const auto a = open(1, {}, "a");
  const auto b = open(1, {2, 1}, "b");
  seed_all(a, 1);
  seed_all(b, 1);
  constexpr int threads = 8, per_thread = 150;
  std::mutex m;
  std::vector<std::pair<std::string, std::uint64_t>> seen;
  std::vector<std::thread> pool;
  const auto before = s->stats();
  for (int i = 0; i < threads; ++i)
    pool.emplace_back([&, i] {
      std::vector<std::future<write_result>> pending;
      for (int k = 0; k < per_thread; ++k) {
        auto p = std::make_shared<std::promise<write_result>>();
        pending.push_back(p->get_future());
        s->submit(deal{(i + k) % 2 ? a : b, {}}, [p](write_result r) { p->set_value(std::move(r)); });
      }
      for (auto& f : pending) {
        auto r = f.get();
        ASSERT_EQ(r.code, outcome::ok) << r.error;
        std::lock_guard lock(m);
        seen.emplace_back(r.rec->table, r.rec->nonce);
      }
    });
  for (auto& t : pool) t.join();
  std::set<std::pair<std::string, std::uint64_t>> unique(seen.begin(), seen.end());
  EXPECT_EQ(unique.size(), seen.size());
  const auto after = s->stats();
  EXPECT_EQ(after.writes - before.writes, std::uint64_t{threads * per_thread});
  EXPECT_LT(after.batches - before.batches, after.writes - before.writes);  // batched
  for (const auto& t : {a, b}) {
    const auto records = log(t);
    EXPECT_EQ(records.size(), 1u + threads * per_thread / 2);
    const auto check = verify_log(records);
    EXPECT_TRUE(check.ok) << check.reason;
  }
}

TEST_F(sqlite_fixture, RecordsSurviveReopenAndNoncesContinue) {
  const auto t = open(1, {}, "t");
  seed_all(t, 1);
  std::vector<write_result> answered;
  for (int i = 0; i < 20; ++i) answered.push_back(s->execute(deal{t, {}}));
  s.reset();
  s = open_store(opts);
  const auto records = log(t);
  ASSERT_EQ(records.size(), 21u);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(records[static_cast<std::size_t>(i + 1)], *answered[static_cast<std::size_t>(i)].rec);
  EXPECT_EQ(s->execute(deal{t, {}}).rec->nonce, 20u);
  EXPECT_TRUE(verify_log(log(t)).ok);
}

TEST_F(sqlite_fixture, UnrevealedSeedsAreEncryptedAtRest) {
  const auto t = open(1, {}, "t");
  seed_all(t, 1);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(s->execute(deal{t, {}}).code, outcome::ok);
  const auto rot = s->execute(rotate{t});  // reveals seed 1; seed 2 stays live
  s.reset();
  std::string bytes;
  for (const auto* suffix : {"", "-wal", "-shm"})
    if (std::filesystem::exists(opts.db + suffix)) bytes += slurp(opts.db + suffix);
  ASSERT_FALSE(bytes.empty());
  // a revealed seed is public: finding it proves the scan looks at the right bytes
  EXPECT_NE(bytes.find(rot.rec->revealed_seed), std::string::npos);
  // The live seed: recover it through the store, then check neither its hex nor its bytes are on disk.
  s = open_store(opts);
  const auto rot2 = s->execute(rotate{t});
  s.reset();
  const auto live = fair::server_seed::from_hex(rot2.rec->revealed_seed);
  const std::string raw(reinterpret_cast<const char*>(live.bytes().data()), live.bytes().size());
  EXPECT_EQ(bytes.find(live.hex()), std::string::npos);
  EXPECT_EQ(bytes.find(raw), std::string::npos);
}

// Issue #27 item 8: another valid-looking key file used to start the server; it is refused at
// open, with one line that names the key file.
TEST_F(sqlite_fixture, AnotherKeyFileIsRefusedAtOpen) {
  const auto t = open(1, {}, "t");
  seed_all(t, 1);
  s.reset();
  std::filesystem::rename(opts.db + ".key", opts.db + ".key.right");
  (void)create_key_file(opts.db + ".key");
  try {
    s = open_store(opts);
    FAIL() << "opened with another key";
  } catch (const wrong_key& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(opts.db + ".key"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
  std::filesystem::rename(opts.db + ".key.right", opts.db + ".key");
  s = open_store(opts);
  EXPECT_EQ(s->execute(deal{t, {}}).code, outcome::ok);
}

TEST_F(sqlite_fixture, InitRefusesAnExistingStore) {
  EXPECT_THROW(init_store(opts), std::runtime_error);
  s.reset();
  EXPECT_NO_THROW((void)open_store(opts));  // and left it intact
}

// ---- the API, without sockets ----

struct api_fixture : sqlite_fixture {
  std::unique_ptr<api> handler;
  std::string token;
  void SetUp() override {
    sqlite_fixture::SetUp();
    token = generate_token();
    s->add_token_hash(token_hash(token));
    handler = std::make_unique<api>(*s);
  }
  http_response call(std::string_view method, std::string_view target, std::string_view body = "",
                     std::optional<std::string> auth = std::nullopt, std::string_view client = "c1") {
    const std::string header = auth ? *auth : "Bearer " + token;
    return handle_now(*handler, {method, target, header, body, client, {}, {}});
  }
};

TEST_F(api_fixture, StatusCodes) {
  const auto health = call("GET", "/healthz");
  EXPECT_EQ(health.status, 200u) << health.body;
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "table": "demo"})").status, 201u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "table": "demo"})").status, 409u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 2)").status, 400u);
  EXPECT_EQ(call("POST", "/v1/tables", R"([1])").status, 400u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": -1})").status, 400u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "colour": 1})").status, 400u);
  EXPECT_EQ(call("POST", "/v1/tables", std::string(70000, ' ')).status, 413u);
  EXPECT_EQ(call("GET", "/v1/tables/nope/log").status, 404u);
  EXPECT_EQ(call("GET", "/v1/nothing").status, 404u);
  EXPECT_EQ(call("DELETE", "/v1/tables/demo/log").status, 405u);
  EXPECT_EQ(call("POST", "/v1/tables/demo/deals").status, 409u);  // seats have no seeds
  EXPECT_EQ(call("PUT", "/v1/tables/demo/seats/3/client-seed", R"({"client_seed": "a"})").status, 404u);
  EXPECT_EQ(call("PUT", "/v1/tables/demo/seats/01/client-seed", R"({"client_seed": "a"})").status, 404u);
  EXPECT_EQ(call("PUT", "/v1/tables/demo/seats/1/client-seed", R"({"client_seed": ""})").status, 400u);
  EXPECT_EQ(call("PUT", "/v1/tables/demo/seats/1/client-seed", R"({"client_seed": "alice"})").status, 200u);
  EXPECT_EQ(call("PUT", "/v1/tables/demo/seats/2/client-seed", R"({"client_seed": "bob"})").status, 200u);
  EXPECT_EQ(call("POST", "/v1/tables/demo/deals", R"({"game": "bridge"})").status, 400u);
  const auto d = call("POST", "/v1/tables/demo/deals", R"({"game": "holdem"})");
  ASSERT_EQ(d.status, 200u);
  const auto j = nlohmann::json::parse(d.body);
  EXPECT_EQ(j["nonce"], 0);
  EXPECT_EQ(j["client_seed"], "a5195abbbba1c6f6166a75a4e5422ccda605c740adeca49baf969ab2f0f039a5");
  EXPECT_EQ(j["seats"].size(), 2u);
  EXPECT_EQ(call("GET", "/v1/tables/demo/log?after=x").status, 400u);
  const auto info = nlohmann::json::parse(call("GET", "/v1/tables/demo").body);
  EXPECT_EQ(info["next_nonce"], 1);
  EXPECT_EQ(info["records"], 2);
  EXPECT_EQ(info["seats_ready"], nlohmann::json::parse("[true, true]"));
  EXPECT_FALSE(info.contains("sealed_seed"));
  EXPECT_EQ(call("GET", "/v1/tables/nope").status, 404u);
  EXPECT_EQ(call("POST", "/v1/tables/demo").status, 405u);
  EXPECT_EQ(nlohmann::json::parse(call("GET", "/v1/tables/demo/log?after=0").body)["records"].size(), 1u);
  // auth: 401, then 429 once a client keeps guessing
  EXPECT_EQ(call("POST", "/v1/tables/demo/deals", "", std::string("Bearer fdk_wrong")).status, 401u);
  EXPECT_EQ(call("POST", "/v1/tables/demo/deals", "", std::string("")).status, 401u);
  for (int i = 0; i < 30; ++i) (void)call("POST", "/v1/tables/demo/deals", "", std::string("Bearer x"), "guesser");
  EXPECT_EQ(call("POST", "/v1/tables/demo/deals", "", std::string("Bearer x"), "guesser").status, 429u);
  EXPECT_EQ(call("POST", "/v1/tables/demo/deals").status, 200u);  // other clients unaffected
  const auto metrics = call("GET", "/metrics");
  EXPECT_NE(metrics.body.find("fairdeck_deals_total 2"), std::string::npos);
  EXPECT_NE(metrics.body.find("fairdeck_deal_latency_seconds_bucket{le=\"+Inf\"} 2"), std::string::npos);
  const auto audit = call("GET", "/v1/tables/demo/audit");
  ASSERT_EQ(audit.status, 200u);
  EXPECT_EQ(nlohmann::json::parse(audit.body)["deals"], 2);
  const auto html = call("GET", "/v1/tables/demo/audit?format=html");
  EXPECT_EQ(html.content_type.rfind("text/html", 0), 0u);
}

TEST_F(api_fixture, NoResponseOrErrorCarriesTheLiveSeed) {
  ASSERT_EQ(call("POST", "/v1/tables", R"({"seats": 1, "table": "t"})").status, 201u);
  ASSERT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", R"({"client_seed": "p"})").status, 200u);
  std::string everything;
  for (const char* body : {"", "{}", "{\"hands\": 2, \"cards\": 5}", "{\"hands\": 99, \"cards\": 99}", "{x"})
    everything += call("POST", "/v1/tables/t/deals", body).body;
  everything += call("GET", "/v1/tables/t/log").body + call("GET", "/v1/tables/t/audit").body;
  everything += call("GET", "/metrics").body + call("GET", "/healthz").body + call("GET", "/v1/tables/t").body;
  const auto rot = nlohmann::json::parse(call("POST", "/v1/tables/t/rotate").body);
  const std::string live = rot["revealed_seed"];  // live until this moment
  EXPECT_EQ(everything.find(live), std::string::npos);
}

TEST_F(api_fixture, ExtraPagesAreOneLine) {
  handler->add_page("/verify", "text/html; charset=utf-8", "<html>verifier</html>");
  const auto r = call("GET", "/verify");
  EXPECT_EQ(r.status, 200u);
  EXPECT_EQ(r.body, "<html>verifier</html>");
}

}  // namespace
}  // namespace fairdeck::service
