// The PostgreSQL store (libpqxx): several fairdeckd processes may serve the same tables.
// Each writer connection runs the group committer's batches; `load` takes the table row with
// SELECT ... FOR UPDATE, so a second process dealing on the same table waits for the first
// one's commit and then reads the advanced nonce (READ COMMITTED re-reads a locked row).
// UNIQUE(table_id, nonce) makes a reused nonce impossible even if that logic were wrong.
// Deadlocks between batches that lock tables in different orders are retried as a whole.
#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <span>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <pqxx/pqxx>

#include "fairdeck/service/store.hpp"

namespace fairdeck::service {
namespace {

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

// The transparency log (log_tree.hpp), added to older stores when they are opened.
constexpr const char* tree_schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS fairdeck_tree_heads(table_id TEXT PRIMARY KEY, size BIGINT NOT NULL, frontier TEXT NOT NULL,
  checkpoint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fairdeck_tree_nodes(table_id TEXT NOT NULL, level INTEGER NOT NULL, idx BIGINT NOT NULL,
  hash BYTEA NOT NULL, PRIMARY KEY(table_id, level, idx));
CREATE TABLE IF NOT EXISTS fairdeck_cosignatures(table_id TEXT NOT NULL, size BIGINT NOT NULL, root TEXT NOT NULL,
  witness TEXT NOT NULL, line TEXT NOT NULL, PRIMARY KEY(table_id, size, root, witness));
)sql";
// Idempotency keys of deals (table.hpp), written in the deal's transaction; kept as long as
// the log (docs/service.md). Added on open to stores created before it.
constexpr const char* idempotency_sql =
    "CREATE TABLE IF NOT EXISTS fairdeck_idempotency(table_id TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, "
    "seq BIGINT NOT NULL, created TEXT NOT NULL, PRIMARY KEY(table_id, key))";

std::string first_line(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }

std::int64_t as_db(std::uint64_t v) { return static_cast<std::int64_t>(v); }
std::uint64_t from_db(std::int64_t v) { return static_cast<std::uint64_t>(v); }

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
  c.prepare("insert",
            "INSERT INTO fairdeck_tables(id, seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, "
            "head_hash, seat_seeds, hands) VALUES($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT (id) DO NOTHING");
  c.prepare("update",
            "UPDATE fairdeck_tables SET sealed_seed = $2, commitment = $3, next_nonce = $4, next_seq = $5, "
            "head_hash = $6, seat_seeds = $7, hands = $8 WHERE id = $1");
  c.prepare("append_deal", "INSERT INTO fairdeck_records(table_id, seq, nonce, body, hash) VALUES($1, $2, $3, $4, $5)");
  c.prepare("head_load", "SELECT frontier, checkpoint FROM fairdeck_tree_heads WHERE table_id = $1 FOR UPDATE");
  c.prepare("head_save",
            "INSERT INTO fairdeck_tree_heads(table_id, size, frontier, checkpoint) VALUES($1, $2, $3, $4) "
            "ON CONFLICT (table_id) DO UPDATE SET size = excluded.size, frontier = excluded.frontier, "
            "checkpoint = excluded.checkpoint");
  // One statement per batch and table: the nodes as three arrays (hashes in hex).
  c.prepare("nodes_insert",
            "INSERT INTO fairdeck_tree_nodes(table_id, level, idx, hash) SELECT $1, l, i, decode(h, 'hex') "
            "FROM unnest($2::int[], $3::bigint[], $4::text[]) AS n(l, i, h) ON CONFLICT DO NOTHING");
  c.prepare("record_hashes", "SELECT hash FROM fairdeck_records WHERE table_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq");
  c.prepare("find_key", "SELECT fingerprint, seq FROM fairdeck_idempotency WHERE table_id = $1 AND key = $2");
  c.prepare("store_key",
            "INSERT INTO fairdeck_idempotency(table_id, key, fingerprint, seq, created) VALUES($1, $2, $3, $4, $5)");
  c.prepare("record_at", "SELECT body, hash FROM fairdeck_records WHERE table_id = $1 AND seq = $2");
  c.prepare("append_other",
            "INSERT INTO fairdeck_records(table_id, seq, nonce, body, hash) VALUES($1, $2, NULL, $3, $4)");
}

std::optional<table_state> read_table(const pqxx::result& r, std::string_view id) {
  if (r.empty()) return std::nullopt;
  const auto row = r[0];
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

// "{a,b,c}": a PostgreSQL array literal of numbers or hex strings.
template <class T, class F>
std::string array_literal(std::span<const T> items, F&& fn) {
  std::string out = "{";
  for (const auto& x : items) {
    if (out.size() > 1) out += ',';
    out += fn(x);
  }
  return out + "}";
}

class pg_backend final : public batch_backend, public transaction, public tree_storage {
 public:
  explicit pg_backend(std::string uri) : uri_(std::move(uri)) {}

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
        pause_ = {};
      } catch (...) {
        conn_.reset();
        pause_ = std::clamp(pause_ * 2, std::chrono::milliseconds(100), std::chrono::milliseconds(1000));
        retry_at_ = now + pause_;
        throw;
      }
    }
    tx_.emplace(*conn_);
    tx_->exec0("BEGIN");
  }
  // A connection lost during COMMIT leaves the outcome unknown: the batch must not be run
  // again (it may have committed), so this is not retryable; its writes answer 503 and a
  // client's retry with the same Idempotency-Key finds the deal if it was stored.
  void commit() override {
    try {
      tx_->exec0("COMMIT");
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
    try {
      if (tx_) tx_->exec0("ROLLBACK");
    } catch (...) {
    }
    tx_.reset();
    conn_.reset();
  }
  void savepoint() override { tx_->exec0("SAVEPOINT fairdeck_write"); }
  void release() override { tx_->exec0("RELEASE SAVEPOINT fairdeck_write"); }
  void rollback_to_savepoint() override { tx_->exec0("ROLLBACK TO SAVEPOINT fairdeck_write; RELEASE SAVEPOINT fairdeck_write"); }
  [[nodiscard]] bool retryable(const std::exception& e) const noexcept override {
    return dynamic_cast<const pqxx::transaction_rollback*>(&e) != nullptr ||
           dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr;
  }
  transaction& tx() override { return *this; }
  tree_storage* trees() noexcept override { return this; }

  std::optional<table_state> load(std::string_view id) override {
    return read_table(tx_->exec_prepared("load", std::string(id)), id);
  }

  void insert(const table_state& t) override {
    const auto r = tx_->exec_prepared("insert", t.id, t.seats, t.spec.decks, t.spec.jokers, t.sealed_seed, t.commitment,
                                      as_db(t.next_nonce), as_db(t.next_seq), t.head_hash,
                                      nlohmann::json(t.seat_seeds).dump(), hand_state_text(t));
    if (r.affected_rows() == 0) throw table_exists(t.id);
  }
  void update(const table_state& t) override {
    tx_->exec_prepared("update", t.id, t.sealed_seed, t.commitment, as_db(t.next_nonce), as_db(t.next_seq), t.head_hash,
                       nlohmann::json(t.seat_seeds).dump(), hand_state_text(t));
  }
  void append(const record& rec) override {
    if (takes_nonce(rec.type))
      tx_->exec_prepared("append_deal", rec.table, as_db(rec.seq), as_db(rec.nonce), canonical_text(rec), rec.hash);
    else
      tx_->exec_prepared("append_other", rec.table, as_db(rec.seq), canonical_text(rec), rec.hash);
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
    const auto r = tx_->exec_prepared("record_at", std::string(table), as_db(seq));
    if (r.empty()) return std::nullopt;
    return record_from_canonical(r[0][0].as<std::string>(), r[0][1].as<std::string>());
  }

  // ---- tree_storage ----
  std::optional<head> load_head(std::string_view table) override {
    const auto r = tx_->exec_prepared("head_load", std::string(table));
    if (r.empty()) return std::nullopt;
    return head{tlog::frontier::from_text(r[0][0].as<std::string>()), r[0][1].as<std::string>()};
  }
  void save_head(std::string_view table, const tlog::frontier& tree, std::string_view checkpoint) override {
    tx_->exec_prepared("head_save", std::string(table), as_db(tree.size()), tree.to_text(), std::string(checkpoint));
  }
  void insert_nodes(std::string_view table, std::span<const std::pair<node_ref, tlog::hash>> nodes) override {
    if (nodes.empty()) return;
    using row = std::pair<node_ref, tlog::hash>;
    tx_->exec_prepared("nodes_insert", std::string(table),
                       array_literal(nodes, [](const row& n) { return std::to_string(n.first.first); }),
                       array_literal(nodes, [](const row& n) { return std::to_string(n.first.second); }),
                       array_literal(nodes, [](const row& n) { return tlog::to_hex(n.second); }));
  }
  std::vector<std::string> record_hashes(std::string_view table, std::uint64_t from, std::uint64_t to) override {
    std::vector<std::string> out;
    for (const auto& row : tx_->exec_prepared("record_hashes", std::string(table), as_db(from), as_db(to)))
      out.push_back(row[0].as<std::string>());
    return out;
  }
  std::vector<std::pair<std::string, std::uint64_t>> tables_behind() override {
    std::vector<std::pair<std::string, std::uint64_t>> out;
    for (const auto& row : tx_->exec("SELECT t.id, t.next_seq FROM fairdeck_tables t LEFT JOIN fairdeck_tree_heads h "
                                     "ON h.table_id = t.id WHERE h.size IS NULL OR h.size <> t.next_seq ORDER BY t.id"))
      out.emplace_back(row[0].as<std::string>(), from_db(row[1].as<std::int64_t>()));
    return out;
  }

 private:
  std::string uri_;
  std::unique_ptr<pqxx::connection> conn_;
  std::optional<pqxx::nontransaction> tx_;
  std::chrono::steady_clock::time_point retry_at_{};
  std::chrono::milliseconds pause_{0};
};

