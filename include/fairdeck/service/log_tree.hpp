// The transparency log of fairdeckd's tables (issue #29, docs/log-format.md): per table an
// RFC 9162 Merkle tree over its records, signed C2SP checkpoints, proofs, receipts and
// witness cosignatures, on top of fairdeck::tlog (merkle.hpp, note.hpp).
//
// The tree of table T: leaf i = the record with seq i; leaf hash = RFC 9162 leaf hash of the
// 32 raw bytes of the record's `hash`. Checkpoint origin "<log name>/<T>", body = origin, tree
// size, base64 root (c2sp.org/tlog-checkpoint), signed by the store's log key (one Ed25519
// note key per store, its seed sealed with the store's at-rest key like the server seeds).
//
// Storage: fairdeck_tree_heads(table_id, size, frontier, checkpoint) — the right edge as
// tlog::frontier::to_text() and the latest signed checkpoint — and fairdeck_tree_nodes, one
// row for every complete subtree of level ≥ 1; level 0 (a leaf) is the record's own hash,
// re-hashed when a proof needs it, so a deal costs one node row on average instead of two.
// SQLite (store schema 2) keys a node (table_id, pos), pos = tlog::stored_hash_index(level,
// idx): the nodes a batch closes are neighbours at the end of the index (one or two pages a
// commit, not one per level); a schema-1 store is re-keyed when it is opened. PostgreSQL keys
// it (table_id, level, idx): its rows go to the heap in creation order anyway, and the table is
// published as is to regulators' copies (scripts/regulator-copy.sh).
//
// Guarantees: the tree is written by the store's transaction::append in the SAME transaction
// as the record (log_writer below, driven by the group committer), so a committed record is
// always a leaf and nothing else is; an append costs O(log n) in memory and amortised one
// INSERT, never a re-hash of the table. One checkpoint is signed per commit batch per table
// touched (before COMMIT, stored with the batch), so a receipt's checkpoint is durable when
// the deal is acknowledged and covers it. Proofs read O(log n) stored nodes in one query.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairdeck/service/secrets.hpp"
#include "fairdeck/tlog/merkle.hpp"
#include "fairdeck/tlog/note.hpp"

namespace fairdeck::service {

class store;
struct record;
struct write_result;

// (level, index) of a complete subtree.
using node_ref = std::pair<unsigned, std::uint64_t>;

// ---- the log key ----
// The default log name: "fairdeckd.local-" + 8 random hex digits.
[[nodiscard]] std::string default_log_name();
// What fairdeck_meta keeps under "log_key": "<verifier key text> <commitment> <sealed seed>".
[[nodiscard]] std::string seal_log_key(const tlog::note_signer& signer, const secret_key& key);
// Opens it (throws seal_error when the key does not open it, std::runtime_error when malformed).
[[nodiscard]] tlog::note_signer open_log_key(std::string_view meta_value, const secret_key& key);
// The public half only (no key needed): the verifier key text. Throws std::runtime_error.
[[nodiscard]] std::string log_verifier_text(std::string_view meta_value);
inline constexpr std::string_view log_key_meta = "log_key";

// The checkpoint origin of table `table` in the log named `log_name`.
[[nodiscard]] std::string checkpoint_origin(std::string_view log_name, std::string_view table);
// The signed checkpoint note of a tree.
[[nodiscard]] std::string sign_checkpoint(const tlog::note_signer& signer, std::string_view table, std::uint64_t size,
                                          const tlog::hash& root);
// RFC 9162 leaf hash of a record hash (64 hex digits). Throws std::invalid_argument.
[[nodiscard]] tlog::hash record_leaf(std::string_view record_hash_hex);

// ---- what the stores implement (inside the writer's open transaction) ----
class tree_storage {
 public:
  virtual ~tree_storage() = default;
  struct head {
    tlog::frontier tree;
    std::string checkpoint;
  };
  // The table's head (PostgreSQL: locked FOR UPDATE); nullopt when it has none yet.
  virtual std::optional<head> load_head(std::string_view table) = 0;
  virtual void save_head(std::string_view table, const tlog::frontier& tree, std::string_view checkpoint) = 0;
  // Complete subtrees of level >= 1 closed by the batch.
  virtual void insert_nodes(std::string_view table, std::span<const std::pair<node_ref, tlog::hash>> nodes) = 0;
  // The record hashes (hex) of seq in [from, to), in order.
  virtual std::vector<std::string> record_hashes(std::string_view table, std::uint64_t from, std::uint64_t to) = 0;
  // Tables whose head is missing or behind their records: (id, next_seq).
  virtual std::vector<std::pair<std::string, std::uint64_t>> tables_behind() = 0;
};

// One commit batch's view of a table's tree, for receipts: the checkpoint signed at the end
// of the batch and the nodes that prove any leaf appended in the batch (the old tree's peaks
// and every complete subtree the batch closed). Immutable once the batch committed.
class tree_batch {
 public:
  std::string checkpoint;  // signed note text
  std::uint64_t size = 0;
  tlog::hash root{};
  // RFC 9162 inclusion proof of leaf `seq` (appended in this batch) in the checkpoint's tree.
  // The batch's own leaves' proofs are computed once, when the batch is finished (they share
  // the tree's ragged right edge: O(log n) hashes for all of them); others on demand.
  [[nodiscard]] std::vector<tlog::hash> inclusion(std::uint64_t seq) const;

