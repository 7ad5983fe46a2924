// The incremental public audit (issue #27 items 4, 10, 17): log_verifier equals verify_log,
// table_audit folded in increments equals a fresh full audit (and audit_stream for one deck),
// shoe tables get an audit, the audit runs off the caller's thread in a bounded pool, the HTML
// shows the chain verdict, /log pages stop at a byte cap.
#include <future>
#include <latch>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fairdeck/report/audit.hpp"
#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/store.hpp"
#include "fairdeck/service/table_audit.hpp"
#include "fairdeck/service/work_pool.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

struct audit_fixture : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  std::string token;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    s = open_store(opts);
    token = generate_token();
    s->add_token_hash(token_hash(token));
  }
  void open(const std::string& t, unsigned seats, deck_spec spec = {}) {
    ASSERT_EQ(s->execute(open_table{seats, spec, t}).code, outcome::ok);
    for (unsigned i = 1; i <= seats; ++i)
      ASSERT_EQ(s->execute(set_client_seed{t, i, fmt::format("p{}", i), std::nullopt}).code, outcome::ok);
  }
  // n deals, a rotation after every `rotate_every` (0: none)
  void deal_n(const std::string& t, unsigned n, unsigned rotate_every = 0) {
    for (unsigned i = 0; i < n; ++i) {
      ASSERT_EQ(s->execute(deal{t, {}}).code, outcome::ok);
      if (rotate_every && (i + 1) % rotate_every == 0) {
        ASSERT_EQ(s->execute(rotate{t}).code, outcome::ok);
      }
    }
  }
  std::vector<record> log(const std::string& t) { return s->log(t, std::nullopt, 1'000'000).value(); }
  static http_response call(api& a, std::string_view method, std::string_view target, std::string_view body = "",
                            std::string auth = "") {
    return handle_now(a, {method, target, auth, body, "c1", {}, {}});
  }
};

std::string audit_text(const std::optional<stats::audit_result>& r) {
  if (!r) return "null";
  report::audit_run_info info;
  info.source = "input";
  info.pairs_planned = 1;
  return report::audit_json({*r}, info).dump();
}

TEST_F(audit_fixture, LogVerifierInPiecesEqualsVerifyLog) {
  open("t", 2);
  deal_n("t", 9, 4);  // two rotations, one deal unrevealed
  auto records = log("t");
  const auto whole = verify_log(records);
  ASSERT_TRUE(whole.ok) << whole.reason;
  EXPECT_EQ(whole.deals_verified, 8u);
  EXPECT_EQ(whole.deals_unrevealed, 1u);
  for (std::size_t cut = 0; cut <= records.size(); ++cut) {  // every split point gives the same answer
    log_verifier v;
    for (std::size_t i = 0; i < cut; ++i) v.add(records[i]);
    const auto mid = v.result();
    const auto expect_mid = verify_log(std::vector<record>(records.begin(), records.begin() + cut));
    EXPECT_EQ(mid.ok, expect_mid.ok);
    EXPECT_EQ(mid.deals_verified, expect_mid.deals_verified);
    EXPECT_EQ(mid.deals_unrevealed, expect_mid.deals_unrevealed);
    for (std::size_t i = cut; i < records.size(); ++i) v.add(records[i]);
    const auto r = v.result();
    EXPECT_TRUE(r.ok);
    EXPECT_EQ(r.deals, whole.deals);
    EXPECT_EQ(r.deals_verified, whole.deals_verified);
    EXPECT_EQ(r.deals_unrevealed, whole.deals_unrevealed);
  }
  // a deal whose first two cards were swapped (and rehashed) fails at the rotation that reveals it, as a whole
  // check does (whole cards are swapped: swapping characters is no change when the two cards share a rank)
  {
    auto& c = records[3].cards;
    const auto sp1 = c.find(' ');
    const auto sp2 = c.find(' ', sp1 + 1);
    ASSERT_NE(sp2, std::string::npos);
    const auto first = c.substr(0, sp1), second = c.substr(sp1 + 1, sp2 - sp1 - 1);
    ASSERT_NE(first, second);
    c = second + " " + first + c.substr(sp2);
  }
  for (std::size_t i = 3; i < records.size(); ++i) seal(records[i], records[i - 1].hash);
  const auto bad = verify_log(records);
  ASSERT_FALSE(bad.ok);
  log_verifier v;
  for (const auto& r : records) v.add(r);
  EXPECT_EQ(v.result().failed_seq, bad.failed_seq);
  EXPECT_EQ(v.result().reason, bad.reason);
  EXPECT_EQ(v.result().deals_verified, bad.deals_verified);
}

