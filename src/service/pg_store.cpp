// The PostgreSQL store (libpqxx): several fairdeckd processes may serve the same tables.
// Each writer connection runs the group committer's batches; `load` takes the table row with
// SELECT ... FOR UPDATE, so a second process dealing on the same table waits for the first
// one's commit and then reads the advanced nonce (READ COMMITTED re-reads a locked row).
// UNIQUE(table_id, nonce) makes a reused nonce impossible even if that logic were wrong.
// Deadlocks between batches that lock tables in different orders are retried as a whole.
// The writer connections and their batches (2 round trips each) are in pg_batch.cpp; this
// file has the schema, the readers, the prober behind /healthz and the writers' routing.
#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <span>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>

#include "fairdeck/service/store.hpp"
#include "fairdeck/util/parallel.hpp"
#include "pg_batch.hpp"
#include "pg_db.hpp"

namespace fairdeck::service {
namespace {

using namespace pg_db;

constexpr const char* schema_sql = R"sql(
CREATE TABLE fairdeck_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO fairdeck_meta VALUES('schema', '1');
CREATE TABLE fairdeck_tables(id TEXT PRIMARY KEY, seats INTEGER NOT NULL, decks INTEGER NOT NULL,
  jokers INTEGER NOT NULL, sealed_seed TEXT NOT NULL, commitment TEXT NOT NULL, next_nonce BIGINT NOT NULL,
  next_seq BIGINT NOT NULL, head_hash TEXT NOT NULL, seat_seeds TEXT NOT NULL, hands TEXT NOT NULL DEFAULT '');
CREATE TABLE fairdeck_records(table_id TEXT NOT NULL, seq BIGINT NOT NULL, nonce BIGINT, body TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY(table_id, seq));
CREATE UNIQUE INDEX fairdeck_records_nonce ON fairdeck_records(table_id, nonce) WHERE nonce IS NOT NULL;
CREATE TABLE fairdeck_tokens(hash TEXT PRIMARY KEY, created TEXT NOT NULL);
)sql";

// Idempotency keys of deals (table.hpp), written in the deal's transaction; kept as long as
// the log (docs/service.md). Added on open to stores created before it.
constexpr const char* idempotency_sql =
    "CREATE TABLE IF NOT EXISTS fairdeck_idempotency(table_id TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, "
    "seq BIGINT NOT NULL, created TEXT NOT NULL, PRIMARY KEY(table_id, key))";


class pg_store final : public store {
 public:
  pg_store(const store_options& o, std::optional<secret_key> key) : uri_(o.db) {
    with_reader([](pqxx::nontransaction& n) {
      const auto r = n.exec("SELECT value FROM fairdeck_meta WHERE key = 'schema'");
      if (r.empty() || r[0][0].as<std::string>() != "1") throw std::runtime_error("not a fairdeckd store");
      create_tree_schema(n);  // a store from before the log gets its tables
    });
    // A store from before hands (issue #30) gets the column on open (several processes may
    // race to add it: IF NOT EXISTS, and the check first so an up-to-date store takes no lock).
    with_reader([](pqxx::nontransaction& n) {
      const auto r = n.exec(
          "SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND "
          "table_name = 'fairdeck_tables' AND column_name = 'hands'");
      if (r.empty()) n.exec("ALTER TABLE fairdeck_tables ADD COLUMN IF NOT EXISTS hands TEXT NOT NULL DEFAULT ''");
    });
    try {
      with_reader([](pqxx::nontransaction& n) { n.exec(idempotency_sql); });
    } catch (const store_unavailable&) {  // another instance created it at the same moment
      with_reader([](pqxx::nontransaction& n) { n.exec("SELECT 1 FROM fairdeck_idempotency LIMIT 0"); });
    }
    if (key) {
      for (unsigned i = 0; i < std::max(1u, o.writers); ++i)
        committers_.push_back(
            std::make_unique<group_committer>(make_pg_backend(uri_), *key, o.max_batch, o.max_queue));
      prober_ = std::thread([this] {
        name_this_thread("fd-prober");
        probe_loop();
      });
    }
  }

