// The tables' transparency log (log_tree.hpp): the log key, the tree kept by the writer,
// receipts, proofs through a store, cosignatures.
#include "fairdeck/service/log_tree.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>
#include <sodium.h>

#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/store.hpp"
#include "fairdeck/util/hex.hpp"

namespace fairdeck::service {

// ---- the log key ----

std::string default_log_name() {
  std::array<std::uint8_t, 4> r{};
  randombytes_buf(r.data(), r.size());
  return "fairdeckd.local-" + fairdeck::to_hex(r);
}

namespace {
// seal_seed binds a "table id": the log key's is this label, so a sealed seed of a table never
// opens as the log key nor the other way round.
std::string seal_label(std::string_view name) { return fmt::format("log-key {}", name); }

struct log_key_parts {
  std::string vkey, commitment, sealed;
};
log_key_parts split_meta(std::string_view v) {
  const auto a = v.find(' ');
  const auto b = a == std::string_view::npos ? a : v.find(' ', a + 1);
  if (b == std::string_view::npos || v.find(' ', b + 1) != std::string_view::npos)
    throw std::runtime_error("the store's log key is malformed");
  return {std::string(v.substr(0, a)), std::string(v.substr(a + 1, b - a - 1)), std::string(v.substr(b + 1))};
}
}  // namespace

std::string seal_log_key(const tlog::note_signer& signer, const secret_key& key) {
  std::array<std::uint8_t, 32> seed{};
  signer.copy_seed(seed);
  const fair::server_seed s(seed);
  sodium_memzero(seed.data(), seed.size());
  return fmt::format("{} {} {}", signer.verifier().text(), fair::commitment(s),
                     seal_seed(s, key, seal_label(signer.verifier().name())));
}

tlog::note_signer open_log_key(std::string_view meta_value, const secret_key& key) {
  const auto parts = split_meta(meta_value);
  const auto vkey = tlog::note_verifier::parse(parts.vkey);
  std::optional<fair::server_seed> s;
  try {
    s.emplace(open_seed(parts.sealed, key, seal_label(vkey.name()), parts.commitment));
  } catch (const seal_error&) {
    throw seal_error("the store's log key does not open with this key (wrong key file, or a tampered store)");
  }
  std::array<std::uint8_t, 32> seed = s->bytes();
  tlog::note_signer signer(vkey.name(), tlog::key_type::ed25519, seed);
  sodium_memzero(seed.data(), seed.size());
  if (signer.verifier().text() != vkey.text())
    throw std::runtime_error("the store's log key does not match its public half");
  return signer;
}

std::string log_verifier_text(std::string_view meta_value) {
  return tlog::note_verifier::parse(split_meta(meta_value).vkey).text();
}

std::string checkpoint_origin(std::string_view log_name, std::string_view table) {
  return fmt::format("{}/{}", log_name, table);
}

std::string sign_checkpoint(const tlog::note_signer& signer, std::string_view table, std::uint64_t size,
                            const tlog::hash& root) {
  tlog::checkpoint c;
  c.origin = checkpoint_origin(signer.verifier().name(), table);
  c.size = size;
  c.root = root;
  return tlog::sign_note(tlog::note{tlog::checkpoint_text(c), {}}, signer);
}

tlog::hash record_leaf(std::string_view record_hash_hex) {
  tlog::hash raw{};
  if (record_hash_hex.size() != 64 || !fairdeck::from_hex(record_hash_hex, raw))
    throw std::invalid_argument("a record hash is not 64 hex digits");
  return tlog::leaf_hash(raw);
}

// ---- the writer ----

namespace {
[[noreturn]] void missing_node(unsigned level, std::uint64_t index) {
  throw std::logic_error(fmt::format("the tree has no node ({}, {})", level, index));
}

// Each peak of a frontier as (level, index), largest first.
template <class F>
void for_each_peak(const tlog::frontier& f, F&& fn) {
  std::uint64_t start = 0;
  std::size_t k = 0;
  for (int b = 63; b >= 0; --b) {
    if (((f.size() >> b) & 1u) == 0) continue;
    fn(static_cast<unsigned>(b), start >> b, f.peaks()[k++]);
    start += std::uint64_t{1} << b;
  }
}
}  // namespace

tlog::node_source tree_batch::source() const {
  return [this](unsigned level, std::uint64_t index) {
    const auto it = nodes_.find({level, index});
    if (it == nodes_.end()) missing_node(level, index);
    return it->second;
  };
}

std::vector<tlog::hash> tree_batch::inclusion(std::uint64_t seq) const {
  if (seq >= first_ && seq - first_ < proofs_.size()) return proofs_[seq - first_];
  return tlog::inclusion_proof(seq, size, source());
}

void log_writer::begin() {
  tables_.clear();
  undo_.clear();
}

log_writer::table_tree& log_writer::load(tree_storage& s, const std::string& table, std::uint64_t seq) {
  if (auto it = tables_.find(table); it != tables_.end()) return it->second;
  table_tree t;
  if (auto h = s.load_head(table)) t.tree = std::move(h->tree);
  t.batch = std::make_shared<tree_batch>();
  t.batch->first_ = seq;  // earlier leaves added below are older records, not this batch's
  for_each_peak(t.tree, [&](unsigned level, std::uint64_t index, const tlog::hash& h) {
    t.batch->nodes_[{level, index}] = h;
  });
  auto& out = tables_.emplace(table, std::move(t)).first->second;
  if (out.tree.size() > seq)
    throw std::runtime_error(fmt::format("the tree of table '{}' has more leaves than the table has records", table));
  if (out.tree.size() < seq)  // a table from before the log: its earlier records first
    for (const auto& h : s.record_hashes(table, out.tree.size(), seq)) add_leaf(out, record_leaf(h));
  return out;
}

void log_writer::add_leaf(table_tree& t, const tlog::hash& leaf) {
  t.tree.append(leaf, [&](unsigned level, std::uint64_t index, const tlog::hash& h) {
    t.batch->nodes_[{level, index}] = h;
    t.added.emplace_back(level, index);
  });
}

void log_writer::append(tree_storage& s, const record& r) {
  const auto it = tables_.find(r.table);
  if (it == tables_.end())
    undo_.push_back(saved{r.table, std::nullopt, 0});
  else
    undo_.push_back(saved{r.table, it->second.tree, it->second.added.size()});
  auto& t = load(s, r.table, r.seq);
  if (t.tree.size() != r.seq)
    throw std::runtime_error(fmt::format("record {} of table '{}' is not the tree's next leaf", r.seq, r.table));
  add_leaf(t, record_leaf(r.hash));
}

void log_writer::keep() { undo_.clear(); }

void log_writer::undo() {
  for (auto it = undo_.rbegin(); it != undo_.rend(); ++it) {
    if (!it->before) {
      tables_.erase(it->table);
      continue;
    }
    auto& t = tables_.at(it->table);
    t.tree = *it->before;
    while (t.added.size() > it->added) {
      t.batch->nodes_.erase(t.added.back());
      t.added.pop_back();
    }
  }
  undo_.clear();
}

std::map<std::string, std::shared_ptr<const tree_batch>> log_writer::finish(tree_storage& s) {
  std::map<std::string, std::shared_ptr<const tree_batch>> out;
  std::vector<std::pair<node_ref, tlog::hash>> rows;
  for (auto& [table, t] : tables_) {
    rows.clear();
    for (const auto& ref : t.added)
      if (ref.first >= 1) rows.emplace_back(ref, t.batch->nodes_.at(ref));  // level 0: the record's hash
    s.insert_nodes(table, rows);
    t.batch->size = t.tree.size();
    t.batch->root = t.tree.root();
    tree_batch& b = *t.batch;
    b.proofs_ = tlog::inclusion_proofs(std::min(b.first_, b.size), b.size, b.size, b.source());
    t.batch->checkpoint = sign_checkpoint(*signer_, table, t.batch->size, t.batch->root);
    s.save_head(table, t.tree, t.batch->checkpoint);
    out.emplace(table, std::move(t.batch));
  }
  tables_.clear();
  undo_.clear();
  return out;
}

void build_missing_trees(tree_storage& s, const tlog::note_signer& signer) {
  std::vector<std::pair<node_ref, tlog::hash>> rows;
  for (const auto& [table, next_seq] : s.tables_behind()) {
    tlog::frontier f;
    if (auto h = s.load_head(table)) f = std::move(h->tree);
    if (f.size() > next_seq)
      throw std::runtime_error(fmt::format("the tree of table '{}' has more leaves than the table has records", table));
    constexpr std::uint64_t chunk = 65536;
    for (std::uint64_t from = f.size(); from < next_seq; from += chunk) {
      rows.clear();
      for (const auto& h : s.record_hashes(table, from, std::min(next_seq, from + chunk)))
        f.append(record_leaf(h), [&](unsigned level, std::uint64_t index, const tlog::hash& n) {
          if (level >= 1) rows.emplace_back(node_ref{level, index}, n);
        });
      s.insert_nodes(table, rows);
    }
    if (f.size() != next_seq) throw std::runtime_error(fmt::format("table '{}' lacks some of its records", table));
    s.save_head(table, f, sign_checkpoint(signer, table, f.size(), f.root()));
  }
}

// ---- readers ----

nlohmann::json receipt_json(const write_result& r) {
  if (!r.log || !r.rec) return nullptr;
  nlohmann::json inclusion = nlohmann::json::array();
  for (const auto& h : r.log->inclusion(r.rec->seq)) inclusion.push_back(tlog::to_hex(h));
  return nlohmann::json{{"seq", r.rec->seq},
                        {"hash", r.rec->hash},
                        {"checkpoint", r.log->checkpoint},
                        {"inclusion", inclusion}};
}

namespace {
// Runs `compute` twice: once to learn which nodes it reads, then over those nodes read from the
// store in one call (the nodes a proof needs depend only on the sizes, never on hash values).
template <class F>
auto with_stored_nodes(store& s, std::string_view table, F&& compute) {
  std::vector<node_ref> wanted;
  compute(tlog::node_source([&](unsigned level, std::uint64_t index) {
    wanted.emplace_back(level, index);
    return tlog::hash{};
  }));
  std::sort(wanted.begin(), wanted.end());
  wanted.erase(std::unique(wanted.begin(), wanted.end()), wanted.end());
  const auto hashes = s.tree_nodes(table, wanted);
  return compute(tlog::node_source([&](unsigned level, std::uint64_t index) {
    const auto it = std::lower_bound(wanted.begin(), wanted.end(), node_ref{level, index});
    if (it == wanted.end() || *it != node_ref{level, index}) missing_node(level, index);
    return hashes[static_cast<std::size_t>(it - wanted.begin())];
  }));
}
}  // namespace

std::optional<std::vector<tlog::hash>> inclusion_proof(store& s, std::string_view table, std::uint64_t seq,
                                                       std::uint64_t size) {
  const auto head = s.tree_head(table);
  if (!head) return std::nullopt;
  if (size == 0 || size > head->size)
    throw std::out_of_range(fmt::format("size must be 1..{} (the tree's size)", head->size));
  if (seq >= size) throw std::out_of_range(fmt::format("seq must be below size ({})", size));
  return with_stored_nodes(s, table, [&](const tlog::node_source& n) { return tlog::inclusion_proof(seq, size, n); });
}

std::optional<std::vector<tlog::hash>> consistency_proof(store& s, std::string_view table, std::uint64_t from,
                                                         std::uint64_t to) {
  const auto head = s.tree_head(table);
  if (!head) return std::nullopt;
  if (to > head->size) throw std::out_of_range(fmt::format("to must be at most {} (the tree's size)", head->size));
  if (from > to) throw std::out_of_range("from must not exceed to");
  return with_stored_nodes(s, table, [&](const tlog::node_source& n) { return tlog::consistency_proof(from, to, n); });
}

tlog::hash stored_root(store& s, std::string_view table, std::uint64_t size) {
  return with_stored_nodes(s, table, [&](const tlog::node_source& n) { return tlog::root(size, n); });
}

namespace {
// The signature of a stored line ("— name base64\n"), read as the one line of a note on `text`.
tlog::note_signature signature_of(const std::string& text, const std::string& line) {
  return tlog::parse_note(text + "\n" + line).signatures.at(0);
}
std::string key_ref(const tlog::note_verifier& key) { return fmt::format("{}+{:08x}", key.name(), key.key_id()); }
}  // namespace

std::optional<std::string> checkpoint_with_cosignatures(store& s, std::string_view table) {
  const auto head = s.tree_head(table);
  if (!head) return std::nullopt;
  if (head->checkpoint.empty()) return std::string();
  std::string out = head->checkpoint;
  const auto n = tlog::parse_note(out);
  const auto c = tlog::parse_checkpoint(n.text);
  for (const auto& line : s.cosignatures(table, c.size, c.root)) {  // each ends in "\n"
    const auto sig = signature_of(n.text, line);
    const bool ours = std::any_of(n.signatures.begin(), n.signatures.end(), [&](const tlog::note_signature& o) {
      return o.name == sig.name && o.key_id == sig.key_id;
    });
    if (!ours) out += line;  // the log's own line, kept for cosigned_checkpoint, is in the note already
  }
  return out;
}

std::optional<std::string> cosigned_checkpoint(store& s, std::string_view table, const tlog::note_verifier& log_key) {
  if (!s.tree_head(table)) return std::nullopt;
  const auto at = s.latest_cosigned(table, key_ref(log_key));
  if (!at) return std::string();
  const std::string text = tlog::checkpoint_text({checkpoint_origin(log_key.name(), table), at->first, at->second, {}});
  std::string own, others;
  for (const auto& line : s.cosignatures(table, at->first, at->second))
    (log_key.matches(signature_of(text, line)) ? own : others) += line;
  if (own.empty()) return std::string();  // cannot be: the row latest_cosigned found is the log's
  return text + "\n" + own + others;
}

cosign_result add_cosignatures(store& s, std::string_view table, std::string_view note_text,
                               const tlog::note_verifier& log_key, std::span<const tlog::note_verifier> witnesses) {
  const auto refuse = [](cosign_status st, std::string msg) { return cosign_result{st, std::move(msg), {}}; };
  tlog::note n;
  tlog::checkpoint c;
  try {
    n = tlog::parse_note(note_text);
    c = tlog::parse_checkpoint(n.text);
  } catch (const tlog::malformed& e) {
    return refuse(cosign_status::malformed, fmt::format("not a signed checkpoint: {}", e.what()));
  }
  const auto head = s.tree_head(table);
  if (!head) return refuse(cosign_status::no_table, fmt::format("no table '{}'", table));
  const auto ours = std::find_if(n.signatures.begin(), n.signatures.end(),
                                 [&](const tlog::note_signature& sig) { return log_key.matches(sig); });
  if (c.origin != checkpoint_origin(log_key.name(), table) || !c.extensions.empty() || ours == n.signatures.end() ||
      !log_key.verify(n.text, ours->signature))
    return refuse(cosign_status::not_ours, "not a checkpoint this log signed for this table");
  if (c.size > head->size || stored_root(s, table, c.size) != c.root)
    return refuse(cosign_status::not_ours, "the checkpoint's root is not this table's tree at that size");
  tlog::opened_note opened;
  try {
    opened = tlog::open_note(note_text, witnesses);
  } catch (const std::exception&) {
    return refuse(cosign_status::unknown_witness, "a cosignature does not verify against its witness key");
  }
  cosign_result out;
  for (const auto& sig : opened.verified) {
    const auto w = std::find_if(witnesses.begin(), witnesses.end(),
                                [&](const tlog::note_verifier& v) { return v.matches(sig); });
    if (w == witnesses.end() || w->type() != tlog::key_type::cosignature_v1) continue;
    std::string line = tlog::signature_line(sig);
    s.add_cosignature(table, c.size, c.root, fmt::format("{}+{:08x}", sig.name, sig.key_id), line);
    out.kept.push_back(std::move(line));
  }
  if (out.kept.empty()) return refuse(cosign_status::unknown_witness, "no cosignature by a configured witness key");
  // The log's own line last, under its key: the checkpoint can be served whole once newer ones
  // replaced it (cosigned_checkpoint); its presence means the cosignatures above are stored.
  s.add_cosignature(table, c.size, c.root, key_ref(log_key), tlog::signature_line(*ours));
  return out;
}

}  // namespace fairdeck::service

// ---- store defaults: a store that keeps no log ----

namespace fairdeck::service {
namespace {
[[noreturn]] void no_log() { throw store_unavailable("this store keeps no transparency log"); }
}  // namespace

std::optional<log_head> store::tree_head(std::string_view) { no_log(); }
std::vector<tlog::hash> store::tree_nodes(std::string_view, std::span<const node_ref>) { no_log(); }
void store::add_cosignature(std::string_view, std::uint64_t, const tlog::hash&, std::string_view, std::string_view) {
  no_log();
}
std::vector<std::string> store::cosignatures(std::string_view, std::uint64_t, const tlog::hash&) { no_log(); }
std::optional<std::pair<std::uint64_t, tlog::hash>> store::latest_cosigned(std::string_view, std::string_view) {
  no_log();
}
void store::start_log(std::shared_ptr<const tlog::note_signer>) { no_log(); }

std::optional<std::string> log_verifier_key(store& s) {
  const auto meta = s.meta(log_key_meta);
  if (!meta) return std::nullopt;
  return log_verifier_text(*meta);
}

}  // namespace fairdeck::service
