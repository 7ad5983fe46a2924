// The PostgreSQL store (libpqxx): several fairdeckd processes may serve the same tables.
// Each writer connection runs the group committer's batches; `load` takes the table row with
// SELECT ... FOR UPDATE, so a second process dealing on the same table waits for the first
// one's commit and then reads the advanced nonce (READ COMMITTED re-reads a locked row).
// UNIQUE(table_id, nonce) makes a reused nonce impossible even if that logic were wrong.
// Deadlocks between batches that lock tables in different orders are retried as a whole.
// Round trips: a batch costs 5 whatever its size and number of tables (docs/service.md,
// "PostgreSQL: where a deal's time goes"): BEGIN; its tables' rows and tree heads, each in
// one SELECT ... FOR UPDATE (prefetch); its records in one INSERT (flush_writes); the writes
// nothing reads (table rows, tree nodes and heads) sent with COMMIT as one query.
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


// libpq reads PGPASSWORD and PGPASSFILE (~/.pgpass) itself when the URI has no password.
// Its messages can quote parts of a malformed URI: the password is scrubbed from them.
std::unique_ptr<pqxx::connection> connect(const std::string& uri) {
  try {
    return std::make_unique<pqxx::connection>(uri);
  } catch (const std::exception& e) {
    throw store_unavailable(scrub_password(fmt::format("cannot connect to PostgreSQL: {}", first_line(e.what())), uri));
  }
}

void prepare_all(pqxx::connection& c) {
  c.prepare("load",
            "SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, head_hash, seat_seeds, hands "
            "FROM fairdeck_tables WHERE id = $1 FOR UPDATE");
  // A batch's tables in one round trip, locked in id order (bytewise, as the committer sorts them).
  c.prepare("load_many",
            "SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, head_hash, seat_seeds, hands, id "
            "FROM fairdeck_tables WHERE id = ANY($1::text[]) ORDER BY id COLLATE \"C\" FOR UPDATE");
  c.prepare("insert",
            "INSERT INTO fairdeck_tables(id, seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, "
            "head_hash, seat_seeds, hands) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING");
  c.prepare("find_key", "SELECT fingerprint, seq FROM fairdeck_idempotency WHERE table_id = $1 AND key = $2");
  c.prepare("store_key",
            "INSERT INTO fairdeck_idempotency(table_id, key, fingerprint, seq, created) VALUES($1, $2, $3, $4, $5)");
  c.prepare("record_at", "SELECT body, hash FROM fairdeck_records WHERE table_id = $1 AND seq = $2");
  // A batch's records in one statement (pg_backend::flush_writes): one round trip instead of one per record.
  c.prepare("append_many",
            "INSERT INTO fairdeck_records(table_id, seq, nonce, body, hash) SELECT * FROM "
            "unnest($1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::text[])");
}

// Columns 0..9 of `row`: the table's state as "load" selects it.
table_state read_table_row(const pqxx::row& row, std::string_view id) {
  table_state t;
  t.id = std::string(id);
  t.seats = row[0].as<unsigned>();
  t.spec = deck_spec{row[1].as<unsigned>(), row[2].as<unsigned>()};
  t.sealed_seed = row[3].as<std::string>();
  t.commitment = row[4].as<std::string>();
  t.next_nonce = from_db(row[5].as<std::int64_t>());
  t.next_seq = from_db(row[6].as<std::int64_t>());
  t.head_hash = row[7].as<std::string>();
  t.seat_seeds = nlohmann::json::parse(row[8].as<std::string>()).get<std::vector<std::string>>();
  read_hand_state(t, row[9].as<std::string>());
  return t;
}

std::optional<table_state> read_table(const pqxx::result& r, std::string_view id) {
  if (r.empty()) return std::nullopt;
  return read_table_row(r[0], id);
}

class pg_backend final : public batch_backend, public transaction {
 public:
  explicit pg_backend(std::string uri) : uri_(std::move(uri)), trees_(tx_, *this, deferred_) {}

