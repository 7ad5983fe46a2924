// fairdeckd's API without sockets (issue #27): the operator cannot be locked out, routes match
// exactly and by listener, bodies fail with 400 (never 500), public errors carry no store
// details, `after` beyond the stores' range is refused, every status class is counted, error
// ranges match the checks, and the failure limiter keeps bounded memory.
#include <stdexcept>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/service/store.hpp"
#include "limiter.hpp"
#include "routes.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

using role = http_request::listener_role;
using json = nlohmann::json;

struct api_test : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  std::unique_ptr<api> handler;
  std::string token;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    s = open_store(opts);
    token = generate_token();
    s->add_token_hash(token_hash(token));
    handler = std::make_unique<api>(*s);
  }
  http_response call(std::string_view method, std::string_view target, std::string_view body = "",
                     std::optional<std::string> auth = std::nullopt, std::string_view client = "c1",
                     role r = role::all) {
    const std::string header = auth ? *auth : "Bearer " + token;
    return handle_now(*handler, {method, target, header, body, client, r, {}});
  }
  // A table "t" with two seats and both client seeds.
  void ready_table() {
    ASSERT_EQ(call("POST", "/v1/tables", R"({"seats": 2, "table": "t"})").status, 201u);
    ASSERT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", R"({"client_seed": "a"})").status, 200u);
    ASSERT_EQ(call("PUT", "/v1/tables/t/seats/2/client-seed", R"({"client_seed": "b"})").status, 200u);
  }
  static std::string error_of(const http_response& r) { return json::parse(r.body).at("error").get<std::string>(); }
  static std::string header(const http_response& r, std::string_view name) {
    for (const auto& [k, v] : r.headers)
      if (k == name) return v;
    return {};
  }
};

// ---- 1. lockout ----

TEST_F(api_test, FailedGuessesFromTheOperatorsAddressNeverLockOutTheValidToken) {
  ready_table();
  for (int i = 0; i < 25; ++i) (void)call("POST", "/v1/tables/t/deals", "", std::string("Bearer fdk_guess"), "proxy");
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", "", std::string("Bearer fdk_guess"), "proxy").status, 429u);
  // Same address (everyone behind one proxy), valid token: served, every time.
  for (int i = 0; i < 3; ++i) EXPECT_EQ(call("POST", "/v1/tables/t/deals", "", std::nullopt, "proxy").status, 200u);
  // The guesser is still limited afterwards: a success does not reset someone else's failures.
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", "", std::string("Bearer x"), "proxy").status, 429u);
}

TEST_F(api_test, OnlyFailuresCountTowardsTheLimit) {
  ready_table();
  for (int i = 0; i < 50; ++i) ASSERT_EQ(call("POST", "/v1/tables/t/deals", "", std::nullopt, "busy").status, 200u);
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", "", std::string("Bearer wrong"), "busy").status, 401u);
}

TEST(failure_limiter, CountsPerClientPerWindow) {
  using namespace std::chrono_literals;
  failure_limiter l(3, 100, 60s);
  const auto t0 = failure_limiter::clock::time_point{} + 1h;
  for (int i = 0; i < 3; ++i) {
    EXPECT_FALSE(l.limited("a", t0));
    l.note_failure("a", t0);
  }
  EXPECT_TRUE(l.limited("a", t0 + 59s));
  EXPECT_FALSE(l.limited("b", t0));
  EXPECT_FALSE(l.limited("a", t0 + 60s));  // the window is over
  l.note_failure("a", t0 + 61s);
  EXPECT_FALSE(l.limited("a", t0 + 61s));  // a fresh window with one failure
}