TEST_F(audit_fixture, FoldedInIncrementsEqualsAFreshFullAuditAndAuditStream) {
  open("t", 3);
  table_audit inc;
  std::uint64_t folded = 0;
  for (const unsigned step : {1u, 7u, 20u, 2u}) {
    deal_n("t", step, 5);
    const std::optional<std::uint64_t> after = folded ? std::optional<std::uint64_t>(folded - 1) : std::nullopt;
    const auto batch = s->log("t", after, 1'000'000);
    ASSERT_TRUE(batch.has_value());
    for (const auto& r : *batch) inc.fold(r);
    folded = inc.records();
  }
  const auto records = log("t");
  ASSERT_EQ(inc.records(), records.size());
  table_audit fresh;
  std::string text;
  for (const auto& r : records) {
    fresh.fold(r);
    if (r.type == record_type::deal) text += r.cards + "\n";
  }
  const auto a = inc.audit("t");
  ASSERT_TRUE(a.has_value());
  EXPECT_EQ(audit_text(a), audit_text(fresh.audit("t")));
  EXPECT_EQ(inc.audit("t")->counts, a->counts);  // asking again changes nothing
  // one deck: exactly what `fairdeck audit --input` computes from the deals' text
  std::istringstream in(text);
  stats::input_settings settings;
  settings.format = stats::deck_format::text;
  settings.label = "t";
  EXPECT_EQ(audit_text(a), audit_text(stats::audit_stream(in, settings)));
  EXPECT_EQ(inc.deals(), 30u);
  EXPECT_EQ(inc.chain().deals_verified, verify_log(records).deals_verified);
  EXPECT_EQ(inc.head_hash(), records.back().hash);
}

TEST_F(audit_fixture, ShoeTablesAreAuditedNot500) {  // issue #27 item 10
  api a(*s);
  const std::string auth = "Bearer " + token;
  ASSERT_EQ(call(a, "POST", "/v1/tables", R"({"seats": 2, "decks": 2, "table": "shoe"})", auth).status, 201u);
  for (unsigned i = 1; i <= 2; ++i)
    ASSERT_EQ(call(a, "PUT", fmt::format("/v1/tables/shoe/seats/{}/client-seed", i), R"({"client_seed": "x"})", auth).status,
              200u);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(call(a, "POST", "/v1/tables/shoe/deals", "", auth).status, 200u);
  const auto r = call(a, "GET", "/v1/tables/shoe/audit");
  ASSERT_EQ(r.status, 200u) << r.body;
  const auto j = nlohmann::json::parse(r.body);
  EXPECT_EQ(j["deals"], 5);
  EXPECT_FALSE(j.contains("audit_unavailable"));
  ASSERT_TRUE(j["audits"].is_array()) << r.body;
  EXPECT_EQ(j["audits"][0]["trials"], 5);
  EXPECT_EQ(j["audits"][0]["n"], 104);
  const auto html = call(a, "GET", "/v1/tables/shoe/audit?format=html");
  ASSERT_EQ(html.status, 200u);
  EXPECT_NE(html.body.find("chain verified"), std::string::npos);
}

