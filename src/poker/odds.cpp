#include "fairdeck/poker/odds.hpp"

#include <algorithm>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include <boost/math/distributions/binomial.hpp>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/internal/parallel.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace fairdeck::poker {
namespace {

void check_cards(unsigned cards) {
  if (cards < 5 || cards > 7)
    throw std::invalid_argument("poker hands for category odds have 5, 6 or 7 cards, got " + std::to_string(cards));
}

// Counts per strength, then per category: a histogram increment keeps the innermost
// enumeration loop free of the store-to-load chains that nine hot counters would cause.
template <unsigned K>
std::array<std::uint64_t, category_count> count_hands_from(unsigned first) {
  std::vector<std::uint32_t> hist(std::size_t{category_count} << 12, 0);  // every strength_t
  for_each_hand<K>(first, [&](strength_t s) { ++hist[s]; });
  std::array<std::uint64_t, category_count> out{};
  for (std::size_t s = 0; s < hist.size(); ++s) out[s >> 12] += hist[s];
  return out;
}

template <unsigned K, class Engine>
void sample_chunk(Engine& engine, std::uint64_t trials, std::array<std::uint64_t, category_count>& out) {
  const auto& ev = hand_evaluator::instance();
  std::array<card_t, 52> deck{};
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (std::uint64_t t = 0; t < trials; ++t) {
    (void)partial_shuffle(deck, K, engine);  // the deck is reused: only K cards move
    ++out[static_cast<unsigned>(category_of(ev.eval<K>(deck.data())))];
  }
}

}  // namespace

category_counts exact_category_counts(unsigned cards, unsigned threads, const run_control& rc) {
  check_cards(cards);
  category_counts result;
  result.cards = cards;
  const std::uint64_t total = choose(52, cards);
  const unsigned items = 52 - cards + 1;  // lowest card; biggest items first
  std::mutex mu;
  std::uint64_t done = 0;
  internal::parallel_items(items, internal::resolve_threads(threads), [&](std::uint64_t item, unsigned) {
    if (rc.stopped()) return;
    const auto first = static_cast<unsigned>(item);
    const auto part = cards == 5 ? count_hands_from<5>(first) : cards == 6 ? count_hands_from<6>(first) : count_hands_from<7>(first);
    std::lock_guard lock(mu);
    for (unsigned c = 0; c < category_count; ++c) result.count[c] += part[c];
    done += choose(51 - first, cards - 1);
    rc.progress(done, total);
  });
  result.hands = done;
  result.complete = done == total;
  return result;
}

category_counts sample_category_counts(unsigned cards, std::uint64_t trials, const engine_spec& engine, unsigned threads,
                                       const run_control& rc) {
  check_cards(cards);
  category_counts result;
  result.cards = cards;
  const std::uint64_t chunks = trials / odds_chunk_trials + (trials % odds_chunk_trials != 0);
  std::mutex mu;
  std::uint64_t done = 0;
  internal::parallel_items(chunks, internal::resolve_threads(threads), [&](std::uint64_t chunk, unsigned) {
    if (rc.stopped()) return;
    const std::uint64_t n = std::min(odds_chunk_trials, trials - chunk * odds_chunk_trials);
    std::array<std::uint64_t, category_count> part{};
    visit_engine(engine, chunk, [&](auto& e) {
      if (cards == 5) sample_chunk<5>(e, n, part);
      else if (cards == 6) sample_chunk<6>(e, n, part);
      else sample_chunk<7>(e, n, part);
    });
    std::lock_guard lock(mu);
    for (unsigned c = 0; c < category_count; ++c) result.count[c] += part[c];
    done += n;
    rc.progress(done, trials);
  });
  result.hands = done;
  result.complete = done == trials;
  return result;
}

proportion_interval clopper_pearson(std::uint64_t successes, std::uint64_t trials, double confidence) {
  if (trials == 0) return {0.0, 1.0};
  using boost::math::binomial_distribution;
  const double alpha = (1 - confidence) / 2;
  const auto n = static_cast<double>(trials), k = static_cast<double>(successes);
  return {binomial_distribution<>::find_lower_bound_on_p(n, k, alpha),
          binomial_distribution<>::find_upper_bound_on_p(n, k, alpha)};
}

}  // namespace fairdeck::poker
