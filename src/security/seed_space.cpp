#include "fairdeck/security/seed_space.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include <boost/multiprecision/cpp_int.hpp>
#include <fmt/format.h>

#include "fairdeck/cards/deal.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/security/runtime_attack.hpp"

namespace fairdeck {
namespace {

using real = long double;

// Work allowed for one exact count (multiply-adds); beyond it we say so instead of hanging.
constexpr std::uint64_t dp_budget = 1'500'000'000;
// Largest deal the linear-domain count handles: 53^K * 2^K stays far below long double's 2^16383.
constexpr std::uint64_t dp_max_cards = 1500;

real choose(unsigned n, unsigned k) {
  real r = 1;
  for (unsigned i = 1; i <= k; ++i) r = r * static_cast<real>(n - k + i) / static_cast<real>(i);
  return r;
}

// Ways to give faces (face f at most multiplicity[f] cards) to a labelled 1-cycles,
// b labelled 2-cycles and c labelled 3-cycles: a permutation of the unordered sets fixes an
// outcome iff every cycle holds one face. Dynamic programme over faces, state = cycles used.
real fixed_outcomes(std::span<const unsigned> multiplicity, unsigned a, unsigned b, unsigned c) {
  std::vector<real> fact(std::size_t{std::max({a, b, c})} + 1, 1);  // n! < 2^16383 for n <= dp_max_cards
  for (std::size_t i = 1; i < fact.size(); ++i) fact[i] = fact[i - 1] * static_cast<real>(i);
  auto binom = [&](unsigned n, unsigned k) { return fact[n] / (fact[k] * fact[n - k]); };
  const std::size_t sb = b + 1u, sc = c + 1u;
  auto at = [&](unsigned i, unsigned j, unsigned k) { return (std::size_t{i} * sb + j) * sc + k; };
  std::vector<real> dp(std::size_t{a + 1u} * sb * sc, 0), next(dp.size());
  dp[at(0, 0, 0)] = 1;
  for (unsigned m : multiplicity) {
    std::ranges::fill(next, real{0});
    for (unsigned i = 0; i <= a; ++i)
      for (unsigned j = 0; j <= b; ++j)
        for (unsigned k = 0; k <= c; ++k) {
          const real here = dp[at(i, j, k)];
          if (here == 0) continue;
          for (unsigned z = 0; z <= c - k && 3 * z <= m; ++z)
            for (unsigned y = 0; y <= b - j && 3 * z + 2 * y <= m; ++y) {
              const real wyz = here * binom(c - k, z) * binom(b - j, y);
              for (unsigned x = 0; x <= a - i && 3 * z + 2 * y + x <= m; ++x)
                next[at(i + x, j + y, k + z)] += wyz * binom(a - i, x);
            }
        }
    dp.swap(next);
  }
  return dp[at(a, b, c)];
}

std::vector<unsigned> multiplicities(const deck_spec& deck) {
  std::vector<unsigned> m(cards_per_deck, deck.decks);
  if (deck.jokers) m.push_back(deck.jokers);  // jokers are interchangeable
  return m;
}

}  // namespace

double log2_factorial(std::uint64_t n) { return log2_falling(n, n); }

double log2_falling(std::uint64_t n, std::uint64_t k) {
  if (k > n) throw std::invalid_argument(fmt::format("cannot deal {} cards from {}", k, n));
  real sum = 0;
  for (std::uint64_t i = n - k + 1; i <= n; ++i) sum += std::log2(static_cast<real>(i));
  return static_cast<double>(sum);
}

// g++ 12 reports a false -Wrestrict inside cpp_int::str() (GCC bug 105329).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wrestrict"
#endif
std::string falling_factorial_decimal(std::uint64_t n, std::uint64_t k) {
  if (k > n) throw std::invalid_argument(fmt::format("cannot deal {} cards from {}", k, n));
  boost::multiprecision::cpp_int r = 1;
  for (std::uint64_t i = n - k + 1; i <= n; ++i) r *= i;
  return r.str();
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

double log2_distinguishable(std::span<const unsigned> multiplicity, unsigned unordered_pairs,
                            unsigned unordered_triples, std::uint64_t ordered_singles) {
  std::uint64_t shoe = 0;
  for (unsigned m : multiplicity) shoe += m;
  const std::uint64_t dealt = 2ull * unordered_pairs + 3ull * unordered_triples + ordered_singles;
  if (dealt > shoe) throw std::invalid_argument(fmt::format("cannot deal {} cards from a {}-card shoe", dealt, shoe));
  const auto faces = static_cast<double>(multiplicity.size());
  if (std::ranges::all_of(multiplicity, [&](unsigned m) { return m >= dealt; })) {
    // No face can run out: multisets of faces per unordered set, a face per single.
    const double pair_bits = std::log2(faces * (faces + 1) / 2), triple_bits = std::log2(faces * (faces + 1) * (faces + 2) / 6);
    return unordered_pairs * pair_bits + unordered_triples * triple_bits + static_cast<double>(ordered_singles) * std::log2(faces);
  }
  if (dealt > dp_max_cards ||
      static_cast<double>(multiplicity.size()) * static_cast<double>(dealt) * static_cast<double>(dealt) *
              (unordered_pairs + 1.0) * (unordered_triples + 1.0) * (unordered_pairs + 1.0) * (unordered_triples + 1.0) >
          static_cast<double>(dp_budget))
    throw std::invalid_argument(fmt::format(
        "an exact count of distinguishable outcomes for {} cards from this shoe is too large to compute here "
        "(at most {} cards; the full shoe, or a shoe with at least as many decks as cards dealt, always works)",
        dealt, dp_max_cards));
  // Burnside: orbits = average over the group (S2^P x S3^T) of the outcomes each element
  // fixes. An element swaps s pairs; each triple is fixed (1 way), a transposition (3
  // ways: one 2-cycle + one 1-cycle) or a 3-cycle (2 ways).
  const unsigned P = unordered_pairs, T = unordered_triples;
  real total = 0;
  for (unsigned s = 0; s <= P; ++s)
    for (unsigned t2 = 0; t2 <= T; ++t2)
      for (unsigned t3 = 0; t2 + t3 <= T; ++t3) {
        const unsigned t1 = T - t2 - t3;
        const real elements = choose(P, s) * choose(T, t2) * choose(T - t2, t3) * std::pow(real{3}, t2) * std::pow(real{2}, t3);
        const auto singles = static_cast<unsigned>(2 * (P - s) + 3 * t1 + t2 + ordered_singles);
        const real fixed = fixed_outcomes(multiplicity, singles, s + t2, t3);
        total += elements * fixed;
      }
  const real group = std::pow(real{2}, P) * std::pow(real{6}, T);
  return static_cast<double>(std::log2(total / group));
}

outcome_space deck_outcomes(const deck_spec& deck, std::uint64_t cards) {
  validate(deck);
  const std::uint64_t n = deck.size();
  if (cards > n) throw std::invalid_argument(fmt::format("{} cards exceed the {}-card shoe", cards, n));
  outcome_space o{deck, game_kind::deck, 0, cards ? cards : n, 0, 0};
  o.ordered_bits = log2_falling(n, o.cards_dealt);
  if (o.cards_dealt == n) {
    // The whole shoe: the multinomial n! / (d!^52 j!).
    o.distinguishable_bits =
        log2_factorial(n) - cards_per_deck * log2_factorial(deck.decks) - log2_factorial(deck.jokers);
  } else {
    const auto m = multiplicities(deck);
    o.distinguishable_bits = log2_distinguishable(m, 0, 0, o.cards_dealt);
  }
  return o;
}

outcome_space holdem_outcomes(const deck_spec& deck, unsigned players) {
  validate(deck);
  if (players < holdem_min_players || players > holdem_max_players)
    throw std::invalid_argument(
        fmt::format("hold'em needs {} to {} players, got {}", holdem_min_players, holdem_max_players, players));
  const holdem_layout at{players};
  if (deck.size() < at.cards_used())
    throw std::invalid_argument(
        fmt::format("{} players need {} cards but the shoe has {}", players, at.cards_used(), deck.size()));
  outcome_space o{deck, game_kind::holdem, players, 2ull * players + 5, 0, 0};
  o.ordered_bits = log2_falling(deck.size(), o.cards_dealt);
  const auto m = multiplicities(deck);
  o.distinguishable_bits = log2_distinguishable(m, players, 1, 2);  // hole pairs, flop; turn and river
  return o;
}

std::vector<reachability> engine_reachability(const outcome_space& space) {
  const double outcomes = space.distinguishable_bits;
  auto row = [&](std::string name, bool secure, double seed_bits, unsigned state_bits) {
    reachability r;
    r.name = std::move(name);
    r.secure = secure;
    r.seed_bits = seed_bits;
    r.state_bits = state_bits;
    r.log2_reachable = std::min({seed_bits, static_cast<double>(state_bits), outcomes});
    r.log2_fraction = r.log2_reachable - outcomes;
    r.every_outcome = seed_bits >= outcomes && state_bits >= outcomes;
    if (secure)
      r.verdict = r.every_outcome ? "can deal every outcome; unpredictable without the key"
                                  : fmt::format("reaches at most 1 in 2^{:.1f} outcomes per key, but which ones is "
                                                "unpredictable without the key",
                                                -r.log2_fraction);
    else if (r.every_outcome)
      r.verdict = fmt::format("can deal every outcome, but predictable: its 2^{:.1f} seeds can be searched", seed_bits);
    else
      r.verdict = fmt::format("cannot: reaches 1 in 2^{:.1f} outcomes; its 2^{:.1f} seeds can be searched",
                              -r.log2_fraction, seed_bits);
    return r;
  };
  std::vector<reachability> rows;
  for (const auto& e : engine_catalog()) rows.push_back(row(std::string(e.name), e.secure, e.seed_bits, e.state_bits));
  rows.push_back(row("time-of-day-ms", false, std::log2(86'400'000.0), 32));  // Delphi Randomize, 1999
  return rows;
}

std::vector<runtime_reachability> runtime_reachabilities(const outcome_space& space) {
  const double outcomes = space.distinguishable_bits;
  std::vector<runtime_reachability> rows;
  for (const auto& rt : runtimes::runtime_catalog()) {
    runtime_reachability r;
    r.name = rt.name;
    r.runtime = rt.runtime;
    r.code = rt.code;
    r.default_seeding = rt.default_seeding;
    r.explicit_seed_bits = rt.explicit_seed_bits;
    r.default_seed_bits = rt.default_seed_bits;
    r.log2_reachable_explicit = std::min(rt.explicit_seed_bits, outcomes);
    r.log2_reachable_default = std::min(rt.default_seed_bits, outcomes);
    r.log2_fraction_explicit = r.log2_reachable_explicit - outcomes;
    r.log2_fraction_default = r.log2_reachable_default - outcomes;
    const runtime_attack_info& a = attack_info(rt.id);
    r.searchable = a.searchable;
    r.attack = std::string(a.why);
    rows.push_back(std::move(r));
  }
  return rows;
}

}  // namespace fairdeck
