// Exact hold'em equity, board-major (the structure of OMPEval's enumerator, Z. Zaborsky 2016):
//
// 1. Every consistent hole-card assignment is listed once (combo ids + card mask + weight;
//    the plan, exact_plan.hpp).
// 2. Board completions are enumerated from the cards no assignment always holds, with the
//    board's rank multiset advanced one card per level through internal::rank_states, so a
//    7-card strength is two loads: the 6-rank state after the first hole card, then the row
//    entry of the second (flushes: the board has at most one suit with 3+ cards, checked per
//    combo against the flush table).
// 3. Per board, each combo in play is evaluated once and every assignment disjoint from the
//    board compares stored strengths.
// 4. Suit isomorphism (internal/suit_symmetry.hpp): completions are counted once per orbit of
//    the input's symmetry group, with the orbit's size as an integer weight.
// Work items are the first two completion cards (the first one when two are missing), handed
// to the poker module's parallel helper; per-item tallies are summed in item order, so results
// never depend on the thread count.
// Fixed hands (one assignment, no weights) take internal/fixed_hands.hpp's rank-multiset count.
#include <algorithm>
#include <array>
#include <bit>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/internal/assignments.hpp"
#include "fairdeck/poker/internal/fixed_hands.hpp"
#include "fairdeck/poker/internal/parallel.hpp"
#include "fairdeck/poker/internal/rank_states.hpp"
#include "fairdeck/poker/internal/suit_symmetry.hpp"

#include "exact_plan.hpp"

namespace fairdeck::poker {
namespace {

using detail::add;
using detail::board_state;
using detail::combo_info;
using detail::input_symmetries;
using detail::make_plan;
using detail::plan;
using internal::rank_states;

template <unsigned Left, class F>
void for_each_completion_state(const rank_states& rs, std::span<const card_t> deck, std::size_t from,
                               const board_state& b, F& f) {
  if constexpr (Left == 0) {
    f(b);
  } else {
    for (std::size_t i = from; i + Left <= deck.size(); ++i)
      for_each_completion_state<Left - 1>(rs, deck, i + 1, add(rs, b, deck[i]), f);
  }
}

template <class F>
void completions(unsigned left, const rank_states& rs, std::span<const card_t> deck, std::size_t from,
                 const board_state& b, F& f) {
  switch (left) {
    case 0: return for_each_completion_state<0>(rs, deck, from, b, f);
    case 1: return for_each_completion_state<1>(rs, deck, from, b, f);
    case 2: return for_each_completion_state<2>(rs, deck, from, b, f);
    default: return for_each_completion_state<3>(rs, deck, from, b, f);
  }
}

// Per-item sums (unweighted integers, weighted doubles) for every player.
struct item_tally {
  std::vector<player_tally> players;
  double total_weight = 0;
  std::uint64_t outcomes = 0;
};

class board_scorer {
 public:
  board_scorer(const plan& pl, const internal::completion_orbits& orbits)
      : pl_(pl), orbits_(orbits), rs_(rank_states::instance()), ev_(hand_evaluator::instance()), val_(pl.combos.size()) {
    if (pl.fixed >= 0) build_classes();
  }

  void operator()(const board_state& b, item_tally& t) {
    const std::uint64_t orbit = orbits_.weight(b.mask);
    if (orbit == 0) return;
    if (pl_.fixed >= 0) return score_fixed_heads_up(b, orbit, t);
    evaluate(b);
    if (pl_.n == 2 && !pl_.weighted) score_heads_up(b.mask, orbit, t);
    else if (pl_.weighted) score<true>(b.mask, orbit, t);
    else score<false>(b.mask, orbit, t);
  }