TEST(failure_limiter, AFloodFromManyAddressesKeepsMemoryBoundedAndEvictsOnlyTheOldest) {
  using namespace std::chrono_literals;
  failure_limiter l(2, 1000, 60s);
  const auto t0 = failure_limiter::clock::time_point{} + 1h;
  l.note_failure("old", t0);
  l.note_failure("old", t0);
  l.note_failure("guesser", t0 + 1s);
  l.note_failure("guesser", t0 + 1s);
  for (int i = 0; i < 998; ++i) l.note_failure("flood" + std::to_string(i), t0 + 2s);
  EXPECT_EQ(l.tracked(), 1000u);
  EXPECT_TRUE(l.limited("old", t0 + 3s));
  EXPECT_TRUE(l.limited("guesser", t0 + 3s));
  for (int i = 0; i < 100000; ++i) l.note_failure("more" + std::to_string(i), t0 + 3s);
  EXPECT_EQ(l.tracked(), 1000u);  // bounded
  // The old code cleared every count at once; here only the oldest windows went first.
  failure_limiter m(2, 3, 60s);
  m.note_failure("a", t0);
  m.note_failure("a", t0);
  m.note_failure("b", t0 + 1s);
  m.note_failure("b", t0 + 1s);
  m.note_failure("c", t0 + 2s);
  m.note_failure("d", t0 + 3s);  // evicts "a" only
  EXPECT_FALSE(m.limited("a", t0 + 4s));
  EXPECT_TRUE(m.limited("b", t0 + 4s));
  EXPECT_EQ(m.tracked(), 3u);
}

// ---- 2. routing ----

TEST_F(api_test, EmptySegmentsAndTrailingSlashesReachNoRoute) {
  ready_table();
  for (const char* target : {"/v1/tables/", "//v1//tables//t//deals//", "/v1/tables/t/deals/", "//v1/tables",
                             "/v1//tables", "/v1/tables//t/deals", "/v1/tables/t/rotate/", "/v1/tables/t/",
                             "/v1/tables/t/seats/1/client-seed/", "/healthz/", "/", "", "v1/tables",
                             "http://x/v1/tables", "/v1/tables/t//log"}) {
    for (const char* method : {"GET", "POST", "PUT"}) {
      const auto r = call(method, target, R"({"seats": 2})");
      EXPECT_EQ(r.status, 404u) << method << " " << target << ": " << r.body;
    }
  }
  EXPECT_EQ(json::parse(call("GET", "/v1/tables/t").body)["records"], 1);  // nothing was written (only "open")
}

TEST_F(api_test, AKnownPathWithAnotherMethodIs405WithAllow) {
  ready_table();
  const auto seed = call("GET", "/v1/tables/t/seats/1/client-seed");
  EXPECT_EQ(seed.status, 405u);
  EXPECT_EQ(header(seed, "Allow"), "PUT");
  const auto open = call("GET", "/v1/tables");
  EXPECT_EQ(open.status, 405u);
  EXPECT_EQ(header(open, "Allow"), "POST");
  EXPECT_EQ(header(call("DELETE", "/v1/tables/t/log"), "Allow"), "GET");
  EXPECT_EQ(header(call("POST", "/v1/tables/t"), "Allow"), "GET");
  EXPECT_EQ(header(call("GET", "/v1/tables/t/rotate"), "Allow"), "POST");
  EXPECT_EQ(call("PUT", "/v1/tables/t/deals").status, 405u);
  EXPECT_EQ(call("POST", "/healthz").status, 405u);
}

// Issue #28: a 6-segment GET route added to the table is never taken for the client-seed PUT
// (the old if-chain routed every 6-segment path to the seed handler).
TEST(routing, ASixSegmentGetRouteIsNotConfusedWithTheClientSeedPut) {
  struct row {
    std::string_view method, pattern;
    bool needs_auth, both;
  };
  const std::vector<row> rows{{"GET", "/v1/tables/{t}", false, false},
                              {"PUT", "/v1/tables/{t}/seats/{s}/client-seed", true, false},
                              {"POST", "/v1/tables/{t}/deals", true, false},
                              {"GET", "/v1/tables/{t}/deals/{s}/cards", false, false}};
  const auto all = role::all;
  const auto get_cards = routing::find_route(rows, "GET", "/v1/tables/t/deals/7/cards", all);
  ASSERT_TRUE(get_cards.index);
  EXPECT_EQ(*get_cards.index, 3u);
  EXPECT_EQ(get_cards.caps.table, "t");
  EXPECT_EQ(get_cards.caps.seat, "7");
  const auto put_seed = routing::find_route(rows, "PUT", "/v1/tables/t/seats/1/client-seed", all);
  ASSERT_TRUE(put_seed.index);
  EXPECT_EQ(*put_seed.index, 1u);
  // Wrong method on either: 405 naming the right one, never the other's handler.
  const auto put_cards = routing::find_route(rows, "PUT", "/v1/tables/t/deals/7/cards", all);
  EXPECT_FALSE(put_cards.index);
  EXPECT_EQ(put_cards.allow, "GET");
  const auto get_seed = routing::find_route(rows, "GET", "/v1/tables/t/seats/1/client-seed", all);
  EXPECT_FALSE(get_seed.index);
  EXPECT_EQ(get_seed.allow, "PUT");
  // Same length, other words: nothing.
  const auto other = routing::find_route(rows, "PUT", "/v1/tables/t/hands/1/client-seed", all);
  EXPECT_FALSE(other.index);
  EXPECT_TRUE(other.allow.empty());
}

