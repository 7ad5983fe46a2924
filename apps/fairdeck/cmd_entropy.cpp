// fairdeck entropy: how many deals a game has and how many each engine can reach
// (docs/entropy.md, JSON schema in docs/cli-entropy.md).
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/security/seed_space.hpp"
#include "fairdeck/util/printable.hpp"
#include "options.hpp"

namespace fairdeck::cli::cmd_entropy {
namespace {

struct entropy_options {
  deck_options deck;
  std::string game = "deck";
  unsigned players = 0;
  std::uint64_t cards = 0;
  std::string engine;
  std::string algorithm;
  bool json = false;
  CLI::Option* players_opt = nullptr;
  CLI::Option* cards_opt = nullptr;
};

// 2^bits as "5.9e39" (bits may exceed a double's range).
std::string power_of_two(double bits) {
  const double decimal = bits * std::log10(2.0);
  const double exponent = std::floor(decimal);
  return fmt::format("{:.2f}e{}", std::pow(10.0, decimal - exponent), static_cast<long long>(exponent));
}

int run_entropy(const entropy_options& o) {
  const deck_spec deck = o.deck.spec();
  outcome_space space;
  if (o.game == "holdem") {
    if (!o.players_opt->count()) throw usage_error("--game holdem needs --players P");
    if (o.cards_opt->count()) throw usage_error("--cards applies to --game deck (hold'em deals 2P + 5 seen cards)");
    space = labelled("--players", [&] { return holdem_outcomes(deck, o.players); });
  } else if (o.game == "deck") {
    if (o.players_opt->count()) throw usage_error("--players applies to --game holdem");
    if (o.cards_opt->count() && o.cards == 0) throw usage_error("--cards must be at least 1");
    space = labelled("--cards", [&] { return deck_outcomes(deck, o.cards); });
  } else {
    throw usage_error(fmt::format("unknown game '{}' (choose deck or holdem)", o.game));
  }
  auto rows = engine_reachability(space);
  auto runtime_rows = runtime_reachabilities(space);
  if (!o.algorithm.empty()) {
    std::erase_if(runtime_rows, [&](const runtime_reachability& r) { return r.name != o.algorithm; });
    if (runtime_rows.empty()) {
      std::string names;
      for (const auto& rt : runtimes::runtime_catalog()) names += fmt::format("{}{}", names.empty() ? "" : ", ", rt.name);
      throw usage_error(fmt::format("--algorithm '{}' is not a runtime shuffle (choose {})", printable(o.algorithm), names));
    }
    if (o.engine.empty()) rows.clear();
  } else if (!o.engine.empty()) {
    runtime_rows.clear();
  }
  if (!o.engine.empty()) {
    std::erase_if(rows, [&](const reachability& r) { return r.name != o.engine; });
    if (rows.empty()) (void)labelled("--engine", [&] { return parse_engine_name(o.engine); });
  }
  const std::string what = space.game == game_kind::holdem
                               ? fmt::format("hold'em, {} players ({} cards seen: hole pairs and flop unordered)",
                                             space.players, space.cards_dealt)
                               : fmt::format("{} of {} cards in order", space.cards_dealt, deck.size());
  const bool exact = space.ordered_bits <= 4096;
  if (o.json) {
    nlohmann::json engines = nlohmann::json::array();
    for (const auto& r : rows)
      engines.push_back({{"name", r.name},
                         {"secure", r.secure},
                         {"seed_bits", r.seed_bits},
                         {"state_bits", r.state_bits},
                         {"log2_reachable", r.log2_reachable},
                         {"log2_fraction_reachable", r.log2_fraction},
                         {"fraction_reachable", std::exp2(r.log2_fraction)},
                         {"every_outcome", r.every_outcome},
                         {"verdict", r.verdict}});
    nlohmann::json runtimes_json = nlohmann::json::array();
    for (const auto& r : runtime_rows)
      runtimes_json.push_back({{"name", r.name},
                               {"runtime", r.runtime},
                               {"code", r.code},
                               {"default_seeding", r.default_seeding},
                               {"default_seed_bits", r.default_seed_bits},
                               {"explicit_seed_bits", r.explicit_seed_bits},
                               {"log2_reachable_default", r.log2_reachable_default},
                               {"log2_reachable_explicit", r.log2_reachable_explicit},
                               {"log2_fraction_reachable_default", r.log2_fraction_default},
                               {"log2_fraction_reachable_explicit", r.log2_fraction_explicit},
                               {"attack_searchable", r.searchable},
                               {"attack", r.attack}});
    nlohmann::json j{{"decks", deck.decks},
                     {"jokers", deck.jokers},
                     {"n", deck.size()},
                     {"game", o.game},
                     {"cards_dealt", space.cards_dealt},
                     {"ordered_bits", space.ordered_bits},
                     {"distinguishable_bits", space.distinguishable_bits},
                     {"engines", engines},
                     {"runtimes", runtimes_json}};
    if (space.game == game_kind::holdem) j["players"] = space.players;
    if (exact) j["ordered_count"] = falling_factorial_decimal(deck.size(), space.cards_dealt);
    print_json(j);
    return 0;
  }
  fmt::print("shoe: {} deck(s), {} joker(s), {} cards; deal: {}\n", deck.decks, deck.jokers, deck.size(), what);
  fmt::print("ordered arrangements:     2^{:.2f} ({})\n", space.ordered_bits, power_of_two(space.ordered_bits));
  fmt::print("distinguishable outcomes: 2^{:.2f} ({})\n\n", space.distinguishable_bits,
             power_of_two(space.distinguishable_bits));
  if (!rows.empty()) {
    fmt::print("{:<15} {:>9} {:>10} {:>14} {:>18}  {}\n", "engine", "seed bits", "state bits", "log2 reachable",
               "fraction reachable", "verdict");
    for (const auto& r : rows)
      fmt::print("{:<15} {:>9.2f} {:>10} {:>14.2f} {:>18}  {}\n", r.name, r.seed_bits, r.state_bits, r.log2_reachable,
                 r.log2_fraction == 0 ? std::string("1") : fmt::format("2^{:.2f}", r.log2_fraction), r.verdict);
  }
  const auto fraction = [](double f) { return f == 0 ? std::string("1") : fmt::format("2^{:.2f}", f); };
  if (!o.algorithm.empty()) {
    for (const auto& r : runtime_rows) {
      fmt::print("{} ({}): {}\n", r.name, r.runtime, r.code);
      fmt::print("  explicit seeding: 2^{:.2f} seeds reach 2^{:.2f} of 2^{:.2f} outcomes (fraction {})\n",
                 r.explicit_seed_bits, r.log2_reachable_explicit, space.distinguishable_bits,
                 fraction(r.log2_fraction_explicit));
      fmt::print("  default seeding:  {}: 2^{:.2f} seeds reach 2^{:.2f} of 2^{:.2f} outcomes (fraction {})\n",
                 r.default_seeding, r.default_seed_bits, r.log2_reachable_default, space.distinguishable_bits,
                 fraction(r.log2_fraction_default));
      fmt::print("  attack: {}{}\n", r.searchable ? "fairdeck attack --algorithm " + r.name + ": " : "not practical: ",
                 r.attack);
    }
  } else if (!runtime_rows.empty()) {
    fmt::print("\n{:<25} {:>13} {:>14} {:>12} {:>13}  {}\n", "runtime shuffle", "explicit bits", "reach explicit",
               "default bits", "reach default", "default seeding");
    for (const auto& r : runtime_rows)
      fmt::print("{:<25} {:>13.2f} {:>14} {:>12.2f} {:>13}  {}\n", r.name, r.explicit_seed_bits,
                 fraction(r.log2_fraction_explicit), r.default_seed_bits, fraction(r.log2_fraction_default),
                 r.default_seeding);
    fmt::print("(fairdeck entropy --algorithm NAME: one runtime in full, with what an attack takes)\n");
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<entropy_options>();
  auto* cmd = app.add_subcommand("entropy", "Count a game's outcomes (bits) and how many each engine can reach");
  add_deck_options(*cmd, o->deck);
  cmd->add_option("--game", o->game, "deck (ordered cards) or holdem")->capture_default_str();
  o->players_opt = cmd->add_option("--players", o->players, "Hold'em players (2..22)");
  o->cards_opt = cmd->add_option("--cards", o->cards, "Cards dealt in order (--game deck; default: the whole shoe)");
  cmd->add_option("--engine", o->engine, "Show only this engine's row");
  cmd->add_option("--algorithm", o->algorithm,
                  "Show only this runtime shuffle (php, java, dotnet-framework, go, node, ...): its seed spaces and attack");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-entropy.md)");
  cmd->callback([o, &exit_code] { exit_code = run_entropy(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_entropy

FAIRDECK_REGISTER_COMMAND(59, fairdeck::cli::cmd_entropy::setup)
