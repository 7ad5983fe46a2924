#include "fairdeck/poker/omaha.hpp"

#include <algorithm>
#include <bit>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/internal/omaha_tables.hpp"
#include "fairdeck/poker/internal/parallel.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace fairdeck::poker {
// Flush candidates: two hole cards and three board cards of the board's 3+ suit (rare; bit
// loops over the suit's rank masks).
strength_t omaha_board::flush_high(std::span<const card_t> hole) const noexcept {
  std::uint64_t cards = 0;
  for (card_t c : hole) cards |= std::uint64_t{1} << c;
  const unsigned hm = static_cast<unsigned>(cards >> flush_shift_) & 0x1fff;
  if (std::popcount(hm) < 2) return 0;
  const auto& ev = hand_evaluator::instance();
  auto low = [](unsigned m) { return m & (0u - m); };
  strength_t best = 0;
  for (unsigned a = hm; a; a &= a - 1)
    for (unsigned b = a & (a - 1); b; b &= b - 1) {
      const unsigned pair = low(a) | low(b);
      for (unsigned x = flush_board_; x; x &= x - 1)
        for (unsigned y = x & (x - 1); y; y &= y - 1)
          for (unsigned z = y & (y - 1); z; z &= z - 1)
            best = std::max(best, ev.by_flush_mask(pair | low(x) | low(y) | low(z)));
    }
  return best;
}

strength_t omaha_board::high_any(std::span<const card_t> hole) const noexcept {
  strength_t best = 0;
  for (std::size_t i = 0; i < hole.size(); ++i)
    for (std::size_t j = i + 1; j < hole.size(); ++j)
      best = std::max(best, row_[internal::omaha_tables::pair_column(hole[i], hole[j])]);
  if (flush_board_) best = std::max(best, flush_high(hole));
  return best;
}

namespace {

void check_cards(std::span<const card_t> hole, std::span<const card_t> board) {
  if (hole.size() < 4 || hole.size() > 5) throw std::invalid_argument("an Omaha hand has 4 or 5 hole cards");
  if (board.size() != 5) throw std::invalid_argument("Omaha evaluation needs a complete 5-card board");
  std::uint64_t seen = 0;
  for (std::span<const card_t> part : {hole, board})
    for (card_t c : part) {
      if (c >= cards_per_deck) throw std::invalid_argument(fmt::format("card index {} is not in a 52-card deck", c));
      if (seen >> c & 1) throw std::invalid_argument(fmt::format("card {} appears twice", format_card(c, {})));
      seen |= card_bit(c);
    }
}

// One showdown: high half (or all) to the best high, low half to the best low.
void score(bool hi_lo, std::span<const strength_t> hi, std::span<const low_t> lo, player_tally* tally) {
  const std::size_t n = hi.size();
  const strength_t best_hi = *std::max_element(hi.begin(), hi.end());
  const low_t best_lo = hi_lo ? *std::max_element(lo.begin(), lo.end()) : low_t{0};
  const auto k_hi = static_cast<std::uint64_t>(std::count(hi.begin(), hi.end(), best_hi));
  const std::uint64_t half = best_lo ? omaha_pot_units / 2 : omaha_pot_units;
  const std::uint64_t k_lo = best_lo ? static_cast<std::uint64_t>(std::count(lo.begin(), lo.end(), best_lo)) : 1;
  for (std::size_t p = 0; p < n; ++p) {
    std::uint64_t share = 0;
    if (hi[p] == best_hi) share += half / k_hi;
    if (best_lo && lo[p] == best_lo) share += omaha_pot_units / 2 / k_lo;
    if (!share) continue;
    ++(share == omaha_pot_units ? tally[p].wins : tally[p].ties);
    tally[p].share += share;
    tally[p].share_sq += share * share;
  }
}

struct showdown {
  const omaha_input& in;
  std::array<strength_t, equity_max_players> hi{};
  std::array<low_t, equity_max_players> lo{};
  void operator()(std::span<const card_t, 5> board, player_tally* tally) {
    const omaha_board b(board);
    const std::size_t n = in.hands.size();
    for (std::size_t p = 0; p < n; ++p) {
      hi[p] = b.high(in.hands[p]);
      if (in.rules.hi_lo) lo[p] = b.low(in.hands[p]);
    }
    score(in.rules.hi_lo, {hi.data(), n}, {lo.data(), n}, tally);
  }
};

std::vector<card_t> remaining(const omaha_input& in) {
  std::uint64_t used = 0;
  for (const auto& h : in.hands)
    for (card_t c : h) used |= card_bit(c);
  for (card_t c : in.board) used |= card_bit(c);
  for (card_t c : in.dead) used |= card_bit(c);
  std::vector<card_t> out;
  for (card_t c = 0; c < cards_per_deck; ++c)
    if (!(used >> c & 1)) out.push_back(c);
  return out;
}

equity_result combine(const std::vector<std::vector<player_tally>>& parts, std::size_t n, bool exact) {
  equity_result out;
  out.exact = exact;
  out.pot = omaha_pot_units;
  out.players.assign(n, {});
  for (const auto& part : parts)
    for (std::size_t p = 0; p < n; ++p) {
      out.players[p].wins += part[p].wins;
      out.players[p].ties += part[p].ties;
      out.players[p].share += part[p].share;
      out.players[p].share_sq += part[p].share_sq;
    }
  return out;
}

}  // namespace

strength_t omaha_high(std::span<const card_t> hole, std::span<const card_t> board) {
  check_cards(hole, board);
  return omaha_board(board.first<5>()).high(hole);
}

