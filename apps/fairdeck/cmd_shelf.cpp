// fairdeck shelf: how far from uniform does a casino shelf shuffling machine leave a deck? The
// exact total-variation and separation distances (Diaconis-Fulman-Holmes 2013, Theorem 3.1),
// the card guesser's expected score, and how many recorded decks the audit needs to catch the
// machine. The math lives in shuffle/shelf.hpp and stats/machine.hpp. docs/shelf.md.
#include <cmath>
#include <memory>
#include <string>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/stats/machine.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_shelf {
namespace {

// Simulated decks behind expected_guesses: standard error about 0.007 guesses for 52 cards.
constexpr std::uint64_t guess_simulations = 100'000;

struct shelf_options {
  std::uint64_t shelves = 10, passes = 1, cards = 52;
  double alpha = 0, power = 0;
  bool json = false;
  CLI::Option *alpha_opt = nullptr, *power_opt = nullptr;
};

int run_shelf(const shelf_options& o) {
  if (o.shelves < 1 || o.shelves > shelf_max_shelves)
    throw usage_error(fmt::format("--shelves must be 1..{}, not {}", shelf_max_shelves, o.shelves));
  if (o.passes < 1 || o.passes > shelf_max_passes)
    throw usage_error(fmt::format("--passes must be 1..{}, not {}", shelf_max_passes, o.passes));
  if (o.cards < 1 || o.cards > shelf_mixing_max_cards)
    throw usage_error(fmt::format("--cards must be 1..{}, not {}", shelf_mixing_max_cards, o.cards));
  const bool want_decks = o.alpha_opt->count() || o.power_opt->count();
  if (want_decks && !(o.alpha_opt->count() && o.power_opt->count()))
    throw usage_error("--alpha and --power go together (the level and the power of the audit's guessing test)");
  if (want_decks && !(o.alpha > 0 && o.alpha < 1)) throw usage_error(fmt::format("--alpha {} is outside (0, 1)", o.alpha));
  if (want_decks && !(o.power > 0 && o.power < 1)) throw usage_error(fmt::format("--power {} is outside (0, 1)", o.power));

  const auto d = labelled("--passes", [&] { return shelf_mixing(o.cards, o.shelves, o.passes); });
  guess_moments g;
  {
    progress_bar bar("simulating the card guesser");
    g = shelf_guess_moments(o.cards, o.shelves, o.passes, guess_simulations, bar.control());
  }
  if (g.decks < guess_simulations) return 130;
  const double se = std::sqrt(g.variance / static_cast<double>(g.decks));
  const double uniform = stats::guess_null_mean(o.cards);
  const std::uint64_t decks =
      want_decks ? stats::guess_decks_needed(o.cards, g.mean, g.variance, o.alpha, o.power) : 0;

  if (o.json) {
    nlohmann::json out({{"cards", o.cards},
                        {"shelves", o.shelves},
                        {"passes", o.passes},
                        {"model", "shelf (Diaconis-Fulman-Holmes 2013)"},
                        {"tv", d.total_variation},
                        {"separation", d.separation},
                        {"tv_exact", d.total_variation_digits},
                        {"separation_exact", d.separation_digits},
                        {"expected_guesses", g.mean},
                        {"expected_guesses_se", se},
                        {"expected_guesses_simulated_decks", g.decks},
                        {"uniform_guesses", uniform}});
    if (want_decks) {
      out["alpha"] = o.alpha;
      out["power"] = o.power;
      out["decks_needed"] = decks ? nlohmann::json(decks) : nlohmann::json(nullptr);
    }
    print_json(out);
    return 0;
  }
  const std::string machine =
      o.passes == 1 ? fmt::format("{} shelves", o.shelves) : fmt::format("{} passes of {} shelves", o.passes, o.shelves);
  fmt::print("Shelf shuffling machine, {}, {} cards (Diaconis-Fulman-Holmes model, exact)\n\n", machine, o.cards);
  fmt::print("  total variation  {:.6f}   (exact: {})\n", d.total_variation, d.total_variation_digits);
  fmt::print("  separation       {:.6f}   (exact: {})\n", d.separation, d.separation_digits);
  fmt::print("  card guesser     {:.2f} correct of {} (+/- {:.2f}, {} simulated decks); a uniform deck: {:.2f}\n", g.mean,
             o.cards, 2 * se, g.decks, uniform);
  if (want_decks) {
    if (decks)
      fmt::print("  decks needed     {} recorded decks catch it with the guessing test at level {} with power {}\n", decks,
                 o.alpha, o.power);
    else
      fmt::print("  decks needed     none suffice: the guesser does no better than on a uniform deck\n");
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<shelf_options>();
  auto* cmd = app.add_subcommand("shelf", "Exact distance from uniform of a casino shelf shuffling machine (docs/shelf.md)");
  cmd->add_option("--shelves", o->shelves, "Shelves of the machine, M")->capture_default_str();
  cmd->add_option("--passes", o->passes, "Passes through the machine, K (K passes of M shelves = one pass of 2^(K-1) M^K)")
      ->capture_default_str();
  cmd->add_option("--cards", o->cards, fmt::format("Cards in the deck, 1..{}", shelf_mixing_max_cards))->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/shelf.md)");
  o->alpha_opt = cmd->add_option("--alpha", o->alpha, "With --power: level of the audit's guessing test, adds decks_needed");
  o->power_opt = cmd->add_option("--power", o->power, "With --alpha: the chance of catching the machine, adds decks_needed");
  cmd->callback([o, &exit_code] { exit_code = run_shelf(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_shelf

FAIRDECK_REGISTER_COMMAND(66, fairdeck::cli::cmd_shelf::setup)
