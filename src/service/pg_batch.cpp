// The PostgreSQL store's writer connections (pg_batch.hpp). A group-commit batch costs 2 round
// trips whatever its size and number of tables (docs/service.md, "PostgreSQL: where a deal's
// time goes"): BEGIN with its tables' rows and tree heads, locked in one statement
// (prefetch); then every write whose answer nothing reads — its records (one INSERT ...
// SELECT * FROM unnest(...)), table rows, tree nodes and heads — with COMMIT, sent together
// as prepared statements bound to their values (libpq's pipeline mode, pg_pipeline.hpp: no
// value of a batch, its signed checkpoints included, is part of a statement's text, which
// PostgreSQL logs when a statement fails). The prefetch runs a prepared statement by SQL EXECUTE.
// When the writer already holds every row and head the batch needs, as its own last commits
// left them, the batch costs 1 round trip: the prefetch is skipped and the COMMIT query first
// locks and checks those rows (optimistic concurrency; a changed row reruns the batch locked;
// docs/service.md, "one round trip a batch on the writer's kept rows").
#include "pg_batch.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <map>
#include <stdexcept>
#include <string_view>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "pg_db.hpp"

namespace fairdeck::service::pg_db {
namespace {

void prepare_all(pqxx::connection_base& c) {
  // A failed statement's values stay out of PostgreSQL's log whatever the server's setting
  // (pg_pipeline.hpp); kept by libpqxx across a reconnection.
  c.set_variable("log_parameter_max_length_on_error", "0");
  c.prepare("load",
            "SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, head_hash, seat_seeds, hands "
            "FROM fairdeck_tables WHERE id = $1 FOR UPDATE");
  // A batch's tables in one round trip, locked in id order (bytewise, as the committer sorts them).
  c.prepare("load_many",
            "SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, head_hash, seat_seeds, hands, id "
            "FROM fairdeck_tables WHERE id = ANY($1::text[]) ORDER BY id COLLATE \"C\" FOR UPDATE");
  // The same and the tables' tree heads in one round trip. UNION ALL runs its branches in
  // order, so every table row is locked before any head (the order of the two statements this
  // replaces, and of every other writer): rows with k = 0 are tables (columns 0..10 as
  // load_many), k = 1 heads (10: table id, 11: frontier, 12: checkpoint).
  c.prepare(
      "load_many_heads",
      "WITH t AS (SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, head_hash, "
      "seat_seeds, hands, id FROM fairdeck_tables WHERE id = ANY($1::text[]) ORDER BY id COLLATE \"C\" FOR UPDATE), "
      "h AS (SELECT table_id, frontier, checkpoint FROM fairdeck_tree_heads WHERE table_id = ANY($1::text[]) "
      "ORDER BY table_id COLLATE \"C\" FOR UPDATE) "
      "SELECT *, NULL::text, NULL::text, 0 AS k FROM t UNION ALL SELECT NULL, NULL, NULL, NULL, NULL, NULL, NULL, "
      "NULL, NULL, NULL, table_id, frontier, checkpoint, 1 FROM h");
  c.prepare(
      "insert",
      "INSERT INTO fairdeck_tables(id, seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, "
      "head_hash, seat_seeds, hands) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING");
  c.prepare("find_key", "SELECT fingerprint, seq FROM fairdeck_idempotency WHERE table_id = $1 AND key = $2");
  c.prepare("store_key",
            "INSERT INTO fairdeck_idempotency(table_id, key, fingerprint, seq, created) VALUES($1, $2, $3, $4, $5)");
  c.prepare("record_at", "SELECT body, hash FROM fairdeck_records WHERE table_id = $1 AND seq = $2");
  // A batch's records in one statement (pg_backend::flush_writes): one round trip instead of one per record.
  // The bodies arrive as one text joined by 0x1E (pg_array.hpp, joined_texts), the rest as array literals.
  c.prepare("append_many",
            fmt::format("INSERT INTO fairdeck_records(table_id, seq, nonce, body, hash) SELECT * FROM "
                        "unnest($1::text[], $2::bigint[], $3::bigint[], string_to_array($4::text, chr(30)), $5::text[]) "
                        "WHERE {}",
                        fresh_guard));
  // The optimistic batch's check (pg_backend::render_checks): locks the rows in id order, and
  // sets fairdeck.stale (pg_db.hpp, fresh_guard) to whether any no longer holds the values given.
  c.prepare("check_tables",
            "SELECT set_config('fairdeck.stale', (count(*) <> cardinality($1::text[]))::text, false) FROM (SELECT 1 "
            "FROM fairdeck_tables AS t JOIN "
            "unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[]) "
            "AS u(id, s, c, n, q, h, e, d) ON t.id = u.id AND t.sealed_seed = u.s AND t.commitment = u.c AND "
            "t.next_nonce = u.n AND t.next_seq = u.q AND t.head_hash = u.h AND t.seat_seeds = u.e AND t.hands = u.d "
            "ORDER BY t.id COLLATE \"C\" FOR UPDATE OF t) AS locked");
  // The batch's table rows in one UPDATE (pg_backend::render_updates).
  c.prepare("update_tables",
            fmt::format("UPDATE fairdeck_tables AS t SET sealed_seed = u.s, commitment = u.c, next_nonce = u.n, "
                        "next_seq = u.q, head_hash = u.h, seat_seeds = u.e, hands = u.d FROM unnest($1::text[], "
                        "$2::text[], $3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::text[], $8::text[]) "
                        "AS u(id, s, c, n, q, h, e, d) WHERE t.id = u.id AND {}",
                        fresh_guard));
  // Run by SQL EXECUTE inside a text query (prefetch) or in a pipeline (commit): registered
  // with the server now.
  for (const char* name : {"load_many", "load_many_heads", "append_many", "check_tables", "update_tables"})
    c.prepare_now(name);
}

// A table's columns that its writes change, as stored.
struct table_row {
  std::string sealed_seed, commitment;
  std::int64_t next_nonce = 0, next_seq = 0;
  std::string head_hash, seat_seeds, hands;
};

table_row row_of(const table_state& t) {
  return {t.sealed_seed,     t.commitment, as_db(t.next_nonce),
          as_db(t.next_seq), t.head_hash,  nlohmann::json(t.seat_seeds).dump(),
          hand_state_text(t)};
}

// The state a reader of the stored row gets (read back from the columns, not copied).
table_state state_of(std::string_view id, unsigned seats, deck_spec spec, const table_row& r) {
  table_state t;
  t.id = std::string(id);
  t.seats = seats;
  t.spec = spec;
  t.sealed_seed = r.sealed_seed;
  t.commitment = r.commitment;
  t.next_nonce = from_db(r.next_nonce);
  t.next_seq = from_db(r.next_seq);
  t.head_hash = r.head_hash;
  t.seat_seeds = nlohmann::json::parse(r.seat_seeds).get<std::vector<std::string>>();
  read_hand_state(t, r.hands);
  return t;
}

// Columns 3..9 of `row` ("load"'s columns).
table_row read_row(const pqxx::row& row) {
  return {row[3].as<std::string>(), row[4].as<std::string>(), row[5].as<std::int64_t>(), row[6].as<std::int64_t>(),
          row[7].as<std::string>(), row[8].as<std::string>(), row[9].as<std::string>()};
}

// Columns 0..9 of `row`: the table's state as "load" selects it.
table_state read_table_row(const pqxx::row& row, std::string_view id) {
  return state_of(id, row[0].as<unsigned>(), deck_spec{row[1].as<unsigned>(), row[2].as<unsigned>()}, read_row(row));
}

// Table rows as eight array literals: id, sealed_seed, commitment, next_nonce, next_seq,
// head_hash, seat_seeds, hands (the order of unnest(...) AS u(id, s, c, n, q, h, e, d)).
class row_arrays {
 public:
  void add(std::string_view id, const table_row& r) {
    b_[0].quoted(id);
    b_[1].quoted(r.sealed_seed);
    b_[2].quoted(r.commitment);
    b_[3].number(r.next_nonce);
    b_[4].number(r.next_seq);
    b_[5].quoted(r.head_hash);
    b_[6].quoted(r.seat_seeds);
    b_[7].quoted(r.hands);
  }
  // The eight array literals of the rows added (then forgotten).
  [[nodiscard]] std::vector<std::string> literals() {
    std::vector<std::string> a;
    for (auto& b : b_) a.push_back(b.take());
    return a;
  }