TEST_F(api_test, ListenerRolesHideTheOtherSidesRoutes) {
  ready_table();
  // Public listener: operator routes do not exist (404, not 401/405), public ones answer.
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", "", std::nullopt, "c1", role::public_only).status, 404u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 2})", std::nullopt, "c1", role::public_only).status, 404u);
  EXPECT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", R"({"client_seed": "x"})", std::nullopt, "c1",
                 role::public_only).status, 404u);
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate", "", std::nullopt, "c1", role::public_only).status, 404u);
  EXPECT_EQ(call("GET", "/v1/tables/t", "", std::nullopt, "c1", role::public_only).status, 200u);
  EXPECT_EQ(call("GET", "/v1/tables/t/log", "", std::nullopt, "c1", role::public_only).status, 200u);
  // Operator listener: public routes do not exist.
  EXPECT_EQ(call("GET", "/v1/tables/t", "", std::nullopt, "c1", role::operator_only).status, 404u);
  EXPECT_EQ(call("GET", "/v1/tables/t/log", "", std::nullopt, "c1", role::operator_only).status, 404u);
  EXPECT_EQ(call("GET", "/v1/tables/t/audit", "", std::nullopt, "c1", role::operator_only).status, 404u);
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", "", std::nullopt, "c1", role::operator_only).status, 200u);
  // A GET of an operator path on the operator listener: 405 (the path exists there).
  EXPECT_EQ(call("GET", "/v1/tables/t/deals", "", std::nullopt, "c1", role::operator_only).status, 405u);
  // /healthz and /metrics on both.
  for (const auto r : {role::public_only, role::operator_only}) {
    EXPECT_EQ(call("GET", "/healthz", "", std::nullopt, "c1", r).status, 200u);
    EXPECT_EQ(call("GET", "/metrics", "", std::nullopt, "c1", r).status, 200u);
  }
  // Pages are public.
  handler->add_page("/verify", "text/html", "<p>v</p>");
  EXPECT_EQ(call("GET", "/verify", "", std::nullopt, "c1", role::public_only).status, 200u);
  EXPECT_EQ(call("GET", "/verify", "", std::nullopt, "c1", role::operator_only).status, 404u);
}

// ---- 17. the Authorization scheme ----

TEST(routing, BearerSchemeIsCaseInsensitiveAndToleratesSpaces) {
  EXPECT_EQ(routing::bearer_token("Bearer abc"), "abc");
  EXPECT_EQ(routing::bearer_token("bearer abc"), "abc");
  EXPECT_EQ(routing::bearer_token("BEARER    abc  "), "abc");
  EXPECT_EQ(routing::bearer_token("bEaReR\tabc"), "abc");
  EXPECT_FALSE(routing::bearer_token("Bearerabc"));
  EXPECT_FALSE(routing::bearer_token("Bearer "));
  EXPECT_FALSE(routing::bearer_token("Basic abc"));
  EXPECT_FALSE(routing::bearer_token(""));
}

TEST_F(api_test, LowerCaseBearerAndExtraSpacesAreAccepted) {
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 1})", "bearer " + token).status, 201u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 1})", "BEARER   " + token).status, 201u);
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 1})", "Bearer" + token).status, 401u);
}

// ---- 9. bodies never answer 500; public errors carry no details ----

TEST_F(api_test, NumbersBeyondADoubleAre400) {
  ready_table();
  const std::string big(400, '9');
  for (const std::string& body : std::vector<std::string>{R"({"seats": 1e999})", R"({"seats": -1e999})", "{\"seats\": " + big + "}",
                                 "{\"seats\": 2, \"decks\": " + big + "}"}) {
    const auto r = call("POST", "/v1/tables", body);
    EXPECT_EQ(r.status, 400u) << body;
    EXPECT_EQ(error_of(r).find('\n'), std::string::npos);
  }
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", R"({"hands": 1e999, "cards": 1})").status, 400u);
  EXPECT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", "{\"client_seed\": \"x\", \"nonce\": " + big + "}").status,
            400u);
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate", "{\"x\": 1e999}").status, 400u);
  EXPECT_EQ(error_of(call("POST", "/v1/tables", R"({"seats": 1e999})")), "a number in the body is too large");
}