  // Connects when there is no connection. After a failed attempt the next ones wait a
  // growing pause (0.1 s doubling to 1 s): meanwhile batches fail at once as unavailable
  // (503 + Retry-After), and a multi-host URI with target_session_attrs=read-write finds
  // the new primary after a failover without a restart.
  void begin() override {
    if (!conn_ || !conn_->is_open()) {
      conn_.reset();
      const auto now = std::chrono::steady_clock::now();
      if (now < retry_at_) throw store_unavailable("no PostgreSQL primary reachable (reconnecting)");
      try {
        conn_ = connect(uri_);
        prepare_all(*conn_);
        prepare_tree_statements(*conn_);
        pause_ = {};
      } catch (...) {
        conn_.reset();
        pause_ = std::clamp(pause_ * 2, std::chrono::milliseconds(100), std::chrono::milliseconds(1000));
        retry_at_ = now + pause_;
        throw;
      }
    }
    drop_pending();
    drop_deferred();
    prefetched_.clear();
    trees_.forget();
    tx_.emplace(*conn_);
    tx_->exec0("BEGIN");
  }
  // A connection lost during COMMIT leaves the outcome unknown: the batch must not be run
  // again (it may have committed), so this is not retryable; its writes answer 503 and a
  // client's retry with the same Idempotency-Key finds the deal if it was stored.
  // The writes whose answers nothing reads (the tables' rows, the tree's nodes and head) go
  // with COMMIT as one multi-statement query: one round trip. A failure in it aborts the
  // transaction before COMMIT runs (the batch fails as a whole, as a failed COMMIT would).
  void commit() override {
    flush_writes();  // normally done already by the committer
    std::string sql;
    sql.swap(deferred_);
    sql += "COMMIT";
    try {
      tx_->exec0(sql);
    } catch (const pqxx::broken_connection& e) {
      tx_.reset();
      conn_.reset();
      throw store_unavailable(scrub_password(fmt::format("connection lost during COMMIT: {}", first_line(e.what())), uri_));
    }
    tx_.reset();
  }
  // After any failed batch the connection is dropped: it may now lead to a node that was
  // demoted to a standby (read-only), and the next batch must find the primary again.
  void rollback() noexcept override {
    drop_pending();
    drop_deferred();
    prefetched_.clear();
    trees_.forget();
    try {
      if (tx_) tx_->exec0("ROLLBACK");
    } catch (...) {
    }
    tx_.reset();
    conn_.reset();
  }
  void savepoint() override { tx_->exec0("SAVEPOINT fairdeck_write"); }
  void release() override { tx_->exec0("RELEASE SAVEPOINT fairdeck_write"); }
  void rollback_to_savepoint() override {
    drop_pending();  // the failed write's rows, never sent
    tx_->exec0("ROLLBACK TO SAVEPOINT fairdeck_write; RELEASE SAVEPOINT fairdeck_write");
  }
  [[nodiscard]] bool retryable(const std::exception& e) const noexcept override {
    return dynamic_cast<const pqxx::transaction_rollback*>(&e) != nullptr ||
           dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr;
  }
  transaction& tx() override { return *this; }
  tree_storage* trees() noexcept override { return &trees_; }

  std::optional<table_state> load(std::string_view id) override {
    if (const auto it = prefetched_.find(id); it != prefetched_.end()) return it->second;
    return read_table(tx_->exec_prepared("load", std::string(id)), id);
  }
  // The batch's table rows (locked FOR UPDATE) and tree heads: two round trips for the batch
  // instead of two per table. Absent rows are remembered as absent.
  void prefetch(std::span<const std::string> tables, bool trees) override {
    if (tables.empty()) return;
    std::string ids = "{";
    for (const auto& t : tables) {
      if (ids.size() > 1) ids += ',';
      quoted_element(ids, t);
    }
    ids += '}';
    for (const auto& t : tables) prefetched_.emplace(t, std::nullopt);
    for (const auto& row : tx_->exec_prepared("load_many", ids)) {
      const auto id = row[10].as<std::string>();
      prefetched_[id] = read_table_row(row, id);
    }
    if (trees) trees_.prefetch(tables, ids);
  }

