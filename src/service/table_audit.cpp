// Incremental public audit of a table's log (see table_audit.hpp).
#include "fairdeck/service/table_audit.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/splitmix64.hpp"
#include "fairdeck/service/store.hpp"

namespace fairdeck::service {
namespace {

std::uint64_t fnv1a(std::string_view s) noexcept {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

// Records read from the store per round trip while catching up.
constexpr std::size_t fold_batch = 4096;

}  // namespace

void table_audit::fold(const record& r) {
  verifier_.add(r);
  ++records_;
  head_hash_ = r.hash;
  if (r.type == record_type::open) table_spec_ = deck_spec{r.decks, r.jokers};
  if (r.type != record_type::deal && r.type != record_type::hand_deal) return;  // both ways of dealing are audited
  ++deals_;
  if (!unauditable_.empty()) return;
  try {
    const deck_spec spec{r.decks, r.jokers};
    if (table_spec_ && spec != *table_spec_)  // the shoe the table was opened with, for every deal
      throw std::invalid_argument(fmt::format("deals a shoe of {} decks and {} jokers, not the table's {} and {}",
                                              spec.decks, spec.jokers, table_spec_->decks, table_spec_->jokers));
    if (!spec_) {
      validate(spec);
      if (spec.size() > stats::max_audit_cards)
        throw std::invalid_argument(fmt::format("a shoe of {} cards is larger than the {} cards the audit counts",
                                                spec.size(), stats::max_audit_cards));
      spec_ = spec;
    } else if (spec != *spec_) {
      throw std::invalid_argument(fmt::format("deals a shoe of {} decks and {} jokers, not the table's {} and {}",
                                              spec.decks, spec.jokers, spec_->decks, spec_->jokers));
    }
    if (spec.decks <= 1)
      count_deal(r);
    else
      count_shoe_deal(r);
  } catch (const std::exception& e) {
    unauditable_ = fmt::format("deal seq {}: {}", r.seq, e.what());
    counter_.reset();
  }
}

// One deck: the deal's text is one line of `fairdeck audit --input` (text format).
void table_audit::count_deal(const record& r) {
  if (!reader_) reader_.emplace(stats::deck_format::text, *spec_);
  if (!reader_->parse_line(r.cards, order_)) throw std::invalid_argument("the cards are a comment line");
  if (!counter_) {
    counts_ = stats::audit_counts(reader_->cards().size());
    counter_.emplace(reader_->cards().size());
  }
  counter_->add(order_);
  if (counter_->pending() == stats::audit_chunk_deals) counter_->flush_into(counts_);
}

// A shoe: faces in dealing order, each occurrence given one of its face's copies (header).
void table_audit::count_shoe_deal(const record& r) {
  const deck_spec& spec = *spec_;
  const std::vector<card_t> faces = parse_cards(r.cards, spec);  // copies in order of appearance
  const std::size_t n = spec.size();
  if (faces.size() != n) throw std::invalid_argument(fmt::format("{} cards, not the shoe's {}", faces.size(), n));
  if (!counter_) {
    counts_ = stats::audit_counts(n);
    counter_.emplace(n);
    canonical_ = make_deck(spec);
  }
  const std::size_t face_count = cards_per_deck + spec.jokers;
  free_copies_.resize(face_count);
  for (std::size_t f = 0; f < face_count; ++f) {
    auto& copies = free_copies_[f];
    copies.clear();
    if (f < cards_per_deck)
      for (unsigned d = 0; d < spec.decks; ++d) copies.push_back(static_cast<card_t>(d * cards_per_deck + f));
    else
      copies.push_back(static_cast<card_t>(spec.decks * cards_per_deck + (f - cards_per_deck)));
  }
  splitmix64 rng(fnv1a(r.hash));
  order_.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    const card_t c = faces[p];
    const std::size_t f = is_joker(c, spec) ? cards_per_deck + (c - spec.decks * cards_per_deck) : c % cards_per_deck;
    auto& copies = free_copies_[f];  // parse_cards refuses more copies than the shoe holds
    const auto k = static_cast<std::size_t>(uniform_below(rng, copies.size()));
    order_[p] = copies[k];
    copies[k] = copies.back();
    copies.pop_back();
  }
  counter_->add(order_);
  if (counter_->pending() == stats::audit_chunk_deals) counter_->flush_into(counts_);
}

std::optional<stats::audit_result> table_audit::audit(std::string_view label, double alpha) {
  if (!unauditable_.empty() || !counter_) return std::nullopt;
  counter_->flush_into(counts_);  // the serial chain continues across flushes
  stats::audit_result r;
  r.algorithm = "input";
  r.engine = std::string(label);
  r.counts = counts_;
  if (reader_) {
    r.deck = reader_->spec();
    r.cards.assign(reader_->cards().begin(), reader_->cards().end());
  } else {
    r.deck = *spec_;
    r.cards = canonical_;
  }
  stats::analyze(r, alpha);
  return r;
}

std::size_t table_audit::memory_bytes() const noexcept {
  const std::size_t cells = counts_.position_card.size() + counts_.orders.size();
  return sizeof(*this) + cells * (sizeof(std::uint64_t) + sizeof(std::uint32_t));
}

// ---- audit_cache ----

void audit_cache::bring_up_to_date(store& s, std::string_view table, audit_entry& e, bool& exists) {
  const auto head = s.table(table);
  exists = head.has_value();
  if (!head) return;
  const auto restart = [&] {
    e.audit = table_audit();
    e.rendered.clear();
  };
  // The store is behind the cache, or at the same seq with another head: not the log we folded.
  if (head->next_seq < e.audit.records() ||
      (head->next_seq == e.audit.records() && head->head_hash != e.audit.head_hash()))
    restart();
  bool restarted = false;
  for (;;) {
    const std::uint64_t folded = e.audit.records();
    const auto batch = s.log(table, folded ? std::optional<std::uint64_t>(folded - 1) : std::nullopt, fold_batch);
    if (!batch) {
      exists = false;
      return;
    }
    if (batch->empty()) return;
    if (folded > 0 && batch->front().prev_hash != e.audit.head_hash() && !restarted) {
      restart();  // the log no longer continues what we folded
      restarted = true;
      continue;
    }
    for (const record& r : *batch) e.audit.fold(r);
    e.rendered.clear();
    if (batch->size() < fold_batch) return;
  }
}

bool audit_cache::with(store& s, std::string_view table, const std::function<void(audit_entry&)>& use) {
  std::shared_ptr<slot> sl;
  {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(table);
    if (it == slots_.end()) it = slots_.emplace(std::string(table), std::make_shared<slot>()).first;
    sl = it->second;
    sl->used = ++tick_;
  }
  bool exists = false;
  {
    std::lock_guard lock(sl->mutex);
    try {
      bring_up_to_date(s, table, sl->entry, exists);
    } catch (...) {
      sl->entry = audit_entry();  // half-folded batches are not kept
      throw;
    }
    if (exists) use(sl->entry);
    const std::size_t bytes = sl->entry.audit.memory_bytes();
    std::lock_guard cache_lock(mutex_);
    sl->bytes = exists ? bytes : 0;
  }
  std::lock_guard lock(mutex_);
  if (!exists) {
    if (auto it = slots_.find(table); it != slots_.end() && it->second == sl) slots_.erase(it);
    return false;
  }
  evict(sl);
  return true;
}

void audit_cache::evict(const std::shared_ptr<slot>& keep) {
  std::size_t total = 0;
  for (const auto& [name, sl] : slots_) total += sl->bytes;
  while (total > budget_ && slots_.size() > 1) {
    auto oldest = slots_.end();
    for (auto it = slots_.begin(); it != slots_.end(); ++it)
      if (it->second != keep && (oldest == slots_.end() || it->second->used < oldest->second->used)) oldest = it;
    if (oldest == slots_.end()) break;
    total -= oldest->second->bytes;
    slots_.erase(oldest);
  }
}

std::size_t audit_cache::tables() const {
  std::lock_guard lock(mutex_);
  return slots_.size();
}

}  // namespace fairdeck::service
