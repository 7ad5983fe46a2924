// The statistical audit (fairdeck/stats/audit.hpp) of a runtime's shuffle: the decks one
// seeded runtime generator deals, one after another, each from the canonical order 0..n-1,
// as a game that keeps its Random between hands deals them. A runtime's generator is one
// stream, so the deals run in order on one thread and the counts depend on the seed and
// the number of deals only.
//
// What the audit can and cannot show: it tests the shuffle's *distribution* (PHP's,
// Python's and the C++ libraries' Fisher–Yates pass it; V8's sort-comparator idiom fails it).
// It cannot see that a 32-bit seed reaches only 2^32 decks: that is `fairdeck entropy`'s and
// `fairdeck attack`'s business (docs/engines.md, "Runtimes").
#pragma once

#include <cstdint>
#include <string>

#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::runtimes {

// True when the runtime's shuffle idiom is an exact uniform shuffle given ideal random
// numbers (Fisher–Yates with an unbiased or negligibly biased range mapping); false for
// idioms whose order distribution is measurably biased.
[[nodiscard]] bool idiom_exact(runtime_id id) noexcept;

// Engine label of a runtime in reports, e.g. "PHP 8.2 (seeded, not secure)".
[[nodiscard]] std::string audit_engine_label(runtime_id id);

// Audits settings.trials deals of the first settings.cards cards (audited_cards) from
// runtime_shuffler(id, seed). settings.threads is ignored (one stream). Stops early through
// `control` (complete = false). Throws std::invalid_argument for a seed the runtime refuses.
[[nodiscard]] stats::audit_result audit_runtime(runtime_id id, std::uint64_t seed, const stats::audit_settings& settings,
                                                const run_control& control = {});

}  // namespace fairdeck::runtimes