// A store whose database is gone; its errors name a host, a port and a path.
struct broken_store : store {
  static constexpr const char* secret_detail =
      "connection to server at \"db.internal\" (10.1.2.3), port 5432 failed: /var/lib/fairdeck/tables.db";
  void submit(write_request, done_fn done) override {
    write_result r;
    r.code = outcome::unavailable;
    r.error = fmt_detail();
    done(std::move(r));
  }
  std::optional<std::vector<record>> log(std::string_view, std::optional<std::uint64_t>, std::size_t) override {
    throw store_unavailable(secret_detail);
  }
  std::optional<table_state> table(std::string_view) override { throw store_unavailable(secret_detail); }
  std::vector<std::string> token_hashes() override { return hashes; }
  void add_token_hash(std::string_view h) override { hashes.emplace_back(h); }
  std::vector<std::pair<std::string, std::string>> token_rows() override { return {}; }
  std::size_t revoke_token(std::string_view) override { return 0; }
  std::optional<std::string> meta(std::string_view) override { return std::nullopt; }
  std::string set_meta_once(std::string_view, std::string_view value) override { return std::string(value); }
  std::optional<std::string> first_table_id() override { return std::nullopt; }
  void ping() override { throw store_unavailable(secret_detail); }
  commit_stats stats() const override { return {}; }
  void flush() override {}
  std::string_view kind() const noexcept override { return "postgresql"; }
  static std::string fmt_detail() { return std::string("store unavailable: ") + secret_detail; }
  std::vector<std::string> hashes;
};

TEST(api_errors, PublicErrorsShowNoHostPortPathOrExceptionText) {
  broken_store bs;
  const std::string tok = generate_token();
  bs.add_token_hash(token_hash(tok));
  api h(bs);
  const auto call = [&](std::string_view method, std::string_view target, std::string_view body = "") {
    return call_api(h, tok, method, target, body, "c");
  };
  ::testing::internal::CaptureStderr();
  std::vector<http_response> answers{call("GET", "/healthz"), call("GET", "/v1/tables/t"),
                                     call("GET", "/v1/tables/t/log"), call("GET", "/v1/tables/t/audit"),
                                     call("POST", "/v1/tables/t/deals"), call("POST", "/v1/tables", R"({"seats": 2})")};
  const std::string logged = ::testing::internal::GetCapturedStderr();
  for (const auto& r : answers) {
    EXPECT_EQ(r.status, 503u) << r.body;
    for (const char* leak : {"db.internal", "10.1.2.3", "5432", "/var/lib", "tables.db", "connection"})
      EXPECT_EQ(r.body.find(leak), std::string::npos) << leak << " in " << r.body;
    EXPECT_EQ(r.headers.empty() ? "" : r.headers[0].first, "Retry-After");
  }
  // The operator still learns the cause: one line on stderr.
  EXPECT_NE(logged.find("db.internal"), std::string::npos) << logged;
  std::size_t lines = 0;
  for (std::size_t at = 0; at < logged.size(); at = logged.find('\n', at) + 1, ++lines)
    EXPECT_EQ(logged.compare(at, 11, "fairdeckd: "), 0) << logged;
  EXPECT_GE(lines, 2u);  // one line per failed request (at least the write and /healthz)
}

// ---- 11. after beyond the stores' signed 64-bit range ----

TEST_F(api_test, AfterAtOrAbove2To63IsRefusedNotTheWholeLog) {
  ready_table();
  ASSERT_EQ(call("POST", "/v1/tables/t/deals").status, 200u);  // records 0 (open) and 1 (deal)
  for (const char* after : {"9223372036854775808", "18446744073709551615", "18446744073709551616"}) {
    const auto r = call("GET", std::string("/v1/tables/t/log?after=") + after);
    EXPECT_EQ(r.status, 400u) << after << ": " << r.body;
    EXPECT_NE(error_of(r).find("0..9223372036854775807"), std::string::npos);
  }
  const auto last = call("GET", "/v1/tables/t/log?after=9223372036854775807");
  ASSERT_EQ(last.status, 200u);
  EXPECT_TRUE(json::parse(last.body)["records"].empty());
  EXPECT_EQ(json::parse(call("GET", "/v1/tables/t/log?after=0").body)["records"].size(), 1u);
}

