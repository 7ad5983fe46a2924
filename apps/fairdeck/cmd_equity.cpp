// fairdeck equity: hold'em win/tie/equity for 2..10 hands or ranges, exact when feasible.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/poker/equity_plan.hpp"
#include "fairdeck/poker/odds.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_equity {
namespace {

namespace fp = fairdeck::poker;

struct equity_options {
  engine_options engine;
  std::vector<std::string> hands;
  std::string board;
  std::string dead;
  std::uint64_t trials = fp::default_equity_trials;
  unsigned threads = 0;
  bool exact = false;
  bool json = false;
  std::string game = "holdem";
  CLI::Option* trials_opt = nullptr;
};

// The library's equity plan (poker/equity_plan.hpp), its problems worded with the options.
[[noreturn]] void refuse(fp::equity_problem problem, const fp::equity_plan& plan) {
  switch (problem) {
    case fp::equity_problem::player_count:
      throw usage_error(fmt::format("equity needs {} to {} hands or ranges, got {}", fp::equity_min_players,
                                    fp::equity_max_players, plan.players));
    case fp::equity_problem::exact_and_trials: throw usage_error("--exact and --trials exclude each other");
    case fp::equity_problem::zero_trials: throw usage_error("--trials must be at least 1");
    case fp::equity_problem::exact_too_costly:
      throw usage_error(fmt::format("exact enumeration would need about {:.2g} hand evaluations (limit {:.0g}); "
                                    "drop --exact to use Monte Carlo",
                                    plan.work, fp::max_exact_work));
  }
  throw std::logic_error("equity: unknown problem");
}

fp::equity_plan make_plan(const equity_options& o) {
  fp::equity_request rq;
  rq.game = *fp::find_equity_game(o.game);  // CLI11 checked the name
  rq.hands = o.hands;
  rq.exact = o.exact ? fp::exact_mode::always : fp::exact_mode::automatic;
  if (o.trials_opt->count()) rq.trials = o.trials;
  if (const auto problem = fp::equity_request_problem(rq)) {
    fp::equity_plan unchecked;
    unchecked.players = o.hands.size();
    refuse(*problem, unchecked);
  }
  rq.board = labelled("--board", [&] { return fp::parse_card_run(o.board); });
  rq.dead = labelled("--dead", [&] { return fp::parse_card_run(o.dead); });
  fp::equity_plan p = fp::plan_equity(rq);
  if (p.problem) refuse(*p.problem, p);
  return p;
}

int run_equity(const equity_options& o) {
  const fp::equity_plan pl = make_plan(o);
  const bool exact = pl.exact;
  const auto& in = pl.holdem;
  const auto start = std::chrono::steady_clock::now();
  fp::equity_result r;
  std::optional<engine_spec> eng;
  {
    progress_bar bar(exact ? "enumerating" : "dealing");
    if (!exact) eng = o.engine.resolve();
    try {
      r = fp::run_equity(pl, eng, o.threads, bar.control());
    } catch (const fp::ranges_rarely_fit_error& e) {
      throw std::runtime_error(fmt::format("{}; try --exact", e.what()));
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.complete) fmt::print(stderr, "fairdeck: interrupted; results cover {} outcomes only\n", r.outcomes);
  const bool weighted = pl.weighted();
  const bool omaha = pl.is_omaha();

  if (o.json) {
    nlohmann::json players = nlohmann::json::array();
    for (std::size_t p = 0; p < pl.players; ++p) {
      const auto& t = r.players[p];
      nlohmann::json pj{{"hand", o.hands[p]},  {"combos", pl.combos(p)}, {"wins", t.wins},
                        {"ties", t.ties},      {"win", fp::win_fraction(r, p)}, {"tie", fp::tie_fraction(r, p)},
                        {"equity", fp::equity_share(r, p)}};
      if (weighted) pj["weights"] = pl.combo_weight(p);
      if (!exact) {
        pj["stderr"] = fp::equity_stderr(r, p);
        const auto wi = fp::clopper_pearson(t.wins, r.outcomes);
        const auto ei = fp::equity_interval(r, p);
        pj.update({{"win_ci_low", wi.low}, {"win_ci_high", wi.high}, {"equity_ci_low", ei.low}, {"equity_ci_high", ei.high}});
      }
      players.push_back(pj);
    }
    nlohmann::json j{{"method", exact ? "exact" : "monte_carlo"}, {"board", cards_json(in.board)},
                     {"dead", cards_json(in.dead)},              {"outcomes", r.outcomes},
                     {"complete", r.complete},                   {"players", players}};
    if (weighted) j["weights"] = true;
    if (omaha) j["game"] = o.game;
    if (exact) j["assignments"] = r.assignments;
    else j["trials"] = r.outcomes, j["engine"] = engine_json(*eng);
    print_json(j);
    return r.complete ? 0 : 130;
  }

  if (omaha) fmt::print("Game: {}\n", o.game);
  if (!in.board.empty()) fmt::print("Board: {}\n", format_cards(in.board, {}));
  if (!in.dead.empty()) fmt::print("Dead:  {}\n", format_cards(in.dead, {}));
  if (exact)
    fmt::print("Exact: {} outcomes ({} hole-card assignments x boards), {:.2f} s\n\n", r.outcomes, r.assignments, seconds);
  else
    fmt::print("Monte Carlo: {} trials (engine {}), {:.2f} s; intervals are 95%\n\n", r.outcomes, info(eng->id).name,
               seconds);
  std::size_t width = 4;
  for (const auto& h : o.hands) width = std::max(width, h.size());
  fmt::print("{:<6} {:<{}} {:>6} {:>9} {:>9} {:>9}{}\n", "Player", "Hand", width, "Combos", "Win", "Tie", "Equity",
             exact ? "" : "   95% CI (equity)");
  for (std::size_t p = 0; p < pl.players; ++p) {
    fmt::print("{:<6} {:<{}} {:>6} {:>8.4f}% {:>8.4f}% {:>8.4f}%", p + 1, o.hands[p], width, pl.combos(p),
               100 * fp::win_fraction(r, p), 100 * fp::tie_fraction(r, p), 100 * fp::equity_share(r, p));
    if (!exact) {
      const auto ei = fp::equity_interval(r, p);
      fmt::print("   [{:.4f}%, {:.4f}%]", 100 * ei.low, 100 * ei.high);
    }
    fmt::print("\n");
  }
  return r.complete ? 0 : 130;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<equity_options>();
  auto* cmd = app.add_subcommand("equity", "Hold'em equity of 2-10 hands or ranges (exact when feasible, else Monte Carlo)");
  cmd->add_option("hands", o->hands, "Hands or ranges, one per player: AhKh, \"Ah Kh\", QQ+, AKs, A5s-A2s, KQo, random, lists")
      ->required();
  cmd->add_option("--board", o->board, "Known community cards (0-5), e.g. \"7c 8d 9h\"");
  cmd->add_option("--dead", o->dead, "Cards known to be out of play");
  o->trials_opt = cmd->add_option("--trials", o->trials, "Monte Carlo deals (forces Monte Carlo)")->capture_default_str();
  add_threads_option(*cmd, o->threads, "Worker threads (0 = one per core); results do not depend on it");
  cmd->add_flag("--exact", o->exact, "Enumerate every deal even if slow");
  const auto games = fp::equity_game_names();
  cmd->add_option("--game", o->game, "holdem, omaha (PLO4), omaha5 (PLO5), omaha-hilo or omaha5-hilo (8 or better)")
      ->check(CLI::IsMember(std::vector<std::string>(games.begin(), games.end())))
      ->capture_default_str();
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-equity.md)");
  cmd->callback([o, &exit_code] { exit_code = run_equity(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_equity

FAIRDECK_REGISTER_COMMAND(61, fairdeck::cli::cmd_equity::setup)
