// Is there enough data for a verdict? An audit of few decks skips the tests that need more
// deals (fewer than one expected deal per category, fewer than 20 consecutive pairs, ...) and
// would otherwise call the decks "fair" on what little is left (one deck: max-cell and
// successions only). data_needed() names the test that needs the most decks and how many,
// so reports can say "too little data" as `fairdeck certify` says `invalid`.
//
// Guarantee: a shortfall is reported exactly when some test was skipped because of the
// number of decks alone: it runs on the same deck size with `needed` decks (and not with
// `needed - 1`). Tests skipped for the deck's make-up (every card in one suit, orders of more
// than 8 cards) or for what the decks hold never count.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fairdeck/stats/audit.hpp"

namespace fairdeck::stats {

struct data_shortfall {
  std::uint64_t decks = 0;   // decks audited
  std::uint64_t needed = 0;  // fewest decks with which every such test runs
  std::string test;          // the test that needs them (the first, on a tie)
};

// nullopt when every test that the number of decks can enable ran.
[[nodiscard]] std::optional<data_shortfall> data_needed(const audit_result& result);

// "too little data: 1 deck, need at least 52 for position-card"
[[nodiscard]] std::string describe(const data_shortfall& s);

}  // namespace fairdeck::stats
