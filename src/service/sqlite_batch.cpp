// The SQLite store's writer connection (sqlite_db.hpp), driven by the group committer: BEGIN
// IMMEDIATE, the batch's writes (each under a savepoint when a batch is rerun after a failing
// write), COMMIT with synchronous=OFF, and sync(): the fdatasync of the WAL that makes the
// batch durable, run by the committer's syncer thread (sqlite_store.cpp says why).
#include <cerrno>
#include <cstring>
#include <filesystem>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "fairdeck/service/store.hpp"
#include "sqlite_db.hpp"

namespace fairdeck::service::sqlite_db {
namespace {

std::string seeds_json(const std::vector<std::string>& seeds) { return nlohmann::json(seeds).dump(); }
std::vector<std::string> seeds_from_json(const std::string& text) {
  return nlohmann::json::parse(text).get<std::vector<std::string>>();
}

// Idempotency keys of deals (table.hpp): kept as long as the log (docs/service.md).
constexpr const char* idempotency_sql =
    "CREATE TABLE IF NOT EXISTS fairdeck_idempotency(table_id TEXT NOT NULL, key TEXT NOT NULL, fingerprint TEXT NOT NULL, "
    "seq INTEGER NOT NULL, created TEXT NOT NULL, PRIMARY KEY(table_id, key))";

class sqlite_backend final : public batch_backend, public transaction {
 public:
  explicit sqlite_backend(const std::string& path)
      : wal_path_(path + "-wal"),
        conn_(path, false),
        begin_(conn_.db, "BEGIN IMMEDIATE"),
        commit_(conn_.db, "COMMIT"),
        savepoint_(conn_.db, "SAVEPOINT fairdeck_write"),
        release_(conn_.db, "RELEASE fairdeck_write"),
        rollback_to_(conn_.db, "ROLLBACK TO fairdeck_write"),
        load_(conn_.db, select_table_sql),
        insert_(
            conn_.db,
            "INSERT INTO fairdeck_tables(id, seats, decks, jokers, sealed_seed, commitment, next_nonce, next_seq, "
            "head_hash, seat_seeds, hands) VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11) ON CONFLICT(id) DO NOTHING"),
        update_(conn_.db,
                "UPDATE fairdeck_tables SET sealed_seed = ?2, commitment = ?3, next_nonce = ?4, next_seq = ?5, "
                "head_hash = ?6, seat_seeds = ?7, hands = ?8 WHERE id = ?1"),
        append_(conn_.db, "INSERT INTO fairdeck_records(table_id, seq, nonce, body, hash) VALUES(?1, ?2, ?3, ?4, ?5)"),
        trees_(conn_.db),
        idem_schema_(conn_, idempotency_sql),
        find_key_(conn_.db, "SELECT fingerprint, seq FROM fairdeck_idempotency WHERE table_id = ?1 AND key = ?2"),
        store_key_(
            conn_.db,
            "INSERT INTO fairdeck_idempotency(table_id, key, fingerprint, seq, created) VALUES(?1, ?2, ?3, ?4, ?5)"),
        record_at_(conn_.db, "SELECT body, hash FROM fairdeck_records WHERE table_id = ?1 AND seq = ?2") {
    conn_.exec("PRAGMA wal_autocheckpoint=0");  // sqlite_store's checkpoint thread does it
    // COMMIT only writes the WAL; sync() makes it durable off the writer's path (the
    // checkpointer's own connection keeps synchronous=FULL: it syncs the WAL before copying
    // it into the database and the database after).
    conn_.exec("PRAGMA synchronous=OFF");
  }
  ~sqlite_backend() override {
    if (wal_fd_ >= 0) ::close(wal_fd_);
  }
  sqlite_backend(const sqlite_backend&) = delete;
  sqlite_backend& operator=(const sqlite_backend&) = delete;

