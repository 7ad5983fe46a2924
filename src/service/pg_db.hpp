// The PostgreSQL store's shared machinery (pg_store.cpp, pg_tree.cpp): value conversions
// (array literals: pg_array.hpp) and the transparency log's statements (pg_tree.cpp). Internal to src/service.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <pqxx/pqxx>

#include "fairdeck/service/store.hpp"
#include "pg_array.hpp"
#include "pg_pipeline.hpp"

namespace fairdeck::service::pg_db {

// Tables whose rows and tree heads a writer keeps between batches (its optimistic path,
// pg_batch.cpp); past this it forgets them all and reads them again, locked.
inline constexpr std::size_t max_known = 4096;

// The kept entries (table id -> row or head) hold every one of `tables`.
template <class Map>
bool keeps_all(const Map& known, std::span<const std::string> tables) {
  return std::all_of(tables.begin(), tables.end(), [&](const std::string& t) { return known.contains(t); });
}

// After COMMIT: what this transaction read or wrote (`pending`) joins the kept entries
// (`known`), all of which are forgotten first when the two together would pass max_known.
template <class Map>
void keep_pending(Map& known, Map& pending) {
  if (known.size() + pending.size() > max_known) known.clear();
  for (auto& [id, v] : pending) known.insert_or_assign(id, std::move(v));
  pending.clear();
}

// The optimistic batch's verdict (pg_batch.cpp): its checks set the session variable
// fairdeck.stale to 'true' when a kept row changed, and every write the COMMIT query carries
// is guarded by this condition, so a stale batch writes nothing and raises no error (no
// ERROR in PostgreSQL's log for what is routine between two instances; and the statements'
// values never reach that log anyway: pg_pipeline.hpp). Unset, or 'false', on every
// connection the writer goes on using.
inline constexpr const char* fresh_guard = "current_setting('fairdeck.stale', true) IS DISTINCT FROM 'true'";

// First line only: database messages can run to several lines of detail.
inline std::string first_line(std::string_view s) { return std::string(s.substr(0, s.find('\n'))); }
inline std::int64_t as_db(std::uint64_t v) { return static_cast<std::int64_t>(v); }
inline std::uint64_t from_db(std::int64_t v) { return static_cast<std::uint64_t>(v); }
// A string as an SQL literal for statements sent as text ('...' with the connection's escaping;
// pqxx's quote() trips g++ 12's -Wrestrict).
inline std::string literal(const pqxx::transaction_base& t, const std::string& v) {
  std::string out = "'";
  out += t.esc(v);
  out += '\'';
  return out;
}

// A writer connection's transaction (pg_batch.cpp). BEGIN costs no round trip of its own: it
// goes in front of the transaction's first statement sent as text (exec) or in a pipeline
// (run), or just before the first one sent otherwise (operator->), so a batch whose first
// statement is its prefetch and whose last is the pipeline of its writes with COMMIT takes two
// round trips.
class writer_tx {
 public:
  void open(writer_connection& c) {
    conn_ = &c;
    tx_.emplace(c);
    begun_ = false;
    gate_ = nullptr;
  }
  void close() noexcept {
    tx_.reset();
    begun_ = false;
    gate_ = nullptr;
  }
  // `f` runs once, before the next statement sent through operator-> or exec (the optimistic
  // batch's checks, sent before anything else the batch sends before COMMIT); ungate: not.
  void gate(std::function<void()> f) { gate_ = std::move(f); }
  void ungate() noexcept { gate_ = nullptr; }
  // Was anything, hence BEGIN, sent?
  [[nodiscard]] bool begun() const noexcept { return begun_; }
  // The transaction, begun.
  pqxx::nontransaction* operator->() {
    pass_gate();
    if (!begun_) {
      begun_ = true;
      tx_->exec0("BEGIN");
    }
    return &*tx_;
  }
  // `sql` (one or more statements, as text) in the transaction; returns the last one's result.
  pqxx::result exec(std::string sql) {
    pass_gate();
    if (!begun_) {
      begun_ = true;
      sql.insert(0, "BEGIN;\n");
    }
    return tx_->exec(sql);
  }
  // The statements of `p` in the transaction, in one round trip (statement_pipeline::run).
  std::optional<std::string> run(statement_pipeline& p) {
    pass_gate();
    if (!begun_) {
      begun_ = true;
      p.plain_first("BEGIN");
    }
    return p.run(*conn_);
  }
  // For escaping literals (sends nothing).
  [[nodiscard]] const pqxx::transaction_base& quoting() const { return *tx_; }

