#include "fairdeck/stats/data_needed.hpp"

#include <algorithm>
#include <span>
#include <vector>

#include <fmt/format.h>

#include "fairdeck/stats/tests.hpp"

namespace fairdeck::stats {
namespace {

// Far more decks than any test needs (the orders test of 8 cards: 8! = 40,320).
constexpr std::uint64_t enough = std::uint64_t{1} << 40;

// Counts of `trials` decks of n cards as a uniform shuffle would spread them: the tests'
// skip rules read the number of deals (and, for the serial test, pairs in several groups),
// never whether the counts look fair.
audit_counts probe_counts(std::size_t n, std::uint64_t trials) {
  audit_counts c(n);
  c.trials = trials;
  // Consecutive pairs spread over the G x G groups: each cell gets its share, and the rest
  // go one each to cells k (G + 1) mod G^2, k = 0, 1, ... (the diagonal first, then its
  // neighbours: G + 1 is prime to G^2), so every row and column has some as soon as there
  // are G of them, as with a fair shuffle.
  const std::uint64_t pairs = trials > 0 ? trials - 1 : 0, cells = c.serial.size();
  const std::uint64_t groups = serial_groups(n);
  for (auto& v : c.serial) v = pairs / cells;
  for (std::uint64_t k = 0; k < pairs % cells; ++k) ++c.serial[k * (groups + 1) % cells];
  return c;
}

// The names of the tests skipped on `trials` probe decks.
std::vector<std::string> skipped_with(const audit_result& r, std::uint64_t trials) {
  std::vector<std::string> out;
  for (const auto& t : run_tests(probe_counts(r.counts.n, trials), r.cards, r.deck))
    if (t.skipped()) out.push_back(t.name);
  return out;
}

bool contains(const std::vector<std::string>& names, const std::string& name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

}  // namespace

std::optional<data_shortfall> data_needed(const audit_result& r) {
  if (r.counts.n < 2 || r.cards.size() != r.counts.n) return std::nullopt;
  if (std::none_of(r.tests.begin(), r.tests.end(), [](const test_result& t) { return t.skipped(); })) return std::nullopt;
  // The tests skipped for the number of decks alone: skipped in the probe with as many decks,
  // running with enough of them. Each needs a least number of decks (more never skip it), so
  // one bisection finds the least number with which all of them run.
  const auto now = skipped_with(r, r.counts.trials), later = skipped_with(r, enough);
  std::vector<std::string> short_of_decks;
  for (const auto& t : r.tests)
    if (t.skipped() && contains(now, t.name) && !contains(later, t.name)) short_of_decks.push_back(t.name);
  if (short_of_decks.empty()) return std::nullopt;
  const auto all_run = [&](std::uint64_t trials) {
    const auto skipped = skipped_with(r, trials);
    return std::none_of(short_of_decks.begin(), short_of_decks.end(),
                        [&](const std::string& name) { return contains(skipped, name); });
  };
  std::uint64_t lo = r.counts.trials, hi = enough;  // some skipped at lo, all run at hi
  while (hi - lo > 1) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    (all_run(mid) ? hi : lo) = mid;
  }
  const auto last = skipped_with(r, hi - 1);  // the test(s) that needed all `hi` decks
  for (const auto& name : short_of_decks)
    if (contains(last, name)) return data_shortfall{r.counts.trials, hi, name};
  return data_shortfall{r.counts.trials, hi, short_of_decks.front()};
}

std::string describe(const data_shortfall& s) {
  return fmt::format("too little data: {} deck{}, need at least {} for {}", s.decks, s.decks == 1 ? "" : "s", s.needed,
                     s.test);
}

}  // namespace fairdeck::stats
