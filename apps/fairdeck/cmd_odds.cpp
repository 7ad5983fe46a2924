// fairdeck odds: how often each poker category appears among K-card draws, by Monte Carlo
// (partial shuffle with deck reuse) beside the exact value, or by exact enumeration.
#include <chrono>
#include <memory>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/odds.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_odds {
namespace {

namespace fp = fairdeck::poker;


struct odds_options {
  engine_options engine;
  unsigned cards = 7;
  std::uint64_t trials = 10'000'000;
  unsigned threads = 0;
  bool exact = false;
  bool json = false;
  CLI::Option* trials_opt = nullptr;
};

// Best-first: straight flush down to high card.
constexpr fp::hand_category by_rank_desc(unsigned i) { return static_cast<fp::hand_category>(fp::category_count - 1 - i); }

int run_odds(const odds_options& o) {
  if (o.cards < 5 || o.cards > 7) throw usage_error(fmt::format("--cards must be 5, 6 or 7, got {}", o.cards));
  if (o.exact && (o.trials_opt->count() || o.engine.engine_opt->count() || o.engine.seed_opt->count() ||
                  (o.engine.key_opt && o.engine.key_opt->count())))
    throw usage_error("--exact enumerates every hand; --trials, --engine, --seed and --key do not apply");
  if (!o.exact && o.trials == 0) throw usage_error("--trials must be at least 1");

  const auto start = std::chrono::steady_clock::now();
  fp::category_counts counts;
  std::optional<engine_spec> eng;
  {
    progress_bar bar(o.exact ? "enumerating" : "dealing");
    const run_control rc = bar.control();
    if (o.exact) {
      counts = fp::exact_category_counts(o.cards, o.threads, rc);
    } else {
      eng = o.engine.resolve();
      counts = fp::sample_category_counts(o.cards, o.trials, *eng, o.threads, rc);
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!counts.complete) fmt::print(stderr, "fairdeck: interrupted; results cover the first {} hands only\n", counts.hands);
  // Exact probabilities to compare against (an enumeration: about 0.2 s for 7 cards).
  const fp::category_counts truth = o.exact ? counts : fp::exact_category_counts(o.cards, o.threads);
  const double all = static_cast<double>(fp::choose(52, o.cards));
  const double n = static_cast<double>(counts.hands);

  if (o.json) {
    nlohmann::json cats = nlohmann::json::object();
    for (unsigned i = 0; i < fp::category_count; ++i) {
      const auto c = by_rank_desc(i);
      const auto k = counts.count[static_cast<unsigned>(c)];
      const double p = n > 0 ? static_cast<double>(k) / n : 0.0;
      const auto ci = o.exact ? fp::proportion_interval{p, p} : fp::clopper_pearson(k, counts.hands);
      cats[std::string(fp::category_key(c))] = {
          {"count", k}, {"probability", p}, {"ci_low", ci.low}, {"ci_high", ci.high},
          {"exact_probability", static_cast<double>(truth.count[static_cast<unsigned>(c)]) / all}};
    }
    nlohmann::json j{{"cards", o.cards},     {"trials", counts.hands},       {"method", o.exact ? "exact" : "monte_carlo"},
                     {"complete", counts.complete}, {"categories", cats}};
    if (eng) j["engine"] = engine_json(*eng);
    print_json(j);
    return counts.complete ? 0 : 130;
  }

  if (o.exact)
    fmt::print("All {} {}-card hands, enumerated in {:.2f} s\n\n", counts.hands, o.cards, seconds);
  else
    fmt::print("{} random {}-card hands (partial shuffle, deck reused; engine {}), {:.2f} s, {:.1f} M hands/s\n\n",
               counts.hands, o.cards, info(eng->id).name, seconds, n / seconds / 1e6);
  if (o.exact) {
    fmt::print("{:<16} {:>12} {:>12}\n", "Category", "Count", "Probability");
  } else {
    fmt::print("{:<16} {:>11} {:>11}  {:<25} {:>11}\n", "Category", "Count", "Probability", "95% CI (Clopper-Pearson)",
               "Exact");
  }
  for (unsigned i = 0; i < fp::category_count; ++i) {
    const auto c = by_rank_desc(i);
    const auto k = counts.count[static_cast<unsigned>(c)];
    const double p = n > 0 ? static_cast<double>(k) / n : 0.0;
    if (o.exact) {
      fmt::print("{:<16} {:>12} {:>12.9f}\n", fp::category_label(c), k, p);
    } else {
      const auto ci = fp::clopper_pearson(k, counts.hands);
      const double exact_p = static_cast<double>(truth.count[static_cast<unsigned>(c)]) / all;
      const bool inside = exact_p >= ci.low && exact_p <= ci.high;
      fmt::print("{:<16} {:>11} {:>11.7f}  [{:.7f}, {:.7f}] {:>11.7f}{}\n", fp::category_label(c), k, p, ci.low, ci.high,
                 exact_p, inside ? "" : "  (outside CI)");
    }
  }
  return counts.complete ? 0 : 130;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<odds_options>();
  auto* cmd = app.add_subcommand("odds", "Probability of each poker category among K-card draws (Monte Carlo or exact)");
  cmd->add_option("--cards", o->cards, "Cards per hand: 5, 6 or 7 (best five count)")->capture_default_str();
  o->trials_opt = cmd->add_option("--trials", o->trials, "Monte Carlo hands to deal")->capture_default_str();
  add_threads_option(*cmd, o->threads, "Worker threads (0 = one per core); results do not depend on it");
  cmd->add_flag("--exact", o->exact, "Enumerate every hand instead of sampling");
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-odds.md)");
  cmd->callback([o, &exit_code] { exit_code = run_odds(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_odds

FAIRDECK_REGISTER_COMMAND(60, fairdeck::cli::cmd_odds::setup)