  ~pg_store() override {
    if (prober_.joinable()) {
      {
        std::lock_guard lock(health_mutex_);
        stopping_ = true;
      }
      health_cv_.notify_all();
      prober_.join();
    }
    committers_.clear();  // drains the queues; their answers still note health (members below)
  }
  pg_store(const pg_store&) = delete;
  pg_store& operator=(const pg_store&) = delete;

  void submit(write_request req, done_fn done) override {
    if (committers_.empty()) return done(failure(outcome::unavailable, "store opened without its key"));
    // One table always goes to the same writer: its writes never wait on each other's locks.
    const std::size_t i = std::hash<std::string>{}(table_of(req)) % committers_.size();
    committers_[i]->submit(std::move(req), [this, done = std::move(done)](write_result r) {
      if (r.code == outcome::unavailable || r.code == outcome::unknown) note_health(false, r.error);
      else if (r.code == outcome::ok) note_health(true, {});
      done(std::move(r));
    });
  }

  std::optional<std::vector<record>> log(std::string_view table, std::optional<std::uint64_t> after,
                                         std::size_t limit) override {
    std::optional<std::vector<record>> out;
    with_reader([&](pqxx::nontransaction& n) {
      if (n.exec_params("SELECT 1 FROM fairdeck_tables WHERE id = $1", std::string(table)).empty()) return;
      const auto r = n.exec_params(
          "SELECT body, hash FROM fairdeck_records WHERE table_id = $1 AND seq > $2 ORDER BY seq LIMIT $3", std::string(table),
          after ? as_db(*after) : std::int64_t{-1}, static_cast<std::int64_t>(std::min<std::size_t>(limit, INT64_MAX)));
      out.emplace();
      for (const auto& row : r) out->push_back(record_from_canonical(row[0].as<std::string>(), row[1].as<std::string>()));
    });
    return out;
  }

  std::optional<table_state> table(std::string_view id) override {
    std::optional<table_state> out;
    with_reader([&](pqxx::nontransaction& n) {
      out = read_table(n.exec_params("SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, "
                                     "head_hash, seat_seeds, hands FROM fairdeck_tables WHERE id = $1",
                                     std::string(id)),
                       id);
    });
    return out;
  }

  std::vector<std::string> token_hashes() override {
    std::vector<std::string> out;
    with_reader([&](pqxx::nontransaction& n) {
      for (const auto& row : n.exec("SELECT hash FROM fairdeck_tokens")) out.push_back(row[0].as<std::string>());
    });
    return out;
  }

  void add_token_hash(std::string_view hash) override {
    with_reader([&](pqxx::nontransaction& n) {
      n.exec_params("INSERT INTO fairdeck_tokens(hash, created) VALUES($1, $2)", std::string(hash), utc_now());
    });
  }

  std::vector<std::pair<std::string, std::string>> token_rows() override {
    std::vector<std::pair<std::string, std::string>> out;
    with_reader([&](pqxx::nontransaction& n) {
      for (const auto& row : n.exec("SELECT hash, created FROM fairdeck_tokens ORDER BY created, hash"))
        out.emplace_back(row[0].as<std::string>(), row[1].as<std::string>());
    });
    return out;
  }

  std::size_t revoke_token(std::string_view prefix) override {
    std::size_t hits = 0;
    with_reader([&](pqxx::nontransaction& n) {
      // One statement: deletes only when exactly one hash has the prefix.
      const auto r = n.exec_params(
          "WITH hit AS (SELECT hash FROM fairdeck_tokens WHERE substr(hash, 1, $2) = $1), "
          "gone AS (DELETE FROM fairdeck_tokens WHERE hash IN (SELECT hash FROM hit) AND (SELECT count(*) FROM hit) = 1 "
          "RETURNING hash) SELECT (SELECT count(*) FROM hit)",
          std::string(prefix), static_cast<int>(prefix.size()));
      hits = static_cast<std::size_t>(r[0][0].as<std::int64_t>());
    });
    return hits;
  }

  std::optional<std::string> meta(std::string_view name) override {
    std::optional<std::string> out;
    with_reader([&](pqxx::nontransaction& n) {
      const auto r = n.exec_params("SELECT value FROM fairdeck_meta WHERE key = $1", std::string(name));
      if (!r.empty()) out = r[0][0].as<std::string>();
    });
    return out;
  }

