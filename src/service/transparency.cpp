// A table's log checked against its transparency log: include/fairdeck/service/transparency.hpp.
#include "fairdeck/service/transparency.hpp"

#include "fairdeck/service/log_tree.hpp"

#include <limits>
#include <map>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace fairdeck::service {

namespace {

// One implementation of the contract of docs/transparency.md: the service's own (log_tree.hpp).
tlog::hash leaf_of(const record& r) {
  try {
    return record_leaf(r.hash);
  } catch (const std::invalid_argument&) {
    throw std::invalid_argument(fmt::format("record {}: hash is not 64 hex digits", r.seq));
  }
}

std::string origin_of(const tlog::note_verifier& log_key, std::string_view table) {
  return checkpoint_origin(log_key.name(), table);
}

}  // namespace

void record_tree::append(const tlog::hash& leaf) {
  edge_.append(leaf, [this](unsigned level, std::uint64_t, const tlog::hash& h) {
    if (levels_.size() <= level) levels_.resize(level + 1);
    levels_[level].push_back(h);  // frontier reports (level, index) in index order per level
  });
}

tlog::node_source record_tree::nodes() const {
  return [this](unsigned level, std::uint64_t index) { return levels_.at(level).at(index); };
}

tlog::hash record_tree::root(std::uint64_t size) const {
  if (size > this->size()) throw std::invalid_argument("tree size beyond the records");
  return tlog::root(size, nodes());
}

std::vector<tlog::hash> record_tree::inclusion_proof(std::uint64_t seq, std::uint64_t size) const {
  if (size > this->size()) throw std::invalid_argument("tree size beyond the records");
  return tlog::inclusion_proof(seq, size, nodes());
}

std::vector<tlog::hash> record_tree::consistency_proof(std::uint64_t from, std::uint64_t to) const {
  if (to > this->size()) throw std::invalid_argument("tree size beyond the records");
  return tlog::consistency_proof(from, to, nodes());
}

signed_checkpoint open_checkpoint(std::string_view note, const tlog::note_verifier& log_key, std::string_view table) {
  if (log_key.type() != tlog::key_type::ed25519) throw std::invalid_argument("the log key is not an Ed25519 note key");
  tlog::opened_note opened;
  try {
    opened = tlog::open_note(note, std::span<const tlog::note_verifier>(&log_key, 1));
  } catch (const tlog::malformed& e) {
    throw std::invalid_argument(fmt::format("not a signed note ({})", e.what()));
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(fmt::format("the log key's signature does not verify ({})", e.what()));
  }
  if (opened.verified.empty())
    throw std::invalid_argument(fmt::format("not signed by the log key {}+{:08x}", log_key.name(), log_key.key_id()));
  signed_checkpoint out;
  try {
    out.cp = tlog::parse_checkpoint(opened.text);
  } catch (const tlog::malformed&) {
    throw std::invalid_argument("a signed note that is not a checkpoint");
  }
  const std::string origin = origin_of(log_key, table);
  if (out.cp.origin != origin)
    throw std::invalid_argument(fmt::format("a checkpoint of '{}', not of '{}'", out.cp.origin, origin));
  out.text = std::move(opened.text);
  out.note = std::string(note);
  return out;
}

deal_receipt receipt_from_json(const nlohmann::json& answer) {
  if (!answer.is_object()) throw std::invalid_argument("receipt: not a JSON object");
  const bool wrapped = answer.contains("receipt");
  const nlohmann::json& r = wrapped ? answer["receipt"] : answer;
  if (!r.is_object()) throw std::invalid_argument("receipt: 'receipt' is not a JSON object");
  const auto need = [&](const char* key) -> const nlohmann::json& {
    const auto it = r.find(key);
    if (it == r.end()) throw std::invalid_argument(fmt::format("receipt: missing '{}'", key));
    return *it;
  };
  deal_receipt out;
  const auto& seq = need("seq");
  if (!seq.is_number_integer() || (!seq.is_number_unsigned() && seq.get<std::int64_t>() < 0))
    throw std::invalid_argument("receipt: 'seq' must be a non-negative integer");
  out.seq = seq.get<std::uint64_t>();
  if (!need("hash").is_string() || !tlog::hash_from_hex(r["hash"].get<std::string>()))
    throw std::invalid_argument("receipt: 'hash' must be 64 hex digits");
  out.hash = r["hash"].get<std::string>();
  if (!need("checkpoint").is_string()) throw std::invalid_argument("receipt: 'checkpoint' must be a string");
  out.checkpoint = r["checkpoint"].get<std::string>();
  if (!need("inclusion").is_array()) throw std::invalid_argument("receipt: 'inclusion' must be an array");
  for (const auto& h : r["inclusion"]) {
    const auto parsed = h.is_string() ? tlog::hash_from_text(h.get<std::string>()) : std::nullopt;
    if (!parsed) throw std::invalid_argument("receipt: 'inclusion' must hold hashes (64 hex digits or 44 base64)");
    out.inclusion.push_back(*parsed);
  }
  if (wrapped && answer.contains("cards")) {  // a deal answer: its record, to hash again
    nlohmann::json rec = answer;
    const auto mode = answer.find("mode");  // "hand": a hand's deal (its record has the hand's number)
    rec["type"] = mode != answer.end() && mode->is_string() && *mode == "hand" ? "hand_deal" : "deal";
    try {
      out.deal = record_from_json(rec);
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("deal answer: {}", e.what()));
    }
  }
  return out;
}

