// fairdeck equity: hold'em win/tie/equity for 2..10 hands or ranges, exact when feasible.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/odds.hpp"
#include "fairdeck/poker/omaha.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli {
namespace {

namespace fp = fairdeck::poker;


// Exact runs are chosen automatically up to this cost (exact_equity_cost: about one
// nanosecond of one core per unit, so about half a second on two cores); --exact allows up
// to the hard limit.
constexpr double auto_exact_work = 1e9;
constexpr double max_exact_work = 1e12;

struct equity_options {
  engine_options engine;
  std::vector<std::string> hands;
  std::string board;
  std::string dead;
  std::uint64_t trials = 1'000'000;
  unsigned threads = 0;
  bool exact = false;
  bool json = false;
  std::string game = "holdem";
  CLI::Option* trials_opt = nullptr;
};

std::vector<card_t> known_cards(const std::string& text, std::string_view what) {
  return labelled(what, [&] { return fp::parse_card_run(text); });
}

// Omaha: fixed hands of 4 or 5 cards (docs/cli-equity.md#omaha).
struct omaha_run {
  fp::omaha_input in;
  std::vector<std::size_t> combos;
};

omaha_run parse_omaha(const equity_options& o) {
  omaha_run run;
  run.in.rules = {o.game.starts_with("omaha5") ? 5u : 4u, o.game.ends_with("-hilo")};
  for (std::size_t p = 0; p < o.hands.size(); ++p) {
    run.in.hands.push_back(labelled(fmt::format("player {}", p + 1), [&] { return fp::parse_card_run(o.hands[p]); }));
    run.combos.push_back(1);
  }
  run.in.board = known_cards(o.board, "--board");
  run.in.dead = known_cards(o.dead, "--dead");
  fp::check_omaha_input(run.in);
  return run;
}

int run_equity(const equity_options& o) {
  if (o.hands.size() < fp::equity_min_players || o.hands.size() > fp::equity_max_players)
    throw usage_error(fmt::format("equity needs {} to {} hands or ranges, got {}", fp::equity_min_players,
                                  fp::equity_max_players, o.hands.size()));
  if (o.exact && o.trials_opt->count()) throw usage_error("--exact and --trials exclude each other");
  if (o.trials_opt->count() && o.trials == 0) throw usage_error("--trials must be at least 1");
  const bool omaha = o.game != "holdem";
  fp::equity_input in;
  omaha_run om;
  if (omaha) {
    om = parse_omaha(o);
    in.board = om.in.board, in.dead = om.in.dead;
    in.ranges.resize(om.in.hands.size());  // output loops run over players
    in.weights.resize(om.in.hands.size());
  }
  for (std::size_t p = 0; p < o.hands.size() && !omaha; ++p) {
    auto wr = labelled(fmt::format("player {}", p + 1), [&] { return fp::parse_weighted_range(o.hands[p]); });
    in.ranges.push_back(std::move(wr.combos));
    in.weights.push_back(std::move(wr.weights));
  }
  if (!omaha) {
    in.board = known_cards(o.board, "--board");
    in.dead = known_cards(o.dead, "--dead");
    in = fp::prepared(std::move(in));
  }
  const double work = omaha ? fp::omaha_exact_work(om.in) : fp::exact_equity_cost(in);
  if (o.exact && work > max_exact_work)
    throw usage_error(fmt::format("exact enumeration would need about {:.2g} hand evaluations (limit {:.0g}); "
                                  "drop --exact to use Monte Carlo",
                                  work, max_exact_work));
  const bool exact = o.exact || (!o.trials_opt->count() && work <= auto_exact_work);

  const auto start = std::chrono::steady_clock::now();
  fp::equity_result r;
  std::optional<engine_spec> eng;
  {
    progress_bar bar(exact ? "enumerating" : "dealing");
    const run_control rc = bar.control();
    if (exact) {
      r = omaha ? fp::omaha_exact_equity(om.in, o.threads, rc) : fp::exact_equity(in, o.threads, rc);
    } else {
      eng = o.engine.resolve();
      try {
        r = omaha ? fp::omaha_sample_equity(om.in, o.trials, *eng, o.threads, rc)
                  : fp::sample_equity(in, o.trials, *eng, o.threads, rc);
      } catch (const fp::ranges_rarely_fit_error& e) {
        throw std::runtime_error(fmt::format("{}; try --exact", e.what()));
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.complete) fmt::print(stderr, "fairdeck: interrupted; results cover {} outcomes only\n", r.outcomes);
  const bool weighted = std::any_of(in.weights.begin(), in.weights.end(), [](const auto& w) { return !w.empty(); });
  auto combos = [&](std::size_t p) { return omaha ? std::size_t{1} : in.ranges[p].size(); };
  auto combo_weight = [&](std::size_t p) {  // the range's size in full-weight combos
    if (in.weights[p].empty()) return static_cast<double>(in.ranges[p].size());
    double sum = 0;
    for (auto w : in.weights[p]) sum += static_cast<double>(w) / fp::weight_unit;
    return sum;
  };

  if (o.json) {
    nlohmann::json players = nlohmann::json::array();
    for (std::size_t p = 0; p < in.ranges.size(); ++p) {
      const auto& t = r.players[p];
      nlohmann::json pj{{"hand", o.hands[p]},  {"combos", combos(p)}, {"wins", t.wins},
                        {"ties", t.ties},      {"win", fp::win_fraction(r, p)}, {"tie", fp::tie_fraction(r, p)},
                        {"equity", fp::equity_share(r, p)}};
      if (weighted) pj["weights"] = combo_weight(p);
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
  for (std::size_t p = 0; p < in.ranges.size(); ++p) {
    fmt::print("{:<6} {:<{}} {:>6} {:>8.4f}% {:>8.4f}% {:>8.4f}%", p + 1, o.hands[p], width, combos(p),
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
  cmd->add_option("--game", o->game, "holdem, omaha (PLO4), omaha5 (PLO5), omaha-hilo or omaha5-hilo (8 or better)")
      ->check(CLI::IsMember({"holdem", "omaha", "omaha5", "omaha-hilo", "omaha5-hilo"}))
      ->capture_default_str();
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-equity.md)");
  cmd->callback([o, &exit_code] { exit_code = run_equity(*o); });
}

}  // namespace
}  // namespace fairdeck::cli

FAIRDECK_REGISTER_COMMAND(61, fairdeck::cli::setup)