  std::string set_meta_once(std::string_view name, std::string_view value) override {
    with_reader([&](pqxx::nontransaction& n) {
      n.exec_params("INSERT INTO fairdeck_meta(key, value) VALUES($1, $2) ON CONFLICT (key) DO NOTHING", std::string(name),
                    std::string(value));
    });
    return meta(name).value();
  }

  std::optional<std::string> first_table_id() override {
    std::optional<std::string> out;
    with_reader([&](pqxx::nontransaction& n) {
      const auto r = n.exec("SELECT min(id) FROM fairdeck_tables");
      if (!r.empty() && !r[0][0].is_null()) out = r[0][0].as<std::string>();
    });
    return out;
  }

  // ---- the transparency log (pg_tree.cpp) ----
  std::optional<log_head> tree_head(std::string_view table) override {
    std::optional<log_head> out;
    with_reader([&](pqxx::nontransaction& n) { out = read_tree_head(n, table); });
    return out;
  }
  std::vector<tlog::hash> tree_nodes(std::string_view table, std::span<const node_ref> refs) override {
    std::vector<tlog::hash> out;
    with_reader([&](pqxx::nontransaction& n) { out = read_tree_nodes(n, table, refs); });
    return out;
  }
  void add_cosignature(std::string_view table, std::uint64_t size, const tlog::hash& root, std::string_view witness,
                       std::string_view line) override {
    with_reader([&](pqxx::nontransaction& n) { write_cosignature(n, table, size, root, witness, line); });
  }
  std::vector<std::string> cosignatures(std::string_view table, std::uint64_t size, const tlog::hash& root) override {
    std::vector<std::string> out;
    with_reader([&](pqxx::nontransaction& n) { out = read_cosignatures(n, table, size, root); });
    return out;
  }

  std::optional<std::pair<std::uint64_t, tlog::hash>> latest_cosigned(std::string_view table,
                                                                      std::string_view witness) override {
    std::optional<std::pair<std::uint64_t, tlog::hash>> out;
    with_reader([&](pqxx::nontransaction& n) {
      const auto r = n.exec_params("SELECT size, root FROM fairdeck_cosignatures WHERE table_id = $1 AND witness = $2 "
                                   "ORDER BY size DESC LIMIT 1",
                                   std::string(table), std::string(witness));
      if (r.empty()) return;
      const auto root = tlog::hash_from_hex(r[0][1].as<std::string>());
      if (!root) throw store_unavailable(fmt::format("table '{}': a cosigned root is not 64 hex digits", table));
      out.emplace(from_db(r[0][0].as<std::int64_t>()), *root);
    });
    return out;
  }

  void start_log(std::shared_ptr<const tlog::note_signer> signer) override {
    if (committers_.empty()) return;
    const auto b = make_pg_backend(uri_);
    for (int attempt = 0;; ++attempt) {
      try {
        b->begin();
        build_missing_trees(*b->trees(), *signer);
        b->commit();
        break;
      } catch (const std::exception& e) {
        b->rollback();
        if (attempt >= 4 || !b->retryable(e))
          throw store_unavailable(scrub_password(fmt::format("cannot build the log's trees: {}", first_line(e.what())), uri_));
      }
    }
    for (auto& c : committers_) c->set_log(signer);
  }

  // Serving stores (opened with the key) answer from what the prober and the writes last saw,
  // without a round trip: /healthz is answered on an I/O thread and must never wait behind the
  // database (a query on the shared read connection there once held /healthz p99 at 0.5-1 s
  // under load). Stale by at most one probe interval; a failed write shows at once.
  void ping() override {
    if (!prober_.joinable()) {
      with_reader([](pqxx::nontransaction& n) { n.exec("SELECT 1"); });
      return;
    }
    std::lock_guard lock(health_mutex_);
    if (!healthy_) throw store_unavailable(health_error_);
    if (std::chrono::steady_clock::now() - last_ok_ > stale_after)
      throw store_unavailable("PostgreSQL has not answered a probe for 3 s");
  }

