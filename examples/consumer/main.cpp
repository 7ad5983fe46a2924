// Minimal downstream use: a secure deal, a reproducible one with <random>, and a big array of
// the project's own records shuffled in place.
#include <cstdio>
#include <random>
#include <span>
#include <vector>

#include <fairdeck/fairdeck.hpp>

int main() {
  auto deck = fairdeck::make_deck({});
  fairdeck::secure_engine secure;  // ChaCha20 keyed from OS entropy
  fairdeck::fisher_yates(deck, secure);
  std::printf("secure:   %s\n", fairdeck::format_cards(deck, {}).c_str());

  std::mt19937_64 mt(42);  // any std::uniform_random_bit_generator works
  auto hand = fairdeck::partial_shuffle(deck, 5, mt);
  std::printf("5 cards:  %s\n", fairdeck::format_cards({hand.begin(), hand.end()}, {}).c_str());

  struct row {
    int id;
    float weight;
  };
  std::vector<row> rows(1'000'000);
  for (int i = 0; i < static_cast<int>(rows.size()); ++i) rows[i] = {i, 1.0f};
  if (!fairdeck::huge_shuffle(std::span(rows), fairdeck::engine_spec{}, {})) return 1;  // secure by default
  long long sum = 0;
  for (const row& r : rows) sum += r.id;
  std::printf("rows:     first ids %d %d %d (sum intact: %s)\n", rows[0].id, rows[1].id, rows[2].id,
              sum == 499'999'500'000LL ? "yes" : "no");
  return deck.size() == 52 && sum == 499'999'500'000LL ? 0 : 1;
}