 private:
  void pass_gate() {
    if (!gate_) return;
    const auto f = std::move(gate_);
    gate_ = nullptr;
    f();
  }
  writer_connection* conn_ = nullptr;
  std::optional<pqxx::nontransaction> tx_;
  bool begun_ = false;
  std::function<void()> gate_;
};

// ---- the transparency log's storage (pg_tree.cpp; schema in log_tree.hpp) ----

// Creates the log's tables if they are missing (a store from before the log gets them).
void create_tree_schema(pqxx::transaction_base& t);
// Prepares the writer's queries below on a new writer connection.
void prepare_tree_statements(pqxx::connection_base& c);

// The writer's tree_storage, inside its open transaction `tx`. `writes` is the writer's
// backend: its buffered records are flushed before a query reads fairdeck_records. The
// writes (insert_nodes, save_head) are buffered and added by render_writes to the pipeline
// which the backend sends with its COMMIT (one round trip for every write whose answer
// nothing reads): one INSERT of all the batch's nodes and one upsert of all its heads.
class tree_statements final : public tree_storage {
 public:
  tree_statements(writer_tx& tx, batch_backend& writes) : tx_(tx), writes_(writes) {}
  // The heads of `tables` as the backend's prefetch locked and read them (with the tables'
  // rows, one round trip): expect() first (every table without a head), then found() for
  // each head read. load_head answers them from here until forget() (a new transaction).
  void expect(std::span<const std::string> tables);
  void found(const std::string& table, const std::string& frontier, std::string checkpoint);
  // A new transaction: nothing prefetched, nothing buffered.
  void forget() noexcept {
    prefetched_.clear();
    drop_writes();
    pending_known_.clear();
    rebuilding_ = false;
  }
  // The heads this writer read locked or wrote in its committed transactions, kept for its
  // next batches (the backend's optimistic path, pg_batch.cpp). recall: when every one of
  // `tables` has a kept head, answers load_head from them (no statement) and returns true;
  // else changes nothing. render_check: a statement (in the pipeline, after the tables'
  // check) that locks those heads, in table order, and sets fairdeck.stale to 'true' unless
  // each is still the kept one (fresh_guard).
  // committed: this transaction's heads are now the kept ones. forget_known: none kept.
  [[nodiscard]] bool recall(std::span<const std::string> tables);
  void render_check(statement_pipeline& p, std::span<const std::string> tables) const;
  void committed();
  void forget_known() noexcept { known_.clear(); }
  std::optional<head> load_head(std::string_view table) override;
  void save_head(std::string_view table, const tlog::frontier& tree, std::string_view checkpoint) override;
  void insert_nodes(std::string_view table, std::span<const std::pair<node_ref, tlog::hash>> nodes) override;
  std::vector<std::string> record_hashes(std::string_view table, std::uint64_t from, std::uint64_t to) override;
  std::vector<std::pair<std::string, std::uint64_t>> tables_behind() override;
  // Adds the buffered writes to `p` and forgets them.
  void render_writes(statement_pipeline& p);

 private:
  struct saved_head {
    std::uint64_t size = 0;
    std::string frontier, checkpoint;
  };
  void spill_if_large();
  void drop_writes() noexcept;
  writer_tx& tx_;
  batch_backend& writes_;
  std::map<std::string, std::optional<head>, std::less<>> prefetched_;
  std::map<std::string, head, std::less<>> known_, pending_known_;  // kept heads; this transaction's
  // Buffered nodes as four array literals (tables, levels, indexes, hex hashes) and heads by table.
  array_builder node_tables_, node_levels_, node_indexes_, node_hashes_;
  std::map<std::string, saved_head, std::less<>> heads_;
  std::size_t buffered_bytes_ = 0;
  bool rebuilding_ = false;  // tables_behind() was asked: build_missing_trees, which may race another instance
};

// Readers (store::tree_head, tree_nodes, cosignatures) and the cosignature write.
[[nodiscard]] std::optional<log_head> read_tree_head(pqxx::transaction_base& n, std::string_view table);
[[nodiscard]] std::vector<tlog::hash> read_tree_nodes(pqxx::transaction_base& n, std::string_view table,
                                                      std::span<const node_ref> refs);
void write_cosignature(pqxx::transaction_base& n, std::string_view table, std::uint64_t size, const tlog::hash& root,
                       std::string_view witness, std::string_view line);
[[nodiscard]] std::vector<std::string> read_cosignatures(pqxx::transaction_base& n, std::string_view table,
                                                         std::uint64_t size, const tlog::hash& root);

}  // namespace fairdeck::service::pg_db
