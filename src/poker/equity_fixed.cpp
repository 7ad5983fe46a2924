// Exact equity of fixed hands: see internal/fixed_hands.hpp.
#include "fairdeck/poker/internal/fixed_hands.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <mutex>
#include <span>
#include <vector>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/internal/parallel.hpp"
#include "fairdeck/poker/internal/rank_states.hpp"

namespace fairdeck::poker::internal {
namespace {

// Fixed hands (one assignment, no weights). Without flushes a showdown depends only on the
// board's ranks, so boards are counted by rank multiset: the missing board ranks r1 <= .. <=
// rk are enumerated with weight prod C(available cards of rank r, copies of r), each hand's
// rank state (internal::rank_states) advancing one rank per level and the last rank read from
// the hand's row - a few thousand multisets instead of 1.7 million boards preflop. Flushes are
// then corrected: a flush in suit s needs 5 - (most hole cards of s any player holds) board
// cards of s, at least three, so at most one suit per board qualifies; for each suit, the
// suit's new board cards are enumerated card by card (a flush's value depends only on them)
// and the other new cards by rank multiset again, and where some hand makes a flush the true
// showdown is added and the rank-only one (the same by_ranks strengths the rows hold)
// subtracted. Counters are unsigned and the corrections wrap modulo 2^64, so the sums are the
// same integers as a plain loop over all boards (tests/poker_equity_test.cpp checks that).
struct fixed_tally {
  std::array<std::uint64_t, equity_max_players> wins{}, ties{}, share{}, share_sq{};
  std::uint64_t outcomes = 0;

  // One showdown with strengths s, counted w times (w = 2^64 - 1 subtracts one).
  void add(const strength_t* s, std::size_t n, std::uint64_t w) {
    strength_t best = 0;
    for (std::size_t p = 0; p < n; ++p) best = std::max(best, s[p]);
    unsigned k = 0;
    for (std::size_t p = 0; p < n; ++p) k += s[p] == best;
    const std::uint64_t unit = pot_units / k;
    for (std::size_t p = 0; p < n; ++p) {
      if (s[p] != best) continue;
      (k == 1 ? wins[p] : ties[p]) += w;
      share[p] += w * unit;
      share_sq[p] += w * unit * unit;
    }
  }
};

class fixed_hands {
 public:
  fixed_hands(const std::vector<hand_accumulator>& holes, std::span<const card_t> board, std::span<const card_t> deck)
      : n_(holes.size()), need_(5 - static_cast<unsigned>(board.size())), deck_(deck), holes_(holes),
        rs_(rank_states::instance()), ev_(hand_evaluator::instance()) {
    for (card_t c : board) board_ = board_ + c;
    for (card_t c : deck) ++avail_[rank_of(c)];
  }

  // Item 0: every rank multiset of the missing board cards; items 1..4: suit s = item - 1.
  void item(unsigned item, fixed_tally& t) const {
    if (item == 0) return multisets(t);
    if (need_ > 0) flush_corrections(item - 1, t);  // a complete board is evaluated directly
  }

 private:
  using states = std::array<std::uint32_t, equity_max_players>;

  void multisets(fixed_tally& t) const {
    const std::size_t n = n_;
    if (need_ == 0) {  // complete board
      std::array<strength_t, equity_max_players> s{};
      for (std::size_t p = 0; p < n; ++p) s[p] = ev_.eval7(holes_[p] + board_);
      t.add(s.data(), n, 1);
      t.outcomes = 1;
      return;
    }
    auto leaf = [&](const strength_t* v, std::uint64_t w) {
      t.add(v, n, w);
      t.outcomes += w;
    };
    ranks(avail_, 0, need_, 1, start_states(board_.cards), leaf);
  }

  // Each hand's rank state after its hole cards and the board cards in `board`.
  [[nodiscard]] states start_states(std::uint64_t board) const {
    states st{};
    for (std::size_t p = 0; p < n_; ++p) {
      st[p] = rank_states::empty;
      for (std::uint64_t m = holes_[p].cards | board; m; m &= m - 1)
        st[p] = rs_.next(st[p], rank_of(static_cast<card_t>(std::countr_zero(m))));
    }
    return st;
  }

