// A whole fairness audit: shuffle fresh canonical decks with each algorithm x engine pair,
// count (stats/counts.hpp), test (stats/tests.hpp) and decide. Also audits decks produced by
// any other system, read as text (stats/deck_reader.hpp). Reports progress and stops early
// through run_control; a stopped audit keeps and tests what it counted.
#pragma once

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/stats/counts.hpp"
#include "fairdeck/stats/deck_reader.hpp"
#include "fairdeck/stats/tests.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::stats {

// Work is cut into chunks of this many deals; chunk k draws from engine stream k
// (visit_engine), so the counts depend on the seed and trials only, never on --threads.
inline constexpr std::uint64_t audit_chunk_deals = std::uint64_t{1} << 16;

struct audit_subject {
  shuffle_spec algorithm;
  engine_spec engine;
};

struct audit_settings {
  deck_spec deck{};
  std::optional<std::size_t> cards;  // audit only the first N cards of `deck` (default: all)
  std::uint64_t trials = 1'000'000;  // deals per subject
  unsigned threads = 0;              // 0: one per hardware thread
  double alpha = 1e-4;               // false "biased" rate per subject (Bonferroni over its tests)
};

struct audit_result {
  std::string algorithm;               // shuffle_spec::name(), or "input" for external decks
  std::string engine;                  // engine name, or the input's label
  std::optional<bool> algorithm_fair;  // what the catalogue claims, when known
  deck_spec deck{};
  std::vector<card_t> cards;           // the audited deck in canonical order (card ids of `deck`)
  std::uint64_t requested_trials = 0;  // 0 for external input (unknown)
  bool complete = true;                // false when stopped early
  audit_counts counts;
  std::vector<test_result> tests;
  effect_size effect;
  verdict decision;
  // Recorded decks only (audit_stream): decks per guessing score 0..n (stats/machine.hpp),
  // for reports to set against the null law; empty for simulated decks.
  std::vector<std::uint64_t> guess_histogram;
  std::vector<double> guess_null;  // that null law, P(score = k) (simulated for shoes)
  unsigned shoe_copies = 1;        // > 1: a shoe of indistinguishable copies (guess_null simulated)
};

// Deals `trials` fresh canonical decks of n cards with `subject` and counts them, on
// `threads` threads (0: hardware). Progress is reported per finished chunk as
// (deals done, trials); a stop request discards unfinished chunks. Throws
// std::invalid_argument when the algorithm cannot apply to n cards.
[[nodiscard]] audit_counts count_deals(const audit_subject& subject, std::size_t n, std::uint64_t trials,
                                       unsigned threads, const run_control& control = {});

// Fills tests, effect and decision from counts/cards/deck.
void analyze(audit_result& result, double alpha);

// The first `settings.cards` cards of the shoe, validated (throws std::invalid_argument).
[[nodiscard]] std::vector<card_t> audited_cards(const audit_settings& settings);

// Audits each subject in turn. Progress covers the whole run. When stopped, the subject in
// progress is returned with complete = false and later subjects are left out.
[[nodiscard]] std::vector<audit_result> run_audit(std::span<const audit_subject> subjects,
                                                  const audit_settings& settings, const run_control& control = {});

// Audits decks read from `in`, one per line (see deck_reader), streaming: memory does not
// grow with the number of decks. Consecutive lines form the serial test's chain. With
// input_settings::machine_tests, recorded decks also get the machine tests of stats/machine.hpp (guessing, turning points, colour
// changes), relative to the order each deck went in: new-deck order, or the matching line of
// `before` (same format, same cards; comment lines skipped in both).
// Throws deck_input_error (with the line number) on the first malformed line.
struct input_settings {
  deck_format format = deck_format::auto_detect;
  deck_spec deck{};                  // shoe the card text refers to
  std::optional<std::size_t> cards;  // expected deck size (default: the first deck's)
  double alpha = 1e-4;
  std::string label = "input";       // reported as the engine column
  // Called for every deck read: `order` (top first, indices into `cards`) and the deck's
  // cards in canonical order. Lets other tallies (fairdeck certify) share the single pass.
  std::function<void(std::span<const card_t> order, std::span<const card_t> cards)> on_deck;
  // The machine tests of stats/machine.hpp (guessing, turning points, colour changes) and the
  // guessing histogram. Off by default so that other callers' results stay as they were (the
  // service's table audit must equal audit_stream's); `fairdeck audit --input` turns them on.
  bool machine_tests = false;
  std::istream* before = nullptr;    // the order each deck went in, one per line (default: new-deck order)
  // A shoe of deck.decks >= 2 decks whose copies are indistinguishable (deck_reader's shoe
  // mode). The card-level tests see each face's copies numbered at random (xoshiro256++, seed
  // 1: reproducible), which turns a uniform shoe into a uniform permutation of its 52 D cards,
  // so their null laws stay exact; the machine tests read the faces (stats/machine.hpp).
  bool shoe = false;
};
[[nodiscard]] audit_result audit_stream(std::istream& in, const input_settings& settings,
                                        const run_control& control = {});

}  // namespace fairdeck::stats
