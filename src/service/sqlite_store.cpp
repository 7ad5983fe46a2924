// The SQLite store: one writer connection (sqlite_batch.cpp) driven by the group committer (BEGIN IMMEDIATE,
// the writes — each under a savepoint when a batch is rerun after a failing write —, COMMIT), WAL so readers never block it. Durability is pipelined:
// the writer's COMMIT only writes the WAL (synchronous=OFF) and the group committer's syncer
// thread fdatasyncs the WAL before any write of the batch is answered, while the writer
// already commits the next batch (https://www.sqlite.org/wal.html, "Durability"; the same
// guarantee as synchronous=FULL, one fsync per group instead of one per COMMIT on the
// writer's path). Checkpoints run on their own connection with synchronous=FULL. Readers take
// connections from a small pool and show only durable records (group_committer::await_durable).
#include <atomic>
#include <cerrno>
#include <filesystem>
#include <cstring>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "fairdeck/service/store.hpp"
#include "fairdeck/util/parallel.hpp"
#include "sqlite_db.hpp"

namespace fairdeck::service {
namespace {

using namespace sqlite_db;

constexpr const char* schema_sql = R"sql(
CREATE TABLE fairdeck_meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
INSERT INTO fairdeck_meta VALUES('schema', '2');
CREATE TABLE fairdeck_tables(id TEXT PRIMARY KEY, seats INTEGER NOT NULL, decks INTEGER NOT NULL,
  jokers INTEGER NOT NULL, sealed_seed TEXT NOT NULL, commitment TEXT NOT NULL, next_nonce INTEGER NOT NULL,
  next_seq INTEGER NOT NULL, head_hash TEXT NOT NULL, seat_seeds TEXT NOT NULL, hands TEXT NOT NULL DEFAULT '');
CREATE TABLE fairdeck_records(table_id TEXT NOT NULL, seq INTEGER NOT NULL, nonce INTEGER, body TEXT NOT NULL,
  hash TEXT NOT NULL,
  PRIMARY KEY(table_id, seq)) WITHOUT ROWID;
CREATE UNIQUE INDEX fairdeck_records_nonce ON fairdeck_records(table_id, nonce) WHERE nonce IS NOT NULL;
CREATE TABLE fairdeck_tokens(hash TEXT PRIMARY KEY, created TEXT NOT NULL);
)sql";

class sqlite_store final : public store {
 public:
  sqlite_store(const store_options& o, std::optional<secret_key> key) : path_(o.db) {
    {
      connection c(path_, false);  // checks the schema is there
      statement s(c.db, "SELECT value FROM fairdeck_meta WHERE key = 'schema'");
      if (!s.step()) throw std::runtime_error(fmt::format("{} is not a fairdeckd store", path_));
      const std::string schema = s.text(0);
      s.reset();
      if (schema == "1") upgrade_to_current_schema(c);
      else if (schema != store_schema)
        throw std::runtime_error(fmt::format("{} is a fairdeckd store of schema {:?}; this fairdeckd reads schemas 1 and {}",
                                             path_, schema, store_schema));
      create_tree_schema(c);  // a store whose log tables were dropped gets them (rebuilt below)
    }
    add_hands_column();
    if (key) {
      committer_ = std::make_unique<group_committer>(make_sqlite_backend(path_), *key, o.max_batch,
                                                     o.max_queue);
      checkpointer_ = std::thread([this] {
        name_this_thread("fd-checkpoint");
        checkpoint_loop();
      });
    }
  }

  ~sqlite_store() override {
    {
      std::lock_guard lock(stop_mutex_);
      stop_ = true;
    }
    stop_cv_.notify_all();
    if (checkpointer_.joinable()) checkpointer_.join();
  }
  sqlite_store(const sqlite_store&) = delete;
  sqlite_store& operator=(const sqlite_store&) = delete;

  void submit(write_request req, done_fn done) override {
    if (!committer_) return done(failure(outcome::unavailable, "store opened without its key"));
    committer_->submit(std::move(req), std::move(done));
  }

  std::optional<std::vector<record>> log(std::string_view table, std::optional<std::uint64_t> after,
                                         std::size_t limit) override {
    auto r = reader();
    statement exists(r->db, "SELECT 1 FROM fairdeck_tables WHERE id = ?1");
    exists.bind(1, table);
    if (!exists.step()) return std::nullopt;
    statement s(r->db,
                "SELECT body, hash FROM fairdeck_records WHERE table_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3");
    s.bind(1, table).bind(2, after ? as_db(*after) : std::int64_t{-1}).bind(3, static_cast<std::int64_t>(limit));
    std::vector<record> out;
    while (s.step()) out.push_back(record_from_canonical(s.text(0), s.text(1)));
    s.reset();  // end the read, then show only what is durable
    if (committer_) committer_->await_durable();
    return out;
  }