  // The remaining `left` (>= 1) board ranks from ranks >= r0, with avail[r] cards of rank r
  // to choose from; w = boards per multiset so far; leaf(strengths, boards) per multiset.
  template <class Leaf>
  void ranks(const std::array<unsigned, 13>& avail, unsigned r0, unsigned left, std::uint64_t w, const states& st,
             Leaf& leaf) const {
    const std::size_t n = n_;
    for (unsigned r = r0; r < 13; ++r) {
      states s = st;
      for (unsigned c = 1; c <= std::min(left, avail[r]); ++c) {  // c copies of rank r
        const std::uint64_t wc = w * choose(avail[r], c);
        if (c == left) {  // the last rank: one row load per hand (s holds c - 1 copies)
          std::array<strength_t, equity_max_players> v{};
          for (std::size_t p = 0; p < n; ++p) v[p] = rs_.row(s[p])[r];
          leaf(v.data(), wc);
          break;
        }
        for (std::size_t p = 0; p < n; ++p) s[p] = rs_.next(s[p], r);
        ranks(avail, r + 1, left - c, wc, s, leaf);
      }
    }
  }

  // Boards with enough cards of `suit` for some flush: the suit's new cards are enumerated
  // card by card; the other new cards cannot make a second flush (a board holds 3+ of at most
  // one suit) and a flush's value depends only on the suit's cards, so they are counted by
  // rank multiset like item 0.
  void flush_corrections(unsigned suit, fixed_tally& t) const {
    const std::size_t n = n_;
    const unsigned shift = 13 * suit;
    unsigned most = 0;
    for (const auto& h : holes_) most = std::max(most, static_cast<unsigned>(std::popcount(h.cards >> shift & 0x1fff)));
    const auto given = static_cast<unsigned>(std::popcount(board_.cards >> shift & 0x1fff));
    const unsigned needed = 5 - std::min(5u, most + given);  // new cards of the suit for any flush
    if (needed > need_) return;
    std::vector<card_t> in_suit;
    std::array<unsigned, 13> other_avail{};
    for (card_t c : deck_) {
      if (suit_of(c) == suit) in_suit.push_back(c);
      else ++other_avail[rank_of(c)];
    }
    std::array<strength_t, equity_max_players> flush{};  // per hand: its flush, 0 if none
    auto correct = [&](const strength_t* ranks_only, std::uint64_t w) {
      std::array<strength_t, equity_max_players> real{};
      bool differs = false;
      for (std::size_t p = 0; p < n; ++p) {
        real[p] = std::max(flush[p], ranks_only[p]);
        differs |= real[p] != ranks_only[p];
      }
      if (!differs) return;
      t.add(real.data(), n, w);
      t.add(ranks_only, n, 0 - w);
    };
    for (unsigned k = needed; k <= need_; ++k) {
      const unsigned rest = need_ - k;
      auto suited = [&](auto& self, std::size_t from, unsigned left, std::uint64_t board) -> void {
        if (left == 0) {
          bool any = false;
          for (std::size_t p = 0; p < n; ++p) {
            const unsigned mask = static_cast<unsigned>((holes_[p].cards | board) >> shift) & 0x1fff;
            flush[p] = std::popcount(mask) >= 5 ? ev_.by_flush_mask(mask) : strength_t{0};
            any |= flush[p] != 0;
          }
          if (!any) return;
          if (rest == 0) {  // complete board
            std::array<strength_t, equity_max_players> v{};
            for (std::size_t p = 0; p < n; ++p) {
              hand_accumulator h = holes_[p];
              for (std::uint64_t m = board; m; m &= m - 1) h = h + static_cast<card_t>(std::countr_zero(m));
              v[p] = ev_.seven_by_ranks(h.key & detail::rank_bits);
            }
            return correct(v.data(), 1);
          }
          return ranks(other_avail, 0, rest, 1, start_states(board), correct);
        }
        for (std::size_t i = from; i + left <= in_suit.size(); ++i) self(self, i + 1, left - 1, board | card_bit(in_suit[i]));
      };
      suited(suited, 0, k, board_.cards);
    }
  }

