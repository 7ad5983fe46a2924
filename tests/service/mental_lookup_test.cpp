// GET of an earlier mental hand (public, on an I/O thread) reads O(log n) records to find it,
// not the table's log from the start: the read count is bounded by the hand, not the table's age.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "api_test_support.hpp"
#include "fairdeck/mental/transcript.hpp"
#include "fairdeck/service/store.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

using json = nlohmann::json;

// A real store that counts the records its log() reads return.
struct counting_store : store {
  explicit counting_store(std::unique_ptr<store> s) : inner(std::move(s)) {}
  void submit(write_request req, done_fn done) override { inner->submit(std::move(req), std::move(done)); }
  std::optional<std::vector<record>> log(std::string_view table, std::optional<std::uint64_t> after,
                                         std::size_t limit) override {
    auto got = inner->log(table, after, limit);
    if (got) records_read += got->size();
    return got;
  }
  std::optional<table_state> table(std::string_view id) override { return inner->table(id); }
  std::vector<std::string> token_hashes() override { return inner->token_hashes(); }
  void add_token_hash(std::string_view h) override { inner->add_token_hash(h); }
  std::vector<std::pair<std::string, std::string>> token_rows() override { return inner->token_rows(); }
  std::size_t revoke_token(std::string_view p) override { return inner->revoke_token(p); }
  std::optional<std::string> meta(std::string_view n) override { return inner->meta(n); }
  std::string set_meta_once(std::string_view n, std::string_view v) override { return inner->set_meta_once(n, v); }
  std::optional<std::string> first_table_id() override { return inner->first_table_id(); }
  void ping() override { inner->ping(); }
  commit_stats stats() const override { return inner->stats(); }
  void flush() override { inner->flush(); }
  std::string_view kind() const noexcept override { return inner->kind(); }
  std::unique_ptr<store> inner;
  std::size_t records_read = 0;
};

TEST(MentalLookup, AnEarlierHandIsFoundWithoutReadingTheLogFromTheStart) {
  test_dir dir;
  store_options opts;
  opts.db = (dir.path / "t.db").string();
  init_store(opts);
  counting_store s(open_store(opts));
  const std::string token = generate_token();
  s.add_token_hash(token_hash(token));
  api handler(s);
  const auto call = [&](std::string_view method, std::string_view target, std::string_view body = "") {
    return call_api(handler, token, method, target, body, "c");
  };
  json players = json::array();
  for (int i = 0; i < 2; ++i)
    players.push_back(json::parse(mental::to_json(mental::make_public_share(mental::generate_key()))));
  ASSERT_EQ(call("POST", "/v1/tables",
                 fmt::format(R"({{"seats": 2, "table": "m", "mode": "mental", "players": {}}})", players.dump()))
                .status,
            201u);
  constexpr std::uint64_t hands = 600;  // one mental_hand record each: a log of 601 records
  for (std::uint64_t h = 1; h <= hands; ++h) ASSERT_EQ(call("POST", "/v1/tables/m/mental/hands").status, 201u) << h;
  for (const std::uint64_t h : {std::uint64_t{1}, std::uint64_t{2}, hands / 2, hands - 1}) {
    s.records_read = 0;
    const auto r = call("GET", fmt::format("/v1/tables/m/mental/hands/{}", h));
    ASSERT_EQ(r.status, 200u) << r.body;
    EXPECT_EQ(json::parse(r.body).at("current"), false);
    // log2(600) ≈ 10 single-record probes, then one page of 128 from the hand on (the hand
    // ends at the next one); reading from the start read about h records first.
    EXPECT_LE(s.records_read, 128u + 13u) << "hand " << h;
    const auto t = call("GET", fmt::format("/v1/tables/m/mental/hands/{}/transcript", h));
    ASSERT_EQ(t.status, 200u) << t.body;
    EXPECT_EQ(mental::parse_hand(t.body).steps.size(), 0u);
  }
  s.records_read = 0;
  EXPECT_EQ(call("GET", "/v1/tables/m/mental/hands/0").status, 404u);
  EXPECT_LE(s.records_read, 128u + 13u);
  EXPECT_EQ(call("GET", fmt::format("/v1/tables/m/mental/hands/{}", hands)).status, 200u);
  EXPECT_EQ(call("GET", fmt::format("/v1/tables/m/mental/hands/{}", hands + 1)).status, 404u);
}

}  // namespace
}  // namespace fairdeck::service
