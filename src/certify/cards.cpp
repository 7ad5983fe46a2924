#include "fairdeck/certify/cards.hpp"
#include "fairdeck/certify/validity.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <istream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

namespace fairdeck::certify {
namespace {

// Counts by the best five of K cards (high card ... straight flush): Cactus Kev's / the
// Wikipedia "Poker probability" tables, equal to poker::exact_category_counts (tested).
constexpr std::array<std::uint64_t, poker::category_count> five = {1302540, 1098240, 123552, 54912, 10200,
                                                                   5108,    3744,    624,    40};
constexpr std::array<std::uint64_t, poker::category_count> six = {6612900, 9730740, 2532816, 732160, 361620,
                                                                  205792,  165984,  14664,   1844};
constexpr std::array<std::uint64_t, poker::category_count> seven = {23294460, 58627800, 31433400, 6461620, 6180020,
                                                                    4047644,  3473184,  224848,   41584};

}  // namespace

const std::array<std::uint64_t, poker::category_count>& exact_hand_counts(unsigned cards) {
  switch (cards) {
    case 5: return five;
    case 6: return six;
    case 7: return seven;
    default: throw std::invalid_argument("exact_hand_counts: 5, 6 or 7 cards");
  }
}

void hand_tally::add(std::span<const card_t> hand) {
  ++hands;
  ++count[static_cast<unsigned>(poker::category_of(poker::evaluate(hand)))];
}

test_result hand_category_test(const hand_tally& t, std::string name, std::string family, std::string description) {
  test_result r{.name = std::move(name), .family = std::move(family), .description = std::move(description),
                .reference = fmt::format("exact category counts of all C(52,{}) hands (best five)", t.cards),
                .distribution = "chi2", .sample = t.hands, .min_sample = validity_of("hand-categories").min,
                .unit = "hands"};
  if (t.hands < r.min_sample) return invalid(std::move(r), needs(r.min_sample, t.hands, r.unit));
  const auto& exact = exact_hand_counts(t.cards);
  double total = 0;
  for (auto c : exact) total += static_cast<double>(c);
  // Pool from the rarest end: order bins by probability, descending, so the rare
  // categories (straight flush, quads, ...) join their neighbours in that order.
  std::array<unsigned, poker::category_count> order{};
  for (unsigned i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](unsigned a, unsigned b) { return exact[a] > exact[b]; });
  std::vector<double> obs, null;
  for (unsigned i : order) {
    obs.push_back(static_cast<double>(t.count[i]));
    null.push_back(static_cast<double>(exact[i]) / total);
  }
  chi2_against(r, obs, null);
  if (r.valid()) {
    std::string seen;
    for (unsigned i = 0; i < poker::category_count; ++i)
      seen += fmt::format("{}{} {}", seen.empty() ? "" : ", ", poker::category_key(static_cast<poker::hand_category>(i)),
                          t.count[i]);
    r.note = seen;
  }
  return r;
}

void deck_outcomes::add(std::span<const card_t> top_first) {
  ++decks_;
  if (have_last_) {
    ++pairs_;
    same_top_ += top_first[0] == last_top_;
  }
  last_top_ = top_first[0];
  have_last_ = true;
  if (standard_) {
    top5_.add(top_first.first(5));
    top7_.add(top_first.first(7));
  }
}