 private:
  // Strength of every combo with this board. Combos that collide with the board get a
  // meaningless value (never read: their assignments are skipped), which keeps the common
  // loop free of branches; rows of ranks the board holds four times point at zeros.
  void evaluate(const board_state& b) {
    static constexpr std::array<strength_t, 13> zeros{};
    unsigned flush_suit = 4;
    for (unsigned s = 0; s < 4; ++s)
      if (b.suits[s] >= 3) flush_suit = s;
    const std::size_t m = pl_.combos.size();
    const combo_info* c = pl_.combos.data();
    strength_t* val = val_.data();
    if (m < 13) {
      for (std::size_t k = 0; k < m; ++k)
        if (!(c[k].mask & b.mask)) val[k] = rs_.row(rs_.next(b.ranks, c[k].r1))[c[k].r2];
    } else {
      std::array<const strength_t*, 13> rows{};
      for (unsigned r = 0; r < 13; ++r) {
        const std::uint32_t next = rs_.next(b.ranks, r);
        rows[r] = next ? rs_.row(next) : zeros.data();
      }
      for (std::size_t k = 0; k < m; ++k) val[k] = rows[c[k].r1][c[k].r2];
    }
    if (flush_suit == 4) [[likely]]
      return;
    const unsigned board_flush = static_cast<unsigned>(b.mask >> (13 * flush_suit)) & 0x1fff;
    const unsigned on_board = b.suits[flush_suit];
    for (std::size_t k = 0; k < m; ++k) {
      const unsigned in_suit = (c[k].s1 == flush_suit) + (c[k].s2 == flush_suit);
      if (on_board + in_suit >= 5) val[k] = ev_.by_flush_mask(board_flush | (static_cast<unsigned>(c[k].mask >> (13 * flush_suit)) & 0x1fff));
    }
  }

  // Two players, unweighted: branch-free counting of wins and ties.
  void score_heads_up(std::uint64_t board_mask, std::uint64_t orbit, item_tally& t) const {
    std::uint64_t w0 = 0, w1 = 0, ties = 0;
    const std::uint16_t* id = pl_.ids.data();
    const std::uint64_t* masks = pl_.masks.data();
    for (std::size_t a = 0, end = pl_.masks.size(); a < end; ++a) {
      const std::uint64_t live = (masks[a] & board_mask) == 0;
      const strength_t s0 = val_[id[2 * a]], s1 = val_[id[2 * a + 1]];
      w0 += live & (s0 > s1);
      w1 += live & (s1 > s0);
      ties += live & (s0 == s1);
    }
    add_heads_up(w0, w1, ties, orbit, t);
  }

  // One fixed hand against a range, counted by rank-pair class: without a flush an opposing
  // combo's strength depends only on its two ranks, so per board it is enough to know how many
  // of each class's combos miss the board - the class total, minus the combos through each
  // board card, plus those through two board cards (inclusion-exclusion) - and to compare the
  // hero with one strength per class (at most 91 instead of up to 1,225 combos). A board with
  // three cards of a suit corrects the combos holding two of that suit one by one (true flush
  // strength instead of the class's); boards with four or five of a suit take the per-combo
  // pass below.
  void build_classes() {
    const auto other = static_cast<std::size_t>(1 - pl_.fixed);
    std::array<int, 91> compact{};
    compact.fill(-1);
    pair_class_.assign(52 * 52, -1);
    for (std::size_t a = 0; a < pl_.masks.size(); ++a) {
      const combo_info& c = pl_.combos[pl_.ids[2 * a + other]];
      const unsigned lo = std::min(c.r1, c.r2), hi = std::max(c.r1, c.r2), col = hi * (hi + 1) / 2 + lo;
      if (compact[col] < 0) {
        compact[col] = static_cast<int>(class_r1_.size());
        class_r1_.push_back(c.r1), class_r2_.push_back(c.r2), class_total_.push_back(0);
      }
      const auto k = static_cast<std::size_t>(compact[col]);
      ++class_total_[k];
      const auto x = static_cast<unsigned>(std::countr_zero(c.mask)), y = static_cast<unsigned>(63 - std::countl_zero(c.mask));
      pair_class_[x * 52 + y] = static_cast<std::int16_t>(k);
      for (unsigned s = 0; s < 4; ++s)
        if (x / 13 == s && y / 13 == s) suited_[s].push_back(static_cast<std::uint32_t>(a));
    }
    const std::size_t classes = class_r1_.size();
    hits_.assign(52 * classes, 0);
    for (std::size_t a = 0; a < pl_.masks.size(); ++a) {
      const combo_info& c = pl_.combos[pl_.ids[2 * a + other]];
      const unsigned lo = std::min(c.r1, c.r2), hi = std::max(c.r1, c.r2);
      const auto k = static_cast<std::size_t>(compact[hi * (hi + 1) / 2 + lo]);
      for (std::uint64_t m = c.mask; m; m &= m - 1) ++hits_[static_cast<std::size_t>(std::countr_zero(m)) * classes + k];
    }
  }