  std::optional<table_state> table(std::string_view id) override {
    auto r = reader();
    statement s(r->db, select_table_sql);
    auto t = read_table(s, id);
    if (committer_) committer_->await_durable();
    return t;
  }

  std::vector<std::string> token_hashes() override {
    auto r = reader();
    statement s(r->db, "SELECT hash FROM fairdeck_tokens");
    std::vector<std::string> out;
    while (s.step()) out.push_back(s.text(0));
    return out;
  }

  void add_token_hash(std::string_view hash) override {
    connection c(path_, false);
    statement s(c.db, "INSERT INTO fairdeck_tokens(hash, created) VALUES(?1, ?2)");
    s.bind(1, hash).bind(2, utc_now());
    s.step();
  }

  std::vector<std::pair<std::string, std::string>> token_rows() override {
    auto r = reader();
    statement s(r->db, "SELECT hash, created FROM fairdeck_tokens ORDER BY created, hash");
    std::vector<std::pair<std::string, std::string>> out;
    while (s.step()) out.emplace_back(s.text(0), s.text(1));
    return out;
  }

  std::size_t revoke_token(std::string_view prefix) override {
    connection c(path_, false);
    c.exec("BEGIN IMMEDIATE");
    try {
      std::vector<std::string> hits;
      {
        statement s(c.db, "SELECT hash FROM fairdeck_tokens WHERE substr(hash, 1, ?2) = ?1");
        s.bind(1, prefix).bind(2, static_cast<std::int64_t>(prefix.size()));
        while (s.step()) hits.push_back(s.text(0));
      }
      if (hits.size() == 1) {
        statement d(c.db, "DELETE FROM fairdeck_tokens WHERE hash = ?1");
        d.bind(1, hits[0]);
        d.step();
      }
      c.exec("COMMIT");
      return hits.size();
    } catch (...) {
      sqlite3_exec(c.db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }

  std::optional<std::string> meta(std::string_view name) override {
    auto r = reader();
    statement s(r->db, "SELECT value FROM fairdeck_meta WHERE key = ?1");
    s.bind(1, name);
    if (!s.step()) return std::nullopt;
    return s.text(0);
  }

  std::string set_meta_once(std::string_view name, std::string_view value) override {
    {
      connection c(path_, false);
      statement s(c.db, "INSERT INTO fairdeck_meta(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO NOTHING");
      s.bind(1, name).bind(2, value);
      s.step();
    }
    return meta(name).value();
  }

  std::optional<std::string> first_table_id() override {
    auto r = reader();
    statement s(r->db, "SELECT min(id) FROM fairdeck_tables");
    if (!s.step() || s.is_null(0)) return std::nullopt;
    return s.text(0);
  }

  // ---- the transparency log ----
  std::optional<log_head> tree_head(std::string_view table) override {
    std::optional<log_head> out;
    {
      auto r = reader();
      out = read_tree_head(r->db, table);
    }
    if (committer_) committer_->await_durable();  // only what a power loss cannot take back
    return out;
  }
  std::vector<tlog::hash> tree_nodes(std::string_view table, std::span<const node_ref> refs) override {
    auto r = reader();
    return read_tree_nodes(r->db, table, refs);
  }
  void add_cosignature(std::string_view table, std::uint64_t size, const tlog::hash& root, std::string_view witness,
                       std::string_view line) override {
    connection c(path_, false);  // synchronous=FULL: durable when it returns
    write_cosignature(c.db, table, size, root, witness, line);
  }
  std::vector<std::string> cosignatures(std::string_view table, std::uint64_t size, const tlog::hash& root) override {
    auto r = reader();
    return read_cosignatures(r->db, table, size, root);
  }

  std::optional<std::pair<std::uint64_t, tlog::hash>> latest_cosigned(std::string_view table,
                                                                      std::string_view witness) override {
    auto r = reader();
    statement s(r->db,
                "SELECT size, root FROM fairdeck_cosignatures WHERE table_id = ?1 AND witness = ?2 ORDER BY size DESC "
                "LIMIT 1");
    s.bind(1, table).bind(2, witness);
    if (!s.step()) return std::nullopt;
    const auto root = tlog::hash_from_hex(s.text(1));
    if (!root) throw store_unavailable(fmt::format("table '{}': a cosigned root is not 64 hex digits", table));
    return std::pair{from_db(s.integer(0)), *root};
  }

  void start_log(std::shared_ptr<const tlog::note_signer> signer) override {
    if (!committer_) return;
    committer_->flush();
    {
      const auto b = make_sqlite_backend(path_);  // the committer is idle: this connection takes the write lock
      b->begin();
      try {
        build_missing_trees(*b->trees(), *signer);
        b->commit();
      } catch (...) {
        b->rollback();
        throw;
      }
      b->sync();
    }
    committer_->set_log(std::move(signer));
  }

  // /healthz, on an I/O thread, never behind the writer: a failed fsync shows at once; the
  // database is read (one query on a reader connection) at most once per read_check_every,
  // so under load /healthz costs no query. A failed read is retried by the next call.
  void ping() override {
    if (committer_) committer_->check_sync();  // a failed fsync makes the store unhealthy
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    if (now - std::chrono::steady_clock::duration(last_read_ok_.load(std::memory_order_relaxed)) < read_check_every)
      return;
    try {
      auto r = reader();
      statement s(r->db, "SELECT count(*) FROM fairdeck_meta");
      s.step();
    } catch (...) {
      last_read_ok_.store(0, std::memory_order_relaxed);
      throw;
    }
    last_read_ok_.store(now.count(), std::memory_order_relaxed);
  }

  [[nodiscard]] commit_stats stats() const override { return committer_ ? committer_->stats() : commit_stats{}; }
  void flush() override {
    if (committer_) committer_->flush();
  }
  [[nodiscard]] std::string_view kind() const noexcept override { return "sqlite"; }

 private:
  struct reader_deleter {
    sqlite_store* owner;
    void operator()(connection* c) const {
      std::lock_guard lock(owner->pool_mutex_);
      owner->pool_.emplace_back(c);
    }
  };
  std::unique_ptr<connection, reader_deleter> reader() {
    {
      std::lock_guard lock(pool_mutex_);
      if (!pool_.empty()) {
        connection* c = pool_.back().release();
        pool_.pop_back();
        return {c, reader_deleter{this}};
      }
    }
    return {new connection(path_, false), reader_deleter{this}};
  }

  // A store from before hands (issue #30) gets the column on open; its tables had no hand.
  void add_hands_column() {
    connection c(path_, false);
    if (!prepares(c.db, "SELECT hands FROM fairdeck_tables LIMIT 0"))
      c.exec("ALTER TABLE fairdeck_tables ADD COLUMN hands TEXT NOT NULL DEFAULT ''");
  }

  std::string path_;
  std::mutex pool_mutex_;
  std::vector<std::unique_ptr<connection>> pool_;
  // The writer never checkpoints (wal_autocheckpoint=0): copying the WAL into the database
  // and its fsync happen here, off the path of a deal's commit.
  void checkpoint_loop() {
    std::unique_ptr<connection> c;
    std::unique_lock lock(stop_mutex_);
    while (!stop_cv_.wait_for(lock, std::chrono::milliseconds(250), [&] { return stop_; })) {
      lock.unlock();
      try {
        if (!c) c = std::make_unique<connection>(path_, false);
        sqlite3_wal_checkpoint_v2(c->db, nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
      } catch (const std::exception&) {
        c.reset();  // e.g. disk full: retried next time
      }
      lock.lock();
    }
  }

  std::unique_ptr<group_committer> committer_;
  static constexpr std::chrono::milliseconds read_check_every{1000};
  // ping(): steady_clock ticks of the last successful read (0: none, or the last one failed).
  std::atomic<std::chrono::steady_clock::rep> last_read_ok_{0};
  std::mutex stop_mutex_;
  std::condition_variable stop_cv_;
  bool stop_ = false;
  std::thread checkpointer_;
};

}  // namespace

void create_sqlite_store(const store_options& o, std::string_view key_check) {
  {  // the store holds sealed seeds and token hashes: owner only, like the key file
    const int fd = ::open(o.db.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) throw std::runtime_error(fmt::format("cannot create {}: {}", o.db, std::strerror(errno)));
    ::close(fd);
  }
  connection c(o.db, true);
  c.exec("BEGIN IMMEDIATE");
  c.exec(schema_sql);
  create_tree_schema(c);
  {
    statement s(c.db, "INSERT INTO fairdeck_meta(key, value) VALUES('key_check', ?1)");
    s.bind(1, key_check);
    s.step();
  }
  c.exec("COMMIT");
}

std::unique_ptr<store> open_sqlite_store(const store_options& o, std::optional<secret_key> key) {
  return std::make_unique<sqlite_store>(o, std::move(key));
}

}  // namespace fairdeck::service
