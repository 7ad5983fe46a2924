// fairdeck shuffle: print a shuffled deck, top card first.
#include <memory>

#include <fmt/format.h>

#include "card_output.hpp"
#include "command.hpp"
#include "fairdeck/shuffle/fairness.hpp"
#include "fairdeck/shuffle/shuffle_deck.hpp"
#include "options.hpp"

namespace fairdeck::cli {
namespace {

struct shuffle_options {
  deck_options deck;
  engine_options engine;
  algorithm_options algorithm;
  bool unicode = false;
  bool json = false;
  bool indices = false;
};

int run_shuffle(const shuffle_options& o) {
  const deck_spec spec = o.deck.spec();
  const shuffle_spec algo = o.algorithm.spec();
  const engine_spec eng = o.engine.resolve();
  auto deck = make_deck(spec);
  shuffle_deck(eng, 0, algo, deck);
  const shuffle_fairness verdict = assess_fairness(algo, eng.id, deck.size());
  if (!verdict.fair) fmt::print(stderr, "fairdeck: warning: {}\n", verdict.warning);

  if (o.json) {
    print_json({{"decks", spec.decks}, {"jokers", spec.jokers}, {"n", deck.size()}, {"algorithm", algo.name()},
                {"fair", verdict.fair}, {"engine", engine_json(eng)}, {"cards", cards_json(deck, spec, {o.unicode})}, {"indices", deck}});
  } else if (o.indices) {
    fmt::print("{}\n", fmt::join(deck, " "));
  } else {
    fmt::print("{}\n", format_cards(deck, spec, {o.unicode}));
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<shuffle_options>();
  auto* cmd = app.add_subcommand("shuffle", "Shuffle a deck or shoe and print it, top card first");
  add_deck_options(*cmd, o->deck);
  add_algorithm_option(*cmd, o->algorithm);
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--unicode", o->unicode, "Print suits as \u2663\u2666\u2665\u2660");
  cmd->add_flag("--indices", o->indices, "Print card indices (0..n-1) instead of names");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli.md)");
  cmd->callback([o, &exit_code] { exit_code = run_shuffle(*o); });
}

}  // namespace
}  // namespace fairdeck::cli

FAIRDECK_REGISTER_COMMAND(10, fairdeck::cli::setup)
