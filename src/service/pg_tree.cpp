// The transparency log's statements of the PostgreSQL store (pg_db.hpp; the tree and its
// guarantees: log_tree.hpp): the writer's tree_storage and the readers' queries.
#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "pg_db.hpp"

namespace fairdeck::service::pg_db {
namespace {

// The transparency log (log_tree.hpp), added to older stores when they are opened.
constexpr const char* tree_schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS fairdeck_tree_heads(table_id TEXT PRIMARY KEY, size BIGINT NOT NULL, frontier TEXT NOT NULL,
  checkpoint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fairdeck_tree_nodes(table_id TEXT NOT NULL, level INTEGER NOT NULL, idx BIGINT NOT NULL,
  hash BYTEA NOT NULL, PRIMARY KEY(table_id, level, idx));
CREATE TABLE IF NOT EXISTS fairdeck_cosignatures(table_id TEXT NOT NULL, size BIGINT NOT NULL, root TEXT NOT NULL,
  witness TEXT NOT NULL, line TEXT NOT NULL, PRIMARY KEY(table_id, size, root, witness));
)sql";

}  // namespace

void create_tree_schema(pqxx::transaction_base& t) { t.exec(tree_schema_sql); }

void prepare_tree_statements(pqxx::connection_base& c) {
  c.prepare("head_load", "SELECT frontier, checkpoint FROM fairdeck_tree_heads WHERE table_id = $1 FOR UPDATE");
  c.prepare("record_hashes",
            "SELECT hash FROM fairdeck_records WHERE table_id = $1 AND seq >= $2 AND seq < $3 ORDER BY seq");
  // render_check's and render_writes' statements, run in the writer's pipeline: registered now.
  c.prepare("check_heads",
            "SELECT set_config('fairdeck.stale', (current_setting('fairdeck.stale', true) = 'true' OR count(*) <> "
            "cardinality($1::text[]))::text, false) FROM (SELECT 1 FROM fairdeck_tree_heads AS h JOIN "
            "unnest($1::text[], $2::bigint[], $3::text[]) AS k(id, z, c) ON h.table_id = k.id AND h.size = k.z AND "
            "h.checkpoint = k.c ORDER BY h.table_id COLLATE \"C\" FOR UPDATE OF h) AS locked");
  // A batch's nodes are new (the table's row and head are locked, and a node is written once,
  // when its subtree closes): a plain INSERT, half the work of ON CONFLICT's speculative
  // insertion. Rebuilding trees on open may race another instance doing the same: there,
  // an identical node already present is skipped (insert_nodes_again).
  constexpr const char* insert_nodes =
      "INSERT INTO fairdeck_tree_nodes(table_id, level, idx, hash) SELECT t, l, i, decode(h, 'hex') "
      "FROM unnest($1::text[], $2::int[], $3::bigint[], $4::text[]) AS n(t, l, i, h) WHERE ";
  c.prepare("insert_nodes", std::string(insert_nodes) + fresh_guard);
  c.prepare("insert_nodes_again", std::string(insert_nodes) + fresh_guard + " ON CONFLICT DO NOTHING");
  c.prepare("save_heads", std::string("INSERT INTO fairdeck_tree_heads(table_id, size, frontier, checkpoint) "
                                      "SELECT * FROM unnest($1::text[], $2::bigint[], $3::text[], $4::text[]) WHERE ") +
                              fresh_guard +
                              " ON CONFLICT (table_id) DO UPDATE SET size = excluded.size, frontier = "
                              "excluded.frontier, checkpoint = excluded.checkpoint");
  for (const char* name : {"check_heads", "insert_nodes", "insert_nodes_again", "save_heads"}) c.prepare_now(name);
}

void tree_statements::expect(std::span<const std::string> tables) {
  for (const auto& t : tables) prefetched_.emplace(t, std::nullopt);
}

void tree_statements::found(const std::string& table, const std::string& frontier, std::string checkpoint) {
  head h{tlog::frontier::from_text(frontier), std::move(checkpoint)};
  pending_known_.insert_or_assign(table, h);
  prefetched_[table] = std::move(h);
}

bool tree_statements::recall(std::span<const std::string> tables) {
  if (!keeps_all(known_, tables)) return false;
  for (const auto& t : tables) prefetched_.insert_or_assign(t, known_.find(t)->second);
  return true;
}

void tree_statements::render_check(statement_pipeline& p, std::span<const std::string> tables) const {
  array_builder ids, sizes, checkpoints;
  for (const auto& t : tables) {
    const auto& h = known_.find(t)->second;
    ids.quoted(t);
    sizes.number(as_db(h.tree.size()));
    checkpoints.quoted(h.checkpoint);
  }
  p.prepared("check_heads", {ids.take(), sizes.take(), checkpoints.take()});
}

void tree_statements::committed() { keep_pending(known_, pending_known_); }

std::optional<tree_storage::head> tree_statements::load_head(std::string_view table) {
  if (const auto it = prefetched_.find(table); it != prefetched_.end()) return it->second;
  const auto r = tx_->exec_prepared("head_load", std::string(table));
  if (r.empty()) return std::nullopt;
  return head{tlog::frontier::from_text(r[0][0].as<std::string>()), r[0][1].as<std::string>()};
}

// The batch's heads and nodes are buffered and written with COMMIT (render_writes): one
// statement per kind for the whole batch, whatever its number of tables, so PostgreSQL parses
// and plans two statements a batch instead of two per table.
void tree_statements::save_head(std::string_view table, const tlog::frontier& tree, std::string_view checkpoint) {
  std::string frontier = tree.to_text();
  buffered_bytes_ += table.size() + frontier.size() + checkpoint.size() + 24;
  heads_.insert_or_assign(std::string(table), saved_head{tree.size(), std::move(frontier), std::string(checkpoint)});
  pending_known_.insert_or_assign(std::string(table), head{tree, std::string(checkpoint)});
  spill_if_large();
}

void tree_statements::insert_nodes(std::string_view table, std::span<const std::pair<node_ref, tlog::hash>> nodes) {
  for (const auto& [ref, hash] : nodes) {
    node_tables_.quoted(table);
    node_levels_.number(ref.first);
    node_indexes_.number(as_db(ref.second));
    node_hashes_.bare(tlog::to_hex(hash));
    buffered_bytes_ += table.size() + 96;
  }
  spill_if_large();
}

// Building a whole tree (build_missing_trees, 65,536 leaves a call, any number of tables) must
// not hold it all as text until COMMIT: past 4 MB the buffered writes go now, inside the same
// transaction.
void tree_statements::spill_if_large() {
  if (buffered_bytes_ <= (std::size_t{1} << 22)) return;
  statement_pipeline p;
  render_writes(p);
  tx_.run(p);
}

void tree_statements::render_writes(statement_pipeline& p) {
  if (!node_tables_.empty())
    p.prepared(rebuilding_ ? "insert_nodes_again" : "insert_nodes",
               {node_tables_.take(), node_levels_.take(), node_indexes_.take(), node_hashes_.take()});
  if (!heads_.empty()) {
    array_builder ids, sizes, frontiers, checkpoints;
    for (const auto& [table, h] : heads_) {
      ids.quoted(table);
      sizes.number(as_db(h.size));
      frontiers.quoted(h.frontier);
      checkpoints.quoted(h.checkpoint);
    }
    p.prepared("save_heads", {ids.take(), sizes.take(), frontiers.take(), checkpoints.take()});
  }
  drop_writes();
}

void tree_statements::drop_writes() noexcept {
  for (auto* a : {&node_tables_, &node_levels_, &node_indexes_, &node_hashes_}) a->clear();
  heads_.clear();
  buffered_bytes_ = 0;
}

std::vector<std::string> tree_statements::record_hashes(std::string_view table, std::uint64_t from, std::uint64_t to) {
  writes_.flush_writes();
  std::vector<std::string> out;
  for (const auto& row : tx_->exec_prepared("record_hashes", std::string(table), as_db(from), as_db(to)))
    out.push_back(row[0].as<std::string>());
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> tree_statements::tables_behind() {
  writes_.flush_writes();
  rebuilding_ = true;  // only build_missing_trees asks (log_tree.cpp)
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& row : tx_->exec("SELECT t.id, t.next_seq FROM fairdeck_tables t LEFT JOIN fairdeck_tree_heads h "
                                   "ON h.table_id = t.id WHERE h.size IS NULL OR h.size <> t.next_seq ORDER BY t.id"))
    out.emplace_back(row[0].as<std::string>(), from_db(row[1].as<std::int64_t>()));
  return out;
}

std::optional<log_head> read_tree_head(pqxx::transaction_base& n, std::string_view table) {
  const auto r = n.exec_params("SELECT size, checkpoint FROM fairdeck_tree_heads WHERE table_id = $1",
                               std::string(table));
  if (!r.empty()) return log_head{from_db(r[0][0].as<std::int64_t>()), r[0][1].as<std::string>()};
  if (!n.exec_params("SELECT 1 FROM fairdeck_tables WHERE id = $1", std::string(table)).empty()) return log_head{};
  return std::nullopt;
}

std::vector<tlog::hash> read_tree_nodes(pqxx::transaction_base& n, std::string_view table,
                                        std::span<const node_ref> refs) {
  std::map<node_ref, tlog::hash> found;
  std::vector<node_ref> leaves, inner;
  for (const auto& r : refs) (r.first == 0 ? leaves : inner).push_back(r);
  const auto numbers = [](std::span<const node_ref> v, bool level) {
    array_builder a;
    for (const auto& r : v) a.number(level ? r.first : as_db(r.second));
    return a.take();
  };
  if (!leaves.empty())
    for (const auto& row :
         n.exec_params("SELECT seq, hash FROM fairdeck_records WHERE table_id = $1 AND seq = ANY($2::bigint[])",
                       std::string(table), numbers(leaves, false)))
      found[{0, from_db(row[0].as<std::int64_t>())}] = record_leaf(row[1].as<std::string>());
  if (!inner.empty())
    for (const auto& row : n.exec_params(
             "SELECT level, idx, encode(hash, 'hex') FROM fairdeck_tree_nodes WHERE table_id = $1 AND (level, idx) IN "
             "(SELECT * FROM unnest($2::int[], $3::bigint[]))",
             std::string(table), numbers(inner, true), numbers(inner, false)))
      if (auto h = tlog::hash_from_hex(row[2].as<std::string>()))
        found[{row[0].as<unsigned>(), from_db(row[1].as<std::int64_t>())}] = *h;
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

void write_cosignature(pqxx::transaction_base& n, std::string_view table, std::uint64_t size, const tlog::hash& root,
                       std::string_view witness, std::string_view line) {
  n.exec_params(
      "INSERT INTO fairdeck_cosignatures(table_id, size, root, witness, line) VALUES($1, $2, $3, $4, $5) "
      "ON CONFLICT (table_id, size, root, witness) DO UPDATE SET line = excluded.line",
      std::string(table), as_db(size), tlog::to_hex(root), std::string(witness), std::string(line));
}

std::vector<std::string> read_cosignatures(pqxx::transaction_base& n, std::string_view table, std::uint64_t size,
                                           const tlog::hash& root) {
  std::vector<std::string> out;
  for (const auto& row : n.exec_params("SELECT line FROM fairdeck_cosignatures WHERE table_id = $1 AND size = $2 AND "
                                       "root = $3 ORDER BY witness",
                                       std::string(table), as_db(size), tlog::to_hex(root)))
    out.push_back(row[0].as<std::string>());
  return out;
}

}  // namespace fairdeck::service::pg_db