  void score_fixed_by_class(const board_state& b, unsigned flush_suit, std::uint64_t orbit, item_tally& t) const {
    static constexpr std::array<strength_t, 13> zeros{};
    std::array<const strength_t*, 13> rows{};
    for (unsigned r = 0; r < 13; ++r) {
      const std::uint32_t next = rs_.next(b.ranks, r);
      rows[r] = next ? rs_.row(next) : zeros.data();
    }
    const std::size_t classes = class_r1_.size();
    std::array<std::int32_t, 91> live{};
    for (std::size_t k = 0; k < classes; ++k) live[k] = class_total_[k];
    std::array<unsigned, 5> card{};
    unsigned n = 0;
    for (std::uint64_t m = b.mask; m && n < 5; m &= m - 1) card[n++] = static_cast<unsigned>(std::countr_zero(m));
    for (unsigned i = 0; i < n; ++i) {
      const std::uint16_t* h = &hits_[card[i] * classes];
      for (std::size_t k = 0; k < classes; ++k) live[k] -= h[k];
    }
    for (unsigned i = 0; i < n; ++i)
      for (unsigned j = i + 1; j < n; ++j)
        if (const int k = pair_class_[card[i] * 52 + card[j]]; k >= 0) ++live[static_cast<std::size_t>(k)];
    const auto fixed = static_cast<std::size_t>(pl_.fixed), other = 1 - fixed;
    const combo_info& hc = pl_.combos[pl_.ids[fixed]];
    strength_t hero = rows[hc.r1][hc.r2];
    const unsigned board_flush = flush_suit < 4 ? static_cast<unsigned>(b.mask >> (13 * flush_suit)) & 0x1fff : 0;
    if (flush_suit < 4 && hc.s1 == flush_suit && hc.s2 == flush_suit)
      hero = ev_.by_flush_mask(board_flush | (static_cast<unsigned>(hc.mask >> (13 * flush_suit)) & 0x1fff));
    std::int64_t won = 0, lost = 0, ties = 0;
    for (std::size_t k = 0; k < classes; ++k) {
      const strength_t v = rows[class_r1_[k]][class_r2_[k]];
      won += live[k] * (hero > v);
      lost += live[k] * (v > hero);
      ties += live[k] * (v == hero);
    }
    if (flush_suit < 4)
      for (const std::uint32_t a : suited_[flush_suit]) {
        if (pl_.masks[a] & b.mask) continue;
        const combo_info& c = pl_.combos[pl_.ids[2 * a + other]];
        const strength_t was = rows[c.r1][c.r2];
        const strength_t v = ev_.by_flush_mask(board_flush | (static_cast<unsigned>(c.mask >> (13 * flush_suit)) & 0x1fff));
        won += (hero > v) - (hero > was);
        lost += (v > hero) - (was > hero);
        ties += (v == hero) - (was == hero);
      }
    const auto w = static_cast<std::uint64_t>(won), l = static_cast<std::uint64_t>(lost), tie = static_cast<std::uint64_t>(ties);
    if (fixed == 0) add_heads_up(w, l, tie, orbit, t);
    else add_heads_up(l, w, tie, orbit, t);
  }

