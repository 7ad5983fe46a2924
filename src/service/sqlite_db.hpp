// The SQLite stores' shared machinery (sqlite_store.cpp, sqlite_tree.cpp): a connection in WAL
// mode, prepared statements, and the transparency log's statements (sqlite_tree.cpp).
// Internal to src/service.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <sqlite3.h>

#include "fairdeck/service/store.hpp"

namespace fairdeck::service::sqlite_db {

[[noreturn]] inline void fail(sqlite3* db, std::string_view what) {
  throw store_unavailable(fmt::format("sqlite {}: {}", what, db ? sqlite3_errmsg(db) : "out of memory"));
}

// Once per process, before SQLite initialises: no memory statistics. Debian's libsqlite3 is
// built without lookaside memory (SQLITE_OMIT_LOOKASIDE), so every small allocation of a
// statement goes to malloc, and with statistics on (SQLITE_DEFAULT_MEMSTATUS=1) each one
// takes a process-wide mutex (sqlite.org/compile.html, "Recommended Compile-time Options":
// MEMSTATUS=0 "helps the sqlite3_malloc() routines run much faster"). Nothing here reads the
// statistics or sets a soft heap limit. Harmless when another part of the process started
// SQLite first (sqlite3_config then refuses and nothing changes).
inline void configure_sqlite_once() {
  static std::once_flag once;
  std::call_once(once, [] { (void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); });
}

struct connection {
  sqlite3* db = nullptr;
  explicit connection(const std::string& path, bool create) {
    configure_sqlite_once();
    const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (create ? SQLITE_OPEN_CREATE : 0);
    if (sqlite3_open_v2(path.c_str(), &db, flags, nullptr) != SQLITE_OK) {
      std::string msg = fmt::format("cannot open {}: {}", path, db ? sqlite3_errmsg(db) : "out of memory");
      sqlite3_close(db);
      throw store_unavailable(msg);
    }
    sqlite3_busy_timeout(db, 5000);
    try {  // a throwing constructor runs no destructor: close here (e.g. EMFILE opening the WAL)
      exec("PRAGMA journal_mode=WAL");
      exec("PRAGMA synchronous=FULL");
    } catch (...) {
      sqlite3_close_v2(db);
      throw;
    }
  }
  connection(const connection&) = delete;
  connection& operator=(const connection&) = delete;
  ~connection() { sqlite3_close_v2(db); }
  void exec(const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) fail(db, sql);
  }
};

// Whether `sql` compiles on `db`: how an upgrade asks if a table or column exists yet.
inline bool prepares(sqlite3* db, const char* sql) {
  sqlite3_stmt* probe = nullptr;
  const bool ok = sqlite3_prepare_v2(db, sql, -1, &probe, nullptr) == SQLITE_OK;
  sqlite3_finalize(probe);
  return ok;
}

// A prepared statement, reset after each use.
class statement {
 public:
  statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st_, nullptr) != SQLITE_OK) fail(db, "prepare");
  }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;
  ~statement() { sqlite3_finalize(st_); }
  statement& bind(int i, std::string_view v) {
    check(sqlite3_bind_text(st_, i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
    return *this;
  }
  statement& bind(int i, std::int64_t v) {
    check(sqlite3_bind_int64(st_, i, v));
    return *this;
  }
  statement& bind(int i, const tlog::hash& h) {
    check(sqlite3_bind_blob(st_, i, h.data(), static_cast<int>(h.size()), SQLITE_TRANSIENT));
    return *this;
  }
  [[nodiscard]] std::optional<tlog::hash> blob(int col) const {
    tlog::hash h{};
    if (sqlite3_column_bytes(st_, col) != static_cast<int>(h.size())) return std::nullopt;
    std::memcpy(h.data(), sqlite3_column_blob(st_, col), h.size());
    return h;
  }
  statement& bind_null(int i) {
    check(sqlite3_bind_null(st_, i));
    return *this;
  }
  // true while a row is available
  bool step() {
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    last_rc_ = sqlite3_extended_errcode(db_);
    fail(db_, "step");
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  [[nodiscard]] std::string text(int col) const {
    const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(st_, col));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(st_, col))) : std::string();
  }
  [[nodiscard]] std::int64_t integer(int col) const { return sqlite3_column_int64(st_, col); }
  [[nodiscard]] bool is_null(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }

 private:
  void check(int rc) {
    if (rc != SQLITE_OK) fail(db_, "bind");
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  int last_rc_ = 0;
};

struct resetter {
  statement& s;
  ~resetter() { s.reset(); }
};

inline std::int64_t as_db(std::uint64_t v) { return static_cast<std::int64_t>(v); }  // two's complement, lossless
inline std::uint64_t from_db(std::int64_t v) { return static_cast<std::uint64_t>(v); }

// ---- the writer (sqlite_batch.cpp) ----

inline constexpr const char* select_table_sql =
    "SELECT seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, head_hash, seat_seeds, hands "
    "FROM fairdeck_tables WHERE id = ?1";
// The table row `st` (prepared from select_table_sql) finds for `id`; nullopt if none.
[[nodiscard]] std::optional<table_state> read_table(statement& st, std::string_view id);
// The group committer's writer: its own connection to the database at `path`.
[[nodiscard]] std::unique_ptr<batch_backend> make_sqlite_backend(const std::string& path);

// ---- the transparency log's storage (sqlite_tree.cpp; schema in log_tree.hpp) ----

// The store format this build writes (fairdeck_meta 'schema'). 2: tree nodes keyed by their
// stored hash index (log_tree.hpp). 1: keyed (level, idx), or no log at all; upgraded on open.
inline constexpr std::string_view store_schema = "2";
// Creates the log's tables if they are missing (a store from before the log gets them).
void create_tree_schema(connection& c);
// Upgrades a store of schema 1 to store_schema in one transaction: the tree's nodes re-keyed
// (a store from before the log gets its tables instead). Nothing is changed if another process
// upgraded it first. Throws store_unavailable on a database error (the store is left as it was).
void upgrade_to_current_schema(connection& c);

// The writer's tree_storage: statements on the writer's connection, inside its transaction.
class tree_statements final : public tree_storage {
 public:
  explicit tree_statements(sqlite3* db);
  std::optional<head> load_head(std::string_view table) override;
  void save_head(std::string_view table, const tlog::frontier& tree, std::string_view checkpoint) override;
  void insert_nodes(std::string_view table, std::span<const std::pair<node_ref, tlog::hash>> nodes) override;
  std::vector<std::string> record_hashes(std::string_view table, std::uint64_t from, std::uint64_t to) override;
  std::vector<std::pair<std::string, std::uint64_t>> tables_behind() override;

 private:
  sqlite3* db_;
  statement head_load_, head_save_, node_insert_, record_hashes_;
};

// Readers (store::tree_head, tree_nodes, cosignatures) and the cosignature write, on `db`.
[[nodiscard]] std::optional<log_head> read_tree_head(sqlite3* db, std::string_view table);
[[nodiscard]] std::vector<tlog::hash> read_tree_nodes(sqlite3* db, std::string_view table,
                                                      std::span<const node_ref> refs);
void write_cosignature(sqlite3* db, std::string_view table, std::uint64_t size, const tlog::hash& root,
                       std::string_view witness, std::string_view line);
[[nodiscard]] std::vector<std::string> read_cosignatures(sqlite3* db, std::string_view table, std::uint64_t size,
                                                         const tlog::hash& root);

}  // namespace fairdeck::service::sqlite_db
