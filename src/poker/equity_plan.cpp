// The equity policy (equity_plan.hpp): game names, exact or Monte Carlo, the run.
#include "fairdeck/poker/equity_plan.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck::poker {
namespace {

constexpr std::array<std::string_view, 5> game_names{"holdem", "omaha", "omaha5", "omaha-hilo", "omaha5-hilo"};

omaha_rules rules_of(equity_game g) noexcept {
  const bool five = g == equity_game::omaha5 || g == equity_game::omaha5_hilo;
  const bool hilo = g == equity_game::omaha_hilo || g == equity_game::omaha5_hilo;
  return {five ? 5u : 4u, hilo};
}

// Runs f() and prefixes a std::invalid_argument with the player it is about.
template <class F>
auto for_player(std::size_t p, F&& f) {
  try {
    return f();
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("player {}: {}", p + 1, e.what()));
  }
}

}  // namespace

std::span<const std::string_view> equity_game_names() noexcept { return game_names; }
std::string_view name(equity_game game) noexcept { return game_names[static_cast<std::size_t>(game)]; }

std::optional<equity_game> find_equity_game(std::string_view name) noexcept {
  for (std::size_t i = 0; i < game_names.size(); ++i)
    if (game_names[i] == name) return static_cast<equity_game>(i);
  return std::nullopt;
}

std::size_t equity_plan::combos(std::size_t player) const noexcept {
  return is_omaha() ? std::size_t{1} : holdem.ranges[player].size();
}

bool equity_plan::weighted() const noexcept {
  return std::any_of(holdem.weights.begin(), holdem.weights.end(), [](const auto& w) { return !w.empty(); });
}

double equity_plan::combo_weight(std::size_t player) const noexcept {
  if (holdem.weights[player].empty()) return static_cast<double>(holdem.ranges[player].size());
  double sum = 0;
  for (auto w : holdem.weights[player]) sum += static_cast<double>(w) / weight_unit;
  return sum;
}

std::optional<equity_problem> equity_request_problem(const equity_request& rq) noexcept {
  if (rq.hands.size() < equity_min_players || rq.hands.size() > equity_max_players) return equity_problem::player_count;
  if (rq.exact == exact_mode::always && rq.trials) return equity_problem::exact_and_trials;
  if (rq.trials && *rq.trials == 0) return equity_problem::zero_trials;
  return std::nullopt;
}

equity_plan plan_equity(const equity_request& rq) {
  equity_plan plan;
  plan.game = rq.game;
  plan.players = rq.hands.size();
  if ((plan.problem = equity_request_problem(rq))) return plan;
  plan.trials = rq.trials.value_or(default_equity_trials);
  if (plan.is_omaha()) {
    auto& om = plan.omaha;
    om.rules = rules_of(rq.game);
    for (std::size_t p = 0; p < rq.hands.size(); ++p)
      om.hands.push_back(for_player(p, [&] { return parse_card_run(rq.hands[p]); }));
    om.board = rq.board;
    om.dead = rq.dead;
    check_omaha_input(om);
    plan.holdem.board = om.board;
    plan.holdem.dead = om.dead;
    plan.holdem.ranges.resize(om.hands.size());  // per-player queries run over players
    plan.holdem.weights.resize(om.hands.size());
    plan.work = omaha_exact_work(om);
  } else {
    equity_input in;
    for (std::size_t p = 0; p < rq.hands.size(); ++p) {
      auto wr = for_player(p, [&] { return parse_weighted_range(rq.hands[p]); });
      in.ranges.push_back(std::move(wr.combos));
      in.weights.push_back(std::move(wr.weights));
    }
    in.board = rq.board;
    in.dead = rq.dead;
    plan.holdem = prepared(std::move(in));
    plan.work = exact_equity_cost(plan.holdem);
  }
  if (rq.exact == exact_mode::always && plan.work > max_exact_work) {
    plan.problem = equity_problem::exact_too_costly;
    return plan;
  }
  plan.exact = rq.exact == exact_mode::always || (rq.exact == exact_mode::automatic && !rq.trials && plan.work <= auto_exact_work);
  return plan;
}

equity_result run_equity(const equity_plan& plan, const std::optional<engine_spec>& engine, unsigned threads,
                         const run_control& rc) {
  if (plan.problem) throw std::invalid_argument("run_equity: the plan has a problem and cannot run");
  if (plan.exact) return plan.is_omaha() ? omaha_exact_equity(plan.omaha, threads, rc) : exact_equity(plan.holdem, threads, rc);
  if (!engine) throw std::invalid_argument("run_equity: a Monte Carlo plan needs an engine");
  return plan.is_omaha() ? omaha_sample_equity(plan.omaha, plan.trials, *engine, threads, rc)
                         : sample_equity(plan.holdem, plan.trials, *engine, threads, rc);
}

}  // namespace fairdeck::poker