  // One fixed hand against a range: evaluation and comparison in one pass over the range.
  void score_fixed_heads_up(const board_state& b, std::uint64_t orbit, item_tally& t) const {
    {
      unsigned flush_suit = 4;
      for (unsigned s = 0; s < 4; ++s)
        if (b.suits[s] >= 3) flush_suit = s;
      if (flush_suit == 4 || b.suits[flush_suit] == 3) return score_fixed_by_class(b, flush_suit, orbit, t);
    }
    static constexpr std::array<strength_t, 13> zeros{};
    std::array<const strength_t*, 13> rows{};
    for (unsigned r = 0; r < 13; ++r) {
      const std::uint32_t next = rs_.next(b.ranks, r);
      rows[r] = next ? rs_.row(next) : zeros.data();
    }
    unsigned flush_suit = 4;
    for (unsigned s = 0; s < 4; ++s)
      if (b.suits[s] >= 3) flush_suit = s;
    const unsigned board_flush = flush_suit < 4 ? static_cast<unsigned>(b.mask >> (13 * flush_suit)) & 0x1fff : 0;
    const unsigned on_board = flush_suit < 4 ? b.suits[flush_suit] : 0;
    auto strength = [&](const combo_info& c) {
      strength_t v = rows[c.r1][c.r2];
      if (flush_suit < 4 && on_board + (c.s1 == flush_suit) + (c.s2 == flush_suit) >= 5)
        v = ev_.by_flush_mask(board_flush | (static_cast<unsigned>(c.mask >> (13 * flush_suit)) & 0x1fff));
      return v;
    };
    const auto fixed = static_cast<std::size_t>(pl_.fixed), other = 1 - fixed;
    const strength_t hero = strength(pl_.combos[pl_.ids[fixed]]);
    std::uint64_t won = 0, lost = 0, ties = 0;
    const std::uint16_t* id = pl_.ids.data();
    const std::uint64_t* masks = pl_.masks.data();
    for (std::size_t a = 0, end = pl_.masks.size(); a < end; ++a) {
      const std::uint64_t live = (masks[a] & b.mask) == 0;
      const strength_t v = strength(pl_.combos[id[2 * a + other]]);
      won += live & (hero > v);
      lost += live & (v > hero);
      ties += live & (v == hero);
    }
    if (fixed == 0) add_heads_up(won, lost, ties, orbit, t);
    else add_heads_up(lost, won, ties, orbit, t);
  }

  static void add_heads_up(std::uint64_t w0, std::uint64_t w1, std::uint64_t ties, std::uint64_t orbit, item_tally& t) {
    constexpr std::uint64_t half = pot_units / 2;
    const std::uint64_t outcomes = w0 + w1 + ties;
    t.outcomes += orbit * outcomes;
    t.total_weight += static_cast<double>(orbit * outcomes);
    const std::array<std::uint64_t, 2> wins{w0, w1};
    for (std::size_t p = 0; p < 2; ++p) {
      auto& pt = t.players[p];
      pt.wins += orbit * wins[p];
      pt.ties += orbit * ties;
      pt.share += orbit * (wins[p] * pot_units + ties * half);
      pt.share_sq += orbit * (wins[p] * pot_units * pot_units + ties * half * half);
      pt.weighted_wins += static_cast<double>(orbit * wins[p]);
      pt.weighted_ties += static_cast<double>(orbit * ties);
      pt.weighted_share += static_cast<double>(orbit * (wins[p] * pot_units + ties * half));
    }
  }

  template <bool Weighted>
  void score(std::uint64_t board_mask, std::uint64_t orbit, item_tally& t) {
    const std::size_t n = pl_.n;
    std::array<std::uint64_t, equity_max_players> wins{}, ties{}, share{}, share_sq{};
    std::array<double, equity_max_players> w_wins{}, w_ties{}, w_share{};
    std::uint64_t outcomes = 0;
    double weight = 0;
    for (std::size_t a = 0; a < pl_.masks.size(); ++a) {
      if (pl_.masks[a] & board_mask) continue;
      const std::uint16_t* id = &pl_.ids[a * n];
      std::array<strength_t, equity_max_players> s;
      strength_t best = 0;
      for (std::size_t p = 0; p < n; ++p) best = std::max(best, s[p] = val_[id[p]]);
      unsigned k = 0;
      for (std::size_t p = 0; p < n; ++p) k += s[p] == best;
      const std::uint64_t unit = pot_units / k;
      ++outcomes;
      const double w = Weighted ? pl_.weights[a] : 1.0;
      if constexpr (Weighted) weight += w;
      for (std::size_t p = 0; p < n; ++p) {
        if (s[p] != best) continue;
        ++(k == 1 ? wins[p] : ties[p]);
        share[p] += unit;
        share_sq[p] += unit * unit;
        if constexpr (Weighted) {
          (k == 1 ? w_wins[p] : w_ties[p]) += w;
          w_share[p] += w * static_cast<double>(unit);
        }
      }
    }
    const double o = static_cast<double>(orbit);
    t.outcomes += orbit * outcomes;
    t.total_weight += o * (Weighted ? weight : static_cast<double>(outcomes));
    for (std::size_t p = 0; p < n; ++p) {
      auto& pt = t.players[p];
      pt.wins += orbit * wins[p];
      pt.ties += orbit * ties[p];
      pt.share += orbit * share[p];
      pt.share_sq += orbit * share_sq[p];
      pt.weighted_wins += o * (Weighted ? w_wins[p] : static_cast<double>(wins[p]));
      pt.weighted_ties += o * (Weighted ? w_ties[p] : static_cast<double>(ties[p]));
      pt.weighted_share += o * (Weighted ? w_share[p] : static_cast<double>(share[p]));
    }
  }

