// `fairdeck audit --input` on recorded decks, one core: the reader, every count and every test
// (the position tests, the machine tests of stats/machine.hpp: guesser, turning points, colour
// changes), end to end through stats::audit_stream. Items are decks. Target (issue #31):
// >= 1,000,000 recorded decks a minute, i.e. >= 16,667 decks/s from BM_AuditRecordedDecks.
// Baselines in the same run: reading and parsing alone (BM_ParseRecordedDecks) and the machine
// tests' tally alone (BM_MachineCounterOnly), so the ratio shows what the tests cost.
// Shoes (BM_AuditRecordedShoes: 8-deck shoes of indistinguishable copies, `--decks 8`; items
// are shoes, the "decks" counter counts 52-card decks) and `fairdeck monitor`'s work per deck
// (BM_MonitorDecks: parsing plus the anytime-valid e-processes of stats/monitor.hpp).
#include <benchmark/benchmark.h>

#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/stats/machine.hpp"
#include "fairdeck/stats/monitor.hpp"

namespace {

using namespace fairdeck;

constexpr std::size_t decks_per_input = 50'000;

// 50,000 decks from a 10-shelf machine (two passes), one per line, as card indices or as names.
const std::string& recorded(bool names) {
  static const auto make = [](bool as_names) {
    xoshiro256pp engine(11);
    std::string out;
    std::vector<card_t> deck(52);
    for (std::size_t d = 0; d < decks_per_input; ++d) {
      std::iota(deck.begin(), deck.end(), card_t{0});
      shelf_shuffle(deck, 10, 2, engine);
      for (std::size_t i = 0; i < deck.size(); ++i) {
        if (i) out += ' ';
        out += as_names ? format_card(deck[i], deck_spec{}) : std::to_string(deck[i]);
      }
      out += '\n';
    }
    return out;
  };
  static const std::string indices = make(false), text = make(true);
  return names ? text : indices;
}

void BM_AuditRecordedDecks(benchmark::State& state) {
  const bool names = state.range(0) != 0;
  const std::string& input = recorded(names);
  for (auto _ : state) {
    std::istringstream in(input);
    stats::input_settings s;
    s.format = names ? stats::deck_format::text : stats::deck_format::indices;
    s.machine_tests = true;  // as `fairdeck audit --input`
    const auto r = stats::audit_stream(in, s);
    benchmark::DoNotOptimize(r.decision.biased);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(decks_per_input));
  state.SetLabel(names ? "card names" : "indices");
}
BENCHMARK(BM_AuditRecordedDecks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Baseline: reading and parsing the same lines, nothing counted.
void BM_ParseRecordedDecks(benchmark::State& state) {
  const bool names = state.range(0) != 0;
  const std::string& input = recorded(names);
  for (auto _ : state) {
    std::istringstream in(input);
    stats::deck_reader reader(names ? stats::deck_format::text : stats::deck_format::indices, deck_spec{});
    std::vector<card_t> order;
    std::string line;
    std::size_t decks = 0;
    while (reader.read_line(in, line)) decks += reader.parse_line(line, order);
    benchmark::DoNotOptimize(decks);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(decks_per_input));
  state.SetLabel(names ? "card names" : "indices");
}
BENCHMARK(BM_ParseRecordedDecks)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Baseline: the machine tests' tally alone on one fixed machine deck.
void BM_MachineCounterOnly(benchmark::State& state) {
  std::vector<card_t> deck(52);
  std::iota(deck.begin(), deck.end(), card_t{0});
  xoshiro256pp engine(3);
  shelf_shuffle(deck, 10, 1, engine);
  const auto cards = make_deck(deck_spec{});
  stats::machine_counter counter(cards, deck_spec{});
  for (auto _ : state) counter.add(deck);
  benchmark::DoNotOptimize(counter.decks());
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_MachineCounterOnly);

constexpr std::size_t shoes_per_input = 2'000;

// 2,000 8-deck shoes through one pass of 10 shelves, as card names (each face 8 times).
const std::string& recorded_shoes() {
  static const std::string text = [] {
    xoshiro256pp engine(12);
    std::string out;
    std::vector<card_t> shoe(8 * 52);
    for (std::size_t d = 0; d < shoes_per_input; ++d) {
      std::iota(shoe.begin(), shoe.end(), card_t{0});
      shelf_shuffle(shoe, 10, 1, engine);
      for (std::size_t i = 0; i < shoe.size(); ++i) {
        if (i) out += ' ';
        out += format_card(shoe[i] % 52, deck_spec{});
      }
      out += '\n';
    }
    return out;
  }();
  return text;
}

void BM_AuditRecordedShoes(benchmark::State& state) {
  const std::string& input = recorded_shoes();
  for (auto _ : state) {
    std::istringstream in(input);
    stats::input_settings s;
    s.format = stats::deck_format::text;
    s.deck = deck_spec{8, 0};
    s.shoe = true;
    s.machine_tests = true;  // as `fairdeck audit --input --decks 8`
    const auto r = stats::audit_stream(in, s);
    benchmark::DoNotOptimize(r.decision.biased);
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(shoes_per_input));
  state.counters["decks"] = benchmark::Counter(static_cast<double>(state.iterations()) * shoes_per_input * 8,
                                               benchmark::Counter::kIsRate);
  state.SetLabel("8-deck shoes, card names");
}
BENCHMARK(BM_AuditRecordedShoes)->Unit(benchmark::kMillisecond);

// `fairdeck monitor` on 50,000 machine decks (it never alarms here: measured as a full pass),
// parse included; compare with BM_ParseRecordedDecks/0.
void BM_MonitorDecks(benchmark::State& state) {
  const std::string& input = recorded(false);
  const auto cards = make_deck(deck_spec{});
  for (auto _ : state) {
    std::istringstream in(input);
    stats::deck_reader reader(stats::deck_format::indices, deck_spec{});
    stats::machine_monitor monitor(cards, deck_spec{}, 1, 1e-300);  // alpha tiny: no alarm ends the pass
    std::vector<card_t> order;
    std::string line;
    while (reader.read_line(in, line))
      if (reader.parse_line(line, order)) benchmark::DoNotOptimize(monitor.add(order));
    benchmark::DoNotOptimize(monitor.evidence());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(decks_per_input));
  state.SetLabel("indices");
}
BENCHMARK(BM_MonitorDecks)->Unit(benchmark::kMillisecond);

}  // namespace