  void insert(const table_state& t) override {
    const auto r = tx_->exec_prepared("insert", t.id, t.seats, t.spec.decks, t.spec.jokers, t.sealed_seed, t.commitment,
                                      as_db(t.next_nonce), as_db(t.next_seq), t.head_hash,
                                      nlohmann::json(t.seat_seeds).dump(), hand_state_text(t));
    if (r.affected_rows() == 0) throw table_exists(t.id);
  }
  // Called once per table at the end of a batch (batch_tx::write_back): deferred, sent with
  // the tree's writes and COMMIT in one round trip (commit()).
  void update(const table_state& t) override {
    const auto& x = *tx_;
    deferred_ += fmt::format(
        "UPDATE fairdeck_tables SET sealed_seed = {}, commitment = {}, next_nonce = {}, next_seq = {}, head_hash = {}, "
        "seat_seeds = {}, hands = {} WHERE id = {};\n",
        literal(x, t.sealed_seed), literal(x, t.commitment), as_db(t.next_nonce), as_db(t.next_seq), literal(x, t.head_hash),
        literal(x, nlohmann::json(t.seat_seeds).dump()), literal(x, hand_state_text(t)), literal(x, t.id));
  }
  // Records are buffered and sent by flush_writes (the committer calls it after the batch's
  // writes; reads of records and COMMIT flush first), so a batch of n deals costs one INSERT
  // round trip instead of n. UNIQUE/PRIMARY KEY violations then surface at the flush.
  void append(const record& rec) override {
    const bool first = pending_ == 0;
    const auto sep = [&](std::string& a) { a += first ? '{' : ','; };
    sep(tables_arr_), sep(seqs_arr_), sep(nonces_arr_), sep(bodies_arr_), sep(hashes_arr_);
    quoted_element(tables_arr_, rec.table);
    seqs_arr_ += std::to_string(as_db(rec.seq));
    nonces_arr_ += takes_nonce(rec.type) ? std::to_string(as_db(rec.nonce)) : std::string("NULL");
    quoted_element(bodies_arr_, canonical_text(rec));
    quoted_element(hashes_arr_, rec.hash);
    ++pending_;
  }
  void flush_writes() override {
    if (pending_ == 0) return;
    for (auto* a : {&tables_arr_, &seqs_arr_, &nonces_arr_, &bodies_arr_, &hashes_arr_}) *a += '}';
    std::string t, q, n, b, h;  // moved out first: after a failure nothing stays buffered
    t.swap(tables_arr_), q.swap(seqs_arr_), n.swap(nonces_arr_), b.swap(bodies_arr_), h.swap(hashes_arr_);
    pending_ = 0;
    tx_->exec_prepared("append_many", t, q, n, b, h);
  }
  std::optional<idempotent_deal> find_idempotency(std::string_view table, std::string_view key) override {
    const auto r = tx_->exec_prepared("find_key", std::string(table), std::string(key));
    if (r.empty()) return std::nullopt;
    return idempotent_deal{r[0][0].as<std::string>(), from_db(r[0][1].as<std::int64_t>())};
  }
  void store_idempotency(std::string_view table, std::string_view key, const idempotent_deal& d) override {
    tx_->exec_prepared("store_key", std::string(table), std::string(key), d.fingerprint, as_db(d.seq), utc_now());
  }
  std::optional<record> record_at(std::string_view table, std::uint64_t seq) override {
    flush_writes();
    const auto r = tx_->exec_prepared("record_at", std::string(table), as_db(seq));
    if (r.empty()) return std::nullopt;
    return record_from_canonical(r[0][0].as<std::string>(), r[0][1].as<std::string>());
  }

 private:
  void drop_pending() noexcept {
    for (auto* a : {&tables_arr_, &seqs_arr_, &nonces_arr_, &bodies_arr_, &hashes_arr_}) a->clear();
    pending_ = 0;
  }
  void drop_deferred() noexcept { deferred_.clear(); }
  std::string uri_;
  // The buffered records as five array literals (table ids, seqs, nonces, bodies, hashes).
  std::string tables_arr_, seqs_arr_, nonces_arr_, bodies_arr_, hashes_arr_;
  std::size_t pending_ = 0;
  // SQL sent with COMMIT (update, and the tree's insert_nodes and save_head): ";\n"-terminated.
  std::string deferred_;
  std::map<std::string, std::optional<table_state>, std::less<>> prefetched_;  // this transaction's
  std::unique_ptr<pqxx::connection> conn_;
  std::optional<pqxx::nontransaction> tx_;
  tree_statements trees_;
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::milliseconds pause_{0};
};

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
            std::make_unique<group_committer>(std::make_unique<pg_backend>(uri_), *key, o.max_batch, o.max_queue));
      prober_ = std::thread([this] { probe_loop(); });
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
      if (r.code == outcome::unavailable) note_health(false, r.error);
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
    pg_backend b(uri_);
    for (int attempt = 0;; ++attempt) {
      try {
        b.begin();
        build_missing_trees(*b.trees(), *signer);
        b.commit();
        break;
      } catch (const std::exception& e) {
        b.rollback();
        if (attempt >= 4 || !b.retryable(e))
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
