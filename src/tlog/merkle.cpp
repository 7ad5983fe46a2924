// RFC 9162 §2.1 Merkle trees: see include/fairdeck/tlog/merkle.hpp.
#include "fairdeck/tlog/merkle.hpp"

#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>
#include <utility>

#include <sodium.h>

#include "fairdeck/tlog/note.hpp"
#include "fairdeck/util/hex.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::tlog {
namespace {

constexpr std::uint64_t max_size = std::uint64_t{1} << 63;

// The largest power of two strictly below n (n >= 2): RFC 9162's split point k.
std::uint64_t split(std::uint64_t n) noexcept { return std::bit_floor(n - 1); }

void check_size(std::uint64_t n) {
  if (n >= max_size) throw std::invalid_argument("tree size too large");
}

}  // namespace

hash empty_root() noexcept { return sha256(std::span<const std::uint8_t>{}); }

hash leaf_hash(std::span<const std::uint8_t> entry) noexcept {
  sha256_hasher h;
  const std::uint8_t prefix = 0x00;
  h.update(std::span(&prefix, 1));
  h.update(entry);
  return h.digest();
}

hash node_hash(const hash& left, const hash& right) noexcept {
  std::array<std::uint8_t, 65> buf;
  buf[0] = 0x01;
  std::copy(left.begin(), left.end(), buf.begin() + 1);
  std::copy(right.begin(), right.end(), buf.begin() + 33);
  return sha256(std::span<const std::uint8_t>(buf));
}

std::string to_hex(const hash& h) { return fairdeck::to_hex(std::span<const std::uint8_t>(h)); }

std::optional<hash> hash_from_hex(std::string_view hex) noexcept {
  hash h;
  if (!fairdeck::from_hex(hex, std::span<std::uint8_t>(h))) return std::nullopt;
  return h;
}

std::string to_base64(const hash& h) { return base64(h); }

std::optional<hash> hash_from_text(std::string_view text) {
  if (text.size() == 64) return hash_from_hex(text);
  if (text.size() != 44) return std::nullopt;
  const auto raw = from_base64(text);
  if (!raw || raw->size() != 32) return std::nullopt;
  hash h;
  std::copy(raw->begin(), raw->end(), h.begin());
  return h;
}

std::string proof_to_bytes(std::span<const hash> proof) {
  std::string out;
  out.reserve(proof.size() * 32);
  for (const hash& h : proof) out.append(reinterpret_cast<const char*>(h.data()), h.size());
  return out;
}

std::optional<std::vector<hash>> proof_from_bytes(std::string_view bytes) {
  if (bytes.size() % 32 != 0) return std::nullopt;
  std::vector<hash> out(bytes.size() / 32);
  for (std::size_t i = 0; i < out.size(); ++i)
    std::copy_n(reinterpret_cast<const std::uint8_t*>(bytes.data()) + 32 * i, 32, out[i].begin());
  return out;
}

// ---- frontier ----

frontier::frontier(std::uint64_t size, std::vector<hash> peaks) : size_(size), peaks_(std::move(peaks)) {
  check_size(size);
  if (peaks_.size() != static_cast<std::size_t>(std::popcount(size)))
    throw std::invalid_argument("a tree of " + std::to_string(size) + " leaves has " +
                                std::to_string(std::popcount(size)) + " peaks, not " + std::to_string(peaks_.size()));
}

hash frontier::root() const {
  if (peaks_.empty()) return empty_root();
  // The peaks are the complete subtrees of the RFC's split, largest first; the ragged right
  // edge folds from the smallest: MTH = node(p0, node(p1, ... node(p_{m-2}, p_{m-1}))).
  hash r = peaks_.back();
  for (std::size_t i = peaks_.size() - 1; i-- > 0;) r = node_hash(peaks_[i], r);
  return r;
}

void frontier::append(const hash& leaf, const std::function<void(unsigned, std::uint64_t, const hash&)>& completed) {
  check_size(size_ + 1);
  hash h = leaf;
  std::uint64_t index = size_;  // index of h at its level
  unsigned level = 0;
  if (completed) completed(0, index, h);
  // Each trailing 1 bit of the old size is a peak of the same size as h, to its left: merge.
  for (std::uint64_t s = size_; s & 1; s >>= 1) {
    h = node_hash(peaks_.back(), h);
    peaks_.pop_back();
    ++level;
    index >>= 1;
    if (completed) completed(level, index, h);
  }
  peaks_.push_back(h);
  ++size_;
}