low_t omaha_low(std::span<const card_t> hole, std::span<const card_t> board) {
  check_cards(hole, board);
  return omaha_board(board.first<5>()).low(hole);
}

void check_omaha_input(const omaha_input& in) {
  const auto n = in.hands.size();
  if (in.rules.hole_cards != 4 && in.rules.hole_cards != 5) throw std::invalid_argument("Omaha is played with 4 or 5 hole cards");
  if (n < equity_min_players || n > equity_max_players)
    throw std::invalid_argument(fmt::format("equity needs {} to {} players, got {}", equity_min_players, equity_max_players, n));
  if (in.board.size() > 5) throw std::invalid_argument(fmt::format("a board has at most 5 cards, got {}", in.board.size()));
  std::vector<std::string> owner(cards_per_deck);
  auto claim = [&](card_t c, const std::string& who) {
    if (c >= cards_per_deck) throw std::invalid_argument(fmt::format("card index {} is not in a 52-card deck", c));
    if (!owner[c].empty())
      throw std::invalid_argument(fmt::format("card {} appears twice ({} and {})", format_card(c, {}), owner[c], who));
    owner[c] = who;
  };
  for (std::size_t p = 0; p < n; ++p) {
    if (in.hands[p].size() != in.rules.hole_cards)
      throw std::invalid_argument(fmt::format("player {} needs exactly {} hole cards, got {}", p + 1, in.rules.hole_cards,
                                              in.hands[p].size()));
    for (card_t c : in.hands[p]) claim(c, fmt::format("player {}'s hand", p + 1));
  }
  for (card_t c : in.board) claim(c, "the board");
  for (card_t c : in.dead) claim(c, "the dead cards");
  if (remaining(in).size() < 5 - in.board.size()) throw std::invalid_argument("too many known cards: the board cannot be completed");
}

double omaha_exact_work(const omaha_input& in) {
  const double pairs = in.rules.hole_cards == 4 ? 6 : 10;  // times 10 board triples
  return static_cast<double>(choose(remaining(in).size(), 5 - in.board.size())) * static_cast<double>(in.hands.size()) * pairs * 10;
}

equity_result omaha_exact_equity(const omaha_input& in, unsigned threads, const run_control& rc) {
  check_omaha_input(in);
  const std::size_t n = in.hands.size();
  const auto deck = remaining(in);
  const unsigned need = 5 - static_cast<unsigned>(in.board.size());
  const std::uint64_t total = choose(deck.size(), need);
  // Items: the first missing board card's position (or one item for a full board).
  const std::uint64_t items = need ? deck.size() - need + 1 : 1;
  const unsigned workers = internal::resolve_threads(threads);
  std::vector<std::vector<player_tally>> parts(items, std::vector<player_tally>(n));
  std::mutex mu;
  std::uint64_t done = 0;
  internal::parallel_items(items, workers, [&](std::uint64_t item, unsigned) {
    if (rc.stopped()) return;
    showdown sd{in};
    std::array<card_t, 5> board{};
    std::copy(in.board.begin(), in.board.end(), board.begin());
    const std::size_t k0 = in.board.size();
    std::uint64_t count = 0;
    auto rec = [&](auto& self, std::size_t k, std::size_t from) -> void {
      if (k == 5) {
        sd(board, parts[item].data());
        ++count;
        return;
      }
      for (std::size_t i = from; i + (5 - k) <= deck.size(); ++i) {
        board[k] = deck[i];
        self(self, k + 1, i + 1);
      }
    };
    if (need == 0) {
      rec(rec, 5, 0);
    } else {
      board[k0] = deck[item];
      rec(rec, k0 + 1, item + 1);
    }
    std::lock_guard lock(mu);
    done += count;
    rc.progress(done, total);
  });
  auto out = combine(parts, n, true);
  out.outcomes = done;
  out.assignments = 1;
  out.total_weight = static_cast<double>(done);
  out.complete = done == total;
  return out;
}

equity_result omaha_sample_equity(const omaha_input& in, std::uint64_t trials, const engine_spec& engine, unsigned threads,
                                  const run_control& rc) {
  check_omaha_input(in);
  const std::size_t n = in.hands.size();
  const auto deck0 = remaining(in);
  const unsigned need = 5 - static_cast<unsigned>(in.board.size());
  const std::uint64_t chunks = trials / equity_chunk_trials + (trials % equity_chunk_trials != 0);
  std::vector<std::vector<player_tally>> parts(chunks, std::vector<player_tally>(n));
  std::mutex mu;
  std::uint64_t done = 0;
  internal::parallel_items(chunks, internal::resolve_threads(threads), [&](std::uint64_t chunk, unsigned) {
    if (rc.stopped()) return;
    const std::uint64_t count = std::min(equity_chunk_trials, trials - chunk * equity_chunk_trials);
    visit_engine(engine, chunk, [&](auto& e) {
      auto deck = deck0;  // reused from trial to trial (a partial shuffle of any order is uniform)
      showdown sd{in};
      std::array<card_t, 5> board{};
      std::copy(in.board.begin(), in.board.end(), board.begin());
      for (std::uint64_t t = 0; t < count; ++t) {
        const auto drawn = partial_shuffle(deck, need, e);
        std::copy(drawn.begin(), drawn.end(), board.begin() + static_cast<std::ptrdiff_t>(in.board.size()));
        sd(board, parts[chunk].data());
      }
    });
    std::lock_guard lock(mu);
    done += count;
    rc.progress(done, trials);
  });
  auto out = combine(parts, n, false);
  out.outcomes = done;
  out.total_weight = static_cast<double>(done);
  out.complete = done == trials;
  return out;
}

}  // namespace fairdeck::poker