void deck_outcomes::results(std::size_t deck_size, std::vector<test_result>& out) const {
  {
    test_result r{.name = "repeat-top", .family = "decks",
                  .description = "how often a deck's top card is the previous deck's top card",
                  .reference = "exact binomial(pairs, 1/n), two-sided", .distribution = "binomial", .sample = pairs_,
                  .unit = "consecutive pairs"};
    const double p = 1.0 / static_cast<double>(deck_size);
    // Enough pairs that "never" is rejected: (1 - p)^pairs < 1e-4 (52 cards: 475 pairs, from
    // 476 consecutive decks, validity.hpp).
    r.min_sample = static_cast<std::uint64_t>(std::ceil(std::log(1e-4) / std::log1p(-p)));
    if (pairs_ < r.min_sample) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} consecutive decks ({} pairs), has {}", r.min_sample + 1,
                                                      r.min_sample, decks_)));
    } else {
      r.statistic = static_cast<double>(same_top_);
      r.p_value = binomial_two_sided(same_top_, pairs_, p);
      r.expected = static_cast<double>(pairs_) * p;
      r.note = fmt::format("{} repeats in {} pairs, {:.1f} expected", same_top_, pairs_, *r.expected);
      r.effect = effect_kind::normal;
      r.effect_n = static_cast<double>(pairs_);
      r.effect_scale = std::sqrt(p * (1 - p)) / p;
      r.effect_unit = "relative change in the repeat rate";
      out.push_back(std::move(r));
    }
  }
  if (!standard_) return;
  out.push_back(hand_category_test(top5_, "top5-categories", "decks",
                                   "poker category of the 5 top cards against the exact 5-card probabilities"));
  out.push_back(hand_category_test(top7_, "top7-categories", "decks",
                                   "best-5 category of the 7 top cards (hold'em) against the exact probabilities"));
}

void read_hands(std::istream& in, hand_tallies& out, const run_control& rc) {
  std::string line;
  std::vector<std::vector<card_t>> groups;  // cards between '|' separators
  std::vector<card_t> hand;
  std::vector<std::array<card_t, 2>> seats;
  while (!rc.stopped() && std::getline(in, line)) {
    ++out.lines;
    std::string_view s(line);
    if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
    const auto first = s.find_first_not_of(" \t");
    if (first == std::string_view::npos || s[first] == '#') continue;
    s.remove_prefix(first);
    ++out.hands;
    // An optional seat label "N:" (seat N's hole cards; several seats: N, N+1, ...).
    std::optional<unsigned> label;
    if (const auto colon = s.find(':'); colon != std::string_view::npos && colon > 0 && colon <= 3) {
      unsigned v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + colon, v);
      if (ec != std::errc() || end != s.data() + colon || v < 1 || v > max_seats)
        throw std::runtime_error(fmt::format("hands line {}: the seat label '{}' is not a seat 1..{}", out.lines,
                                             s.substr(0, colon + 1), max_seats));
      label = v;
      s.remove_prefix(colon + 1);
    }
    groups.assign(1, {});
    std::uint64_t seen = 0;
    std::size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == ',' || s[i] == '|')) {
        if (s[i] == '|') groups.emplace_back();
        ++i;
      }
      std::size_t j = i;
      while (j < s.size() && !(s[j] == ' ' || s[j] == '\t' || s[j] == ',' || s[j] == '|')) ++j;
      if (j == i) break;
      card_t c = 0;
      try {
        c = parse_card(s.substr(i, j - i));
      } catch (const std::exception& e) {
        throw std::runtime_error(fmt::format("hands line {}: {}", out.lines, e.what()));
      }
      if (c >= cards_per_deck) throw std::runtime_error(fmt::format("hands line {}: jokers are not poker cards", out.lines));
      if (seen >> c & 1)
        throw std::runtime_error(fmt::format("hands line {}: card '{}' appears twice", out.lines, s.substr(i, j - i)));
      seen |= std::uint64_t{1} << c;
      groups.back().push_back(c);
      i = j;
    }
    if (groups.size() == 1) {  // no '|': 2 hole cards, or 5, 6 or 7 cards
      auto& h = groups[0];
      if (h.size() > 7)
        throw std::runtime_error(fmt::format("hands line {}: more than 7 cards (expected 2, 5, 6 or 7)", out.lines));
      if (h.size() == 2) {
        ++out.hole_hands;
        ++out.hole[rank_of(h[0]) == rank_of(h[1]) ? 0 : suit_of(h[0]) == suit_of(h[1]) ? 1 : 2];
        seats.assign(1, {h[0], h[1]});
        out.holdem.add({.seats = seats, .board = {}, .first_seat = label.value_or(1), .seats_known = label.has_value()});
        continue;
      }
      if (h.size() < 5)
        throw std::runtime_error(fmt::format("hands line {}: {} cards (expected 2, 5, 6 or 7)", out.lines, h.size()));
      if (label) throw std::runtime_error(fmt::format("hands line {}: a seat label needs hole cards and '|'", out.lines));
      (h.size() == 5 ? out.five : h.size() == 6 ? out.six : out.seven).add(h);
    } else {  // hold'em: seats' hole cards | ... | board (a last group of 3, 4 or 5 cards)
      std::span<const card_t> board;
      std::size_t seat_groups = groups.size();
      if (const auto last = groups.back().size(); last != 2) {
        if (last != 0 && (last < 3 || last > 5))
          throw std::runtime_error(fmt::format("hands line {}: a board of {} cards (expected 3, 4 or 5)", out.lines, last));
        board = groups.back();
        --seat_groups;
      }
      seats.clear();
      for (std::size_t g = 0; g < seat_groups; ++g) {
        if (groups[g].size() != 2)
          throw std::runtime_error(fmt::format("hands line {}: seat {} has {} cards (hole cards are 2; the board "
                                               "of 3, 4 or 5 cards comes last)", out.lines, g + 1, groups[g].size()));
        seats.push_back({groups[g][0], groups[g][1]});
      }
      if (label.value_or(1) + seats.size() - 1 > max_seats)
        throw std::runtime_error(fmt::format("hands line {}: more than {} seats", out.lines, max_seats));
      out.holdem.add({.seats = seats, .board = board, .first_seat = label.value_or(1),
                      .seats_known = label.has_value() || seats.size() > 1});
      if (!board.empty()) {  // the first seat's cards: the best-five category as before
        hand.assign(seats[0].begin(), seats[0].end());
        hand.insert(hand.end(), board.begin(), board.end());
        (hand.size() == 5 ? out.five : hand.size() == 6 ? out.six : out.seven).add(hand);
      }
    }
    if ((out.lines & 0xfffff) == 0) rc.progress(out.lines, 0);
  }
  if (in.bad()) throw std::runtime_error("read error on the hands input");
}

