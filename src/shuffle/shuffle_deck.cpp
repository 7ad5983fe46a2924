// The engine x algorithm matrix, compiled once: see include/fairdeck/shuffle/shuffle_deck.hpp.
#include "fairdeck/shuffle/shuffle_deck.hpp"

#include <algorithm>
#include <stdexcept>

namespace fairdeck {
namespace {

// The one place a run-time engine and a run-time algorithm meet. `body(engine)` runs with
// the concrete engine for (spec, stream). A shuffle that brings its own generator (e.g. a
// language runtime's shuffle(), include/fairdeck/runtimes/) is a special case to test here,
// before visit_engine, so shuffle, deal, audit and attack all pick it up at once.
template <class Body>
decltype(auto) with_engine(const engine_spec& spec, std::uint64_t stream, Body&& body) {
  return visit_engine(spec, stream, std::forward<Body>(body));
}

}  // namespace

void shuffle_deck(const engine_spec& engine, std::uint64_t stream, const shuffle_spec& algorithm,
                  std::span<card_t> deck) {
  with_engine(engine, stream, [&](auto& e) { apply_shuffle(algorithm, deck, e); });
}

namespace detail {

std::uint64_t shuffle_deals(const engine_spec& engine, std::uint64_t stream, const shuffle_spec& algorithm,
                            std::span<const card_t> start, std::span<card_t> deck, std::uint64_t deals, deal_sink sink) {
  if (start.size() != deck.size()) throw std::invalid_argument("shuffle_deals: start and deck differ in size");
  return with_engine(engine, stream, [&](auto& e) {
    for (std::uint64_t t = 0; t < deals; ++t) {
      std::ranges::copy(start, deck.begin());
      apply_shuffle(algorithm, deck, e);
      if (!sink.call(sink.object, deck)) return t + 1;
    }
    return deals;
  });
}

}  // namespace detail
}  // namespace fairdeck
