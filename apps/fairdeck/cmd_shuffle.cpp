// fairdeck shuffle: print a shuffled deck, top card first.
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/runtimes/algorithm.hpp"
#include "fairdeck/runtimes/audit.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/shuffle/fairness.hpp"
#include "fairdeck/shuffle/shuffle_deck.hpp"
#include "options.hpp"
#include "seed_option.hpp"

namespace fairdeck::cli::cmd_shuffle {
namespace {

struct shuffle_options {
  deck_options deck;
  engine_options engine;
  algorithm_options algorithm;
  bool unicode = false;
  bool json = false;
  bool indices = false;
};

// --algorithm NAME of a runtime shuffle (php, python, ...: fairdeck/runtimes): the runtime's own
// generator, seeded with --seed S (or a fresh seed, printed), shuffles the list 0..n-1 exactly
// as the runtime does, and the shoe's cards follow that list.
int run_runtime_shuffle(const shuffle_options& o, runtimes::runtime_id id) {
  const auto& inf = runtimes::info(id);
  const auto given = [](const CLI::Option* opt) { return opt && opt->count() > 0; };
  if (given(o.engine.engine_opt) || given(o.engine.key_opt) || given(o.engine.key_file_opt))
    throw usage_error(fmt::format("--algorithm {} brings its own generator ({}): give --seed, not --engine or --key",
                                  inf.name, inf.runtime));
  const deck_spec spec = o.deck.spec();
  const bool seeded = given(o.engine.seed_opt);
  allow_negative_seed(o.engine, id == runtimes::runtime_id::java);  // a signed seed: Java's only
  const std::uint64_t seed = seeded ? o.engine.seed : runtimes::fresh_seed(id);
  const auto shoe = make_deck(spec);
  std::vector<std::uint32_t> list(shoe.size());
  std::iota(list.begin(), list.end(), 0u);
  labelled("--seed", [&] { return runtimes::runtime_shuffler(id, seed); }).shuffle(list);
  std::vector<card_t> deck(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) deck[i] = shoe[list[i]];
  const double orders_bits = std::lgamma(static_cast<double>(deck.size()) + 1) / std::log(2.0);
  const std::string reach = inf.explicit_seed_bits < orders_bits
                                ? fmt::format("its seeds reach at most 2^{:.0f} of the 2^{:.1f} orders of {} cards",
                                              inf.explicit_seed_bits, orders_bits, deck.size())
                                : std::string("whoever learns S knows the deck");
  fmt::print(stderr, "fairdeck: note: --algorithm {} runs {}'s `{}` with S = {}{}: reproducible and NOT secure ({})\n",
             inf.name, inf.runtime, inf.code, seed, seeded ? "" : " (fresh; repeat with --seed)", reach);
  const bool fair = runtimes::idiom_exact(id);
  if (!fair) fmt::print(stderr, "fairdeck: warning: the {} idiom is biased; use it only to study bias\n", inf.name);
  if (o.json) {
    const nlohmann::json engine{{"name", inf.name}, {"runtime", inf.runtime}, {"code", inf.code},
                                {"secure", false}, {"reproducible", true}, {"seed", seed}};
    print_json({{"decks", spec.decks}, {"jokers", spec.jokers}, {"n", deck.size()}, {"algorithm", inf.name},
                {"fair", fair}, {"engine", engine}, {"cards", cards_json(deck, spec, {o.unicode})}, {"indices", deck}});
  } else if (o.indices) {
    fmt::print("{}\n", fmt::join(deck, " "));
  } else {
    fmt::print("{}\n", format_cards(deck, spec, {o.unicode}));
  }
  return 0;
}

int run_shuffle(const shuffle_options& o) {
  const auto choice = labelled("--algorithm", [&] { return runtimes::resolve_algorithm(o.algorithm.algorithm); });
  if (const auto* rt = std::get_if<runtimes::runtime_id>(&choice)) return run_runtime_shuffle(o, *rt);
  const deck_spec spec = o.deck.spec();
  const shuffle_spec& algo = std::get<shuffle_spec>(choice);
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
  {  // shuffle also takes the runtime shuffles (fairdeck/runtimes), named from their catalogue
    std::string names;
    for (const auto& r : runtimes::runtime_catalog()) names += fmt::format("{}{}", names.empty() ? "" : ", ", r.name);
    auto* opt = cmd->get_option("--algorithm");
    opt->description(fmt::format("{}; or the shuffle a runtime ships, bit for bit, seeded with --seed: {}",
                                 opt->get_description(), names));
  }
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--unicode", o->unicode, "Print suits as \u2663\u2666\u2665\u2660");
  cmd->add_flag("--indices", o->indices, "Print card indices (0..n-1) instead of names");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli.md)");
  cmd->callback([o, &exit_code] { exit_code = run_shuffle(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_shuffle

FAIRDECK_REGISTER_COMMAND(10, fairdeck::cli::cmd_shuffle::setup)