// ---- 12. metrics ----

TEST_F(api_test, MetricsCount413And431) {
  EXPECT_EQ(call("POST", "/v1/tables", std::string(70000, ' ')).status, 413u);
  handler->count(431);
  handler->count(431);
  const std::string m = call("GET", "/metrics").body;
  EXPECT_NE(m.find("fairdeck_http_responses_total{code=\"413\"} 1\n"), std::string::npos) << m;
  EXPECT_NE(m.find("fairdeck_http_responses_total{code=\"431\"} 2\n"), std::string::npos) << m;
  EXPECT_NE(m.find("fairdeck_http_responses_total{code=\"4xx\"} 0\n"), std::string::npos) << m;
  for (const char* label : {"2xx", "4xx", "401", "429", "5xx"})
    EXPECT_NE(m.find(std::string("fairdeck_http_responses_total{code=\"") + label + "\"}"), std::string::npos);
}

// ---- 17. ranges, rotate fields, duplicate keys ----

TEST_F(api_test, ErrorRangesMatchTheChecks) {
  EXPECT_EQ(error_of(call("POST", "/v1/tables", R"({"seats": 101})")), "\"seats\" must be an integer 1..100");
  EXPECT_EQ(error_of(call("POST", "/v1/tables", R"({"seats": 0})")), "\"seats\" must be an integer 1..100");
  EXPECT_EQ(error_of(call("POST", "/v1/tables", R"({})")), "\"seats\" (an integer 1..100) is required");
  EXPECT_EQ(error_of(call("POST", "/v1/tables", R"({"seats": 1, "decks": 0})")), "\"decks\" must be an integer 1..1000");
  EXPECT_EQ(error_of(call("POST", "/v1/tables", R"({"seats": 1, "jokers": 1001})")),
            "\"jokers\" must be an integer 0..1000");
  EXPECT_EQ(call("POST", "/v1/tables", R"({"seats": 100, "decks": 1000, "jokers": 1000})").status, 201u);
  EXPECT_EQ(error_of(call("PUT", "/v1/tables/x/seats/101/client-seed", R"({"client_seed": "a"})")),
            "no such seat (seats are numbered 1..100)");
}

TEST_F(api_test, RotateWithAnUnknownFieldRotatesNothing) {
  ready_table();
  const auto before = json::parse(call("GET", "/v1/tables/t").body);
  const auto r = call("POST", "/v1/tables/t/rotate", R"({"reason": "x"})");
  EXPECT_EQ(r.status, 400u);
  EXPECT_EQ(error_of(r), "unknown field \"reason\"");
  const auto after = json::parse(call("GET", "/v1/tables/t").body);
  EXPECT_EQ(before["commitment"], after["commitment"]);
  EXPECT_EQ(before["records"], after["records"]);
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate", "{}").status, 200u);
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate", "").status, 200u);
}

TEST_F(api_test, DuplicateKeysAreRefused) {
  ready_table();
  const auto open = call("POST", "/v1/tables", R"({"seats": 2, "seats": 100, "table": "u"})");
  EXPECT_EQ(open.status, 400u);
  EXPECT_EQ(error_of(open), "duplicate field \"seats\"");
  EXPECT_EQ(call("GET", "/v1/tables/u").status, 404u);
  EXPECT_EQ(call("PUT", "/v1/tables/t/seats/1/client-seed", R"({"client_seed": "a", "client_seed": "b"})").status,
            400u);
  EXPECT_EQ(call("POST", "/v1/tables/t/deals", R"({"hands": 1, "cards": 2, "cards": 3})").status, 400u);
  EXPECT_EQ(call("POST", "/v1/tables/t/rotate", R"({"a": {"b": 1, "b": 2}})").status, 400u);
  // The same key in two different objects is fine (and then refused only as unknown).
  EXPECT_EQ(error_of(call("POST", "/v1/tables/t/rotate", R"({"a": {"b": 1}})")), "unknown field \"a\"");
}

}  // namespace
}  // namespace fairdeck::service
