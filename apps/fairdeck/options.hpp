// Options shared by several subcommands, so each is spelled and validated in one place.
#pragma once

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck::cli {

struct deck_options {
  unsigned decks = 1;
  unsigned jokers = 0;
  [[nodiscard]] deck_spec spec() const;  // validated; throws usage_error
};
void add_deck_options(CLI::App& cmd, deck_options& o);

struct engine_options {
  std::string engine;
  std::uint64_t seed = 0;
  std::string key;
  std::string key_file;
  CLI::Option* engine_opt = nullptr;
  CLI::Option* key_file_opt = nullptr;
  CLI::Option* seed_opt = nullptr;
  CLI::Option* key_opt = nullptr;
  // Validated spec; prints the one-line "reproducible, not secure" notice on stderr.
  [[nodiscard]] engine_spec resolve() const;
};
void add_engine_options(CLI::App& cmd, engine_options& o, bool with_key = true);

struct algorithm_options {
  std::string algorithm = "fisher-yates";
  [[nodiscard]] shuffle_spec spec() const;
};
void add_algorithm_option(CLI::App& cmd, algorithm_options& o);

// The one --threads rule of every command: 0 (one per hardware thread) or 1..max_threads;
// anything larger is a usage error, never a silent cap.
using fairdeck::max_threads;  // util/parallel.hpp: the library applies the same rule
CLI::Option* add_threads_option(CLI::App& cmd, unsigned& threads, const std::string& description);

// {"name", "secure", "reproducible", "seed"?} for --json output.
[[nodiscard]] nlohmann::json engine_json(const engine_spec& spec);

// Writes JSON (pretty, newline-terminated) to stdout.
void print_json(const nlohmann::json& j);

}  // namespace fairdeck::cli