TEST(ShoeAudit, CopiesAreGivenByTheDealHashAndEveryDealCounts) {
  // Two decks: the faces of each deal map to a permutation of the 104 card ids; the same
  // record always maps the same way, so a fresh fold gives the same counts.
  const deck_spec spec{2, 0};
  std::vector<card_t> deck = make_deck(spec);
  table_audit a, b;
  record open;
  open.type = record_type::open;
  open.seats = 1;
  open.decks = 2;
  for (auto* t : {&a, &b}) t->fold(open);
  for (std::uint64_t i = 1; i <= 40; ++i) {
    std::rotate(deck.begin(), deck.begin() + 7, deck.end());
    record d;
    d.seq = i;
    d.type = record_type::deal;
    d.decks = 2;
    d.cards = format_cards(deck, spec);
    d.hash = std::to_string(i);  // the labelling only needs a per-deal value
    a.fold(d);
    b.fold(d);
  }
  const auto ra = a.audit("x");
  ASSERT_TRUE(ra.has_value()) << a.unauditable();
  EXPECT_EQ(ra->counts.n, 104u);
  EXPECT_EQ(ra->counts.trials, 40u);
  EXPECT_EQ(ra->counts, b.audit("x")->counts);
  for (std::size_t p = 0; p < 104; ++p) {  // each position holds one card per deal, each face twice overall
    std::uint64_t row = 0;
    for (std::size_t c = 0; c < 104; ++c) row += ra->counts.at(p, c);
    EXPECT_EQ(row, 40u);
  }
  // too large a shoe, or a deal that is not the shoe: no audit, and a reason instead of a 500
  table_audit big;
  record huge;
  huge.type = record_type::deal;
  huge.seq = 1;
  huge.decks = 40;
  huge.cards = "Ac";
  big.fold(huge);
  EXPECT_FALSE(big.audit("x").has_value());
  EXPECT_NE(big.unauditable().find("larger than the 2048 cards"), std::string::npos) << big.unauditable();
}

TEST(ShoeAudit, EveryDealIsHeldToTheShoeOfTheOpenRecord) {
  // A hand's seeds are public before its deal: a shoe chosen then (here on the first deal of
  // the table, so "the first deal's shoe" would be the wrong one) is reported, not audited.
  for (const auto type : {record_type::deal, record_type::hand_deal}) {
    table_audit a;
    record open;
    open.type = record_type::open;
    open.seats = 1;
    open.decks = 1;
    a.fold(open);
    const deck_spec spec{2, 2};
    record d;
    d.seq = 1;
    d.type = type;
    d.decks = 2;
    d.jokers = 2;
    d.cards = format_cards(make_deck(spec), spec);
    d.hash = "1";
    a.fold(d);
    EXPECT_FALSE(a.audit("x").has_value());
    EXPECT_NE(a.unauditable().find("deals a shoe of 2 decks and 2 jokers, not the table's 1 and 0"), std::string::npos)
        << a.unauditable();
  }
}

// A store that serves whatever log the test gives it (to swap histories under the cache).
struct fake_store : store {
  std::vector<record> records;
  void submit(write_request, done_fn) override {}
  std::optional<std::vector<record>> log(std::string_view, std::optional<std::uint64_t> after, std::size_t limit) override {
    std::vector<record> out;
    for (const auto& r : records)
      if ((!after || r.seq > *after) && out.size() < limit) out.push_back(r);
    return out;
  }
  std::optional<table_state> table(std::string_view id) override {
    table_state t;
    t.id = std::string(id);
    t.next_seq = records.size();
    t.head_hash = records.empty() ? std::string(zero_hash) : records.back().hash;
    return t;
  }
  std::vector<std::string> token_hashes() override { return {}; }
  void add_token_hash(std::string_view) override {}
  std::vector<std::pair<std::string, std::string>> token_rows() override { return {}; }
  std::size_t revoke_token(std::string_view) override { return 0; }
  std::optional<std::string> meta(std::string_view) override { return std::nullopt; }
  std::string set_meta_once(std::string_view, std::string_view value) override { return std::string(value); }
  std::optional<std::string> first_table_id() override { return std::nullopt; }
  void ping() override {}
  commit_stats stats() const override { return {}; }
  void flush() override {}
  std::string_view kind() const noexcept override { return "fake"; }
};

