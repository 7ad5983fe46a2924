#include "fairdeck/poker/equity.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/internal/assignments.hpp"
#include "fairdeck/poker/internal/parallel.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace fairdeck::poker {
namespace {

std::string card_name(card_t c) { return format_card(c, {}); }

hand_accumulator accumulate(std::span<const card_t> cards) {
  hand_accumulator a;
  for (card_t c : cards) a = a + c;
  return a;
}

std::uint64_t known_mask(const equity_input& in) {
  std::uint64_t m = 0;
  for (card_t c : in.board) m |= card_bit(c);
  for (card_t c : in.dead) m |= card_bit(c);
  return m;
}

// Cards still in the deck once board and dead cards are out, in index order.
std::vector<card_t> live_cards(std::uint64_t known) {
  std::vector<card_t> out;
  for (card_t c = 0; c < cards_per_deck; ++c)
    if (!(known >> c & 1)) out.push_back(c);
  return out;
}

// Scores one complete board for every player: the best strength wins, k tied best hands
// each take pot_units / k.
void score(const hand_evaluator& ev, std::span<const hand_accumulator> holes, const hand_accumulator& board,
           player_tally* tally) {
  std::array<strength_t, equity_max_players> s{};
  strength_t best = 0;
  for (std::size_t p = 0; p < holes.size(); ++p) best = std::max(best, s[p] = ev.eval7(holes[p] + board));
  unsigned k = 0;
  for (std::size_t p = 0; p < holes.size(); ++p) k += s[p] == best;
  const std::uint64_t unit = pot_units / k;
  for (std::size_t p = 0; p < holes.size(); ++p) {
    if (s[p] != best) continue;
    ++(k == 1 ? tally[p].wins : tally[p].ties);
    tally[p].share += unit;
    tally[p].share_sq += unit * unit;
  }
}

void require_consistent_deal(const equity_input& in) {
  std::vector<std::uint32_t> cur(in.ranges.size());
  bool any = false;
  auto stop_at_first = [&](const std::vector<std::uint32_t>&) { return !(any = true); };
  internal::for_each_assignment(in.ranges, 0, known_mask(in), cur, stop_at_first);
  if (!any) throw std::invalid_argument("no deal is possible: the players' hands and ranges always share a card");
}

unsigned board_cards_needed(const equity_input& in) { return 5 - static_cast<unsigned>(in.board.size()); }

}  // namespace

equity_input prepared(equity_input in) {
  const auto n = in.ranges.size();
  if (n < equity_min_players || n > equity_max_players)
    throw std::invalid_argument(
        fmt::format("equity needs {} to {} players, got {}", equity_min_players, equity_max_players, n));
  if (in.board.size() > 5) throw std::invalid_argument(fmt::format("a board has at most 5 cards, got {}", in.board.size()));
  std::vector<std::string> owner(cards_per_deck);
  auto claim = [&](card_t c, const std::string& who) {
    if (c >= cards_per_deck) throw std::invalid_argument(fmt::format("card index {} is not in a 52-card deck", c));
    if (!owner[c].empty())
      throw std::invalid_argument(fmt::format("card {} appears twice ({} and {})", card_name(c), owner[c], who));
    owner[c] = who;
  };
  for (card_t c : in.board) claim(c, "the board");
  for (card_t c : in.dead) claim(c, "the dead cards");
  for (std::size_t p = 0; p < n; ++p)
    if (in.ranges[p].size() == 1)
      for (card_t c : in.ranges[p][0]) claim(c, fmt::format("player {}'s hand", p + 1));
  if (in.board.size() + in.dead.size() + 2 * n > cards_per_deck)
    throw std::invalid_argument("too many known cards: players, board and dead cards need more than 52 cards");
  const std::uint64_t known = known_mask(in);
  if (in.weights.size() > n) throw std::invalid_argument("more weight lists than players");
  in.weights.resize(n);
  for (std::size_t p = 0; p < n; ++p) {
    auto& r = in.ranges[p];
    auto& w = in.weights[p];
    if (r.empty()) throw std::invalid_argument(fmt::format("player {} has an empty range", p + 1));
    if (!w.empty() && w.size() != r.size())
      throw std::invalid_argument(fmt::format("player {}: {} weights for {} combos", p + 1, w.size(), r.size()));
    std::size_t k = 0;  // keep combos off the board and dead cards with a positive weight
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (!w.empty() && w[i] > weight_unit)
        throw std::invalid_argument(fmt::format("player {}: a combo weight above 100%", p + 1));
      if ((card_bits(r[i]) & known) || (!w.empty() && w[i] == 0)) continue;
      r[k] = r[i];
      if (!w.empty()) w[k] = w[i];
      ++k;
    }
    r.resize(k);
    if (!w.empty()) w.resize(k);
    if (std::all_of(w.begin(), w.end(), [](std::uint32_t x) { return x == weight_unit; })) w.clear();
    if (r.empty())
      throw std::invalid_argument(fmt::format("player {}'s range has no hands left once board and dead cards are removed", p + 1));
  }
  require_consistent_deal(in);
  return in;
}

double exact_equity_work(const equity_input& in) {
  double assignments = 1;
  for (const auto& r : in.ranges) assignments *= static_cast<double>(r.size());
  const auto rem = cards_per_deck - in.board.size() - in.dead.size() - 2 * in.ranges.size();
  return assignments * static_cast<double>(choose(rem, board_cards_needed(in))) * static_cast<double>(in.ranges.size());
}

