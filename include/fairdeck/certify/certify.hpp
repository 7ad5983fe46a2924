// A whole certification run (`fairdeck certify`): the battery on an engine's raw words or
// scaled draws, on outside raw/scaled data, the deck audit and dealt-outcome tests on decks,
// hand categories, hole cards, seats and boards on dealt hands (hands.hpp), outcomes of any
// game against declared probabilities (outcomes.hpp); one Holm decision over every test
// (result.hpp); data volumes and SHA-256 of every input file. Methods, power table and the
// lab checklist: docs/certify.md.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/certify/battery.hpp"
#include "fairdeck/certify/power_plan.hpp"
#include "fairdeck/certify/result.hpp"
#include "fairdeck/certify/sources.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::certify {

struct certify_plan {
  // Engine under test (raw words, or scaled draws draw_below(engine_range) when > 0).
  std::optional<engine_spec> engine;
  std::uint64_t engine_values = 0;
  std::uint64_t engine_range = 0;
  // Known-bad generator (power demonstration).
  std::optional<known_bad> bad;
  std::uint64_t bad_seed = 1;
  std::uint64_t bad_values = 0;
  // Outside data; "-" reads stdin. Pipes, FIFOs, /dev/stdin and /dev/fd/N are read as streams.
  std::optional<std::string> raw_path;
  unsigned word_bits = 64;
  std::optional<std::string> scaled_path;
  std::uint64_t range = 0;
  std::optional<std::string> decks_path;
  stats::deck_format deck_format = stats::deck_format::auto_detect;
  deck_spec deck{};
  std::optional<std::string> hands_path;
  // Outcomes of any game (outcomes.hpp); the categories from the file's header unless given here.
  std::optional<std::string> outcomes_path;
  std::optional<std::string> outcome_categories;
  std::uint64_t max_values = UINT64_MAX;  // cap on values read from raw/scaled files
  double alpha = 0.01;
  battery_settings settings{};
  bool size_birthday_to_volume = true;  // battery_settings::for_volume when the volume is known
};

struct input_record {
  std::string family;       // "raw", "scaled", "decks", "hands", "outcomes"
  std::string source;       // "engine", "file", "stdin", "pipe" (a named non-regular input), "known-bad"
  std::string name;         // engine name, path, generator name
  std::string description;  // e.g. the engine's seeding, the stream's word size
  std::uint64_t volume = 0; // values / decks / hands read
  std::string unit;
  std::optional<std::string> sha256{};  // files: the file; stdin, pipes: the bytes read; none for generated data
  std::uint64_t bytes = 0;  // raw input: bytes tested
};

struct certification {
  std::vector<input_record> inputs;
  std::vector<test_result> tests;
  decision verdict;
  bool complete = true;  // false when stopped early (the verdict is then at best invalid)
  std::optional<stats::audit_result> deck_audit;  // for the audit's charts
  // What this run could detect (power_plan.hpp) at alpha / (valid tests): the report's first line.
  power_plan power{};
};

// The engine's seeding in words ("ChaCha20 keyed from 256 bits of OS entropy ...; seed 7,
// reproducible, not secure").
[[nodiscard]] std::string seeding_description(const engine_spec& engine);

// Runs everything the plan names. Throws std::invalid_argument for an empty or inconsistent
// plan, std::runtime_error for unreadable or malformed input (naming the line or byte).
[[nodiscard]] certification run_certification(const certify_plan& plan, const run_control& control = {});

}  // namespace fairdeck::certify