  [[nodiscard]] commit_stats stats() const override {
    commit_stats s;
    for (const auto& c : committers_) {
      const auto one = c->stats();
      s.batches += one.batches;
      s.writes += one.writes;
      s.failed_batches += one.failed_batches;
      s.isolated_batches += one.isolated_batches;
      s.retried_batches += one.retried_batches;
      s.optimistic_batches += one.optimistic_batches;
    }
    return s;
  }
  void flush() override {
    for (auto& c : committers_) c->flush();
  }
  [[nodiscard]] std::string_view kind() const noexcept override { return "postgresql"; }

 private:
  static constexpr auto probe_every = std::chrono::milliseconds(250);
  static constexpr auto stale_after = std::chrono::seconds(3);

  // A write's outcome, or a probe's (started at `since`: older than the last write's outcome,
  // it is ignored, so a probe that was answered just before the database went away does not
  // hide the failed write that saw it go).
  void note_health(bool ok, std::string error,
                   std::chrono::steady_clock::time_point since = std::chrono::steady_clock::now()) {
    std::lock_guard lock(health_mutex_);
    if (since < last_event_) return;
    last_event_ = since;
    healthy_ = ok;
    if (ok) last_ok_ = std::chrono::steady_clock::now();
    else health_error_ = std::move(error);
  }

  // SELECT 1 on a connection of its own (never queued behind readers), every probe_every.
  void probe_loop() {
    std::unique_ptr<pqxx::connection> c;
    std::unique_lock lock(health_mutex_);
    while (!stopping_) {
      lock.unlock();
      const auto started = std::chrono::steady_clock::now();
      try {
        if (!c || !c->is_open()) c = connect(uri_);
        pqxx::nontransaction n(*c);
        n.exec("SELECT 1");
        note_health(true, {}, started);
      } catch (const std::exception& e) {
        c.reset();
        note_health(false, scrub_password(fmt::format("PostgreSQL: {}", first_line(e.what())), uri_), started);
      }
      lock.lock();
      health_cv_.wait_for(lock, probe_every, [&] { return stopping_; });
    }
  }

  // Runs f on the shared read connection (reconnecting once if it broke); database errors
  // become store_unavailable.
  template <class F>
  void with_reader(F&& f) {
    std::lock_guard lock(reader_mutex_);
    for (int attempt = 0;; ++attempt) {
      try {
        if (!reader_ || !reader_->is_open()) reader_ = connect(uri_);
        pqxx::nontransaction n(*reader_);
        f(n);
        return;
      } catch (const pqxx::broken_connection& e) {
        reader_.reset();
        if (attempt > 0)
          throw store_unavailable(scrub_password(fmt::format("PostgreSQL connection lost: {}", first_line(e.what())), uri_));
      } catch (const pqxx::sql_error& e) {
        reader_.reset();  // e.g. a node demoted to read-only: connect again next time
        throw store_unavailable(scrub_password(fmt::format("PostgreSQL: {}", first_line(e.what())), uri_));
      }
    }
  }

  std::string uri_;
  std::mutex reader_mutex_;
  std::unique_ptr<pqxx::connection> reader_;
  std::vector<std::unique_ptr<group_committer>> committers_;
  // /healthz (ping): under health_mutex_
  std::mutex health_mutex_;
  std::condition_variable health_cv_;
  bool stopping_ = false;
  bool healthy_ = true;  // the constructor has just used the database
  std::string health_error_;
  std::chrono::steady_clock::time_point last_event_{}, last_ok_ = std::chrono::steady_clock::now();
  std::thread prober_;  // last: started when everything above exists
};

}  // namespace

void create_pg_store(const store_options& o, std::string_view key_check) {
  auto c = connect(o.db);
  try {
    pqxx::work w(*c);
    w.exec(schema_sql);
    create_tree_schema(w);
    w.exec_params("INSERT INTO fairdeck_meta(key, value) VALUES('key_check', $1)", std::string(key_check));
    w.commit();
  } catch (const std::exception& e) {
    throw std::runtime_error(scrub_password(
        fmt::format("cannot create the fairdeckd schema (already initialised?): {}", first_line(e.what())), o.db));
  }
}

std::unique_ptr<store> open_pg_store(const store_options& o, std::optional<secret_key> key) {
  return std::make_unique<pg_store>(o, std::move(key));
}

}  // namespace fairdeck::service
