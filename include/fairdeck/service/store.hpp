// Where tables and their logs live: SQLite (embedded default, one writer, WAL, group commit)
// or PostgreSQL (several fairdeckd processes on one database). Both run the same table logic
// (table.hpp) through a group_committer: a writer thread that takes every queued write,
// runs them in ONE transaction, commits durably, and only then calls each write's
// completion. A refused write leaves no trace because `apply` checks everything before it
// writes. A write that throws (a sealed seed that does not open, a constraint) answers its
// own error while the rest of its batch commits: the batch is rolled back and run again
// with a SAVEPOINT per write, the failing write is rolled back to its savepoint. Only a
// failure of the transaction itself (commit, lost connection, deadlock: retried as a whole)
// fails every write of the batch. (Savepoints only on that rerun: on every write they cost
// two statements per write, +50-70 % deal time on PostgreSQL.) Within a batch each table row
// is read once and written once (at commit), so a batch of n deals on one table costs n
// record INSERTs, one SELECT and one UPDATE.
//
// Guarantee: a completion with outcome::ok is called only after its commit is durable
// (PostgreSQL: the COMMIT returned, synchronous_commit at least on — fairdeckd raises off,
// local and remote_write to on on its sessions; SQLite: the COMMIT returned and a
// later fdatasync of the WAL succeeded — see deferred_sync below).
// A failed commit fails every write of the batch with outcome::unavailable; none of them
// was acknowledged, so a client never saw a nonce that is not stored. A commit whose outcome
// is unknown (commit_outcome_unknown: the connection was lost after COMMIT was sent) fails
// them with outcome::unknown instead, and the batch is never run again (it may have
// committed: a rerun would deal twice).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/service/secrets.hpp"
#include "fairdeck/service/table.hpp"

namespace fairdeck::service {

// The database cannot be reached or written (disk full, I/O error, connection lost): 503.
class store_unavailable : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// batch_backend::commit could not learn whether its COMMIT took effect (the connection was
// lost after COMMIT was sent, before its answer; an answer after it that was lost): the
// batch may be stored. The committer answers its writes outcome::unknown (503 that says so)
// and never runs the batch again.
class commit_outcome_unknown : public store_unavailable {
 public:
  using store_unavailable::store_unavailable;
};

using done_fn = std::function<void(write_result)>;

// One database connection seen as the group committer needs it.
class batch_backend {
 public:
  virtual ~batch_backend() = default;
  virtual void begin() = 0;
  virtual void commit() = 0;
  virtual void rollback() noexcept = 0;
  // One write's savepoint inside the open transaction: savepoint() before the write,
  // release() after it succeeded, rollback_to_savepoint() after it threw (undoes exactly that
  // write, then releases the savepoint). rollback_to_savepoint() throws when the transaction
  // itself is lost (e.g. SQLite rolled it back on an I/O error): the batch then fails.
  virtual void savepoint() = 0;
  virtual void release() = 0;
  virtual void rollback_to_savepoint() = 0;
  // May this failure go away if the whole batch is retried (deadlock, serialization)?
  [[nodiscard]] virtual bool retryable(const std::exception&) const noexcept { return false; }
  virtual transaction& tx() = 0;
  // Sends the writes a backend buffered (PostgreSQL: the batch's record rows as one INSERT
  // instead of one round trip each). The committer calls it after each write when each write
  // has its savepoint, so a failing row is still one write's error; a backend also flushes
  // before it reads what it buffered, and commit() sends whatever is still buffered.
  virtual void flush_writes() {}
  // Did commit() fail because the database refused a statement (a buffered row, say), with
  // nothing committed? The committer then reruns the batch with a savepoint per write, as
  // it does when a write throws. False for a failure whose outcome is unknown.
  [[nodiscard]] virtual bool refused(const std::exception&) const noexcept { return false; }
  // Called after begin() with the batch's table ids (ascending, distinct): a backend may lock
  // and read their rows (and, with `trees`, their tree heads) in one round trip, in that
  // order, and answer load()/load_head() for them from what it read.
  virtual void prefetch(std::span<const std::string> /*tables*/, bool /*trees*/) {}
  // Did this batch's prefetch answer from rows the backend kept from its own last commits,
  // without reading or locking them (PostgreSQL: they are checked, locked, with COMMIT, and a
  // changed row makes the batch fail as retryable)? Counted in commit_stats::optimistic_batches.
  [[nodiscard]] virtual bool optimistic() const noexcept { return false; }
  // The transparency log's tables on this connection (log_tree.hpp); nullptr: none.
  virtual tree_storage* trees() noexcept { return nullptr; }
  // Deferred durability (group commit, pipelined): commit() makes a batch visible but not
  // yet durable, and sync() — called from another thread, never touching the connection —
  // makes every batch whose commit returned before the call durable. The writer then runs
  // batch n+1 while batch n's fsync is in flight; answers still wait for their sync.
  [[nodiscard]] virtual bool deferred_sync() const noexcept { return false; }
  virtual void sync() {}
};

struct commit_stats {
  std::uint64_t batches = 0;
  std::uint64_t writes = 0;
  std::uint64_t failed_batches = 0;
  std::uint64_t isolated_batches = 0;    // rerun with a savepoint per write because a write threw
  std::uint64_t retried_batches = 0;     // rerun after a retryable failure (deadlock, serialization, stale rows)
  std::uint64_t optimistic_batches = 0;  // committed on the writer's kept rows (batch_backend::optimistic)
};

class group_committer {
 public:
  group_committer(std::unique_ptr<batch_backend> backend, secret_key key, std::size_t max_batch = 1024,
                  std::size_t max_queue = 1 << 16);
  group_committer(const group_committer&) = delete;
  group_committer& operator=(const group_committer&) = delete;
  ~group_committer();  // finishes queued writes, then stops