TEST_F(audit_fixture, ACacheIsNeverServedForAnotherHistory) {
  open("t", 2);
  deal_n("t", 8, 3);
  const auto one = log("t");
  test_dir other_dir;
  store_options o2;
  o2.db = (other_dir.path / "t.db").string();
  init_store(o2);
  auto s2 = open_store(o2);
  ASSERT_EQ(s2->execute(open_table{2, {}, "t"}).code, outcome::ok);
  for (unsigned i = 1; i <= 2; ++i) ASSERT_EQ(s2->execute(set_client_seed{"t", i, "q", std::nullopt}).code, outcome::ok);
  for (int i = 0; i < 8; ++i) {
    ASSERT_EQ(s2->execute(deal{"t", {}}).code, outcome::ok);
    if (i % 3 == 2) {
      ASSERT_EQ(s2->execute(rotate{"t"}).code, outcome::ok);
    }
  }
  const auto two = s2->log("t", std::nullopt, 1000).value();
  ASSERT_EQ(one.size(), two.size());
  ASSERT_NE(one.back().hash, two.back().hash);

  const auto fresh = [](const std::vector<record>& rs) {
    table_audit a;
    for (const auto& r : rs) a.fold(r);
    return std::pair{a.records(), audit_text(a.audit("t"))};
  };
  fake_store fs;
  audit_cache cache;
  const auto seen = [&] {
    std::pair<std::uint64_t, std::string> out;
    EXPECT_TRUE(cache.with(fs, "t", [&](audit_entry& e) { out = {e.audit.records(), audit_text(e.audit.audit("t"))}; }));
    return out;
  };
  const auto prefix = [](const std::vector<record>& rs, std::size_t n) { return std::vector<record>(rs.begin(), rs.begin() + n); };
  fs.records = one;
  EXPECT_EQ(seen(), fresh(one));
  fs.records = prefix(two, 5);  // behind the cache (an older backup of another history)
  EXPECT_EQ(seen(), fresh(prefix(two, 5)));
  fs.records = two;  // continues what was folded
  EXPECT_EQ(seen(), fresh(two));
  fs.records = one;  // same seq, another head hash
  EXPECT_EQ(seen(), fresh(one));
  fs.records = prefix(one, 4);
  EXPECT_EQ(seen(), fresh(prefix(one, 4)));
  fs.records = two;  // longer, but record 4 does not continue the cached head
  EXPECT_EQ(seen(), fresh(two));
  EXPECT_EQ(cache.tables(), 1u);
}

TEST(ShoeAudit, AFairShoeLooksFairAndASloppyOneDoesNot) {
  // 3,000 two-deck deals from the provably fair deck (fixed seed: deterministic) pass; 3,000
  // shoes where only the top 10 cards were shuffled in (the rest in factory order) do not.
  const deck_spec spec{2, 0};
  const auto seed = fair::server_seed::from_hex(std::string(64, '7'));
  table_audit fair_audit, cut_audit;
  std::vector<card_t> sloppy = make_deck(spec);
  for (std::uint64_t i = 1; i <= 3000; ++i) {
    record d;
    d.seq = i;
    d.type = record_type::deal;
    d.decks = 2;
    d.hash = fmt::format("{:064x}", i);
    d.cards = format_cards(fair::deal_deck(seed, "c", i, spec), spec);
    fair_audit.fold(d);
    // sloppy: only the top 10 cards shuffled, the rest in factory order
    const auto top = fair::deal_deck(seed, "c", i, deck_spec{1, 0});
    std::vector<card_t> deck = make_deck(spec);
    for (std::size_t k = 0; k < 10; ++k) std::swap(deck[k], deck[top[k]]);
    d.cards = format_cards(deck, spec);
    cut_audit.fold(d);
  }
  const auto f = fair_audit.audit("fair");
  ASSERT_TRUE(f.has_value());
  EXPECT_FALSE(f->decision.biased) << f->decision.worst_test << " " << f->decision.worst_p.value_or(-1);
  const auto c = cut_audit.audit("cut");
  ASSERT_TRUE(c.has_value());
  EXPECT_TRUE(c->decision.biased);
}

// A store whose reads fail, to see what the audit answers and logs.
struct failing_store : fake_store {
  bool unavailable = false;
  std::optional<std::vector<record>> log(std::string_view, std::optional<std::uint64_t>, std::size_t) override {
    if (unavailable) throw store_unavailable("cannot open /secret/path/t.db: disk I/O error");
    throw std::runtime_error("something broke in the audit");
  }
};

