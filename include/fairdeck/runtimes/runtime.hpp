// The shuffles real software ships, reproduced bit for bit: PHP's shuffle(), Java's
// Collections.shuffle, .NET Framework's System.Random idioms, CPython's random.shuffle, Go's
// math/rand Shuffle, V8's Math.random idioms, and std::shuffle in libstdc++ and libc++.
//
// Contract for every row of runtime_catalog(): the runtime shuffles the list 0..n-1
// (fairdeck's canonical card order) after its own seeding call with `seed` (mt_srand(S),
// new Random(S), random.Random(S), rand.NewSource(S), node --random_seed=S, the C++ engine's
// constructor), and runtime_shuffler(id, seed).shuffle() leaves exactly the list it ends with.
// Further shuffle() calls continue the same generator, as a program that keeps its Random does.
// Checked deck for deck against the real runtimes (tests/runtimes/, golden vectors).
//
// None of these is fit to deal cards: the point is to show what each one's seed space allows
// (fairdeck entropy) and what an attacker recovers from a few known cards (fairdeck attack).
// docs/engines.md documents each runtime's algorithm, seed source and range; adding a runtime
// is docs/architecture.md, "A runtime's shuffle" (its file, an id here, a catalogue row).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

namespace fairdeck::runtimes {

enum class runtime_id {
  php,                       // PHP 8.2: mt_srand(S); shuffle($a)
  java,                      // OpenJDK 17: Collections.shuffle(list, new Random(S))
  dotnet_framework,          // Mono 6.8 / .NET Framework: new Random(S), Fisher–Yates idiom
  dotnet_framework_orderby,  // same Random, list.OrderBy(_ => rnd.Next())
  python,                    // CPython 3.11: random.Random(S).shuffle(x)
  go,                        // Go 1.19: rand.New(rand.NewSource(S)).Shuffle(n, swap)
  node,                      // V8 Math.random (xorshift128+), Fisher–Yates with Math.floor(Math.random()*(i+1))
  node_sort,                 // V8: a.sort(() => Math.random() - 0.5)
  libstdcxx,                 // g++ libstdc++: std::shuffle(b, e, std::mt19937(S))
  libstdcxx_default,         // g++ libstdc++: std::shuffle(b, e, std::default_random_engine(S))  (minstd_rand0)
  libcxx,                    // clang libc++: std::shuffle(b, e, std::mt19937(S))
  libcxx_default,            // clang libc++: std::shuffle(b, e, std::default_random_engine(S))   (minstd_rand)
  count                      // not a runtime: how many there are (a new runtime goes above this line)
};
inline constexpr std::size_t runtime_count = static_cast<std::size_t>(runtime_id::count);

// How `fairdeck attack` searches the runtime's seeds (security/runtime_attack.hpp).
struct runtime_seed_search {
  bool searchable = false;      // false: attack refuses, `note` says why
  std::uint64_t last_seed = 0;  // searchable seeds are 0..last_seed (one per generator state)
  bool clock_seeded = false;    // the idiomatic seed is a clock reading (security/clock_seed.hpp)
  std::string_view seeds = {};  // what a seed is, for the user
  std::string_view note = {};   // refused: the reason; searchable: what the full search takes
};

struct runtime_info {
  runtime_id id;
  std::string_view name;             // --algorithm spelling
  std::string_view runtime;          // runtime and version the golden vectors come from
  std::string_view code;             // the program the emulation reproduces, S = seed
  std::uint64_t min_seed = 0;        // smallest seed accepted (node: 1, --random_seed=0 is unseeded)
  std::uint64_t max_seed;            // largest seed accepted on the command line
  double explicit_seed_bits;         // log2 of the distinct generator states explicit seeds reach
  std::string_view default_seeding;  // what the runtime does when the program does not seed
  double default_seed_bits;          // log2 of the states that default seeding reaches
  // The idiom is an exact uniform shuffle given ideal random numbers (Fisher–Yates with an
  // unbiased or negligibly biased range mapping); false when its order distribution is
  // measurably biased (the audit expects to find it biased).
  bool idiom_exact = true;
  runtime_seed_search search;
};

[[nodiscard]] std::span<const runtime_info> runtime_catalog() noexcept;
[[nodiscard]] const runtime_info& info(runtime_id id) noexcept;
[[nodiscard]] std::optional<runtime_id> find_runtime(std::string_view name) noexcept;
// A seed uniform in [0, info(id).max_seed] from OS entropy (for runs without --seed, which
// print it); throws fairdeck::entropy_error when the OS has none. src/runtimes/seed.cpp.
[[nodiscard]] std::uint64_t fresh_seed(runtime_id id);

// One seeded runtime generator plus its shuffle idiom. Throws std::invalid_argument for a seed
// above info(id).max_seed and for a list the runtime could not shuffle (e.g. longer than its
// int32 bound).
class runtime_shuffler {
 public:
  runtime_shuffler(runtime_id id, std::uint64_t seed);
  ~runtime_shuffler();
  runtime_shuffler(runtime_shuffler&&) noexcept;
  runtime_shuffler& operator=(runtime_shuffler&&) noexcept;

  void shuffle(std::span<std::uint32_t> list);  // in place, as the runtime shuffles it

  struct impl;  // one per runtime, src/runtimes/<runtime>.cpp

 private:
  std::unique_ptr<impl> impl_;
};

}  // namespace fairdeck::runtimes