 private:
  std::array<array_builder, 8> b_;
};

// A batch run on the writer's kept rows found one changed (another writer, another instance):
// nothing was written, and the batch is run again on rows read locked. The writer then drops
// its connection (rollback), the only one where fairdeck.stale was ever 'true'.
struct stale_rows : std::runtime_error {
  stale_rows() : std::runtime_error("a table changed since this writer's last batch (another writer): rerun") {}
};

class pg_backend final : public batch_backend, public transaction {
 public:
  explicit pg_backend(std::string uri) : uri_(std::move(uri)), trees_(tx_, *this) {}

  // Connects when there is no connection. After a failed attempt the next ones wait a
  // growing pause (0.1 s doubling to 1 s): meanwhile batches fail at once as unavailable
  // (503 + Retry-After), and a multi-host URI with target_session_attrs=read-write finds
  // the new primary after a failover without a restart.
  void begin() override {
    // A server that ended the connection between batches (a restart, a failover, an idle
    // timeout) said so on its socket: read here without a round trip, so that a batch which
    // sends nothing before its COMMIT (the optimistic path) does not find it out there, where
    // a lost connection leaves the outcome unknown.
    if (conn_) try {
        conn_->get_notifs();
      } catch (...) {
        conn_.reset();
      }
    if (!conn_ || !conn_->is_open()) {
      conn_.reset();
      const auto now = std::chrono::steady_clock::now();
      if (now < retry_at_) throw store_unavailable("no PostgreSQL primary reachable (reconnecting)");
      try {
        conn_ = connect_writer(uri_);
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
    forget_batch();
    tx_.open(*conn_);  // BEGIN goes with the first statement
  }
  // The writes whose answers nothing reads (the batch's records, the tables' rows, the tree's
  // nodes and head) go with COMMIT as one pipeline: one round trip. A statement refused in it
  // aborts the transaction before COMMIT runs: nothing is committed, and the committer reruns
  // the batch with a savepoint per write (refused()) to find whose row it was. An optimistic
  // batch's pipeline starts with its checks and ends, after COMMIT, by reading their verdict:
  // stale, its guarded writes wrote nothing (an empty transaction committed).
  // Unknown whether it committed (commit_outcome_unknown: never rerun, 503 "may have been stored"):
  // a connection lost once COMMIT was sent; the COMMIT's own error if neither a refusal nor a rerun
  // (shutdown, cancel, I/O, internal, 40003); the verdict lost after a COMMIT that succeeded.
  void commit() override {
    tx_.ungate();
    const bool checked = !optimistic_.empty();
    statement_pipeline p;
    if (checked) render_checks(p);
    render_records(p);
    render_updates(p);
    trees_.render_writes(p);
    p.commit();
    if (checked) p.plain("SELECT current_setting('fairdeck.stale', true)");
    std::optional<std::string> verdict;
    const auto unknown = [this](const std::string& why) {
      drop_connection();
      return commit_outcome_unknown(scrub_password(why, uri_));
    };
    try {
      verdict = tx_.run(p);
    } catch (const failed_after_commit& e) {
      if (checked)
        throw unknown(fmt::format("the batch committed; its checks' verdict was lost: {}", first_line(e.what())));
      drop_connection();
      keep_committed();
      return;
    } catch (const commit_outcome_unknown& e) {
      throw unknown(first_line(e.what()));
    } catch (const pqxx::broken_connection& e) {  // before COMMIT was sent, or after a statement before it failed
      drop_connection();
      throw store_unavailable(
          scrub_password(fmt::format("connection lost before COMMIT: {}", first_line(e.what())), uri_));
    } catch (const std::exception& e) {
      if (p.commit_failed() && !refused_before_commit(e) && !rerun_whole_batch(e))
        throw unknown(fmt::format("COMMIT failed, whether it took effect is unknown: {}", first_line(e.what())));
      throw;
    }
    tx_.close();
    if (checked) fresh_or_throw(verdict, true);
    keep_committed();
  }
  // After any failed batch the connection is dropped: it may now lead to a node that was
  // demoted to a standby (read-only), and the next batch must find the primary again.
  void rollback() noexcept override {
    forget_batch();
    known_.clear();
    trees_.forget_known();
    try {
      if (tx_.begun()) tx_->exec0("ROLLBACK");
    } catch (...) {
    }
    drop_connection();
  }
  void savepoint() override { tx_->exec0("SAVEPOINT fairdeck_write"); }
  void release() override { tx_->exec0("RELEASE SAVEPOINT fairdeck_write"); }
  void rollback_to_savepoint() override {
    drop_pending();  // the failed write's rows, never sent
    tx_->exec0("ROLLBACK TO SAVEPOINT fairdeck_write; RELEASE SAVEPOINT fairdeck_write");
  }
  [[nodiscard]] bool retryable(const std::exception& e) const noexcept override { return rerun_whole_batch(e); }
  [[nodiscard]] bool optimistic() const noexcept override { return !optimistic_.empty(); }
  [[nodiscard]] bool refused(const std::exception& e) const noexcept override { return refused_before_commit(e); }
  transaction& tx() override { return *this; }
  tree_storage* trees() noexcept override { return &trees_; }

  std::optional<table_state> load(std::string_view id) override {
    if (const auto it = prefetched_.find(id); it != prefetched_.end()) return it->second;
    return read_table(tx_->exec_prepared("load", std::string(id)), id);
  }
  // The batch's table rows (locked FOR UPDATE) and tree heads: one round trip for the batch
  // instead of two per table, with BEGIN. Absent rows are remembered as absent.
  // Optimistic path: when this writer committed or read every one of the batch's rows (and
  // heads) in its last batches — one table always goes to the same writer — it takes them as
  // kept, sends nothing now, and commit() puts in front of the batch's writes the checks that
  // lock them in the same order and find them unchanged: the batch costs one round trip. A
  // changed row (another instance wrote) fails the check, the guarded writes write nothing,
  // and the batch is rerun on rows read locked (stale_rows, retryable); the kept rows then rest
  // (rest_kept_rows), so two instances writing one table do not fail every other batch.
  void prefetch(std::span<const std::string> tables, bool trees) override {
    if (tables.empty()) return;
    if (std::chrono::steady_clock::now() >= pessimistic_until_ && keeps_all(known_, tables) &&
        (!trees || trees_.recall(tables))) {
      for (const auto& t : tables) prefetched_.insert_or_assign(t, known_.find(t)->second.state);
      optimistic_.assign(tables.begin(), tables.end());
      optimistic_trees_ = trees;
      tx_.gate([this] { check_kept_rows(); });
      return;
    }
    array_builder id_array;
    for (const auto& t : tables) id_array.quoted(t);
    const std::string ids = literal(tx_.quoting(), id_array.take());
    for (const auto& t : tables) prefetched_.emplace(t, std::nullopt);
    if (trees) trees_.expect(tables);
    for (const auto& row : tx_.exec(fmt::format("EXECUTE {}({})", trees ? "load_many_heads" : "load_many", ids))) {
      const auto id = row[10].as<std::string>();
      if (trees && row[13].as<int>() == 1)
        trees_.found(id, row[11].as<std::string>(), row[12].as<std::string>());
      else {
        auto columns = read_row(row);
        auto state = state_of(id, row[0].as<unsigned>(), deck_spec{row[1].as<unsigned>(), row[2].as<unsigned>()},
                              columns);
        pending_known_.insert_or_assign(id, known_table{state, std::move(columns)});
        prefetched_[id] = std::move(state);
      }
    }
  }

  void insert(const table_state& t) override {
    const auto r = tx_->exec_prepared("insert", t.id, t.seats, t.spec.decks, t.spec.jokers, t.sealed_seed, t.commitment,
                                      as_db(t.next_nonce), as_db(t.next_seq), t.head_hash,
                                      nlohmann::json(t.seat_seeds).dump(), hand_state_text(t));
    if (r.affected_rows() == 0) throw table_exists(t.id);
  }
  // Called once per table at the end of a batch (batch_tx::write_back): buffered, and sent
  // with the tree's writes and COMMIT in one round trip (commit()), one UPDATE for all the
  // batch's tables.
  void update(const table_state& t) override {
    auto row = row_of(t);
    pending_known_.insert_or_assign(t.id, known_table{state_of(t.id, t.seats, t.spec, row), row});
    updates_.insert_or_assign(t.id, std::move(row));
  }
  // Records are buffered and sent with COMMIT (render_records), or by flush_writes (after each
  // write when each has its savepoint, and before a read of records), so a batch of n deals
  // costs no INSERT round trip of its own. UNIQUE/PRIMARY KEY violations surface there.
  void append(const record& rec) override {
    bodies_.add(canonical_text(rec));  // first: it may refuse the record, and then nothing is buffered
    tables_arr_.quoted(rec.table);
    seqs_arr_.number(as_db(rec.seq));
    if (takes_nonce(rec.type))
      nonces_arr_.number(as_db(rec.nonce));
    else
      nonces_arr_.bare("NULL");
    hashes_arr_.quoted(rec.hash);
  }
  void flush_writes() override {
    if (tables_arr_.empty()) return;
    // Taken first: after a failure nothing stays buffered.
    const std::string t = tables_arr_.take(), q = seqs_arr_.take(), n = nonces_arr_.take(), b = bodies_.take(),
                      h = hashes_arr_.take();
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
    for (auto* a : {&tables_arr_, &seqs_arr_, &nonces_arr_, &hashes_arr_}) a->clear();
    bodies_.clear();
  }
  void drop_updates() noexcept { updates_.clear(); }
  void drop_connection() noexcept {
    tx_.close();
    conn_.reset();
  }
  // The optimistic checks' verdict (one row: fairdeck.stale). 'true': stale_rows, retryable
  // (nothing was written). Anything but 'true' or 'false' would leave unknown whether the
  // guarded writes ran (`committed`: they did if they were not skipped): not retried.
  void fresh_or_throw(const std::optional<std::string>& verdict, bool committed) {
    const std::string v = verdict.value_or("");
    if (v == "false") return;
    if (v == "true") {
      rest_kept_rows();
      throw stale_rows();
    }
    if (committed)
      throw commit_outcome_unknown("unexpected answer to the batch's checks; whether it committed is unknown");
    throw store_unavailable("unexpected answer to the batch's checks");
  }
  // Before anything else an optimistic batch sends ahead of its COMMIT (an idempotency key, a
  // record read, a table outside the batch): its checks, alone, then it goes on as a batch on
  // locked rows.
  void check_kept_rows() {
    statement_pipeline p;
    render_checks(p);
    optimistic_.clear();
    fresh_or_throw(tx_.run(p), false);
  }
  // After a stale batch: no kept rows for 1 s, doubling (to 5 min) while stale batches follow
  // each other within 10 min — another writer keeps writing this writer's tables, and each
  // stale attempt is a round trip, a reconnect and a signed checkpoint that never commits.
  void rest_kept_rows() {
    using namespace std::chrono_literals;
    const auto now = std::chrono::steady_clock::now();
    const bool again = rest_.count() > 0 && now - last_stale_ < 10min;
    rest_ = again ? std::min<std::chrono::milliseconds>(rest_ * 2, 5min) : std::chrono::milliseconds(1s);
    last_stale_ = now;
    pessimistic_until_ = now + rest_;
  }
  // A new transaction, or a failed one: nothing buffered, prefetched or pending.
  void forget_batch() noexcept {
    drop_pending();
    drop_updates();
    prefetched_.clear();
    pending_known_.clear();
    optimistic_.clear();
    trees_.forget();
  }
  // After COMMIT: the rows (and heads) this batch read or wrote are the kept ones.
  void keep_committed() {
    keep_pending(known_, pending_known_);
    trees_.committed();
  }
  // The optimistic batch's checks, first in its COMMIT pipeline: lock its tables' rows in id
  // order (then their heads, as the locked prefetch does) and set fairdeck.stale unless every
  // one is still the kept one.
  void render_checks(statement_pipeline& p) {
    row_arrays rows;
    for (const auto& t : optimistic_) rows.add(t, known_.find(t)->second.row);
    p.prepared("check_tables", rows.literals());
    if (optimistic_trees_) trees_.render_check(p, optimistic_);
  }
  // The buffered records as one append_many, then forgotten.
  void render_records(statement_pipeline& p) {
    if (tables_arr_.empty()) return;
    p.prepared("append_many",
               {tables_arr_.take(), seqs_arr_.take(), nonces_arr_.take(), bodies_.take(), hashes_arr_.take()});
  }
  // The buffered table rows as one UPDATE ... FROM unnest(...), then forgotten.
  void render_updates(statement_pipeline& p) {
    if (updates_.empty()) return;
    row_arrays rows;
    for (const auto& [id, u] : updates_) rows.add(id, u);
    p.prepared("update_tables", rows.literals());
    updates_.clear();
  }
  std::string uri_;
  // The buffered records: four array literals (table ids, seqs, nonces, hashes) and the bodies joined.
  array_builder tables_arr_, seqs_arr_, nonces_arr_, hashes_arr_;
  joined_texts bodies_;
  // Table rows written with COMMIT (update), by id: the last state of each table in the batch.
  std::map<std::string, table_row, std::less<>> updates_;
  std::map<std::string, std::optional<table_state>, std::less<>> prefetched_;  // this transaction's
  // Rows kept for the optimistic path: as committed by this writer's last batches, and as
  // this transaction read or wrote them (kept if it commits).
  struct known_table {
    table_state state;
    table_row row;
  };
  std::map<std::string, known_table, std::less<>> known_, pending_known_;
  std::vector<std::string> optimistic_;  // this batch's tables when it runs on kept rows
  bool optimistic_trees_ = false;
  std::chrono::steady_clock::time_point pessimistic_until_{};  // no kept rows used before (after stale_rows)
  std::chrono::steady_clock::time_point last_stale_{};
  std::chrono::milliseconds rest_{0};
  std::unique_ptr<writer_connection> conn_;
  writer_tx tx_;
  tree_statements trees_;
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::milliseconds pause_{0};
};

}  // namespace

// libpq reads PGPASSWORD and PGPASSFILE (~/.pgpass) itself when the URI has no password.
// Its messages can quote parts of a malformed URI: the password is scrubbed from them.
template <class Connection>
std::unique_ptr<Connection> connect_as(const std::string& uri) {
  try {
    auto c = std::make_unique<Connection>(uri);
    require_durable_commits(*c);  // an acknowledged write is durable whatever the database's default
    return c;
  } catch (const std::exception& e) {
    throw store_unavailable(scrub_password(fmt::format("cannot connect to PostgreSQL: {}", first_line(e.what())), uri));
  }
}

std::unique_ptr<pqxx::connection> connect(const std::string& uri) { return connect_as<pqxx::connection>(uri); }
std::unique_ptr<writer_connection> connect_writer(const std::string& uri) { return connect_as<writer_connection>(uri); }

std::optional<table_state> read_table(const pqxx::result& r, std::string_view id) {
  if (r.empty()) return std::nullopt;
  return read_table_row(r[0], id);
}

bool rerun_whole_batch(const std::exception& e) noexcept {
  if (dynamic_cast<const pqxx::statement_completion_unknown*>(&e) != nullptr) return false;
  return dynamic_cast<const pqxx::transaction_rollback*>(&e) != nullptr ||
         dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr || dynamic_cast<const stale_rows*>(&e) != nullptr;
}

std::unique_ptr<batch_backend> make_pg_backend(std::string uri) { return std::make_unique<pg_backend>(std::move(uri)); }

}  // namespace fairdeck::service::pg_db