namespace {

inline constexpr std::uint64_t max_rejections = 1000000;

template <class Engine>
void sample_chunk(const equity_input& in, std::uint64_t trials, Engine& engine, player_tally* tally) {
  const auto& ev = hand_evaluator::instance();
  const std::size_t n = in.ranges.size();
  const unsigned need = board_cards_needed(in);
  const std::uint64_t known = known_mask(in);
  const hand_accumulator board0 = accumulate(in.board);
  const auto live = live_cards(known);
  const bool fixed = std::all_of(in.ranges.begin(), in.ranges.end(), [](const auto& r) { return r.size() == 1; });
  std::array<hand_accumulator, equity_max_players> holes{};
  std::vector<card_t> deck;
  if (fixed) {  // one deck, reused as it is from trial to trial; each trial partially shuffles the board cards
    std::uint64_t used = known;
    for (std::size_t p = 0; p < n; ++p) holes[p] = accumulate(in.ranges[p][0]), used |= card_bits(in.ranges[p][0]);
    for (card_t c : live)
      if (!(used >> c & 1)) deck.push_back(c);
  }
  std::vector<card_t> scratch(live.size());
  for (std::uint64_t t = 0; t < trials; ++t) {
    std::span<card_t> rest = deck;
    if (!fixed) {
      std::uint64_t used = 0;
      for (std::uint64_t attempt = 0;; ++attempt) {
        if (attempt == max_rejections)
          throw ranges_rarely_fit_error(
              "the ranges almost never fit together (a million rejected deals in a row); exact enumeration avoids "
              "the rejection");
        used = known;
        std::size_t p = 0;
        for (; p < n; ++p) {
          const auto& r = in.ranges[p];
          const std::size_t i = draw_below(engine, r.size());
          const hole_cards& h = r[i];
          if (used & card_bits(h)) break;
          // Weighted combos: kept with probability w / weight_unit (rejection sampling).
          if (p < in.weights.size() && !in.weights[p].empty() && draw_below(engine, weight_unit) >= in.weights[p][i])
            break;
          used |= card_bits(h);
          holes[p] = accumulate(h);
        }
        if (p == n) break;
      }
      std::size_t k = 0;
      for (card_t c : live) {
        scratch[k] = c;
        k += !(used >> c & 1);
      }
      rest = std::span<card_t>(scratch.data(), k);
    }
    hand_accumulator board = board0;
    for (card_t c : partial_shuffle(rest, need, engine)) board = board + c;
    score(ev, {holes.data(), n}, board, tally);
  }
}

}  // namespace

double win_fraction(const equity_result& r, std::size_t p) noexcept {
  if (r.weighted) return r.total_weight > 0 ? r.players[p].weighted_wins / r.total_weight : 0.0;
  return r.outcomes ? static_cast<double>(r.players[p].wins) / static_cast<double>(r.outcomes) : 0.0;
}

double tie_fraction(const equity_result& r, std::size_t p) noexcept {
  if (r.weighted) return r.total_weight > 0 ? r.players[p].weighted_ties / r.total_weight : 0.0;
  return r.outcomes ? static_cast<double>(r.players[p].ties) / static_cast<double>(r.outcomes) : 0.0;
}

double equity_share(const equity_result& r, std::size_t p) noexcept {
  const double u = static_cast<double>(r.pot);
  if (r.weighted) return r.total_weight > 0 ? r.players[p].weighted_share / u / r.total_weight : 0.0;
  return r.outcomes ? static_cast<double>(r.players[p].share) / u / static_cast<double>(r.outcomes) : 0.0;
}

double equity_stderr(const equity_result& r, std::size_t p) noexcept {
  if (r.exact || r.outcomes < 2) return 0.0;
  const double u = static_cast<double>(r.pot);
  const double n = static_cast<double>(r.outcomes);
  const double mean = static_cast<double>(r.players[p].share) / u / n;
  const double mean_sq = static_cast<double>(r.players[p].share_sq) / (u * u) / n;
  return std::sqrt(std::max(0.0, mean_sq - mean * mean) * n / (n - 1) / n);
}

equity_result sample_equity(const equity_input& in, std::uint64_t trials, const engine_spec& engine, unsigned threads,
                            const run_control& rc) {
  const std::size_t n = in.ranges.size();
  const std::uint64_t chunks = trials / equity_chunk_trials + (trials % equity_chunk_trials != 0);
  std::mutex mu;
  std::uint64_t done = 0;
  equity_result out;
  out.exact = false;
  out.players.assign(n, {});
  internal::parallel_items(chunks, internal::resolve_threads(threads), [&](std::uint64_t chunk, unsigned) {
    if (rc.stopped()) return;
    const std::uint64_t count = std::min(equity_chunk_trials, trials - chunk * equity_chunk_trials);
    std::vector<player_tally> part(n);
    visit_engine(engine, chunk, [&](auto& e) { sample_chunk(in, count, e, part.data()); });
    std::lock_guard lock(mu);
    for (std::size_t p = 0; p < n; ++p) {
      out.players[p].wins += part[p].wins;
      out.players[p].ties += part[p].ties;
      out.players[p].share += part[p].share;
      out.players[p].share_sq += part[p].share_sq;
    }
    done += count;
    rc.progress(done, trials);
  });
  out.outcomes = done;
  out.complete = done == trials;
  return out;
}

}  // namespace fairdeck::poker
