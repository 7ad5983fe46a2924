// Run-time choice of shuffle algorithm ("fisher-yates", "partial:7", "naive", "riffle:7",
// "riffle:3+cut+overhand:5", "shelf:10x2", ...), for the CLI and the audit. apply_shuffle() dispatches once
// per step to the generic algorithms.
#pragma once

#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/shuffle/broken.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"
#include "fairdeck/shuffle/physical.hpp"
#include "fairdeck/shuffle/shelf.hpp"
#include "fairdeck/shuffle/sort_shuffle.hpp"

namespace fairdeck {

enum class shuffle_kind { fisher_yates, partial, sort, naive, asf1999, riffle, overhand, cut, shelf };

struct shuffle_algorithm_info {
  shuffle_kind kind;
  std::string_view name;       // CLI spelling
  bool fair;                   // exactly uniform over all orders given an ideal engine
  bool takes_param;            // "name:K"
  std::uint64_t default_param; // K used when the audit lists every algorithm (0: none/all)
  std::string_view guarantee;  // one line for --help and reports
  std::uint64_t max_param = 0; // largest K accepted (0: no limit but the deck size)
  bool takes_passes = false;   // "name:MxK" also accepted (shelf: K passes of M shelves)
  bool in_default_audit = true;  // audited when no --algorithm is given
};

[[nodiscard]] std::span<const shuffle_algorithm_info> shuffle_catalog() noexcept;
[[nodiscard]] const shuffle_algorithm_info& info(shuffle_kind kind) noexcept;

// One algorithm with its parameter. param 0 means the catalog's default_param (partial: all
// cards; riffle: 7; overhand: 10; shelf: 10 shelves). `passes`: shelf only, passes through the
// machine ("shelf:10x2"); 1 for everything else.
struct shuffle_step {
  shuffle_kind kind = shuffle_kind::fisher_yates;
  std::uint64_t param = 0;
  std::uint64_t passes = 1;
  friend bool operator==(const shuffle_step&, const shuffle_step&) = default;
};

// An algorithm, or a composition "a+b+c" of several applied left to right (each to the deck
// the previous one left): `kind`/`param` are the first step, `then` the rest (empty for a
// single algorithm, so {kind, param} still means what it always did).
struct shuffle_spec {
  shuffle_kind kind = shuffle_kind::fisher_yates;
  std::uint64_t param = 0;  // partial: cards shuffled (0 = all); riffle/overhand: how many times
  std::vector<shuffle_step> then{};
  std::uint64_t passes = 1;  // of the first step (shuffle_step::passes)
  [[nodiscard]] std::vector<shuffle_step> steps() const;  // {kind, param} followed by `then`
  [[nodiscard]] std::string name() const;  // round-trips through parse_shuffle_spec
  // Exactly uniform given an ideal engine. A composition is when one of its steps makes the
  // whole order uniform (fisher-yates, sort, partial over all cards: anything before or after
  // an independent uniform permutation leaves it uniform), or when its last step is fair.
  [[nodiscard]] bool fair() const noexcept;
  friend bool operator==(const shuffle_spec&, const shuffle_spec&) = default;
};

// Every catalogued algorithm once, parameterised ones at their default_param: what
// `fairdeck audit` checks when no --algorithm is given.
[[nodiscard]] std::vector<shuffle_spec> default_audit_algorithms();

// "fisher-yates" (alias "fy", "knuth"), "partial" / "partial:K", "sort", "naive", "asf1999",
// "riffle" / "riffle:K", "overhand" / "overhand:K", "cut", "shelf" / "shelf:M" / "shelf:MxK"
// (K passes through M shelves), and compositions joined by '+'
// ("riffle:3+cut+riffle:4"). Throws std::invalid_argument naming the problem.
[[nodiscard]] shuffle_spec parse_shuffle_spec(std::string_view text);

namespace detail {
template <std::ranges::random_access_range R, random_engine E>
void apply_shuffle_step(const shuffle_step& step, R&& r, E& engine) {
  const auto& about = info(step.kind);
  const std::uint64_t k = step.param ? step.param : about.default_param;
  if (about.max_param && k > about.max_param)
    throw std::invalid_argument(std::string(about.name) + ":K needs K <= " + std::to_string(about.max_param));
  switch (step.kind) {
    case shuffle_kind::fisher_yates: fisher_yates(r, engine); return;
    case shuffle_kind::partial: {
      const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
      if (k > n) throw std::invalid_argument("partial:K needs K <= deck size");
      partial_shuffle(r, k ? k : n, engine);
      return;
    }
    case shuffle_kind::sort: sort_shuffle(r, engine); return;
    case shuffle_kind::naive: naive_shuffle(r, engine); return;
    case shuffle_kind::asf1999: asf1999_shuffle(r, engine); return;
    case shuffle_kind::riffle: riffle_shuffle(r, k, engine); return;
    case shuffle_kind::overhand: overhand_shuffle(r, k, engine); return;
    case shuffle_kind::cut: random_cut(r, engine); return;
    case shuffle_kind::shelf: shelf_shuffle(r, k, step.passes, engine); return;
  }
}
}  // namespace detail

// Shuffles `r` with algorithm `spec` (every step of a composition in turn). Throws
// std::invalid_argument if the spec cannot apply to r's size (e.g. partial:K with K > n).
template <std::ranges::random_access_range R, random_engine E>
void apply_shuffle(const shuffle_spec& spec, R&& r, E& engine) {
  detail::apply_shuffle_step({spec.kind, spec.param, spec.passes}, r, engine);
  for (const auto& step : spec.then) detail::apply_shuffle_step(step, r, engine);
}

}  // namespace fairdeck
