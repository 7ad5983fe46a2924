#include "fairdeck/stats/audit.hpp"

#include <algorithm>
#include <istream>
#include <numeric>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/shuffle_deck.hpp"
#include "fairdeck/stats/machine.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck::stats {
namespace {

// How often a worker looks at the stop flag inside a chunk.
constexpr std::uint64_t stop_check_mask = 1023;

// Deals one chunk (stream `chunk`) into `counter`; false if a stop request cut it short.
bool deal_chunk(const audit_subject& s, std::uint64_t chunk, std::uint64_t deals, std::span<const card_t> canonical,
                std::vector<card_t>& deck, chunk_counter& counter, const run_control& rc) {
  counter.start_chain();
  std::uint64_t t = 0;
  bool stopped = false;
  // every deal starts from the canonical order
  shuffle_deals(s.engine, chunk, s.algorithm, canonical, deck, deals, [&](std::span<const card_t> dealt) {
    counter.add(dealt);
    stopped = (++t & stop_check_mask) == 0 && rc.stopped();
    return !stopped;
  });
  return !stopped;
}

}  // namespace

audit_counts count_deals(const audit_subject& subject, std::size_t n, std::uint64_t trials, unsigned threads,
                         const run_control& rc) {
  audit_counts total(n);
  std::vector<card_t> canonical(n);
  std::iota(canonical.begin(), canonical.end(), card_t{0});
  {  // Fail here, on the caller's thread, when the algorithm cannot shuffle n cards.
    std::vector<card_t> probe(n);
    shuffle_deck(engine_spec{engine_id::xoshiro256pp, 1, {}}, 0, subject.algorithm, probe);
  }
  const std::uint64_t chunks = (trials + audit_chunk_deals - 1) / audit_chunk_deals;
  const unsigned workers = parallel_workers(chunks, threads);

  struct worker_state {
    chunk_counter counter;
    std::vector<card_t> deck;
    audit_counts partial;
  };
  std::vector<worker_state> state;
  state.reserve(workers);
  for (unsigned w = 0; w < workers; ++w) state.push_back({chunk_counter(n), std::vector<card_t>(n), audit_counts(n)});
  progress_meter progress(rc, trials);

  parallel_for(chunks, workers, rc, [&](std::uint64_t k, unsigned w) {
    worker_state& ws = state[w];
    const std::uint64_t deals = std::min(audit_chunk_deals, trials - k * audit_chunk_deals);
    if (!deal_chunk(subject, k, deals, canonical, ws.deck, ws.counter, rc)) {
      ws.counter.discard();  // counts stay a whole number of chunks
      return;
    }
    ws.counter.flush_into(ws.partial);
    progress.add(deals);
  });
  for (const auto& ws : state) total.merge(ws.partial);
  return total;
}

void analyze(audit_result& r, double alpha) {
  r.tests = run_tests(r.counts, r.cards, r.deck);
  r.effect = measure_effect(r.counts);
  r.decision = decide(r.tests, alpha);
}

std::vector<card_t> audited_cards(const audit_settings& s) {
  validate(s.deck);
  const std::size_t size = s.deck.size();
  const std::size_t n = s.cards.value_or(size);
  if (n > size)
    throw std::invalid_argument(fmt::format("{} audited cards exceed the {} cards of the shoe (a larger shoe needs more decks or jokers)", n, size));
  if (n < 2 || n > max_audit_cards)
    throw std::invalid_argument(fmt::format("the audit needs 2..{} cards, not {}", max_audit_cards, n));
  auto deck = make_deck(s.deck);
  deck.resize(n);
  return deck;
}