proof_answer proof_from_json(const nlohmann::json& answer, std::string_view first_key, std::string_view second_key) {
  if (!answer.is_object()) throw std::invalid_argument("proof: not a JSON object");
  const auto number = [&](std::string_view key) {
    const auto it = answer.find(key);
    if (it == answer.end() || !it->is_number_unsigned())
      throw std::invalid_argument(fmt::format("proof: '{}' must be a non-negative integer", key));
    return it->get<std::uint64_t>();
  };
  proof_answer out;
  out.first = number(first_key);
  out.second = number(second_key);
  const auto it = answer.find("hashes");
  if (it == answer.end() || !it->is_array()) throw std::invalid_argument("proof: 'hashes' must be an array");
  for (const auto& h : *it) {
    const auto parsed = h.is_string() ? tlog::hash_from_text(h.get<std::string>()) : std::nullopt;
    if (!parsed) throw std::invalid_argument("proof: 'hashes' must hold hashes (64 hex digits or 44 base64)");
    out.hashes.push_back(*parsed);
  }
  return out;
}

std::vector<record> records_from_log_json(const nlohmann::json& log) {
  const nlohmann::json* list = &log;
  if (log.is_object()) {
    const auto it = log.find("records");
    if (it == log.end() || !it->is_array()) throw std::invalid_argument("log: no 'records' array");
    list = &*it;
  } else if (!log.is_array()) {
    throw std::invalid_argument("log: neither a /log answer nor an array of records");
  }
  std::vector<record> out;
  out.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    try {
      out.push_back(record_from_json((*list)[i]));
    } catch (const std::invalid_argument& e) {
      throw std::invalid_argument(fmt::format("log: record {} of the answer: {}", i + 1, e.what()));
    }
  }
  if (log.is_object() && log.contains("table") && !out.empty() &&
      (!log["table"].is_string() || log["table"].get<std::string>() != out.front().table))
    throw std::invalid_argument("log: 'table' is not the table its records name");
  return out;
}

