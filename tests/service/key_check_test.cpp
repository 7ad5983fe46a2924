// Issue #27 item 8 on a real SQLite store: the key check (stored at init, learnt from a sealed
// seed in older stores), seeds bound to their table, and a failing write inside a group
// commit that no longer takes its batch down with it.
#include <future>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sodium.h>

#include "fairdeck/service/store.hpp"
#include "service_test_support.hpp"
#include "sqlite_test_support.hpp"

namespace fairdeck::service {
namespace {

struct key_fixture : ::testing::Test {
  test_dir dir;
  store_options opts;
  std::unique_ptr<store> s;
  void SetUp() override {
    opts.db = (dir.path / "t.db").string();
    init_store(opts);
    s = open_store(opts);
  }
  std::string key_file() const { return opts.db + ".key"; }
  void seeded_table(const std::string& id) {
    ASSERT_EQ(s->execute(open_table{1, {}, id}).code, outcome::ok);
    ASSERT_EQ(s->execute(set_client_seed{id, 1, "p", std::nullopt}).code, outcome::ok);
  }
  void other_key_file() {
    std::filesystem::rename(key_file(), key_file() + ".right");
    (void)create_key_file(key_file());
  }
  void right_key_file() {
    std::filesystem::remove(key_file());
    std::filesystem::rename(key_file() + ".right", key_file());
  }
};

TEST_F(key_fixture, InitStoresTheKeyCheckValue) {
  EXPECT_EQ(s->meta("key_check"), key_check_value(read_key_file(key_file())));
}

// A store from before the key check: the key is checked against a sealed seed, then remembered.
TEST_F(key_fixture, AnOlderStoreIsCheckedAgainstASealedSeedThenRemembersItsKey) {
  seeded_table("a");
  s.reset();
  run_sql(opts.db, "DELETE FROM fairdeck_meta WHERE key = 'key_check'");
  other_key_file();
  EXPECT_THROW((void)open_store(opts), wrong_key);
  EXPECT_EQ(query_sql(opts.db, "SELECT value FROM fairdeck_meta WHERE key = 'key_check'"), "");  // not learnt
  right_key_file();
  s = open_store(opts);
  EXPECT_EQ(s->meta("key_check"), key_check_value(read_key_file(key_file())));
  EXPECT_EQ(s->execute(deal{"a", {}}).code, outcome::ok);
  s.reset();
  other_key_file();
  EXPECT_THROW((void)open_store(opts), wrong_key);  // now by the stored value
}

TEST_F(key_fixture, AnOlderStoreWithoutTablesTakesTheKey) {
  s.reset();
  // A store from before the key check had no log key either.
  run_sql(opts.db, "DELETE FROM fairdeck_meta WHERE key IN ('key_check', 'log_key')");
  other_key_file();
  s = open_store(opts);  // nothing is sealed yet: any key is this store's key from now on
  EXPECT_EQ(s->meta("key_check"), key_check_value(read_key_file(key_file())));
  s.reset();
  right_key_file();
  EXPECT_THROW((void)open_store(opts), wrong_key);
}

// A store without the key check but with a log key: the key must open the log key.
TEST_F(key_fixture, WithoutTheKeyCheckTheLogKeyChecksTheKey) {
  s.reset();
  run_sql(opts.db, "DELETE FROM fairdeck_meta WHERE key = 'key_check'");
  other_key_file();
  EXPECT_THROW((void)open_store(opts), wrong_key);
  right_key_file();
  EXPECT_NO_THROW((void)open_store(opts));
}

// The seed sealed in one table's row, copied into another's (with or without its commitment),
// does not deal there; and the deals on healthy tables in the same group commits all succeed.
TEST_F(key_fixture, ACopiedSealedSeedFailsAloneAndItsBatchCommits) {
  seeded_table("good");
  seeded_table("copy");
  seeded_table("both");
  run_sql(opts.db,
          "UPDATE fairdeck_tables SET sealed_seed = (SELECT sealed_seed FROM fairdeck_tables WHERE id = 'good') "
          "WHERE id = 'copy';"
          "UPDATE fairdeck_tables SET (sealed_seed, commitment) = (SELECT sealed_seed, commitment FROM fairdeck_tables "
          "WHERE id = 'good') WHERE id = 'both'");
  // Hold SQLite's write lock so that the writes below queue up and are committed together:
  // whichever way the writer splits them, each failing write shares its batch with good ones.
  sqlite3* lock = nullptr;
  ASSERT_EQ(sqlite3_open(opts.db.c_str(), &lock), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(lock, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  std::vector<std::pair<std::string, std::future<write_result>>> pending;
  for (int i = 0; i < 60; ++i) {
    const std::string t = i % 3 == 0 ? "good" : (i % 3 == 1 ? "copy" : "both");
    auto p = std::make_shared<std::promise<write_result>>();
    pending.emplace_back(t, p->get_future());
    s->submit(deal{t, {}}, [p](write_result r) { p->set_value(std::move(r)); });
  }
  const auto batches_before = s->stats().batches;
  ASSERT_EQ(sqlite3_exec(lock, "COMMIT", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(lock);
  std::uint64_t next = 0;
  for (auto& [t, f] : pending) {
    const auto r = f.get();
    if (t == "good") {
      ASSERT_EQ(r.code, outcome::ok) << r.error;
      EXPECT_EQ(r.rec->nonce, next++);
    } else {
      EXPECT_EQ(r.code, outcome::unavailable) << t;
      EXPECT_NE(r.error.find(fmt::format("table '{}'", t)), std::string::npos) << r.error;
    }
  }
  s->flush();
  EXPECT_LE(s->stats().batches - batches_before, 2u);
  EXPECT_EQ(s->stats().failed_batches, 0u);
  EXPECT_EQ(s->log("good", std::nullopt, 1000)->size(), 1u + 20u);
  EXPECT_EQ(s->log("copy", std::nullopt, 1000)->size(), 1u);
  EXPECT_TRUE(verify_log(*s->log("good", std::nullopt, 1000)).ok);
}

// A seed sealed by an older fairdeckd (crypto_secretbox, no associated data) still deals, and
// that deal rewrites it as a v2 seal bound to its table.
TEST_F(key_fixture, AnOlderV1SealDealsAndIsRewrittenBoundToItsTable) {
  seeded_table("old");
  const auto key = read_key_file(key_file());
  const auto seed = fair::server_seed::generate();
  std::array<unsigned char, crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + fair::seed_bytes> box{};
  randombytes_buf(box.data(), crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy(box.data() + crypto_secretbox_NONCEBYTES, seed.bytes().data(), seed.bytes().size(), box.data(),
                        key.bytes().data());
  std::string v1;
  for (const auto b : box) v1 += fmt::format("{:02x}", b);
  run_sql(opts.db, fmt::format("UPDATE fairdeck_tables SET sealed_seed = '{}', commitment = '{}' WHERE id = 'old'", v1,
                               fair::commitment(seed)));
  const auto d = s->execute(deal{"old", {}});
  ASSERT_EQ(d.code, outcome::ok) << d.error;
  EXPECT_EQ(d.deck, fair::deal_deck(seed, "p", 0, {}));
  const auto now = query_sql(opts.db, "SELECT sealed_seed FROM fairdeck_tables WHERE id = 'old'");
  EXPECT_EQ(now.rfind("v2:", 0), 0u) << now;
  EXPECT_EQ(open_seed(now, key, "old", fair::commitment(seed)), seed);
  EXPECT_EQ(s->execute(deal{"old", {}}).code, outcome::ok);
}

TEST(ServiceStoreUri, PasswordsAreKeptOutOfMessages) {
  const std::string uri = "postgresql://dealer:s%40cret-pw@db.example/fairdeck?sslmode=require&password=other-pw";
  EXPECT_EQ(redact_db(uri), "postgresql://dealer:***@db.example/fairdeck?sslmode=require&password=***");
  EXPECT_EQ(uri_passwords(uri), (std::vector<std::string>{"s%40cret-pw", "other-pw"}));
  EXPECT_EQ(scrub_password("bad token \"s%40cret-pw\", or s@cret-pw, or other-pw", uri), "bad token \"***\", or ***, or ***");
  EXPECT_TRUE(uri_passwords("postgresql://dealer@db.example/fairdeck").empty());
  EXPECT_TRUE(uri_passwords("postgresql:///fairdeck?host=/run/pg&user=x").empty());
  EXPECT_TRUE(uri_passwords("tables.db").empty());
  EXPECT_EQ(redact_db("tables.db"), "tables.db");
  EXPECT_EQ(scrub_password("x*y", "postgresql://u:*@h/d"), "x***y");  // terminates
}

// Opening a store whose password is wrong: the error never shows the password.
TEST(ServiceStoreUri, AConnectionErrorDoesNotShowThePassword) {
  store_options o;
  o.db = "postgresql://dealer:Sekr1t-Pw@127.0.0.1:1/fairdeck?connect_timeout=2";
  try {
    (void)open_store_for_tokens(o);
    FAIL() << "connected to port 1";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()).find("Sekr1t-Pw"), std::string::npos) << e.what();
  }
  o.db = "postgresql://dealer:Sekr1t%zz@127.0.0.1:1/fairdeck";  // malformed: libpq quotes the token
  try {
    (void)open_store_for_tokens(o);
    FAIL() << "accepted a malformed URI";
  } catch (const std::exception& e) {
    EXPECT_EQ(std::string(e.what()).find("Sekr1t"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace fairdeck::service