void hand_results(const hand_tallies& t, std::vector<test_result>& out) {
  if (t.five.hands)
    out.push_back(hand_category_test(t.five, "hand5-categories", "hands", "5-card hands: category frequencies"));
  if (t.six.hands)
    out.push_back(hand_category_test(t.six, "hand6-categories", "hands", "6-card hands: best-5 category frequencies"));
  if (t.seven.hands)
    out.push_back(hand_category_test(t.seven, "hand7-categories", "hands",
                                     "7-card hands (hold'em hole + board): best-5 category frequencies"));
  if (t.hole_hands) {
    test_result r{.name = "hole2-categories", .family = "hands",
                  .description = "2-card starting hands: pairs, suited, offsuit",
                  .reference = "exact: 78, 312 and 936 of the C(52,2) = 1,326 hands", .distribution = "chi2",
                  .sample = t.hole_hands, .min_sample = validity_of("hole2-categories").min, .unit = "hands"};
    if (t.hole_hands < r.min_sample) {
      out.push_back(invalid(std::move(r), needs(r.min_sample, t.hole_hands, r.unit)));
    } else {
      chi2_against(r, {static_cast<double>(t.hole[0]), static_cast<double>(t.hole[1]), static_cast<double>(t.hole[2])},
                   {78.0 / 1326, 312.0 / 1326, 936.0 / 1326});
      r.note = fmt::format("pairs {}, suited {}, offsuit {}", t.hole[0], t.hole[1], t.hole[2]);
      out.push_back(std::move(r));
    }
  }
  t.holdem.results(out);
  if (!t.five.hands && !t.six.hands && !t.seven.hands && !t.hole_hands && !t.holdem.deals())
    out.push_back(invalid(test_result{.name = "hand-categories", .family = "hands",
                                      .description = "dealt hand category frequencies", .reference = {},
                                      .distribution = "chi2", .sample = 0, .min_sample = 200, .unit = "hands"},
                          "no hands in the input"));
}

}  // namespace fairdeck::certify
