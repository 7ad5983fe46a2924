// The one compiled dispatch from a run-time engine choice (engine_spec, random/engine_registry.hpp)
// and a run-time algorithm choice (shuffle_spec, shuffle/algorithm.hpp) to a shuffled deck.
// Every engine x algorithm pair is instantiated once, in src/shuffle/shuffle_deck.cpp, instead
// of in every command, audit and attack that needs one; a shuffle that brings its own generator
// (a language runtime's shuffle()) plugs in there, in one place. The result is exactly
//   visit_engine(engine, stream, [&](auto& e) { apply_shuffle(algorithm, deck, e); })
// so outputs for a given seed are the same as with the generic templates.
#pragma once

#include <cstdint>
#include <span>
#include <type_traits>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"

namespace fairdeck {

// Shuffles `deck` in place with `algorithm`, drawing from stream `stream` of `engine`.
// Throws std::invalid_argument when the algorithm cannot shuffle deck.size() cards.
void shuffle_deck(const engine_spec& engine, std::uint64_t stream, const shuffle_spec& algorithm,
                  std::span<card_t> deck);

namespace detail {
struct deal_sink {
  void* object;
  bool (*call)(void* object, std::span<const card_t> deck);
};
std::uint64_t shuffle_deals(const engine_spec& engine, std::uint64_t stream, const shuffle_spec& algorithm,
                            std::span<const card_t> start, std::span<card_t> deck, std::uint64_t deals, deal_sink sink);
}  // namespace detail

// Deals `deals` shuffles from one engine stream (the engine runs on from one deal to the
// next): before each, `deck` is reset to `start` (same size); after each, on_deal(deck) is
// called, and a false return stops the run. Returns the deals done (each passed to on_deal).
template <class OnDeal>
  requires std::is_invocable_r_v<bool, OnDeal&, std::span<const card_t>>
std::uint64_t shuffle_deals(const engine_spec& engine, std::uint64_t stream, const shuffle_spec& algorithm,
                            std::span<const card_t> start, std::span<card_t> deck, std::uint64_t deals,
                            OnDeal&& on_deal) {
  using F = std::remove_reference_t<OnDeal>;
  return detail::shuffle_deals(engine, stream, algorithm, start, deck, deals,
                               {const_cast<void*>(static_cast<const void*>(&on_deal)),
                                [](void* o, std::span<const card_t> d) -> bool { return (*static_cast<F*>(o))(d); }});
}

}  // namespace fairdeck