namespace {

struct opened_cp {
  std::string name;
  tlog::checkpoint cp;
};

std::string short_hex(std::string_view h) { return std::string(h.substr(0, 16)) + "…"; }


// The table a checkpoint note or a receipt names, from its origin "<log name>/<table>"
// (unverified: open_checkpoint checks it); nullopt when it names none.
std::optional<std::string> table_named(const tlog::note_verifier& log_key, const std::string& text, bool receipt) {
  try {
    const std::string note = receipt ? receipt_from_json(nlohmann::json::parse(text)).checkpoint : text;
    const std::string origin = tlog::parse_checkpoint(tlog::parse_note(note).text).origin;
    const std::string prefix = log_key.name() + "/";
    if (origin.starts_with(prefix)) return origin.substr(prefix.size());
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// Are all `sizes` linked by the `proved` (from, to) pairs? (Consistency is transitive: a prefix
// of a prefix is a prefix.)
bool all_linked(const std::vector<std::uint64_t>& sizes, const std::vector<std::pair<std::uint64_t, std::uint64_t>>& proved) {
  std::map<std::uint64_t, std::uint64_t> parent;
  for (const auto s : sizes) parent[s] = s;
  const auto find = [&](std::uint64_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  for (const auto& [a, b] : proved)
    if (parent.contains(a) && parent.contains(b)) parent[find(a)] = find(b);
  for (const auto s : sizes)
    if (find(s) != find(sizes.front())) return false;
  return true;
}

transparency_check verify(const tlog::note_verifier& log_key, const std::vector<record>* given_log,
                          std::span<const named_text> checkpoints, std::span<const named_text> receipts,
                          std::span<const named_text> proofs) {
  transparency_check out;
  const auto problem = [&](std::string p) {
    out.ok = false;
    out.problems.push_back(std::move(p));
  };
  static const std::vector<record> no_records;
  const std::vector<record>& log = given_log ? *given_log : no_records;
  std::uint64_t end = std::numeric_limits<std::uint64_t>::max();  // the tree size the log claims
  if (!given_log) {
    out.log_given = false;
    for (const named_text& c : checkpoints)
      if (out.table.empty()) out.table = table_named(log_key, c.text, false).value_or("");
    for (const named_text& r : receipts)
      if (out.table.empty()) out.table = table_named(log_key, r.text, true).value_or("");
    if (checkpoints.empty() && receipts.empty()) {
      problem("nothing to verify: no log, checkpoint or receipt");
      return out;
    }
    out.skipped.push_back("the records, their chain and the deals' seats and shoes: no log given");
  } else if (log.empty()) {
    problem("the log has no records");
    return out;
  } else {
    out.table = log.front().table;
    out.first_seq = log.front().seq;
    out.records = log.size();
    out.partial = out.first_seq != 0;
    end = out.first_seq + log.size();

    // 1. The chain (docs/log-format.md).
    out.chain = verify_log(log, out.partial ? std::optional<std::uint64_t>(out.first_seq - 1) : std::nullopt);
    if (!out.chain.ok) problem(fmt::format("record {}: {}", out.chain.failed_seq.value_or(0), out.chain.reason));
  }

  // 2. Every deal, standing or a hand's, has the open record's seats and shoe. (A hand's seeds
  // are revealed before its deal: a shoe chosen then could grind the cards.)
  if (given_log && !out.partial && log.front().type == record_type::open) {
    const record& open = log.front();
    out.shoe_checked = true;
    for (const record& r : log) {
      if (r.type != record_type::deal && r.type != record_type::hand_deal) continue;
      if (r.seat_seeds.size() != open.seats) {
        problem(fmt::format("record {}: the deal has {} seat seeds, the table was opened with {} seats", r.seq,
                            r.seat_seeds.size(), open.seats));
        break;
      }
      if (r.decks != open.decks || r.jokers != open.jokers) {
        problem(fmt::format("record {}: the deal's shoe ({} decks, {} jokers) is not the table's ({} decks, {} jokers)",
                            r.seq, r.decks, r.jokers, open.decks, open.jokers));
        break;
      }
    }
  } else if (out.partial) {
    out.skipped.push_back(
        fmt::format("seat counts and shoes of the deals: the table's open record (seq 0) is not in this partial log"));
  }

  // The tree of a whole log; a partial log cannot have one (it lacks leaves 0..first_seq-1).
  std::optional<record_tree> tree;
  if (given_log && !out.partial) {
    try {
      record_tree t;
      for (const record& r : log) t.append(leaf_of(r));
      tree = std::move(t);
    } catch (const std::invalid_argument&) {
      // A hash that is not hex fails the chain check above already.
    }
  }
  bool roots_skipped = false;
  std::vector<opened_cp> opened;
  const auto check_against_log = [&](const signed_checkpoint& sc, const std::string& who, bool& root_checked) {
    opened.push_back({who, sc.cp});
    if (sc.cp.size > end) {
      problem(fmt::format("{} is signed for {} records but the log has {}: the log's tail was cut or rolled back (or "
                          "this log was fetched before the checkpoint)",
                          who, sc.cp.size, end));
      return false;
    }
    if (!tree) {
      roots_skipped = given_log != nullptr;
      return true;
    }
    if (tree->root(sc.cp.size) != sc.cp.root) {
      problem(fmt::format("{} (size {}) does not match the log's first {} records: the log was rewritten or forked "
                          "after the checkpoint was signed",
                          who, sc.cp.size, sc.cp.size));
      return false;
    }
    root_checked = true;
    return true;
  };

  // 3. Signed checkpoints.
  for (const named_text& c : checkpoints) {
    checkpoint_check cc;
    cc.name = c.name;
    try {
      const signed_checkpoint sc = open_checkpoint(c.text, log_key, out.table);
      cc.cp = sc.cp;
      cc.ok = check_against_log(sc, "checkpoint " + c.name, cc.root_checked);
      if (!cc.ok) cc.problem = out.problems.back();
    } catch (const std::invalid_argument& e) {
      cc.problem = fmt::format("checkpoint {}: {}", c.name, e.what());
      problem(cc.problem);
    }
    out.checkpoints.push_back(std::move(cc));
  }

  // 4. Receipts.
  for (const named_text& t : receipts) {
    receipt_check rc;
    rc.name = t.name;
    const auto fail = [&](std::string why) {
      rc.problem = fmt::format("receipt {}: {}", t.name, why);
      problem(rc.problem);
    };
    try {
      const auto j = nlohmann::json::parse(t.text);
      const deal_receipt r = receipt_from_json(j);
      rc.seq = r.seq;
      rc.hash = r.hash;
      if (r.deal && (r.deal->seq != r.seq || r.deal->hash != r.hash)) {
        fail("the deal answer's seq or hash is not its receipt's");
      } else if (r.deal && compute_hash(*r.deal) != r.hash) {
        fail("the deal answer's fields do not hash to its record hash");
      } else {
        const signed_checkpoint sc = open_checkpoint(r.checkpoint, log_key, out.table);
        rc.tree_size = sc.cp.size;
        const auto raw = tlog::hash_from_hex(r.hash);
        if (r.deal && r.deal->table != out.table) {
          // Else a deal of table A proved inside a tree signed for table B would pass a
          // receipt-only check while A's own log never holds it.
          fail(fmt::format("the deal answer is of table '{}', its checkpoint of table '{}'", r.deal->table, out.table));
        } else if (sc.cp.size <= r.seq) {
          fail(fmt::format("its checkpoint (size {}) does not contain record {}", sc.cp.size, r.seq));
        } else if (!tlog::verify_inclusion(r.seq, sc.cp.size, tlog::leaf_hash(*raw), r.inclusion, sc.cp.root)) {
          fail(fmt::format("the inclusion proof of record {} does not verify against its checkpoint", r.seq));
        } else if (!given_log) {
          bool unused = false;
          rc.ok = check_against_log(sc, "the checkpoint of receipt " + t.name, unused);
        } else if (r.seq < out.first_seq) {
          out.skipped.push_back(fmt::format("receipt {}: record {} precedes this partial log", t.name, r.seq));
          bool unused = false;
          rc.ok = check_against_log(sc, "the checkpoint of receipt " + t.name, unused);
        } else if (r.seq >= end) {
          opened.push_back({"the checkpoint of receipt " + t.name, sc.cp});
          fail(fmt::format("record {} is not in the log (it has {} records): the log was cut or rolled back after "
                           "the receipt",
                           r.seq, end));
        } else if (const record& in_log = log[r.seq - out.first_seq]; in_log.hash != r.hash) {
          opened.push_back({"the checkpoint of receipt " + t.name, sc.cp});
          fail(fmt::format("the log's record {} is not the one the receipt proves (hash {} in the log, {} in the "
                           "receipt): the deal was rewritten, or rolled back and dealt again",
                           r.seq, short_hex(in_log.hash), short_hex(r.hash)));
        } else {
          rc.in_log = true;
          bool unused = false;
          rc.ok = check_against_log(sc, "the checkpoint of receipt " + t.name, unused);
          if (!rc.ok) rc.problem = out.problems.back();
        }
      }
    } catch (const nlohmann::json::exception&) {
      fail("not JSON");
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    out.receipts.push_back(std::move(rc));
  }

  // 5. Consistency proofs between the signed checkpoints' sizes.
  std::vector<std::pair<std::uint64_t, std::uint64_t>> proved;
  const auto signed_at = [&](std::uint64_t size) -> const tlog::checkpoint* {
    for (const auto& o : opened)
      if (o.cp.size == size) return &o.cp;
    return nullptr;
  };
  for (const named_text& p : proofs) {
    proof_check pc;
    pc.name = p.name;
    const auto fail = [&](std::string why) {
      pc.problem = fmt::format("proof {}: {}", p.name, why);
      problem(pc.problem);
    };
    try {
      const proof_answer a = proof_from_json(nlohmann::json::parse(p.text), "from", "to");
      pc.from = a.first;
      pc.to = a.second;
      const tlog::checkpoint* older = signed_at(a.first);
      const tlog::checkpoint* newer = signed_at(a.second);
      if (a.first > a.second) {
        fail("'from' exceeds 'to'");
      } else if (!newer || (a.first != 0 && !older)) {
        fail(fmt::format("no signed checkpoint of size {} was given to check it against", newer ? a.first : a.second));
      } else if (!tlog::verify_consistency(a.first, a.second, older ? older->root : tlog::empty_root(), newer->root,
                                           a.hashes)) {
        fail(fmt::format("it does not prove the checkpoint of size {} a prefix of the one of size {}: the log was "
                         "rewritten or forked between them",
                         a.first, a.second));
      } else {
        pc.ok = true;
        proved.emplace_back(a.first, a.second);
      }
    } catch (const nlohmann::json::exception&) {
      fail("not JSON");
    } catch (const std::invalid_argument& e) {
      fail(e.what());
    }
    out.proofs.push_back(std::move(pc));
  }

  // 6. Checkpoints of one size must agree, whatever the log; different sizes need a proof.
  bool sizes_differ = false;
  for (std::size_t i = 0; i < opened.size(); ++i)
    for (std::size_t j = i + 1; j < opened.size(); ++j) {
      if (opened[i].cp.size != opened[j].cp.size) {
        sizes_differ = true;
      } else if (opened[i].cp.root != opened[j].cp.root) {
        problem(fmt::format("{} and {} are both signed for size {} with different roots: the log forked",
                            opened[i].name, opened[j].name, opened[i].cp.size));
      }
    }
  if (roots_skipped)
    out.skipped.push_back(fmt::format("checkpoint roots: recomputing a root needs records 0..{}, which this partial "
                                      "log lacks",
                                      out.first_seq - 1));
  std::vector<std::uint64_t> sizes;
  for (const auto& o : opened) sizes.push_back(o.cp.size);
  out.consistency_proved = sizes_differ && all_linked(sizes, proved);
  if (!tree && sizes_differ && !out.consistency_proved)
    out.skipped.push_back(given_log ? "consistency between checkpoints of different sizes: needs consistency proofs a "
                                      "partial log cannot give (give them with their answers, or a witness fetches them)"
                                    : "consistency between checkpoints of different sizes: no consistency proof links "
                                      "them all (GET .../proof/consistency?from=A&to=B)");
  return out;
}

}  // namespace

transparency_check verify_transparency(const tlog::note_verifier& log_key, const std::vector<record>& log,
                                       std::span<const named_text> checkpoints, std::span<const named_text> receipts,
                                       std::span<const named_text> proofs) {
  return verify(log_key, &log, checkpoints, receipts, proofs);
}

transparency_check verify_without_log(const tlog::note_verifier& log_key, std::span<const named_text> checkpoints,
                                      std::span<const named_text> receipts, std::span<const named_text> proofs) {
  return verify(log_key, nullptr, checkpoints, receipts, proofs);
}

witness_step witness_check(const tlog::note_verifier& log_key, std::string_view table,
                           const std::optional<std::string>& accepted_note, std::string_view fresh_note,
                           std::span<const tlog::hash> proof) {
  witness_step step;
  step.fresh = open_checkpoint(fresh_note, log_key, table);
  const auto& fresh = step.fresh.cp;
  // A cosignature covers the whole text: extension lines would be cosigned unchecked (and,
  // at an unchanged size, unstored). fairdeckd's checkpoints carry none (log-format.md).
  if (!fresh.extensions.empty())
    throw std::invalid_argument("the checkpoint has extension lines; fairdeckd's have none, and this witness cosigns "
                                "nothing it has not checked");
  if (!accepted_note) {
    step.outcome = witness_outcome::first;
    step.message = fmt::format("first checkpoint of {} accepted: size {}", fresh.origin, fresh.size);
    return step;
  }
  try {
    step.accepted = open_checkpoint(*accepted_note, log_key, table);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("the checkpoint accepted before: {}", e.what()));
  }
  const auto& old = step.accepted->cp;
  if (fresh.size < old.size) {
    step.outcome = witness_outcome::conflict;
    step.message = fmt::format("the log shrank from {} to {} records since the accepted checkpoint: rolled back or "
                               "truncated",
                               old.size, fresh.size);
  } else if (fresh.size == old.size) {
    step.outcome = fresh.root == old.root ? witness_outcome::unchanged : witness_outcome::conflict;
    step.message = fresh.root == old.root
                       ? fmt::format("unchanged: size {}", fresh.size)
                       : fmt::format("two checkpoints of size {} with different roots: the log forked or was rewritten",
                                     fresh.size);
  } else if (tlog::verify_consistency(old.size, fresh.size, old.root, fresh.root, proof)) {
    step.outcome = witness_outcome::grown;
    step.message = fmt::format("grew from {} to {} records, consistent", old.size, fresh.size);
  } else {
    step.outcome = witness_outcome::conflict;
    step.message = fmt::format("no valid consistency proof from size {} to {}: the log was rewritten or forked",
                               old.size, fresh.size);
  }
  return step;
}

}  // namespace fairdeck::service
