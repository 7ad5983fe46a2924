// Recovering a whole deck from a few known cards when the shuffle's seed space is small:
// the 1999 Planet Poker attack (Arkin, Hill, Marks, Schmid, McGraw, "How We Learned to
// Cheat at Online Poker", Reliable Software Technologies, 1999), generalised to every
// seeded fairdeck engine and the asf1999 / naive / Fisher–Yates loops.
//
// Every seed of a range is replayed; a seed matches when its deck shows every known card
// at its known position. The scan is a filter (SIMD lanes of seeds, threads, one tracked
// card) and every candidate is confirmed with the reference shuffle, so reported seeds are
// exactly the seeds whose `fairdeck shuffle --engine E --seed S --algorithm A` deck fits.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

// Delphi's Randomize seeded RandSeed with the milliseconds since midnight.
inline constexpr std::uint64_t ms_per_day = 86'400'000;

struct known_card {
  std::size_t position;  // 0 = top of the deck, dealt first
  card_t card;
  friend bool operator==(const known_card&, const known_card&) = default;
};

struct attack_spec {
  engine_id engine = engine_id::delphi;
  shuffle_kind algorithm = shuffle_kind::asf1999;
  std::uint64_t first_seed = 0;
  std::uint64_t last_seed = ms_per_day - 1;  // inclusive
  std::size_t deck_size = cards_per_deck;     // cards 0..n-1 in factory order before the shuffle
  std::vector<known_card> known;
  unsigned threads = 0;            // 0: one per hardware thread
  std::size_t max_reported = 1000; // matching seeds kept (the lowest ones); all are counted
  // Set: search this runtime's shuffle (security/runtime_attack.hpp) instead of engine +
  // algorithm; seeds are the runtime's seeding argument, 0..attack_info(runtime).last_seed.
  std::optional<runtimes::runtime_id> runtime;
};

struct attack_result {
  std::vector<std::uint64_t> seeds;  // matching seeds, ascending, at most max_reported
  std::uint64_t matches = 0;         // every match found (may exceed seeds.size())
  std::uint64_t seeds_searched = 0;  // == range size unless stopped early
  bool complete = true;              // false when run_control stopped the scan
  unsigned threads = 1;
  double seconds = 0;
  [[nodiscard]] double seeds_per_second() const noexcept { return seconds > 0 ? static_cast<double>(seeds_searched) / seconds : 0; }
};

// Throws std::invalid_argument with a one-line reason: secure engines (2^256 keys), an
// algorithm other than asf1999 / naive / fisher-yates, no known card, a position outside
// the deck, a duplicate position or card, a seed range past the engine's seed space.
void validate(const attack_spec& spec);

// Scans [first_seed, last_seed]. Progress is reported as seeds done / total.
[[nodiscard]] attack_result run_attack(const attack_spec& spec, const run_control& control = {});

// The deck `seed` produces: factory order shuffled by the reference implementation
// (visit_engine + apply_shuffle, exactly what `fairdeck shuffle` does).
[[nodiscard]] std::vector<card_t> deck_for_seed(engine_id engine, shuffle_kind algorithm, std::uint64_t seed,
                                                std::size_t deck_size = cards_per_deck);

// Seeds expected to match by chance: range size / (n (n-1) ... (n-k+1)) for k known cards.
[[nodiscard]] double expected_false_matches(const attack_spec& spec) noexcept;

// "all32" (0..2^32-1), "day" (every millisecond of a day), "all" (the engine's whole seed
// space when it is at most 2^32), "A..B" (inclusive) or a single seed. Throws
// std::invalid_argument naming the problem.
struct seed_range {
  std::uint64_t first, last;
};
[[nodiscard]] seed_range parse_seed_range(std::string_view text, engine_id engine);
// The same for a runtime: "all" is its whole searchable seed space (runtime_attack.hpp).
[[nodiscard]] seed_range parse_seed_range(std::string_view text, runtimes::runtime_id runtime);

// ---- is a match a recovery? ----
// With k known cards of an n-card deck, each wrong seed fits by chance with probability
// 1/(n (n-1) ... (n-k+1)), so a range of N seeds yields expected_false_matches chance
// matches. At or above this threshold any match is likely a coincidence (with the 1999
// README's five cards over a day, 0.277: about one secure deck in four "recovers" a seed).
inline constexpr double coincidence_threshold = 0.01;

struct attack_verdict {
  double expected_by_chance = 0;
  bool likely_coincidence = false;  // expected_by_chance >= coincidence_threshold: every match is suspect
  bool confident = false;           // exactly one match, complete search, chance matches unlikely
  std::string advice;               // one line: what the result means / what to do next
};
[[nodiscard]] attack_verdict judge(const attack_spec& spec, const attack_result& result);

// ---- parsers for user text (each throws std::invalid_argument naming what is wrong with the
// value, in the value's own terms: the front end adds the option it came from; user text in
// messages is escaped, util/printable.hpp) ----
// "0=Ah,1=Kd,20=7c" (spaces allowed around items; empty items skipped).
[[nodiscard]] std::vector<known_card> parse_known_cards(std::string_view text);
// "HH:MM:SS" or "HH:MM:SS.mmm" -> milliseconds since midnight (Delphi's Randomize seed).
[[nodiscard]] std::uint64_t parse_time_of_day(std::string_view text);
// One algorithm the attack can replay exactly: asf1999, naive or fisher-yates (aliases
// allowed). Compositions ("a+b") and parameters are refused, never truncated to a first step.
[[nodiscard]] shuffle_kind parse_attack_algorithm(std::string_view text);

}  // namespace fairdeck