TEST(AuditErrors, A500Or503LogsOneLineAndAnswersGenerically) {
  failing_store fs;
  api a(fs);
  const auto get = [&] { return call_api(a, "", "GET", "/v1/tables/t/audit"); };
  ::testing::internal::CaptureStderr();
  const auto r500 = get();
  fs.unavailable = true;
  const auto r503 = get();
  const std::string err = ::testing::internal::GetCapturedStderr();
  EXPECT_EQ(r500.status, 500u);
  EXPECT_EQ(r503.status, 503u);
  EXPECT_EQ(r500.body.find("something broke"), std::string::npos);
  EXPECT_EQ(r503.body.find("/secret/path"), std::string::npos);  // paths and hosts stay in the operator's log
  EXPECT_NE(err.find("fairdeckd: GET /v1/tables/t/audit answered 500: something broke in the audit\n"), std::string::npos)
      << err;
  EXPECT_NE(err.find("answered 503: cannot open /secret/path/t.db: disk I/O error\n"), std::string::npos) << err;
}

TEST_F(audit_fixture, HtmlShowsWhereTheChainFails) {
  open("t", 1);
  deal_n("t", 4, 2);
  fake_store fs;
  fs.records = log("t");
  fs.records[2].cards = fs.records[1].cards;  // deal 2 claims deal 1's cards (rehashed: only rule 5 catches it)
  for (std::size_t i = 2; i < fs.records.size(); ++i) seal(fs.records[i], fs.records[i - 1].hash);
  const auto check = verify_log(fs.records);
  ASSERT_FALSE(check.ok);
  api a(fs);
  const auto html = call(a, "GET", "/v1/tables/t/audit?format=html");
  ASSERT_EQ(html.status, 200u);
  EXPECT_NE(html.body.find(fmt::format("chain check FAILED at record {}</b>: {}", *check.failed_seq, check.reason)),
            std::string::npos)
      << html.body.substr(0, 3000);
  const auto j = nlohmann::json::parse(call(a, "GET", "/v1/tables/t/audit").body);
  EXPECT_EQ(j["chain"]["verified"], false);
  EXPECT_EQ(j["chain"]["failed_seq"], *check.failed_seq);
}

TEST_F(audit_fixture, AnswerIsByteIdenticalToAFreshAuditAfterIncrements) {
  open("t", 2);
  api a(*s);
  for (const unsigned step : {3u, 1u, 12u, 6u}) {
    deal_n("t", step, 4);
    ASSERT_EQ(call(a, "GET", "/v1/tables/t/audit").status, 200u);
    ASSERT_EQ(call(a, "GET", "/v1/tables/t/audit?format=html").status, 200u);
  }
  api fresh(*s);
  for (const char* target : {"/v1/tables/t/audit", "/v1/tables/t/audit?format=html"}) {
    const auto cached = call(a, "GET", target);
    EXPECT_EQ(cached.body, call(fresh, "GET", target).body) << target;
    EXPECT_EQ(cached.content_type, call(fresh, "GET", target).content_type);
  }
  // and the JSON is what the full recomputation (verify_log + audit over the whole log) says
  const auto j = nlohmann::json::parse(call(a, "GET", "/v1/tables/t/audit").body);
  const auto check = verify_log(log("t"));
  EXPECT_EQ(j["deals"], 22);
  EXPECT_EQ(j["chain"]["deals_verified"], check.deals_verified);
  EXPECT_EQ(j["chain"]["deals_unrevealed"], check.deals_unrevealed);
}

TEST_F(audit_fixture, AuditRunsOffTheCallersThread) {  // issue #27 item 4: not on the I/O threads
  open("t", 1);
  deal_n("t", 2);
  api a(*s);
  std::promise<std::thread::id> where;
  auto f = where.get_future();
  a.handle({"GET", "/v1/tables/t/audit", "", "", "c1", {}, {}},
           [&where](http_response r) { where.set_value(r.status == 200 ? std::this_thread::get_id() : std::thread::id()); });
  const auto id = f.get();
  EXPECT_NE(id, std::thread::id());
  EXPECT_NE(id, std::this_thread::get_id());
}

