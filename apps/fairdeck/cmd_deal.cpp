// fairdeck deal: shuffle, then deal hold'em or H hands of C cards in dealing order.
#include <memory>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/shuffle/fairness.hpp"
#include "fairdeck/shuffle/shuffle_deck.hpp"
#include "fairdeck/cards/deal.hpp"
#include "options.hpp"

namespace fairdeck::cli::cmd_deal {
namespace {

struct deal_options {
  deck_options deck;
  engine_options engine;
  algorithm_options algorithm;
  std::string game;
  unsigned players = 0;
  unsigned hands = 0;
  unsigned cards = 0;
  bool unicode = false;
  bool json = false;
};

int run_deal(const deal_options& o) {
  const deck_spec spec = o.deck.spec();
  const shuffle_spec algo = o.algorithm.spec();
  const game_request game{o.game == "holdem", o.players, o.hands, o.cards};
  if (!o.game.empty() && !game.holdem) throw usage_error(fmt::format("unknown game '{}' (supported: holdem)", o.game));
  if (!game.holdem && o.players) throw usage_error("--players applies to 'deal holdem'; use --hands H --cards C otherwise");
  if (!game.any()) throw usage_error("deal needs 'holdem --players P' or --hands H --cards C");
  check_game(game, spec);

  const engine_spec eng = o.engine.resolve();
  auto deck = make_deck(spec);
  shuffle_deck(eng, 0, algo, deck);
  if (const shuffle_fairness verdict = assess_fairness(algo, eng.id, deck.size()); !verdict.fair)
    fmt::print(stderr, "fairdeck: warning: {}\n", verdict.warning);
  const format_options fo{o.unicode};
  if (o.json) {
    nlohmann::json j{{"decks", spec.decks}, {"jokers", spec.jokers}, {"algorithm", algo.name()},
                     {"engine", engine_json(eng)}};
    add_game_json(j, game, deck, spec, fo);
    print_json(j);
    return 0;
  }
  print_game(game, deck, spec, fo);
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<deal_options>();
  auto* cmd = app.add_subcommand("deal", "Shuffle and deal: 'deal holdem --players P' or 'deal --hands H --cards C'");
  cmd->add_option("game", o->game, "Game to deal: holdem (omit for --hands/--cards)");
  cmd->add_option("--players", o->players, "Hold'em players (2..22)");
  cmd->add_option("--hands", o->hands, "Number of hands");
  cmd->add_option("--cards", o->cards, "Cards per hand");
  add_deck_options(*cmd, o->deck);
  add_algorithm_option(*cmd, o->algorithm);
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--unicode", o->unicode, "Print suits as \u2663\u2666\u2665\u2660");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli.md)");
  cmd->callback([o, &exit_code] { exit_code = run_deal(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_deal

FAIRDECK_REGISTER_COMMAND(20, fairdeck::cli::cmd_deal::setup)
