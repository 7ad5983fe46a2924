// The public audit of a table's log (GET /v1/tables/{t}/audit), kept up to date as the log
// grows instead of recomputed per request (issue #27 item 4).
//
// table_audit folds records one at a time into (a) the chain check (log_verifier) and (b) the
// audit's counts (stats::chunk_counter / audit_counts, the same accumulators `fairdeck audit`
// uses). Guarantee: after folding a table's records in order, in any number of calls,
// chain() equals verify_log(all records) and audit() equals the audit a fresh pass over every
// deal gives; for a one-deck table that is exactly stats::audit_stream over the deals' card
// text, one line per deal (tests/service/table_audit_test.cpp).
//
// Shoes (2 or more decks): the log names faces, not copies (cards/card.hpp), so the copies of
// each face are given to its occurrences in an order drawn from the deal record's hash
// (splitmix64 of FNV-1a of the hash): public, the same for every reader, and uniform, so a
// uniform shuffle of the shoe stays a uniform permutation of its card ids and every test of
// the audit applies. A shoe larger than stats::max_audit_cards cannot be audited
// (unauditable() says so), as can no deal whose cards are not the table's shoe.
//
// audit_cache keeps one table_audit per table and brings it up to the store's committed head
// on every use, keyed by head seq and hash: records after the last folded seq are read and
// folded; a store whose head is behind the cache, or whose chain no longer continues the
// cached head, makes the table be folded again from record 0, so a stale audit is never used.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/service/records.hpp"
#include "fairdeck/stats/audit.hpp"

namespace fairdeck::service {

class store;

class table_audit {
 public:
  table_audit() = default;
  // Folds the table's next record (records are expected in log order; a gap or repeat is
  // reported by chain(), as verify_log would).
  void fold(const record& r);
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
  [[nodiscard]] const std::string& head_hash() const noexcept { return head_hash_; }  // "" before any record
  [[nodiscard]] std::uint64_t deals() const noexcept { return deals_; }
  [[nodiscard]] log_check chain() const { return verifier_.result(); }
  // Why the deals cannot be audited ("" when they can, or when there are none yet).
  [[nodiscard]] const std::string& unauditable() const noexcept { return unauditable_; }
  // The audit of every deal folded so far, as stats::audit_stream reports it (algorithm
  // "input", engine `label`); nullopt with no deals or when unauditable().
  [[nodiscard]] std::optional<stats::audit_result> audit(std::string_view label, double alpha = 1e-4);
  // Bytes held by the counts (the cache's budget is counted in these).
  [[nodiscard]] std::size_t memory_bytes() const noexcept;

 private:
  void count_deal(const record& r);
  void count_shoe_deal(const record& r);

  log_verifier verifier_;
  std::uint64_t records_ = 0;
  std::uint64_t deals_ = 0;
  std::string head_hash_;
  std::string unauditable_;
  std::optional<deck_spec> spec_;                 // the shoe of the first deal
  std::optional<deck_spec> table_spec_;           // the shoe of the open record (a whole log)
  std::optional<stats::deck_reader> reader_;      // one deck: exactly audit_stream's parser
  std::optional<stats::chunk_counter> counter_;
  stats::audit_counts counts_;
  std::vector<card_t> order_;
  std::vector<card_t> canonical_;                 // shoes: make_deck(spec)
  std::vector<std::vector<card_t>> free_copies_;  // shoes: scratch, copies not yet given per face
};

// One cached table: its folded audit and answers rendered from it (cleared whenever more
// records are folded, so they always match `audit`).
struct audit_entry {
  table_audit audit;
  std::map<std::string, std::string, std::less<>> rendered;
};

class audit_cache {
 public:
  // Entries beyond `budget_bytes` of counts are dropped, least recently used first (a dropped
  // table is folded again from its first record when next asked for).
  explicit audit_cache(std::size_t budget_bytes = std::size_t{256} << 20) : budget_(budget_bytes) {}
  // Brings `table`'s entry up to the store's committed head, then calls use(entry) under the
  // entry's lock (one fold per table at a time; other tables proceed in parallel). Returns
  // false, without calling `use`, when there is no such table. Throws store_unavailable.
  bool with(store& s, std::string_view table, const std::function<void(audit_entry&)>& use);
  [[nodiscard]] std::size_t tables() const;

 private:
  struct slot {
    std::mutex mutex;
    audit_entry entry;
    std::size_t bytes = 0;     // memory_bytes() at the last use (read under the cache's mutex)
    std::uint64_t used = 0;    // LRU tick
  };
  static void bring_up_to_date(store& s, std::string_view table, audit_entry& e, bool& exists);
  void evict(const std::shared_ptr<slot>& keep);

  std::size_t budget_;
  mutable std::mutex mutex_;
  std::map<std::string, std::shared_ptr<slot>, std::less<>> slots_;
  std::uint64_t tick_ = 0;
};

}  // namespace fairdeck::service