  std::size_t n_;
  unsigned need_;
  std::span<const card_t> deck_;
  const std::vector<hand_accumulator>& holes_;
  const rank_states& rs_;
  const hand_evaluator& ev_;
  hand_accumulator board_;
  std::array<unsigned, 13> avail_{};
};

}  // namespace

equity_result fixed_assignments_equity(const equity_input& in, std::span<const fixed_assignment> assignments,
                                       std::uint64_t total, unsigned threads, const run_control& rc) {
  const std::size_t n = in.ranges.size();
  std::uint64_t known = 0;
  for (card_t c : in.board) known |= card_bit(c);
  for (card_t c : in.dead) known |= card_bit(c);
  // Per assignment: its hands and the cards its board completions may use (held here, the
  // fixed_hands objects keep references).
  std::vector<std::vector<hand_accumulator>> holes(assignments.size(), std::vector<hand_accumulator>(n));
  std::vector<std::vector<card_t>> decks(assignments.size());
  std::vector<fixed_hands> work;
  work.reserve(assignments.size());
  for (std::size_t a = 0; a < assignments.size(); ++a) {
    std::uint64_t used = known;
    for (std::size_t p = 0; p < n; ++p) {
      const hole_cards& h = assignments[a].holes[p];
      holes[a][p] = hand_accumulator{} + h[0] + h[1];
      used |= card_bits(h);
    }
    for (card_t c = 0; c < cards_per_deck; ++c)
      if (!(used >> c & 1)) decks[a].push_back(c);
    work.emplace_back(holes[a], in.board, decks[a]);
  }
  constexpr unsigned per_assignment = 5;  // rank multisets, then the flush corrections of each suit
  const std::uint64_t items = assignments.size() * per_assignment;
  std::vector<fixed_tally> parts(items);
  std::mutex mu;
  std::uint64_t done = 0, ran = 0;
  internal::parallel_items(items, internal::resolve_threads(threads), [&](std::uint64_t item, unsigned) {
    if (rc.stopped()) return;
    const std::size_t a = item / per_assignment;
    work[a].item(static_cast<unsigned>(item % per_assignment), parts[item]);
    std::lock_guard lock(mu);
    ++ran;
    done += parts[item].outcomes * assignments[a].weight;
    rc.progress(done, total);
  });
  equity_result out;
  out.exact = true;
  out.assignments = 0;
  for (const auto& a : assignments) out.assignments += a.weight;
  out.symmetry = 1;
  out.players.assign(n, {});
  // Sums in item order, each assignment's tallies times its weight (wrapping arithmetic: the
  // flush corrections subtract, the totals are true non-negative counts).
  for (std::uint64_t item = 0; item < items; ++item) {
    const auto& t = parts[item];
    const std::uint64_t w = assignments[item / per_assignment].weight;
    out.outcomes += w * t.outcomes;
    for (std::size_t p = 0; p < n; ++p) {
      auto& o = out.players[p];
      o.wins += w * t.wins[p], o.ties += w * t.ties[p], o.share += w * t.share[p], o.share_sq += w * t.share_sq[p];
    }
  }
  if (ran != items) {  // corrections without their multisets (or the reverse) mean nothing
    out.outcomes = 0;
    out.players.assign(n, {});
  }
  out.total_weight = static_cast<double>(out.outcomes);
  for (auto& o : out.players) {
    o.weighted_wins = static_cast<double>(o.wins);
    o.weighted_ties = static_cast<double>(o.ties);
    o.weighted_share = static_cast<double>(o.share);
  }
  out.complete = out.outcomes == total;
  return out;
}

equity_result fixed_hands_equity(const equity_input& in, std::uint64_t total, unsigned threads, const run_control& rc) {
  fixed_assignment one{{}, 1};
  for (const auto& r : in.ranges) one.holes.push_back(r[0]);
  return fixed_assignments_equity(in, std::span(&one, 1), total, threads, rc);
}

}  // namespace fairdeck::poker::internal
