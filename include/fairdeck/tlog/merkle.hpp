// Merkle trees of a transparency log, as RFC 9162 (Certificate Transparency v2) §2.1 defines
// them, and their proofs.
//
// Hashing (RFC 9162 §2.1.1): the hash of an empty tree is SHA-256 of nothing; a leaf is
// SHA-256(0x00 ‖ entry); an interior node is SHA-256(0x01 ‖ left ‖ right). The tree over n
// leaves splits at k, the largest power of two below n: MTH(D[n]) = node(MTH(D[0:k]),
// MTH(D[k:n])). The 0x00/0x01 prefixes keep a leaf from passing for a node (second-preimage).
//
// Storage: a log keeps, per append, the roots of the complete subtrees that the new leaf
// closes (`frontier::append` reports them): node (level L, index i) is MTH of the leaves
// [i·2^L, (i+1)·2^L). Every range the RFC's proofs need splits into at most two runs of such
// complete subtrees, so `root`, `inclusion_proof` and `consistency_proof` read O(log n)
// stored nodes through a `node_source` and hash O(log n) times — never the whole tree.
// `frontier` is the tree's right edge (one root per set bit of the size): O(log n) memory,
// append O(1) hashes amortised, O(log n) worst case.
//
// Guarantees: the proofs are exactly RFC 9162 §2.1.3.1 PATH and §2.1.4.1 PROOF (the order of
// the hashes included), and verify_inclusion / verify_consistency are the RFC's §2.1.3.2 and
// §2.1.4.2 algorithms: they accept a proof exactly when it shows the leaf at that index in
// the tree with that root, or the older root a prefix of the newer tree. Sizes of 2^63 and
// more are refused (std::invalid_argument) rather than overflowing.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fairdeck::tlog {

using hash = std::array<std::uint8_t, 32>;

// SHA-256 of the empty string: the root of a tree with no leaves.
[[nodiscard]] hash empty_root() noexcept;
// SHA-256(0x00 ‖ entry).
[[nodiscard]] hash leaf_hash(std::span<const std::uint8_t> entry) noexcept;
// SHA-256(0x01 ‖ left ‖ right).
[[nodiscard]] hash node_hash(const hash& left, const hash& right) noexcept;

// 64 lowercase hex digits, and back (nullopt for anything but 64 hex digits).
[[nodiscard]] std::string to_hex(const hash& h);
[[nodiscard]] std::optional<hash> hash_from_hex(std::string_view hex) noexcept;

// The compact encodings of a proof (docs/log-format.md "Proof encodings"). A hash in base64
// is RFC 4648 §4 with its padding, 44 characters: how RFC 6962 §4.5 (`audit_path`) and the
// C2SP notes write hashes. A proof in binary is its hashes concatenated, 32 bytes each, in the
// proof's order: RFC 9162 §4.12's `inclusion_path`/`consistency_path` without the TLS length
// prefixes (the transport gives the length).
[[nodiscard]] std::string to_base64(const hash& h);
// 64 hex digits or 44 canonical base64 characters (the length tells which); nullopt otherwise.
[[nodiscard]] std::optional<hash> hash_from_text(std::string_view text);
[[nodiscard]] std::string proof_to_bytes(std::span<const hash> proof);
// nullopt unless the length is a multiple of 32.
[[nodiscard]] std::optional<std::vector<hash>> proof_from_bytes(std::string_view bytes);

// The root of the complete subtree (level, index): MTH of leaves [index·2^level, (index+1)·2^level).
// Called only for subtrees wholly inside the tree being proved. May throw (a store error);
// the exception passes through.
using node_source = std::function<hash(unsigned level, std::uint64_t index)>;

// The right edge of a tree: one complete-subtree root per set bit of `size`, largest first.
class frontier {
 public:
  frontier() = default;
  // Throws std::invalid_argument unless peaks.size() == popcount(size).
  frontier(std::uint64_t size, std::vector<hash> peaks);

  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] const std::vector<hash>& peaks() const noexcept { return peaks_; }
  // MTH of the whole tree (empty_root() for size 0).
  [[nodiscard]] hash root() const;

  // Appends a leaf (its leaf hash, not the entry) and calls completed(level, index, hash) for
  // every complete subtree it closes, the leaf itself (level 0) first, then upwards.
  void append(const hash& leaf, const std::function<void(unsigned, std::uint64_t, const hash&)>& completed = {});

  // "size" then one hex hash per peak, space-separated: how stores keep it in one column.
  [[nodiscard]] std::string to_text() const;
  // Throws std::invalid_argument on anything to_text() cannot have written.
  [[nodiscard]] static frontier from_text(std::string_view text);

 private:
  std::uint64_t size_ = 0;
  std::vector<hash> peaks_;
};

// Where a log that stores every node in the order `frontier::append` closes them keeps node
// (level, index): the "stored hash index" of Russ Cox, "Transparent Logs for Skeptical
// Clients" (research.swtch.com/tlog, 2019; golang.org/x/mod/sumdb/tlog StoredHashIndex).
// Appending leaf n stores the leaf, then each subtree it closes, upwards; before leaf n come
// 2n - popcount(n) stored hashes. Subtree (level, index) closes with leaf (index+1)·2^level - 1
// as the level-th hash stored after that leaf, so, with m = ((index + 1) << level) - 1, its
// position is 2m - popcount(m) + level. Positions are 0, 1, 2, ... in the order the nodes are
// created (tested exactly), so a store keyed by them appends at the end of its index.
// Throws std::invalid_argument when the position would not fit in 63 bits.
[[nodiscard]] std::uint64_t stored_hash_index(unsigned level, std::uint64_t index);

// MTH of the first `size` leaves (0 < size, or empty_root() for 0).
[[nodiscard]] hash root(std::uint64_t size, const node_source& nodes);
// MTH of the leaves [begin, end), begin < end.
[[nodiscard]] hash subtree_root(std::uint64_t begin, std::uint64_t end, const node_source& nodes);

// RFC 9162 §2.1.3.1: the audit path of leaf `index` in the tree of the first `size` leaves,
// from the leaf's sibling up. Throws std::invalid_argument unless index < size.
[[nodiscard]] std::vector<hash> inclusion_proof(std::uint64_t index, std::uint64_t size, const node_source& nodes);
// The same proofs for every leaf in [first, last) of one tree: the ragged right-edge roots
// that they share (at most one per set bit of `size`) are hashed once for all of them, so
// the whole range costs O(log n) hashes, not O(log n) per proof (a batch's receipts).
// Throws std::invalid_argument unless first <= last <= size.
[[nodiscard]] std::vector<std::vector<hash>> inclusion_proofs(std::uint64_t first, std::uint64_t last,
                                                              std::uint64_t size, const node_source& nodes);
// RFC 9162 §2.1.4.1: that the tree of the first `from` leaves is a prefix of the tree of the
// first `to`. Empty when from == to or from == 0. Throws std::invalid_argument unless from <= to.
[[nodiscard]] std::vector<hash> consistency_proof(std::uint64_t from, std::uint64_t to, const node_source& nodes);

// RFC 9162 §2.1.3.2.
[[nodiscard]] bool verify_inclusion(std::uint64_t index, std::uint64_t size, const hash& leaf,
                                    std::span<const hash> proof, const hash& root) noexcept;
// RFC 9162 §2.1.4.2 (plus: from == to needs an empty proof and equal roots; from == 0 an empty
// proof and the empty tree's root).
[[nodiscard]] bool verify_consistency(std::uint64_t from, std::uint64_t to, const hash& from_root, const hash& to_root,
                                      std::span<const hash> proof) noexcept;

}  // namespace fairdeck::tlog