  const plan& pl_;
  const internal::completion_orbits& orbits_;
  const rank_states& rs_;
  const hand_evaluator& ev_;
  std::vector<strength_t> val_;
  // Rank-pair classes of the opponent's combos (fixed hand against a range).
  std::vector<std::uint8_t> class_r1_, class_r2_;
  std::vector<std::int32_t> class_total_;
  std::vector<std::uint16_t> hits_;                  // [card][class]: combos through the card
  std::vector<std::int16_t> pair_class_;             // [low card][high card]: the combo's class or -1
  std::array<std::vector<std::uint32_t>, 4> suited_{};  // assignments whose opponent combo is suited in s
};

}  // namespace

namespace {

// Cost of one assignment solved as fixed hands, in exact_equity_cost's unit (about one hand
// evaluation): per player, by the number of missing board cards (bench/poker_bench.cpp,
// BM_EquityExactAssignmentMajor vs BM_EquityExactBoardMajor).
double fixed_assignment_cost(unsigned need, std::size_t players) {
  static constexpr std::array<double, 6> per_player{1, 20, 200, 2'000, 30'000, 230'000};
  return per_player[std::min(need, 5u)] * static_cast<double>(players) + 2'000;
}

constexpr std::uint64_t max_assignment_major = 100'000;

// Board-major scores 3+ players with the general loop (best of n, ties, shares), measured at
// about 4 units per assignment and board against the heads-up loops' 1 (AKs,QQ,JTs on Qh9h2c:
// 7.4 ns per assignment-board; AA,KK,QQ / AKs,QQ,JTs,99 on a flop: board-major 3-4x slower
// than assignment-major, which the unit model chose against). Used only to choose the method.
constexpr double multiway_scoring = 4;

double board_major_cost(const equity_input& in, double assignments, double combos, double symmetry) {
  std::size_t rem = cards_per_deck - in.board.size() - in.dead.size();
  for (const auto& r : in.ranges) rem -= r.size() == 1 ? 2 : 0;  // fixed hands never reach the board
  const double boards = static_cast<double>(choose(rem, 5 - in.board.size()));
  return boards / symmetry * (combos + assignments);
}

bool is_unweighted(const equity_input& in) {
  for (const auto& w : in.weights)
    for (const std::uint32_t x : w)
      if (x != weight_unit) return false;
  return true;
}

}  // namespace

double exact_equity_cost(const equity_input& in) {
  double assignments = 1, combos = 0;
  for (const auto& r : in.ranges) assignments *= static_cast<double>(r.size()), combos += static_cast<double>(r.size());
  const double symmetry = static_cast<double>(input_symmetries(in).size() + 1);
  const double board_major = board_major_cost(in, assignments, combos, symmetry);
  if (!is_unweighted(in) || assignments > static_cast<double>(max_assignment_major)) return board_major;
  const unsigned need = 5 - static_cast<unsigned>(in.board.size());
  // Assignments up to symmetry: at least assignments / |G| orbits.
  return std::min(board_major, assignments / symmetry * fixed_assignment_cost(need, in.ranges.size()));
}

equity_result exact_equity(const equity_input& in, unsigned threads, const run_control& rc, exact_method method) {
  const plan pl = make_plan(in);
  const std::size_t rem_size = cards_per_deck - in.board.size() - in.dead.size() - 2 * pl.n;
  const std::uint64_t total = pl.assignments * choose(rem_size, pl.need);
  if (pl.assignments == 1 && !pl.weighted) return internal::fixed_hands_equity(in, total, threads, rc);
  const std::vector<internal::suit_perm> group = input_symmetries(in);
  // The orbit list holds one entry per representative: the automatic choice considers it
  // only for at most max_assignment_major assignments (a few MB), where it can pay.
  if (!pl.weighted && method != exact_method::board_major &&
      (method == exact_method::assignment_major || pl.assignments <= max_assignment_major)) {
    std::vector<internal::fixed_assignment> reps = detail::assignment_orbits(pl, group);
    double combos = 0;
    for (const auto& r : in.ranges) combos += static_cast<double>(r.size());
    const double symmetry = static_cast<double>(group.size() + 1);
    const double scoring = pl.n >= 3 ? multiway_scoring : 1;
    const bool cheaper = static_cast<double>(reps.size()) * fixed_assignment_cost(pl.need, pl.n) <
                         board_major_cost(in, scoring * static_cast<double>(pl.assignments), combos, symmetry);
    if (method == exact_method::assignment_major || cheaper) {
      equity_result out = internal::fixed_assignments_equity(in, reps, total, threads, rc);
      out.assignments = pl.assignments;
      out.symmetry = static_cast<unsigned>(group.size() + 1);
      return out;
    }
  }
  const internal::completion_orbits orbits(group);
  const std::size_t d = pl.deck.size();
  // Items: the first two completion cards (positions i < j) when 3+ cards are missing, else
  // the first one (a two-card item would be one board: per-item costs - its tally, the lock,
  // the progress report - then outweighed small queries' work), or one item.
  std::vector<std::pair<std::uint16_t, std::uint16_t>> firsts;
  if (pl.need >= 3) {
    for (std::size_t i = 0; i + pl.need <= d; ++i)
      for (std::size_t j = i + 1; j + pl.need - 1 <= d; ++j)
        firsts.push_back({static_cast<std::uint16_t>(i), static_cast<std::uint16_t>(j)});
  } else if (pl.need >= 1) {
    for (std::size_t i = 0; i + pl.need <= d; ++i) firsts.push_back({static_cast<std::uint16_t>(i), 0});
  } else {
    firsts.push_back({0, 0});
  }
  const auto& rs = rank_states::instance();
  std::vector<item_tally> items(firsts.size(), item_tally{std::vector<player_tally>(pl.n), 0, 0});
  const unsigned workers = internal::resolve_threads(threads);
  std::vector<board_scorer> scorers(workers, board_scorer(pl, orbits));
  std::mutex mu;
  std::uint64_t done = 0;
  internal::parallel_items(firsts.size(), workers, [&](std::uint64_t item, unsigned worker) {
    if (rc.stopped()) return;
    item_tally& t = items[item];
    auto on_board = [&](const board_state& b) { scorers[worker](b, t); };
    const auto [i, j] = firsts[item];
    if (pl.need >= 3) {
      completions(pl.need - 2, rs, pl.deck, j + 1u, add(rs, add(rs, pl.board0, pl.deck[i]), pl.deck[j]), on_board);
    } else if (pl.need == 2) {
      completions(1, rs, pl.deck, i + 1u, add(rs, pl.board0, pl.deck[i]), on_board);
    } else if (pl.need == 1) {
      on_board(add(rs, pl.board0, pl.deck[i]));
    } else {
      on_board(pl.board0);
    }
    std::lock_guard lock(mu);
    done += t.outcomes;
    rc.progress(done, total);
  });
  equity_result out;
  out.exact = true;
  out.assignments = pl.assignments;
  out.weighted = pl.weighted;
  out.symmetry = orbits.group_size();
  out.players.assign(pl.n, {});
  for (const auto& t : items) {
    out.outcomes += t.outcomes;
    out.total_weight += t.total_weight;
    for (std::size_t p = 0; p < pl.n; ++p) {
      auto& o = out.players[p];
      o.wins += t.players[p].wins;
      o.ties += t.players[p].ties;
      o.share += t.players[p].share;
      o.share_sq += t.players[p].share_sq;
      o.weighted_wins += t.players[p].weighted_wins;
      o.weighted_ties += t.players[p].weighted_ties;
      o.weighted_share += t.players[p].weighted_share;
    }
  }
  out.complete = out.outcomes == total;
  return out;
}

}  // namespace fairdeck::poker
