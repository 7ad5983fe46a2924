// Run-time choice of shuffle algorithm ("fisher-yates", "partial:7", "naive", ...), for the
// CLI and the audit. apply_shuffle() dispatches once per call to the generic algorithms.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/shuffle/broken.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"
#include "fairdeck/shuffle/sort_shuffle.hpp"

namespace fairdeck {

enum class shuffle_kind { fisher_yates, partial, sort, naive, asf1999 };

struct shuffle_algorithm_info {
  shuffle_kind kind;
  std::string_view name;       // CLI spelling
  bool fair;                   // exactly uniform over all orders given an ideal engine
  bool takes_param;            // "name:K"
  std::uint64_t default_param; // K used when the audit lists every algorithm (0: none/all)
  std::string_view guarantee;  // one line for --help and reports
};

[[nodiscard]] std::span<const shuffle_algorithm_info> shuffle_catalog() noexcept;
[[nodiscard]] const shuffle_algorithm_info& info(shuffle_kind kind) noexcept;

struct shuffle_spec {
  shuffle_kind kind = shuffle_kind::fisher_yates;
  std::uint64_t param = 0;  // partial: cards shuffled (0 = all)
  [[nodiscard]] std::string name() const;  // round-trips through parse_shuffle_spec
  [[nodiscard]] bool fair() const noexcept;  // exactly uniform given an ideal engine
  friend bool operator==(const shuffle_spec&, const shuffle_spec&) = default;
};

// Every catalogued algorithm once, parameterised ones at their default_param: what
// `fairdeck audit` checks when no --algorithm is given.
[[nodiscard]] std::vector<shuffle_spec> default_audit_algorithms();

// "fisher-yates" (alias "fy", "knuth"), "partial" / "partial:K", "sort", "naive", "asf1999".
// Throws std::invalid_argument naming the problem.
[[nodiscard]] shuffle_spec parse_shuffle_spec(std::string_view text);

// Shuffles `r` with algorithm `spec`. Throws std::invalid_argument if the spec cannot
// apply to r's size (e.g. partial:K with K > n).
template <std::ranges::random_access_range R, random_engine E>
void apply_shuffle(const shuffle_spec& spec, R&& r, E& engine) {
  switch (spec.kind) {
    case shuffle_kind::fisher_yates: fisher_yates(r, engine); return;
    case shuffle_kind::partial: {
      const auto n = static_cast<std::uint64_t>(std::ranges::distance(r));
      if (spec.param > n) throw std::invalid_argument("partial:K needs K <= deck size");
      partial_shuffle(r, spec.param ? spec.param : n, engine);
      return;
    }
    case shuffle_kind::sort: sort_shuffle(r, engine); return;
    case shuffle_kind::naive: naive_shuffle(r, engine); return;
    case shuffle_kind::asf1999: asf1999_shuffle(r, engine); return;
  }
}

}  // namespace fairdeck
