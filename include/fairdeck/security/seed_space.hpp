// How many deals a game has, and how many of them a generator can reach: 52! ~ 2^225.6
// orders, but a 32-bit seed reaches at most 2^32 of them (the point of Arkin, Hill, Marks,
// Schmid and Walls, "How We Learned to Cheat at Online Poker: A Study in Software Security",
// 1999, on ASF Software's shuffle).
//
// Two counts per game:
//  - ordered: every physical card distinct, every dealt position distinct
//    (n! / (n-k)! for k cards dealt from n);
//  - distinguishable: what the players can tell apart -- identical copies in a multi-deck
//    shoe are the same card, jokers are interchangeable, and in hold'em the two hole
//    cards of a seat and the three flop cards are unordered sets (burns are never seen).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/engine_registry.hpp"

namespace fairdeck {

// log2(n!) and log2(n! / (n-k)!), summed term by term in long double (error < 1e-12 bits
// for every shoe fairdeck accepts). k > n throws std::invalid_argument.
[[nodiscard]] double log2_factorial(std::uint64_t n);
[[nodiscard]] double log2_falling(std::uint64_t n, std::uint64_t k);

// Exact n! / (n-k)! as a decimal string (Boost.Multiprecision cpp_int).
[[nodiscard]] std::string falling_factorial_decimal(std::uint64_t n, std::uint64_t k);

// log2 of the number of distinguishable outcomes when a shoe whose faces come in the
// given multiplicities (face f has multiplicity[f] identical copies) deals:
// `unordered_pairs` unordered 2-card sets, then `unordered_triples` unordered 3-card sets,
// then `ordered_singles` cards whose position matters. Counted exactly as orbits
// (Burnside's lemma over the symmetric groups of the unordered sets), with a dynamic
// programme over faces that respects every multiplicity. Throws std::invalid_argument when
// the shoe holds fewer cards than are dealt, or when the request is too large to count
// exactly in reasonable time (the message says so).
[[nodiscard]] double log2_distinguishable(std::span<const unsigned> multiplicity, unsigned unordered_pairs,
                                          unsigned unordered_triples, std::uint64_t ordered_singles);

enum class game_kind { deck, holdem };

struct outcome_space {
  deck_spec deck;
  game_kind game = game_kind::deck;
  unsigned players = 0;           // hold'em only
  std::uint64_t cards_dealt = 0;  // cards whose order/identity counts (hold'em: 2P + 5 seen)
  double ordered_bits = 0;
  double distinguishable_bits = 0;
};

// The first `cards` cards of a shuffled shoe (cards == 0: the whole shoe).
[[nodiscard]] outcome_space deck_outcomes(const deck_spec& deck, std::uint64_t cards = 0);
// Texas hold'em for `players` (2..22): hole pairs and flop unordered, turn and river ordered.
[[nodiscard]] outcome_space holdem_outcomes(const deck_spec& deck, unsigned players);

struct reachability {
  std::string name;           // engine name, or "time-of-day-ms"
  bool secure = false;
  double seed_bits = 0;       // log2 of distinct seeds (secure: key bits)
  unsigned state_bits = 0;
  double log2_reachable = 0;  // min(seed bits, distinguishable bits): one seeding per deal
  double log2_fraction = 0;   // log2_reachable - distinguishable bits (<= 0)
  bool every_outcome = false; // enough seeds to reach every distinguishable outcome
  std::string verdict;
};

// One row per catalogued engine, plus Delphi's Randomize (86,400,000 millisecond seeds).
[[nodiscard]] std::vector<reachability> engine_reachability(const outcome_space& space);

// The shuffles real software ships (runtimes/runtime.hpp): how many outcomes each reaches when
// the program seeds it (explicit) and when it leaves seeding to the runtime (default), and
// what a seed search takes (security/runtime_attack.hpp).
struct runtime_reachability {
  std::string name;             // --algorithm spelling
  std::string runtime, code;    // runtime version, the program
  std::string default_seeding;  // where the default seed comes from
  double explicit_seed_bits = 0, default_seed_bits = 0;
  double log2_reachable_explicit = 0, log2_reachable_default = 0;  // min(seed bits, distinguishable bits)
  double log2_fraction_explicit = 0, log2_fraction_default = 0;    // reachable - distinguishable (<= 0)
  bool searchable = false;      // fairdeck attack --algorithm NAME runs
  std::string attack;           // what the search takes, or why it is not practical
};
[[nodiscard]] std::vector<runtime_reachability> runtime_reachabilities(const outcome_space& space);

}  // namespace fairdeck
