// Checking a table's log against what its transparency log signed (issue #29): the Merkle
// tree of the records (RFC 9162 §2.1), signed checkpoints (C2SP tlog-checkpoint over a
// signed note), deal receipts, and a witness's step from one accepted checkpoint to the next.
//
// The formats are docs/log-format.md (records) and docs/transparency.md (tree, checkpoints,
// receipts): leaf i of table T is the record with seq i, its leaf hash
// tlog::leaf_hash(the 32 raw bytes of the record's `hash`); a checkpoint of T has origin
// "<log key name>/<T>" and is signed by the log key.
//
// Guarantees of verify_transparency (docs/cli-log.md "What is checked"):
//   - the chain of the records (verify_log: the five rules of docs/log-format.md);
//   - each deal's seat count and shoe (decks, jokers) equal the table's `open` record's;
//   - each checkpoint is signed by the log key for this table, is no larger than the log, and
//     (whole log) its root is the root of the log's first `size` records. So a checkpoint
//     whose root differs from the prefix means a log rewritten or forked after it was signed,
//     and one larger than the log a log whose tail was cut; checkpoints that all match the
//     log's prefixes are consistent with one another (RFC 9162 §2.1.4: a prefix of a prefix);
//   - each receipt: its inclusion proof puts its record hash at its seq in its (signed)
//     checkpoint, the deal answer's fields hash to that record hash, the log holds that very
//     record at that seq, and the checkpoint is checked like the others.
// A partial log (its first record is not seq 0) is reported as partial and never as whole: the
// roots of its checkpoints, the consistency of checkpoints of different sizes and the shoe
// check need records the log does not have; each such check is listed in `skipped`. Two
// signed checkpoints of the same size with different roots conflict whatever the log.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "fairdeck/service/records.hpp"
#include "fairdeck/tlog/merkle.hpp"
#include "fairdeck/tlog/note.hpp"

namespace fairdeck::service {

// The Merkle tree of a whole log (leaf i = record seq i, appended as tlog::leaf_hash of the
// record hash's 32 bytes) in memory, for a verifier holding the records: every complete subtree
// frontier::append reports is kept (2n hashes), so any prefix's root and proofs cost O(log n).
class record_tree {
 public:
  void append(const tlog::hash& leaf);
  [[nodiscard]] std::uint64_t size() const noexcept { return edge_.size(); }
  // size <= this->size(); the tlog functions' exceptions otherwise.
  [[nodiscard]] tlog::hash root(std::uint64_t size) const;
  [[nodiscard]] std::vector<tlog::hash> inclusion_proof(std::uint64_t seq, std::uint64_t size) const;
  [[nodiscard]] std::vector<tlog::hash> consistency_proof(std::uint64_t from, std::uint64_t to) const;