std::string frontier::to_text() const {
  std::string out = std::to_string(size_);
  for (const hash& p : peaks_) {
    out += ' ';
    out += to_hex(p);
  }
  return out;
}

frontier frontier::from_text(std::string_view text) {
  const auto bad = [] { return std::invalid_argument("malformed tree frontier"); };
  const std::size_t sp = text.find(' ');
  const std::string_view num = text.substr(0, sp);
  // Strict: only what to_text writes (no leading zeros, lowercase hex).
  if (num.empty() || num.size() > 20 || (num.size() > 1 && num[0] == '0')) throw bad();
  // (find_first_of would call memchr once per byte; a store reads a frontier every batch.)
  if (std::any_of(text.begin(), text.end(), [](char c) { return c >= 'A' && c <= 'F'; })) throw bad();
  std::uint64_t size = 0;
  for (char c : num) {
    if (c < '0' || c > '9') throw bad();
    if (size > (UINT64_MAX - 9) / 10) throw bad();
    size = size * 10 + static_cast<std::uint64_t>(c - '0');
  }
  std::vector<hash> peaks;
  for (std::size_t at = sp; at != std::string_view::npos;) {
    if (text.size() < at + 65 || text[at] != ' ') throw bad();
    const auto h = hash_from_hex(text.substr(at + 1, 64));
    if (!h) throw bad();
    peaks.push_back(*h);
    at += 65;
    if (at == text.size()) break;
  }
  return frontier(size, std::move(peaks));
}

// ---- roots and proofs from stored complete subtrees ----

namespace {
// Roots of ragged ranges [begin, end) already hashed (the ragged ranges of one tree's proofs
// all end at its size: at most one per set bit of it).
using edge_memo = std::map<std::pair<std::uint64_t, std::uint64_t>, hash>;

hash range_root(std::uint64_t begin, std::uint64_t end, const node_source& nodes, edge_memo* memo) {
  if (begin >= end) throw std::invalid_argument("empty leaf range");
  const std::uint64_t n = end - begin;
  if (std::has_single_bit(n) && begin % n == 0)
    return nodes(static_cast<unsigned>(std::countr_zero(n)), begin >> std::countr_zero(n));
  if (memo)
    if (const auto it = memo->find({begin, end}); it != memo->end()) return it->second;
  // Not one stored subtree: the RFC's split. The left part [begin, begin+k) is complete and
  // aligned whenever begin is (always so for ranges a proof asks for); the right part is the
  // ragged edge, at most log n deep.
  const std::uint64_t k = split(n);
  const hash h = node_hash(range_root(begin, begin + k, nodes, memo), range_root(begin + k, end, nodes, memo));
  if (memo) memo->emplace(std::pair{begin, end}, h);
  return h;
}
}  // namespace

hash subtree_root(std::uint64_t begin, std::uint64_t end, const node_source& nodes) {
  return range_root(begin, end, nodes, nullptr);
}

std::uint64_t stored_hash_index(unsigned level, std::uint64_t index) {
  // m < 2^62 keeps 2m - popcount(m) + level below 2^63 (m's low `level` bits are ones, so
  // popcount(m) >= level): a store's signed 64-bit key.
  if (level >= 62 || index >= (std::uint64_t{1} << (62 - level)))
    throw std::invalid_argument("tlog: node beyond a 2^62-leaf tree has no stored hash index");
  const std::uint64_t m = ((index + 1) << level) - 1;
  return 2 * m - static_cast<std::uint64_t>(std::popcount(m)) + level;
}

hash root(std::uint64_t size, const node_source& nodes) {
  check_size(size);
  return size == 0 ? empty_root() : subtree_root(0, size, nodes);
}