class pg_store final : public store {
 public:
  pg_store(const store_options& o, std::optional<secret_key> key) : uri_(o.db) {
    with_reader([](pqxx::nontransaction& n) {
      const auto r = n.exec("SELECT value FROM fairdeck_meta WHERE key = 'schema'");
      if (r.empty() || r[0][0].as<std::string>() != "1") throw std::runtime_error("not a fairdeckd store");
      n.exec(tree_schema_sql);  // a store from before the log gets its tables
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
    if (key)
      for (unsigned i = 0; i < std::max(1u, o.writers); ++i)
        committers_.push_back(
            std::make_unique<group_committer>(std::make_unique<pg_backend>(uri_), *key, o.max_batch, o.max_queue));
  }

  void submit(write_request req, done_fn done) override {
    if (committers_.empty()) return done(failure(outcome::unavailable, "store opened without its key"));
    // One table always goes to the same writer: its writes never wait on each other's locks.
    const std::size_t i = std::hash<std::string>{}(table_of(req)) % committers_.size();
    committers_[i]->submit(std::move(req), std::move(done));
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

  // ---- the transparency log ----
  std::optional<log_head> tree_head(std::string_view table) override {
    std::optional<log_head> out;
    with_reader([&](pqxx::nontransaction& n) {
      const auto r = n.exec_params("SELECT size, checkpoint FROM fairdeck_tree_heads WHERE table_id = $1", std::string(table));
      if (!r.empty()) out = log_head{from_db(r[0][0].as<std::int64_t>()), r[0][1].as<std::string>()};
      else if (!n.exec_params("SELECT 1 FROM fairdeck_tables WHERE id = $1", std::string(table)).empty()) out = log_head{};
    });
    return out;
  }

  std::vector<tlog::hash> tree_nodes(std::string_view table, std::span<const node_ref> refs) override {
    std::map<node_ref, tlog::hash> found;
    std::vector<node_ref> leaves, inner;
    for (const auto& r : refs) (r.first == 0 ? leaves : inner).push_back(r);
    const auto numbers = [](std::span<const node_ref> v, bool level) {
      return array_literal(v, [level](const node_ref& r) { return std::to_string(level ? r.first : r.second); });
    };
    with_reader([&](pqxx::nontransaction& n) {
      if (!leaves.empty())
        for (const auto& row : n.exec_params("SELECT seq, hash FROM fairdeck_records WHERE table_id = $1 AND seq = ANY($2::bigint[])",
                                             std::string(table), numbers(leaves, false)))
          found[{0, from_db(row[0].as<std::int64_t>())}] = record_leaf(row[1].as<std::string>());
      if (!inner.empty())
        for (const auto& row : n.exec_params(
                 "SELECT level, idx, encode(hash, 'hex') FROM fairdeck_tree_nodes WHERE table_id = $1 AND (level, idx) IN "
                 "(SELECT * FROM unnest($2::int[], $3::bigint[]))",
                 std::string(table), numbers(inner, true), numbers(inner, false)))
          if (auto h = tlog::hash_from_hex(row[2].as<std::string>()))
            found[{row[0].as<unsigned>(), from_db(row[1].as<std::int64_t>())}] = *h;
    });
    std::vector<tlog::hash> out;
    out.reserve(refs.size());
    for (const auto& r : refs) {
      const auto it = found.find(r);
      if (it == found.end())
        throw store_unavailable(fmt::format("the tree of table '{}' lacks node ({}, {})", table, r.first, r.second));
      out.push_back(it->second);
    }
    return out;
  }

  void add_cosignature(std::string_view table, std::uint64_t size, const tlog::hash& root, std::string_view witness,
                       std::string_view line) override {
    with_reader([&](pqxx::nontransaction& n) {
      n.exec_params("INSERT INTO fairdeck_cosignatures(table_id, size, root, witness, line) VALUES($1, $2, $3, $4, $5) "
                    "ON CONFLICT (table_id, size, root, witness) DO UPDATE SET line = excluded.line",
                    std::string(table), as_db(size), tlog::to_hex(root), std::string(witness), std::string(line));
    });
  }

  std::vector<std::string> cosignatures(std::string_view table, std::uint64_t size, const tlog::hash& root) override {
    std::vector<std::string> out;
    with_reader([&](pqxx::nontransaction& n) {
      for (const auto& row : n.exec_params("SELECT line FROM fairdeck_cosignatures WHERE table_id = $1 AND size = $2 AND "
                                           "root = $3 ORDER BY witness",
                                           std::string(table), as_db(size), tlog::to_hex(root)))
        out.push_back(row[0].as<std::string>());
    });
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
        build_missing_trees(b, *signer);
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

  void ping() override {
    with_reader([](pqxx::nontransaction& n) { n.exec("SELECT 1"); });
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
};

}  // namespace

void create_pg_store(const store_options& o, std::string_view key_check) {
  auto c = connect(o.db);
  try {
    pqxx::work w(*c);
    w.exec(schema_sql);
    w.exec(tree_schema_sql);
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