std::vector<audit_result> run_audit(std::span<const audit_subject> subjects, const audit_settings& s,
                                    const run_control& rc) {
  if (!(s.alpha > 0 && s.alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  if (s.trials == 0) throw std::invalid_argument("trials must be at least 1");
  const auto cards = audited_cards(s);
  const std::uint64_t grand_total = s.trials * subjects.size();
  std::vector<audit_result> out;
  for (std::size_t i = 0; i < subjects.size(); ++i) {
    if (rc.stopped()) break;
    const std::uint64_t before = s.trials * i;
    run_control sub;
    sub.stop = rc.stop;
    if (rc.on_progress) sub.on_progress = [&](std::uint64_t d, std::uint64_t) { rc.progress(before + d, grand_total); };
    audit_result r;
    r.algorithm = subjects[i].algorithm.name();
    r.engine = std::string(info(subjects[i].engine.id).name);
    r.algorithm_fair = subjects[i].algorithm.fair();
    r.deck = s.deck;
    r.cards = cards;
    r.requested_trials = s.trials;
    r.counts = count_deals(subjects[i], cards.size(), s.trials, s.threads, sub);
    r.complete = r.counts.trials == s.trials;
    analyze(r, s.alpha);
    out.push_back(std::move(r));
    if (!out.back().complete) break;
  }
  return out;
}

audit_result audit_stream(std::istream& in, const input_settings& s, const run_control& rc) {
  if (!(s.alpha > 0 && s.alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  deck_reader reader(s.format, s.deck, s.cards, s.shoe);
  audit_result r;
  r.algorithm = "input";
  r.engine = s.label;
  std::optional<chunk_counter> counter;
  std::optional<machine_counter> machine;
  std::optional<deck_reader> before_reader;
  if (s.before) before_reader.emplace(s.format, s.deck, s.cards, s.shoe);
  std::vector<card_t> order, before, copies;
  xoshiro256pp numbering(1);                  // shoes: each face's copies numbered at random
  std::vector<std::uint32_t> next_copy;       // shoes: per face, copies numbered so far
  std::vector<card_t> copy_ids;               // shoes: per face, its copy ids (shuffled as used)
  std::string line, before_line;
  while (!rc.stopped() && reader.read_line(in, line)) {
    if (!reader.parse_line(line, order)) continue;
    if (!counter) {
      r.counts = audit_counts(reader.cards().size());
      counter.emplace(reader.cards().size());
      if (s.machine_tests) machine.emplace(reader.cards(), reader.spec(), reader.copies());
    }
    if (reader.copies() > 1) {
      // The face sequence -> a permutation of the shoe's cards: a uniform random matching of
      // each face's copies (exact null laws for the card-level tests).
      const unsigned d = reader.copies();
      if (copy_ids.empty()) {
        copy_ids.resize(order.size());
        for (std::size_t f = 0; f < cards_per_deck; ++f)
          for (unsigned k = 0; k < d; ++k) copy_ids[f * d + k] = static_cast<card_t>(k * cards_per_deck + f);
        next_copy.resize(cards_per_deck);
      }
      std::fill(next_copy.begin(), next_copy.end(), 0U);
      copies.resize(order.size());
      for (std::size_t i = 0; i < order.size(); ++i) {
        card_t* ids = &copy_ids[order[i] * d];
        const std::uint32_t u = next_copy[order[i]]++;
        std::swap(ids[u], ids[u + draw_below(numbering, d - u)]);
        copies[i] = ids[u];
      }
      counter->add(copies);
    } else {
      counter->add(order);
    }
    if (before_reader) {
      bool got = false;
      try {
        while (!got && before_reader->read_line(*s.before, before_line)) got = before_reader->parse_line(before_line, before);
      } catch (const deck_input_error& e) {  // name the before-order file, not the input, as holding the line
        throw std::runtime_error(fmt::format("before-order file, {}", e.what()));
      }
      if (!got)
        throw deck_input_error(reader.line_number(), "the before-order file ends before this deck");
      if (!std::ranges::equal(before_reader->cards(), reader.cards()))
        throw deck_input_error(reader.line_number(),
                               fmt::format("the before order (its line {}) holds other cards than this deck",
                                           before_reader->line_number()));
    }
    if (machine) machine->add(order, before);
    if (s.on_deck) s.on_deck(reader.copies() > 1 ? copies : order, reader.cards());
    if (counter->pending() == audit_chunk_deals) {
      counter->flush_into(r.counts);
      rc.progress(r.counts.trials, 0);
    }
  }
  if (in.bad()) throw std::runtime_error("read error on the input");
  if (!counter) throw deck_input_error(reader.line_number(), "no decks in the input");
  counter->flush_into(r.counts);
  r.complete = !rc.stopped();
  r.deck = reader.spec();
  r.cards.assign(reader.cards().begin(), reader.cards().end());
  analyze(r, s.alpha);
  if (machine) {
    for (auto& t : machine->tests()) r.tests.push_back(std::move(t));
    r.decision = decide(r.tests, s.alpha);
    r.guess_histogram = machine->guess_histogram();
    r.guess_null = machine->guess_null_law();
    r.shoe_copies = reader.copies();
  }
  return r;
}

}  // namespace fairdeck::stats