TEST_F(audit_fixture, AFullAuditQueueAnswers503WithRetryAfter) {
  open("t", 1);
  api_options o;
  o.audit_queue = 0;  // every audit finds the queue full
  api a(*s, o);
  const auto r = call(a, "GET", "/v1/tables/t/audit");
  EXPECT_EQ(r.status, 503u);
  ASSERT_EQ(r.headers.size(), 1u);
  EXPECT_EQ(r.headers[0].first, "Retry-After");
  EXPECT_NE(a.metrics().find("fairdeck_http_responses_total{code=\"5xx\"} 1"), std::string::npos);
}

TEST(WorkPool, RefusesBeyondItsQueueAndRunsEveryAcceptedJob) {
  std::latch started(1), release(1);
  std::atomic<int> ran{0};
  {
    work_pool pool(1, 1);
    std::function<void()> first = [&] {
      started.count_down();
      release.wait();
      ++ran;
    };
    ASSERT_TRUE(pool.try_post(first));
    started.wait();  // the worker holds the first job; the queue is empty
    std::function<void()> second = [&] { ++ran; };
    ASSERT_TRUE(pool.try_post(second));
    std::function<void()> third = [&] { ran += 100; };
    EXPECT_FALSE(pool.try_post(third));
    EXPECT_TRUE(static_cast<bool>(third));  // refused: still the caller's
    release.count_down();
  }  // the destructor runs what it accepted
  EXPECT_EQ(ran.load(), 2);
}

TEST_F(audit_fixture, HtmlShowsTheChainVerdict) {  // issue #27 item 17
  open("t", 1);
  api a(*s);
  const auto empty = call(a, "GET", "/v1/tables/t/audit?format=html");
  ASSERT_EQ(empty.status, 200u);
  EXPECT_EQ(empty.content_type.rfind("text/html", 0), 0u);
  EXPECT_NE(empty.body.find("chain verified"), std::string::npos);
  deal_n("t", 3, 2);
  const auto html = call(a, "GET", "/v1/tables/t/audit?format=html").body;
  EXPECT_NE(html.find("chain verified</b> &#8212; 3 deals"), std::string::npos) << html.substr(0, 2000);
  EXPECT_NE(html.find("2 deals re-derived from revealed server seeds"), std::string::npos);
  EXPECT_NE(html.find("1 deal not checkable yet"), std::string::npos);
}

TEST_F(audit_fixture, LogPagesStopAtTheByteCap) {
  open("t", 2);
  deal_n("t", 30);
  api_options o;
  o.log_page_bytes = 4096;  // a few deals per page
  api a(*s, o);
  std::vector<std::uint64_t> seqs;
  std::string after;
  int pages = 0;
  for (;; ++pages) {
    ASSERT_LT(pages, 100);
    const auto r = call(a, "GET", fmt::format("/v1/tables/t/log{}", after));
    ASSERT_EQ(r.status, 200u);
    EXPECT_LE(r.body.size(), 4096u + 64u);
    const auto j = nlohmann::json::parse(r.body);
    for (const auto& rec : j["records"]) seqs.push_back(rec["seq"]);
    if (!j.contains("next_after")) break;
    after = fmt::format("?after={}", j["next_after"].get<std::uint64_t>());
  }
  EXPECT_GT(pages, 3);
  ASSERT_EQ(seqs.size(), 31u);  // the open record and 30 deals, each exactly once, in order
  for (std::size_t i = 0; i < seqs.size(); ++i) EXPECT_EQ(seqs[i], i);
  // `limit` still caps the count, and the page keeps the old JSON shape
  const auto two = nlohmann::json::parse(call(a, "GET", "/v1/tables/t/log?limit=2").body);
  EXPECT_EQ(two["records"].size(), 2u);
  EXPECT_EQ(two["next_after"], 1);
  EXPECT_EQ(two["table"], "t");
}

}  // namespace
}  // namespace fairdeck::service
