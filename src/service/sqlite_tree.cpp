// The transparency log's statements of the SQLite store (sqlite_db.hpp; the tree and its
// guarantees: log_tree.hpp): the writer's tree_storage and the readers' queries.
#include <fmt/format.h>

#include "sqlite_db.hpp"

namespace fairdeck::service::sqlite_db {
namespace {

// The transparency log (log_tree.hpp), added to older stores when they are opened.
constexpr const char* tree_schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS fairdeck_tree_heads(table_id TEXT PRIMARY KEY, size INTEGER NOT NULL, frontier TEXT NOT NULL,
  checkpoint TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS fairdeck_tree_nodes(table_id TEXT NOT NULL, pos INTEGER NOT NULL, hash BLOB NOT NULL,
  PRIMARY KEY(table_id, pos)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS fairdeck_cosignatures(table_id TEXT NOT NULL, size INTEGER NOT NULL, root TEXT NOT NULL,
  witness TEXT NOT NULL, line TEXT NOT NULL, PRIMARY KEY(table_id, size, root, witness)) WITHOUT ROWID;
)sql";

// The node's key: its stored hash index (tlog/merkle.hpp), so that the nodes a batch closes
// are neighbours at the end of the table's index: one or two b-tree pages a batch instead of
// one per level (schema 1 keyed them (level, idx)).
std::int64_t node_key(const node_ref& ref) { return as_db(tlog::stored_hash_index(ref.first, ref.second)); }

// fairdeck_stored_hash_index(level, idx) for the upgrade's INSERT ... SELECT: node_key, in SQL.
void stored_hash_index_sql(sqlite3_context* ctx, int, sqlite3_value** argv) {
  const std::int64_t level = sqlite3_value_int64(argv[0]), idx = sqlite3_value_int64(argv[1]);
  if (level < 1 || level > 61 || idx < 0) return sqlite3_result_error(ctx, "tree node out of range", -1);
  try {
    sqlite3_result_int64(ctx, node_key({static_cast<unsigned>(level), from_db(idx)}));
  } catch (const std::exception&) {
    sqlite3_result_error(ctx, "tree node out of range", -1);
  }
}

}  // namespace

void create_tree_schema(connection& c) { c.exec(tree_schema_sql); }

void upgrade_to_current_schema(connection& c) {
  c.exec("BEGIN IMMEDIATE");
  try {
    statement v(c.db, "SELECT value FROM fairdeck_meta WHERE key = 'schema'");
    const bool old = v.step() && v.text(0) == "1";
    v.reset();  // no statement may be running while a table is dropped
    if (old) {
      // A store from before the log has no nodes table: it only gets the new one.
      const bool keyed_by_level = prepares(c.db, "SELECT level FROM fairdeck_tree_nodes LIMIT 0");
      if (keyed_by_level) c.exec("ALTER TABLE fairdeck_tree_nodes RENAME TO fairdeck_tree_nodes_schema1");
      create_tree_schema(c);
      if (keyed_by_level) {
        if (sqlite3_create_function_v2(c.db, "fairdeck_stored_hash_index", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                       nullptr, stored_hash_index_sql, nullptr, nullptr, nullptr) != SQLITE_OK)
          fail(c.db, "create function");
        // In key order: SQLite sorts (spilling to temporary files for a large store) and the
        // new index is written left to right.
        c.exec(
            "INSERT INTO fairdeck_tree_nodes(table_id, pos, hash) SELECT table_id, "
            "fairdeck_stored_hash_index(level, idx) AS pos, hash FROM fairdeck_tree_nodes_schema1 "
            "ORDER BY table_id, pos");
        c.exec("DROP TABLE fairdeck_tree_nodes_schema1");
      }
      statement set(c.db, "UPDATE fairdeck_meta SET value = ?1 WHERE key = 'schema'");
      set.bind(1, store_schema);
      set.step();
    }
    c.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(c.db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

tree_statements::tree_statements(sqlite3* db)
    : db_(db),
      head_load_(db, "SELECT frontier, checkpoint FROM fairdeck_tree_heads WHERE table_id = ?1"),
      head_save_(db,
                 "INSERT INTO fairdeck_tree_heads(table_id, size, frontier, checkpoint) VALUES(?1, ?2, ?3, ?4) "
                 "ON CONFLICT(table_id) DO UPDATE SET size = excluded.size, frontier = excluded.frontier, "
                 "checkpoint = excluded.checkpoint"),
      node_insert_(db, "INSERT INTO fairdeck_tree_nodes(table_id, pos, hash) VALUES(?1, ?2, ?3)"),
      record_hashes_(db,
                     "SELECT hash FROM fairdeck_records WHERE table_id = ?1 AND seq >= ?2 AND seq < ?3 ORDER BY seq") {}

std::optional<tree_storage::head> tree_statements::load_head(std::string_view table) {
  resetter r{head_load_};
  head_load_.bind(1, table);
  if (!head_load_.step()) return std::nullopt;
  return head{tlog::frontier::from_text(head_load_.text(0)), head_load_.text(1)};
}

void tree_statements::save_head(std::string_view table, const tlog::frontier& tree, std::string_view checkpoint) {
  resetter r{head_save_};
  head_save_.bind(1, table).bind(2, as_db(tree.size())).bind(3, tree.to_text()).bind(4, checkpoint);
  head_save_.step();
}

void tree_statements::insert_nodes(std::string_view table, std::span<const std::pair<node_ref, tlog::hash>> nodes) {
  for (const auto& [ref, h] : nodes) {
    resetter r{node_insert_};
    node_insert_.bind(1, table).bind(2, node_key(ref)).bind(3, h);
    node_insert_.step();
  }
}

std::vector<std::string> tree_statements::record_hashes(std::string_view table, std::uint64_t from, std::uint64_t to) {
  resetter r{record_hashes_};
  record_hashes_.bind(1, table).bind(2, as_db(from)).bind(3, as_db(to));
  std::vector<std::string> out;
  while (record_hashes_.step()) out.push_back(record_hashes_.text(0));
  return out;
}

std::vector<std::pair<std::string, std::uint64_t>> tree_statements::tables_behind() {
  statement st(db_,
               "SELECT t.id, t.next_seq FROM fairdeck_tables t LEFT JOIN fairdeck_tree_heads h ON h.table_id = t.id "
               "WHERE h.size IS NULL OR h.size <> t.next_seq ORDER BY t.id");
  std::vector<std::pair<std::string, std::uint64_t>> out;
  while (st.step()) out.emplace_back(st.text(0), from_db(st.integer(1)));
  return out;
}

std::optional<log_head> read_tree_head(sqlite3* db, std::string_view table) {
  statement s(db, "SELECT size, checkpoint FROM fairdeck_tree_heads WHERE table_id = ?1");
  s.bind(1, table);
  if (s.step()) return log_head{from_db(s.integer(0)), s.text(1)};
  statement exists(db, "SELECT 1 FROM fairdeck_tables WHERE id = ?1");
  exists.bind(1, table);
  if (exists.step()) return log_head{};
  return std::nullopt;
}

std::vector<tlog::hash> read_tree_nodes(sqlite3* db, std::string_view table, std::span<const node_ref> refs) {
  statement leaf(db, "SELECT hash FROM fairdeck_records WHERE table_id = ?1 AND seq = ?2");
  statement node(db, "SELECT hash FROM fairdeck_tree_nodes WHERE table_id = ?1 AND pos = ?2");
  std::vector<tlog::hash> out;
  out.reserve(refs.size());
  for (const auto& [level, index] : refs) {
    std::optional<tlog::hash> h;
    if (level == 0) {
      resetter rs{leaf};
      leaf.bind(1, table).bind(2, as_db(index));
      if (leaf.step()) h = record_leaf(leaf.text(0));
    } else {
      resetter rs{node};
      node.bind(1, table).bind(2, node_key({level, index}));
      if (node.step()) h = node.blob(0);
    }
    if (!h) throw store_unavailable(fmt::format("the tree of table '{}' lacks node ({}, {})", table, level, index));
    out.push_back(*h);
  }
  return out;
}

void write_cosignature(sqlite3* db, std::string_view table, std::uint64_t size, const tlog::hash& root,
                       std::string_view witness, std::string_view line) {
  statement s(db,
              "INSERT INTO fairdeck_cosignatures(table_id, size, root, witness, line) VALUES(?1, ?2, ?3, ?4, ?5) "
              "ON CONFLICT(table_id, size, root, witness) DO UPDATE SET line = excluded.line");
  s.bind(1, table).bind(2, as_db(size)).bind(3, tlog::to_hex(root)).bind(4, witness).bind(5, line);
  s.step();
}

std::vector<std::string> read_cosignatures(sqlite3* db, std::string_view table, std::uint64_t size,
                                           const tlog::hash& root) {
  statement s(db,
              "SELECT line FROM fairdeck_cosignatures WHERE table_id = ?1 AND size = ?2 AND root = ?3 ORDER BY witness");
  s.bind(1, table).bind(2, as_db(size)).bind(3, tlog::to_hex(root));
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

}  // namespace fairdeck::service::sqlite_db