  [[nodiscard]] bool deferred_sync() const noexcept override { return true; }
  // fdatasync of the WAL file through a descriptor of our own (Linux syncs the file, not the
  // descriptor). Reopened if the WAL was replaced; the directory is synced when it is new.
  void sync() override {
    struct stat st {};
    if (::stat(wal_path_.c_str(), &st) != 0)
      throw store_unavailable(fmt::format("cannot sync {}: {}", wal_path_, std::strerror(errno)));
    if (wal_fd_ < 0 || st.st_ino != wal_ino_ || st.st_dev != wal_dev_) {
      if (wal_fd_ >= 0) ::close(wal_fd_);
      wal_fd_ = ::open(wal_path_.c_str(), O_RDONLY | O_CLOEXEC);
      if (wal_fd_ < 0) throw store_unavailable(fmt::format("cannot open {}: {}", wal_path_, std::strerror(errno)));
      wal_ino_ = st.st_ino;
      wal_dev_ = st.st_dev;
      const auto dir = std::filesystem::path(wal_path_).parent_path();
      const int dfd = ::open(dir.empty() ? "." : dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
      if (dfd < 0 || ::fsync(dfd) != 0) {
        const int err = errno;
        if (dfd >= 0) ::close(dfd);
        throw store_unavailable(fmt::format("cannot sync the directory of {}: {}", wal_path_, std::strerror(err)));
      }
      ::close(dfd);
    }
    if (::fdatasync(wal_fd_) != 0)
      throw store_unavailable(fmt::format("cannot sync {}: {}", wal_path_, std::strerror(errno)));
  }

  void begin() override { run(begin_); }
  void commit() override { run(commit_); }
  void rollback() noexcept override {
    if (!sqlite3_get_autocommit(conn_.db)) sqlite3_exec(conn_.db, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void savepoint() override { run(savepoint_); }
  void release() override { run(release_); }
  void rollback_to_savepoint() override {
    // An I/O error or a full disk may have made SQLite roll the whole transaction back.
    if (sqlite3_get_autocommit(conn_.db)) throw store_unavailable("sqlite rolled the transaction back");
    run(rollback_to_);
    run(release_);
  }
  transaction& tx() override { return *this; }
  tree_storage* trees() noexcept override { return &trees_; }

  std::optional<table_state> load(std::string_view id) override { return read_table(load_, id); }
  void insert(const table_state& t) override {
    resetter r{insert_};
    insert_.bind(1, t.id).bind(2, std::int64_t{t.seats}).bind(3, std::int64_t{t.spec.decks});
    insert_.bind(4, std::int64_t{t.spec.jokers}).bind(5, t.sealed_seed).bind(6, t.commitment);
    insert_.bind(7, as_db(t.next_nonce))
        .bind(8, as_db(t.next_seq))
        .bind(9, t.head_hash)
        .bind(10, seeds_json(t.seat_seeds));
    insert_.bind(11, hand_state_text(t));
    insert_.step();
    if (sqlite3_changes(conn_.db) == 0) throw table_exists(t.id);
  }
  void update(const table_state& t) override {
    resetter r{update_};
    update_.bind(1, t.id).bind(2, t.sealed_seed).bind(3, t.commitment).bind(4, as_db(t.next_nonce));
    update_.bind(5, as_db(t.next_seq)).bind(6, t.head_hash).bind(7, seeds_json(t.seat_seeds));
    update_.bind(8, hand_state_text(t));
    update_.step();
  }
  void append(const record& rec) override {
    resetter r{append_};
    append_.bind(1, rec.table).bind(2, as_db(rec.seq));
    if (takes_nonce(rec.type))
      append_.bind(3, as_db(rec.nonce));
    else
      append_.bind_null(3);
    append_.bind(4, canonical_text(rec)).bind(5, rec.hash);
    append_.step();
  }
  std::optional<idempotent_deal> find_idempotency(std::string_view table, std::string_view key) override {
    resetter r{find_key_};
    find_key_.bind(1, table).bind(2, key);
    if (!find_key_.step()) return std::nullopt;
    return idempotent_deal{find_key_.text(0), from_db(find_key_.integer(1))};
  }
  void store_idempotency(std::string_view table, std::string_view key, const idempotent_deal& d) override {
    resetter r{store_key_};
    store_key_.bind(1, table).bind(2, key).bind(3, d.fingerprint).bind(4, as_db(d.seq)).bind(5, utc_now());
    store_key_.step();
  }
  std::optional<record> record_at(std::string_view table, std::uint64_t seq) override {
    resetter r{record_at_};
    record_at_.bind(1, table).bind(2, as_db(seq));
    if (!record_at_.step()) return std::nullopt;
    return record_from_canonical(record_at_.text(0), record_at_.text(1));
  }

 private:
  static void run(statement& s) {
    resetter r{s};
    s.step();
  }
  std::string wal_path_;
  int wal_fd_ = -1;
  ino_t wal_ino_ = 0;
  dev_t wal_dev_ = 0;
  connection conn_;
  statement begin_, commit_, savepoint_, release_, rollback_to_, load_, insert_, update_, append_;
  tree_statements trees_;
  struct schema_step {  // the idempotency table, added to stores created before it
    schema_step(connection& c, const char* sql) { c.exec(sql); }
  } idem_schema_;
  statement find_key_, store_key_, record_at_;
};

}  // namespace

std::optional<table_state> read_table(statement& st, std::string_view id) {
  resetter r{st};
  st.bind(1, id);
  if (!st.step()) return std::nullopt;
  table_state t;
  t.id = std::string(id);
  t.seats = static_cast<unsigned>(st.integer(0));
  t.spec = deck_spec{static_cast<unsigned>(st.integer(1)), static_cast<unsigned>(st.integer(2))};
  t.sealed_seed = st.text(3);
  t.commitment = st.text(4);
  t.next_nonce = from_db(st.integer(5));
  t.next_seq = from_db(st.integer(6));
  t.head_hash = st.text(7);
  t.seat_seeds = seeds_from_json(st.text(8));
  read_hand_state(t, st.text(9));
  return t;
}

std::unique_ptr<batch_backend> make_sqlite_backend(const std::string& path) {
  return std::make_unique<sqlite_backend>(path);
}

}  // namespace fairdeck::service::sqlite_db