namespace {

// PATH(m, D[begin:end]) of RFC 9162 §2.1.3.1, appended to `out` deepest first.
void path(std::uint64_t m, std::uint64_t begin, std::uint64_t end, const node_source& nodes, std::vector<hash>& out,
          edge_memo* memo = nullptr) {
  const std::uint64_t n = end - begin;
  if (n == 1) return;
  const std::uint64_t k = split(n);
  if (m - begin < k) {
    path(m, begin, begin + k, nodes, out, memo);
    out.push_back(range_root(begin + k, end, nodes, memo));
  } else {
    path(m, begin + k, end, nodes, out, memo);
    out.push_back(range_root(begin, begin + k, nodes, memo));
  }
}

// SUBPROOF(m, D[begin:end], b) of RFC 9162 §2.1.4.1 (m counted from begin).
void subproof(std::uint64_t m, std::uint64_t begin, std::uint64_t end, bool whole, const node_source& nodes,
              std::vector<hash>& out) {
  const std::uint64_t n = end - begin;
  if (m == n) {
    if (!whole) out.push_back(subtree_root(begin, end, nodes));
    return;
  }
  const std::uint64_t k = split(n);
  if (m <= k) {
    subproof(m, begin, begin + k, whole, nodes, out);
    out.push_back(subtree_root(begin + k, end, nodes));
  } else {
    subproof(m - k, begin + k, end, false, nodes, out);
    out.push_back(subtree_root(begin, begin + k, nodes));
  }
}

}  // namespace

std::vector<hash> inclusion_proof(std::uint64_t index, std::uint64_t size, const node_source& nodes) {
  check_size(size);
  if (index >= size)
    throw std::invalid_argument("leaf " + std::to_string(index) + " is not in a tree of " + std::to_string(size) +
                                " leaves");
  std::vector<hash> out;
  path(index, 0, size, nodes, out);
  return out;
}

std::vector<std::vector<hash>> inclusion_proofs(std::uint64_t first, std::uint64_t last, std::uint64_t size,
                                                const node_source& nodes) {
  check_size(size);
  if (first > last || last > size)
    throw std::invalid_argument("leaves " + std::to_string(first) + ".." + std::to_string(last) +
                                " are not a range of a tree of " + std::to_string(size) + " leaves");
  edge_memo memo;
  std::vector<std::vector<hash>> out(last - first);
  for (std::uint64_t i = first; i < last; ++i) path(i, 0, size, nodes, out[i - first], &memo);
  return out;
}

std::vector<hash> consistency_proof(std::uint64_t from, std::uint64_t to, const node_source& nodes) {
  check_size(to);
  if (from > to)
    throw std::invalid_argument("a tree of " + std::to_string(from) + " leaves is not a prefix of one of " +
                                std::to_string(to));
  std::vector<hash> out;
  if (from == 0 || from == to) return out;
  subproof(from, 0, to, true, nodes, out);
  return out;
}

// ---- verification: RFC 9162 §2.1.3.2 and §2.1.4.2, step by step ----

bool verify_inclusion(std::uint64_t index, std::uint64_t size, const hash& leaf, std::span<const hash> proof,
                      const hash& root) noexcept {
  if (index >= size || size >= max_size) return false;
  std::uint64_t fn = index, sn = size - 1;
  hash r = leaf;
  for (const hash& p : proof) {
    if (sn == 0) return false;
    if ((fn & 1) || fn == sn) {
      r = node_hash(p, r);
      if (!(fn & 1))
        while (!(fn & 1) && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
    } else {
      r = node_hash(r, p);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return sn == 0 && sodium_memcmp(r.data(), root.data(), r.size()) == 0;
}

bool verify_consistency(std::uint64_t from, std::uint64_t to, const hash& from_root, const hash& to_root,
                        std::span<const hash> proof) noexcept {
  if (from > to || to >= max_size) return false;
  if (from == to) return proof.empty() && from_root == to_root;
  if (from == 0) return proof.empty() && from_root == empty_root();
  // 1. If first is an exact power of 2, prepend first_hash to the path.
  std::vector<hash> path;
  path.reserve(proof.size() + 1);
  if (std::has_single_bit(from)) path.push_back(from_root);
  path.insert(path.end(), proof.begin(), proof.end());
  if (path.empty()) return false;
  // 2-4.
  std::uint64_t fn = from - 1, sn = to - 1;
  while (fn & 1) {
    fn >>= 1;
    sn >>= 1;
  }
  hash fr = path[0], sr = path[0];
  for (std::size_t i = 1; i < path.size(); ++i) {
    const hash& c = path[i];
    if (sn == 0) return false;
    if ((fn & 1) || fn == sn) {
      fr = node_hash(c, fr);
      sr = node_hash(c, sr);
      if (!(fn & 1))
        while (!(fn & 1) && fn != 0) {
          fn >>= 1;
          sn >>= 1;
        }
    } else {
      sr = node_hash(sr, c);
    }
    fn >>= 1;
    sn >>= 1;
  }
  return fr == from_root && sr == to_root && sn == 0;
}

}  // namespace fairdeck::tlog