 private:
  [[nodiscard]] tlog::node_source nodes() const;
  tlog::frontier edge_;
  std::vector<std::vector<tlog::hash>> levels_;  // levels_[L][i] = node (L, i)
};

struct signed_checkpoint {
  tlog::checkpoint cp;
  std::string text;  // the checkpoint text (what is signed)
  std::string note;  // the whole note as given (signatures and cosignatures included)
};
// Opens a checkpoint note of `table` signed by `log_key`. Throws std::invalid_argument naming
// the problem (malformed note or checkpoint, no signature by the log key, a signature that
// does not verify, another origin).
[[nodiscard]] signed_checkpoint open_checkpoint(std::string_view note, const tlog::note_verifier& log_key,
                                                std::string_view table);

// A receipt, from a deal answer as fairdeckd serves it (`{..., "receipt": {...}}`) or from the
// receipt object alone.
struct deal_receipt {
  std::uint64_t seq = 0;
  std::string hash;  // 64 hex digits
  std::string checkpoint;
  std::vector<tlog::hash> inclusion;
  std::optional<record> deal;  // the deal record rebuilt from the answer's fields, when present
};
// Throws std::invalid_argument naming the missing or mistyped key.
[[nodiscard]] deal_receipt receipt_from_json(const nlohmann::json& answer);

// A proof as fairdeckd answers it in JSON (docs/service.md): {"seq","tree_size","hashes"} or
// {"from","to","hashes"}, the hashes in hex (the default) or base64 (?encoding=base64).
struct proof_answer {
  std::uint64_t first = 0;   // seq, or from
  std::uint64_t second = 0;  // tree_size, or to
  std::vector<tlog::hash> hashes;
};
// `first_key`/`second_key`: "seq"/"tree_size" or "from"/"to". Throws std::invalid_argument
// naming the missing or mistyped key.
[[nodiscard]] proof_answer proof_from_json(const nlohmann::json& answer, std::string_view first_key,
                                           std::string_view second_key);

// The records of a /v1/tables/{t}/log answer (`{"table", "records": [...]}`) or of a bare
// array of records. Throws std::invalid_argument naming the record and the problem.
[[nodiscard]] std::vector<record> records_from_log_json(const nlohmann::json& log);

struct named_text {
  std::string name;  // where it came from (a file name), for messages
  std::string text;
};

struct checkpoint_check {
  std::string name;
  std::optional<tlog::checkpoint> cp;  // when it opened
  bool root_checked = false;           // its root was recomputed from the log
  bool ok = false;
  std::string problem;
};
struct receipt_check {
  std::string name;
  std::optional<std::uint64_t> seq;
  std::string hash;
  std::optional<std::uint64_t> tree_size;
  bool in_log = false;  // the log holds the same record at seq
  bool ok = false;
  std::string problem;
};

struct proof_check {
  std::string name;
  std::uint64_t from = 0, to = 0;
  bool ok = false;
  std::string problem;
};

struct transparency_check {
  bool ok = true;
  bool log_given = true;  // false: verify_without_log
  std::vector<std::string> problems;  // in order; problems.front() is the one-line verdict
  std::string table;
  bool partial = false;
  std::uint64_t first_seq = 0;
  std::uint64_t records = 0;
  log_check chain;
  bool shoe_checked = false;
  std::vector<checkpoint_check> checkpoints;
  std::vector<receipt_check> receipts;
  std::vector<proof_check> proofs;
  bool consistency_proved = false;    // checkpoints of 2+ sizes, all linked by verified proofs
  std::vector<std::string> skipped;  // checks a partial log cannot support, in words
};

// Receipts are JSON texts (a deal answer each); checkpoints are note texts; proofs are
// consistency proofs as GET .../proof/consistency answers them in JSON (hex or base64 hashes):
// each must link two of the signed checkpoints given (receipts' included) by their sizes and
// verify (RFC 9162 §2.1.4.2) — a proof that does not is a rewritten or forked log. Checkpoints
// of different sizes that the proofs link are consistent without the records between them.
[[nodiscard]] transparency_check verify_transparency(const tlog::note_verifier& log_key,
                                                     const std::vector<record>& log,
                                                     std::span<const named_text> checkpoints,
                                                     std::span<const named_text> receipts,
                                                     std::span<const named_text> proofs = {});
// The same without the log: what a player holding receipts, a (cosigned) checkpoint and proofs
// checks alone. Signatures, each receipt's inclusion in its checkpoint and its deal's hash,
// same-size checkpoints agreeing, and the proofs; the records, their chain and shoes are not
// checked (listed in `skipped`). The table is the one the first checkpoint or receipt names.
[[nodiscard]] transparency_check verify_without_log(const tlog::note_verifier& log_key,
                                                    std::span<const named_text> checkpoints,
                                                    std::span<const named_text> receipts,
                                                    std::span<const named_text> proofs);

// ---- witnesses ----
enum class witness_outcome {
  first,      // no checkpoint accepted before: this one is (trust on first use)
  unchanged,  // the same tree as the accepted checkpoint
  grown,      // a larger tree, proved consistent with the accepted one
  conflict,   // smaller (rolled back, truncated), same size with another root (forked), or
              // larger without a valid consistency proof (rewritten, forked)
};
struct witness_step {
  witness_outcome outcome = witness_outcome::first;
  signed_checkpoint fresh;
  std::optional<signed_checkpoint> accepted;
  std::string message;  // one line
};
// One witness step: `fresh` against the last accepted note (if any) with the consistency
// proof from accepted.size to fresh.size. Throws std::invalid_argument when `fresh` (or the
// accepted note) is not a checkpoint of this table signed by the log key: nothing to accept,
// and no evidence of a conflict either.
[[nodiscard]] witness_step witness_check(const tlog::note_verifier& log_key, std::string_view table,
                                         const std::optional<std::string>& accepted_note, std::string_view fresh_note,
                                         std::span<const tlog::hash> proof);

}  // namespace fairdeck::service
