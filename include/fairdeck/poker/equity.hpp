// Texas hold'em equity: how often each player's hand or range wins, ties and what share
// of the pot it takes on average, by exact enumeration or Monte Carlo.
//
// The probability model: each player's hole cards are uniform over the combos of their
// range that do not collide with the board, the dead cards or any other player's cards
// (every consistent assignment equally likely), and the missing board cards are uniform
// over the remaining deck. A pot shared by k players gives each 1/k.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/poker/range.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::poker {

inline constexpr unsigned equity_min_players = 2;
inline constexpr unsigned equity_max_players = 10;
// Pot shares are counted in 1/2520 of a pot (2520 = lcm(1..10)), so every split is a whole
// number and sums never depend on the order or thread count.
inline constexpr std::uint64_t pot_units = 2520;

struct equity_input {
  std::vector<std::vector<hole_cards>> ranges;  // one per player; a fixed hand is one combo
  std::vector<card_t> board;                    // 0..5 known community cards
  std::vector<card_t> dead;                     // known to be out of play
  // Optional combo weights in units of weight_unit (= 100 %), parallel to `ranges`: empty
  // (or an empty entry) means every combo of that range has full weight. A combo of weight w
  // is held w / weight_unit as often as a full-weight one: an assignment's probability is
  // proportional to the product of its combos' weights.
  std::vector<std::vector<std::uint32_t>> weights;
};

// Checks player count, board size, distinct known cards, and removes range combos that
// collide with the board or dead cards. Throws std::invalid_argument naming the problem
// (player numbers are 1-based).
[[nodiscard]] equity_input prepared(equity_input in);

struct player_tally {
  std::uint64_t wins = 0;      // outcomes this player won alone
  std::uint64_t ties = 0;      // outcomes this player shared
  std::uint64_t share = 0;     // pot shares in pot_units
  std::uint64_t share_sq = 0;  // sum of squared per-outcome shares (for Monte Carlo intervals)
  // Exact runs with weighted ranges: the same sums with each outcome counted with its
  // assignment's weight (a product of fractions); otherwise equal to the counts above.
  double weighted_wins = 0, weighted_ties = 0, weighted_share = 0;
};

struct equity_result {
  bool exact = true;
  std::uint64_t outcomes = 0;     // (hole-card assignment, board) outcomes counted
  std::uint64_t assignments = 0;  // exact: consistent hole-card assignments enumerated
  std::vector<player_tally> players;
  bool complete = true;  // false when stopped early
  bool weighted = false;    // exact run over weighted ranges: use the weighted_* sums
  double total_weight = 0;  // weighted: the sum of the outcomes' weights
  unsigned symmetry = 1;    // exact: suit permutations that leave the input unchanged
  std::uint64_t pot = pot_units;  // a whole pot in share units (Omaha hi/lo: 2 x pot_units)
};

// Fractions of the (weighted) outcomes: won alone, shared, and the mean pot share.
[[nodiscard]] double win_fraction(const equity_result& r, std::size_t player) noexcept;
[[nodiscard]] double tie_fraction(const equity_result& r, std::size_t player) noexcept;
[[nodiscard]] double equity_share(const equity_result& r, std::size_t player) noexcept;
// Monte Carlo: the standard error of equity_share (sample standard deviation of the
// per-deal share over sqrt(deals)); 0 for exact results.
[[nodiscard]] double equity_stderr(const equity_result& r, std::size_t player) noexcept;

// A 95 % confidence interval for a player's equity (the mean pot share, equity_share) from a
// Monte Carlo result: the normal-approximation (Wald) interval mean +- z s / sqrt(n), z =
// 1.959963984540054 (the 97.5 % normal quantile), n the deals counted, s^2 the plug-in
// variance (divisor n) of the per-deal shares from share and share_sq, clipped to [0, 1]. It
// is not a Wilson interval: a pot share is not a 0/1 outcome (ties split the pot). Its
// coverage is asymptotic (central limit theorem; e.g. Wasserman, "All of Statistics", 2004,
// ch. 6), not guaranteed for small n; with 0 deals it is [0, 1]. Exact results
// have no sampling error: the interval is the single point equity_share.
struct share_interval {
  double low;
  double high;
};
[[nodiscard]] share_interval equity_interval(const equity_result& r, std::size_t player) noexcept;

// Player-hand evaluations an exact run would need (an upper bound when ranges overlap).
[[nodiscard]] double exact_equity_work(const equity_input& prepared_input);
// What exact_equity really costs, in the same unit (about one hand evaluation each): the
// boards it visits after suit symmetry times (combos evaluated + assignments compared).
[[nodiscard]] double exact_equity_cost(const equity_input& prepared_input);

// Every consistent assignment and every board completion, board-major: each board is
// evaluated once for every combo in play and shared by all assignments; boards that a suit
// permutation leaving the input unchanged maps onto each other are counted once with their
// orbit's size (src/poker/equity_exact.cpp). Throws std::invalid_argument when no
// assignment is consistent, or there are more than max_exact_assignments of them (they are
// held in memory).
//
// Two methods give the same integers. Board-major (above) suits many assignments; with few
// unweighted assignments (e.g. AA vs KK vs QQ: 216, 12 up to suit symmetry) it is cheaper to
// solve each assignment up to suit symmetry as fixed hands (boards counted by rank multiset,
// flushes corrected; internal/fixed_hands.hpp) and weight it by its orbit's size.
// `automatic` picks the cheaper by exact_equity_cost's model; the others force a method
// (benchmarks, and tests that the two agree). Weighted ranges always go board-major.
enum class exact_method { automatic, board_major, assignment_major };
inline constexpr std::uint64_t max_exact_assignments = 10'000'000;
[[nodiscard]] equity_result exact_equity(const equity_input& prepared_input, unsigned threads = 0,
                                         const run_control& rc = {}, exact_method method = exact_method::automatic);

// Monte Carlo: trials in chunks of equity_chunk_trials, chunk i on engine stream i, so the
// result depends only on (input, trials, engine). Hole cards are drawn by rejection
// (uniform over consistent assignments); board cards by partial shuffle of the rest.
inline constexpr std::uint64_t equity_chunk_trials = std::uint64_t{1} << 14;
[[nodiscard]] equity_result sample_equity(const equity_input& prepared_input, std::uint64_t trials,
                                          const engine_spec& engine, unsigned threads = 0, const run_control& rc = {});
// sample_equity gave up: a million hole-card draws in a row collided (ranges that almost never
// fit together); exact_equity has no such limit.
class ranges_rarely_fit_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fairdeck::poker
