#include "fairdeck/runtimes/audit.hpp"

#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fairdeck/stats/counts.hpp"

namespace fairdeck::runtimes {

bool idiom_exact(runtime_id id) noexcept { return info(id).idiom_exact; }

std::string audit_engine_label(runtime_id id) { return fmt::format("{} (seeded, not secure)", info(id).runtime); }

stats::audit_result audit_runtime(runtime_id id, std::uint64_t seed, const stats::audit_settings& s,
                                  const run_control& rc) {
  if (!(s.alpha > 0 && s.alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  if (s.trials == 0) throw std::invalid_argument("trials must be at least 1");
  stats::audit_result r;
  r.cards = stats::audited_cards(s);
  const std::size_t n = r.cards.size();
  runtime_shuffler rt(id, seed);
  r.algorithm = std::string(info(id).name);
  r.engine = audit_engine_label(id);
  r.algorithm_fair = idiom_exact(id);
  r.deck = s.deck;
  r.requested_trials = s.trials;
  r.counts = stats::audit_counts(n);

  stats::chunk_counter counter(n);
  std::vector<std::uint32_t> list(n);
  std::vector<card_t> deal(n);
  counter.start_chain();
  bool stopped = false;
  for (std::uint64_t t = 0; t < s.trials; ++t) {
    if (t % stats::audit_chunk_deals == 0 && t > 0) {  // whole chunks only, as stats::count_deals keeps them
      counter.flush_into(r.counts);
      rc.progress(t, s.trials);
      if ((stopped = rc.stopped())) break;
    }
    std::iota(list.begin(), list.end(), 0u);  // every deal starts from the canonical order
    rt.shuffle(list);
    for (std::size_t i = 0; i < n; ++i) deal[i] = static_cast<card_t>(list[i]);
    counter.add(deal);
  }
  if (!stopped) {
    counter.flush_into(r.counts);
    rc.progress(r.counts.trials, s.trials);
  }
  r.complete = r.counts.trials == s.trials;
  stats::analyze(r, s.alpha);
  return r;
}

}  // namespace fairdeck::runtimes