  // Queues a write; `done` runs on the writer thread. A full queue answers overloaded at once.
  void submit(write_request req, done_fn done);
  [[nodiscard]] commit_stats stats() const;
  // Blocks until every write queued so far has been committed and answered.
  void flush();
  // Blocks until every commit made so far is durable: readers call it after a read, so no
  // one is shown a record that a power loss could still take back. Throws store_unavailable
  // once a sync has failed (the store then refuses writes: after a failed fsync the state
  // of the file is unknown).
  void await_durable();
  // Throws store_unavailable if a sync has failed; never waits.
  void check_sync() const;
  // From now on every batch keeps the tables' trees and signs their checkpoints with `signer`
  // (log_tree.hpp). Before: no tree is kept.
  void set_log(std::shared_ptr<const tlog::note_signer> signer);

 private:
  struct item {
    write_request req;
    done_fn done;
  };
  struct committed {  // a batch whose answers wait for the next sync
    std::vector<item> items;
    std::vector<write_result> results;
    std::uint64_t gen = 0;  // its commit_gen_: a sync that covers it makes this much durable
  };
  void run();
  void run_batch(std::vector<item>& batch);
  void sync_loop();
  static void answer(std::vector<item>& items, std::vector<write_result>& results, const std::string& error);

  std::unique_ptr<batch_backend> backend_;
  secret_key key_;
  std::shared_ptr<const tlog::note_signer> log_signer_;  // under mutex_
  std::size_t max_batch_;
  std::size_t max_queue_;
  mutable std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<item> queue_;
  bool stopping_ = false;
  bool busy_ = false;
  std::condition_variable idle_;
  commit_stats stats_;
  // deferred_sync backends only
  std::deque<committed> to_sync_;
  std::uint64_t commit_gen_ = 0;  // commits started
  std::uint64_t synced_gen_ = 0;  // commits known durable
  bool syncing_ = false;
  bool stop_sync_ = false;
  std::string sync_error_;  // the first failed sync; no writes after it
  std::condition_variable sync_cv_, synced_cv_;
  std::thread syncer_;
  std::thread thread_;
};

class store {
 public:
  virtual ~store() = default;
  // Queues a write; see group_committer. Never throws.
  virtual void submit(write_request req, done_fn done) = 0;
  // submit and wait.
  [[nodiscard]] write_result execute(write_request req);
  // Records with seq > after (all without), at most `limit`; nullopt when there is no such
  // table. Throws store_unavailable.
  [[nodiscard]] virtual std::optional<std::vector<record>> log(std::string_view table,
                                                               std::optional<std::uint64_t> after,
                                                               std::size_t limit) = 0;
  // The table's current state as committed (a plain read; sealed_seed stays sealed and must
  // not be shown). Throws store_unavailable.
  [[nodiscard]] virtual std::optional<table_state> table(std::string_view id) = 0;
  // ---- operator tokens (stored as SHA-256 hashes) ----
  [[nodiscard]] virtual std::vector<std::string> token_hashes() = 0;
  virtual void add_token_hash(std::string_view hash) = 0;
  // Every token as (full hash, creation time), oldest first. Callers show only token_ids().
  [[nodiscard]] virtual std::vector<std::pair<std::string, std::string>> token_rows() = 0;
  // Deletes the one token whose hash starts with `hash_prefix`; returns how many matched
  // (0: none, 1: deleted, 2+: ambiguous, nothing deleted).
  virtual std::size_t revoke_token(std::string_view hash_prefix) = 0;
  // ---- fairdeck_meta (the key check) ----
  [[nodiscard]] virtual std::optional<std::string> meta(std::string_view name) = 0;
  // Sets `name` unless it is set; returns the value now stored (the first writer wins).
  virtual std::string set_meta_once(std::string_view name, std::string_view value) = 0;
  // The smallest table id, or nullopt when the store has no table.
  [[nodiscard]] virtual std::optional<std::string> first_table_id() = 0;
  // ---- the transparency log (log_tree.hpp); the defaults: a store that keeps none ----
  // The table's tree size and latest signed checkpoint (durable); nullopt: no such table.
  [[nodiscard]] virtual std::optional<log_head> tree_head(std::string_view table);
  // The stored nodes (level 0: the leaf hash of record `index`), in the order asked. Throws
  // store_unavailable when one is missing.
  [[nodiscard]] virtual std::vector<tlog::hash> tree_nodes(std::string_view table, std::span<const node_ref> refs);
  // Keeps (durably) the cosignature line of `witness` ("name+keyid") on the checkpoint
  // (size, root) of the table, replacing that witness's earlier one on it.
  virtual void add_cosignature(std::string_view table, std::uint64_t size, const tlog::hash& root,
                               std::string_view witness, std::string_view line);
  [[nodiscard]] virtual std::vector<std::string> cosignatures(std::string_view table, std::uint64_t size,
                                                              const tlog::hash& root);
  // The (size, root) of the table's largest checkpoint holding a line of `witness`
  // ("name+keyid"); nullopt when none does. The log's own signature line is kept there too
  // (log_tree.cpp), so with the log key's name this is the latest cosigned checkpoint.
  [[nodiscard]] virtual std::optional<std::pair<std::uint64_t, tlog::hash>> latest_cosigned(std::string_view table,
                                                                                            std::string_view witness);
  // Builds the trees a store from before the log lacks, then makes every later write keep
  // them, signed by `signer`. Called once, before serving.
  virtual void start_log(std::shared_ptr<const tlog::note_signer> signer);
  virtual void ping() = 0;  // throws store_unavailable when the database cannot be used
  [[nodiscard]] virtual commit_stats stats() const = 0;
  virtual void flush() = 0;  // waits for queued writes to be committed and answered
  [[nodiscard]] virtual std::string_view kind() const noexcept = 0;
};

struct store_options {
  std::string db;        // a SQLite path, or a postgresql:// URI
  std::string key_file;  // default: "<db>.key" for SQLite; required for PostgreSQL
  std::size_t max_batch = 1024;
  std::size_t max_queue = 1 << 16;
  std::string log_name;  // init: the log key's name (empty: default_log_name())
  unsigned writers = 2;  // PostgreSQL: writer connections (SQLite always has one)
};

[[nodiscard]] bool is_postgres_uri(std::string_view db) noexcept;
[[nodiscard]] std::filesystem::path key_path(const store_options& o);

// `db` fit for messages: a PostgreSQL URI's password (user:PASSWORD@ or password=...) as "***".
[[nodiscard]] std::string redact_db(std::string_view db);
// `message` with every occurrence of the password in `db` (as written and percent-decoded)
// replaced by "***": database libraries may echo parts of a connection string.
[[nodiscard]] std::string scrub_password(std::string message, std::string_view db);
// The passwords a URI carries, as written (better kept in PGPASSFILE, docs/service.md).
[[nodiscard]] std::vector<std::string> uri_passwords(std::string_view db);

// Creates the schema (and for SQLite the file), the key file and the key-check value in
// fairdeck_meta. Throws std::runtime_error when either already exists or cannot be created.
void init_store(const store_options& o);
// Opens an initialised store for serving (reads the key file) and checks the key:
// throws wrong_key unless key_check_value(key) equals the stored key-check value. A store
// from before the key check has none: the key must then open the seed sealed on the first
// table (by id), and its check value is stored (a store without tables takes the key).
[[nodiscard]] std::unique_ptr<store> open_store(const store_options& o);
// The store's log verifier key text (no key file needed); nullopt for a store that has not
// been opened since the log was added.
[[nodiscard]] std::optional<std::string> log_verifier_key(store& s);
// Opens only for token administration (no key file needed: tokens are not sealed).
[[nodiscard]] std::unique_ptr<store> open_store_for_tokens(const store_options& o);

class wrong_key : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};
// The key check of open_store, on an open store.
void check_key(store& s, const secret_key& key, const std::filesystem::path& key_file);

// Token ids for `fairdeckd token --list/--revoke`: the shortest prefix of each hash, at least
// 8 hex digits, that no other token shares. Never the whole hash.
[[nodiscard]] std::vector<std::string> token_ids(const std::vector<std::pair<std::string, std::string>>& rows);

// Implementations (sqlite_store.cpp, pg_store.cpp). create_*: the schema with the key check.
void create_sqlite_store(const store_options& o, std::string_view key_check);
void create_pg_store(const store_options& o, std::string_view key_check);
[[nodiscard]] std::unique_ptr<store> open_sqlite_store(const store_options& o, std::optional<secret_key> key);
[[nodiscard]] std::unique_ptr<store> open_pg_store(const store_options& o, std::optional<secret_key> key);

}  // namespace fairdeck::service
