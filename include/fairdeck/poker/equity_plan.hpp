// The equity policy every front end shares (`fairdeck equity`, fairdeck.equity in Python):
// which game a request is, whether it is counted exactly or sampled, and running it.
//
// Exact or Monte Carlo: an exact run enumerates every deal (equity.hpp exact_equity,
// omaha.hpp omaha_exact_equity) and has no sampling error; its cost is estimated up front in
// hand evaluations (exact_equity_cost / omaha_exact_work, about one nanosecond of one core
// each). A request that leaves the choice open is exact when that estimate is at most
// auto_exact_work (about half a second on two cores) and no trial count was given; a request
// that insists on exact is refused beyond max_exact_work (hours to days). Monte Carlo draws
// `trials` deals from an engine (sample_equity / omaha_sample_equity): the result depends only
// on (request, trials, engine), never on the thread count.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/omaha.hpp"

namespace fairdeck::poker {

inline constexpr double auto_exact_work = 1e9;
inline constexpr double max_exact_work = 1e12;
inline constexpr std::uint64_t default_equity_trials = 1'000'000;

// Hold'em (ranges), Omaha with 4 or 5 hole cards, high only or 8-or-better hi/lo (fixed hands).
enum class equity_game { holdem, omaha, omaha5, omaha_hilo, omaha5_hilo };
// "holdem", "omaha", "omaha5", "omaha-hilo", "omaha5-hilo", in enum order.
[[nodiscard]] std::span<const std::string_view> equity_game_names() noexcept;
[[nodiscard]] std::string_view name(equity_game game) noexcept;
[[nodiscard]] std::optional<equity_game> find_equity_game(std::string_view name) noexcept;

enum class exact_mode {
  automatic,  // exact when cheap (auto_exact_work) and no trial count was given
  always,     // exact up to max_exact_work, refused beyond
  never,      // Monte Carlo
};

struct equity_request {
  equity_game game = equity_game::holdem;
  // One per player, equity_min_players..equity_max_players: a hand or weighted range
  // (parse_weighted_range) in hold'em, a run of 4 or 5 cards (parse_card_run) in Omaha.
  std::vector<std::string> hands;
  std::vector<card_t> board;  // 0..5 known community cards
  std::vector<card_t> dead;   // known to be out of play
  exact_mode exact = exact_mode::automatic;
  std::optional<std::uint64_t> trials;  // Monte Carlo deals; default_equity_trials when unset
};

// Why a request cannot run as asked; the front end words it in its own terms.
enum class equity_problem {
  player_count,       // hands.size() outside [equity_min_players, equity_max_players]
  exact_and_trials,   // exact == always with a trial count
  zero_trials,        // trials == 0
  exact_too_costly,   // exact == always and work > max_exact_work
};

struct equity_plan {
  std::optional<equity_problem> problem;  // set: nothing below is filled in past what was checked
  equity_game game = equity_game::holdem;
  bool exact = false;          // enumerate every deal, else Monte Carlo
  double work = 0;             // estimated hand evaluations of an exact run
  std::uint64_t trials = default_equity_trials;  // Monte Carlo deals
  std::size_t players = 0;
  equity_input holdem;  // hold'em: the prepared input; Omaha: board and dead only
  omaha_input omaha;    // Omaha: the checked input

  [[nodiscard]] bool is_omaha() const noexcept { return game != equity_game::holdem; }
  // A player's combos after removing the known cards (1 for an Omaha hand).
  [[nodiscard]] std::size_t combos(std::size_t player) const noexcept;
  // Some player's range carries weights other than 100 % (hold'em only).
  [[nodiscard]] bool weighted() const noexcept;
  // A player's range size in full-weight combos (the sum of its weight fractions).
  [[nodiscard]] double combo_weight(std::size_t player) const noexcept;
};

// The problems a request has before its cards are read: player_count, exact_and_trials,
// zero_trials, in that order (a front end may check them before it reads the board).
[[nodiscard]] std::optional<equity_problem> equity_request_problem(const equity_request& request) noexcept;

// Checks the request (equity_request_problem, then exact_too_costly once the work is known), parses every hand (std::invalid_argument
// "player N: ..." naming the hand's problem), checks the known cards (prepared /
// check_omaha_input: std::invalid_argument naming the card) and chooses exact or Monte Carlo.
[[nodiscard]] equity_plan plan_equity(const equity_request& request);

// Runs a plan without a problem: exact, or Monte Carlo on `engine` (required then, ignored
// for an exact plan). Throws std::invalid_argument for a plan with a problem or a Monte Carlo
// plan without an engine; ranges_rarely_fit_error as sample_equity does.
[[nodiscard]] equity_result run_equity(const equity_plan& plan, const std::optional<engine_spec>& engine,
                                       unsigned threads = 0, const run_control& rc = {});

}  // namespace fairdeck::poker