 private:
  friend class log_writer;
  [[nodiscard]] tlog::node_source source() const;  // the nodes below, for the tlog proofs
  std::map<node_ref, tlog::hash> nodes_;
  std::uint64_t first_ = 0;                      // the first leaf appended in this batch
  std::vector<std::vector<tlog::hash>> proofs_;  // of leaves first_ .. size - 1
};

// Drives the tree inside a group-commit batch. Not thread-safe: the writer thread's.
class log_writer {
 public:
  explicit log_writer(std::shared_ptr<const tlog::note_signer> signer) : signer_(std::move(signer)) {}
  void begin();                                   // a new (attempt at a) batch
  void append(tree_storage& s, const record& r);  // after the record's INSERT
  void keep();                                    // the current write succeeded
  void undo();                                    // the current write was rolled back to its savepoint
  // Signs and stores one checkpoint per table touched; the batches for receipts.
  [[nodiscard]] std::map<std::string, std::shared_ptr<const tree_batch>> finish(tree_storage& s);

 private:
  struct table_tree {
    tlog::frontier tree;
    std::shared_ptr<tree_batch> batch;
    std::vector<node_ref> added;  // order of insertion into batch->nodes_
  };
  struct saved {
    std::string table;
    std::optional<tlog::frontier> before;  // nullopt: the table was not loaded before the write
    std::size_t added = 0;
  };
  table_tree& load(tree_storage& s, const std::string& table, std::uint64_t seq);
  static void add_leaf(table_tree& t, const tlog::hash& leaf);
  std::shared_ptr<const tlog::note_signer> signer_;
  std::map<std::string, table_tree> tables_;
  std::vector<saved> undo_;
};

// Builds or completes the tree of every table that has none (a store from before the log),
// one pass over its records; signs its checkpoint. Runs inside an open transaction of `s`.
void build_missing_trees(tree_storage& s, const tlog::note_signer& signer);

// ---- what readers see ----
struct log_head {
  std::uint64_t size = 0;
  std::string checkpoint;  // signed note text ("" before the first record)
};

// The receipt of a committed write (docs/service.md): {"seq","hash","checkpoint","inclusion"}.
// Null JSON when the write carries no tree batch (a store without a log).
[[nodiscard]] nlohmann::json receipt_json(const write_result& r);

// Proofs through a store (one read of the stored nodes). nullopt: no such table. Throw
// std::out_of_range when the sizes are outside the table's current tree (the message says
// which), store_unavailable on store errors.
[[nodiscard]] std::optional<std::vector<tlog::hash>> inclusion_proof(store& s, std::string_view table,
                                                                     std::uint64_t seq, std::uint64_t size);
[[nodiscard]] std::optional<std::vector<tlog::hash>> consistency_proof(store& s, std::string_view table,
                                                                       std::uint64_t from, std::uint64_t to);
// The root of the first `size` leaves of the table's stored tree.
[[nodiscard]] tlog::hash stored_root(store& s, std::string_view table, std::uint64_t size);

// The latest checkpoint of `table` with the cosignature lines held for exactly it; nullopt:
// no such table.
[[nodiscard]] std::optional<std::string> checkpoint_with_cosignatures(store& s, std::string_view table);
// The newest checkpoint of `table` that witnesses cosigned, whole: the checkpoint text, the log
// key's signature line and every cosignature line held for it — still there after newer
// checkpoints replaced it as the latest (GET .../checkpoint/cosigned). nullopt: no such table;
// "": nothing cosigned yet. A player connects a receipt's (newer) checkpoint to it with a
// consistency proof (docs/transparency.md).
[[nodiscard]] std::optional<std::string> cosigned_checkpoint(store& s, std::string_view table,
                                                             const tlog::note_verifier& log_key);

// POST .../checkpoint/cosignatures: checks and keeps the cosignatures of `note_text`.
enum class cosign_status { ok, malformed, unknown_witness, not_ours, no_table };
struct cosign_result {
  cosign_status status = cosign_status::ok;
  std::string message;            // one line
  std::vector<std::string> kept;  // signature lines stored
};
[[nodiscard]] cosign_result add_cosignatures(store& s, std::string_view table, std::string_view note_text,
                                             const tlog::note_verifier& log_key,
                                             std::span<const tlog::note_verifier> witnesses);

}  // namespace fairdeck::service
