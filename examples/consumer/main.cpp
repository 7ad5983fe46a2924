// Minimal downstream use: a secure deal, and a reproducible one with <random>.
#include <cstdio>
#include <random>

#include <fairdeck/fairdeck.hpp>

int main() {
  auto deck = fairdeck::make_deck({});
  fairdeck::secure_engine secure;  // ChaCha20 keyed from OS entropy
  fairdeck::fisher_yates(deck, secure);
  std::printf("secure:   %s\n", fairdeck::format_cards(deck, {}).c_str());

  std::mt19937_64 mt(42);  // any std::uniform_random_bit_generator works
  auto hand = fairdeck::partial_shuffle(deck, 5, mt);
  std::printf("5 cards:  %s\n", fairdeck::format_cards({hand.begin(), hand.end()}, {}).c_str());
  return deck.size() == 52 ? 0 : 1;
}
