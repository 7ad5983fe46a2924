// Machinery of fairdeck::run_attack: the shuffles as lists of swap steps, and the
// seed-parallel filter that replays many seeds at once.
//
// Why it is fast: a seed's deck is not built. Only where the known cards travel is
// followed: a card starts at its factory position and each swap (i, j) moves it iff it
// sits at i or j. That is a few compares per step and no memory traffic, so `lanes` seeds
// run side by side in plain arrays that the compiler turns into SIMD code (one vector
// multiply-add per LCG step for Delphi). Two cards are tracked, so about 1 seed in
// n(n-1) survives; the caller confirms survivors with the reference shuffle.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/shuffle/algorithm.hpp"

namespace fairdeck::detail {

// One swap of the shuffle loop: swap(deck[i], deck[draw_below(bound)]).
struct swap_step {
  std::uint32_t i;
  std::uint32_t bound;
};

// The draws asf1999_shuffle / naive_shuffle / fisher_yates make on n cards, in order
// (mirrors fairdeck/shuffle/broken.hpp and fisher_yates.hpp). Empty for other kinds.
[[nodiscard]] std::vector<swap_step> swap_steps(shuffle_kind kind, std::size_t n);

// What a scan tracks: two cards (the same one twice when only one is known) and where
// they must end up.
struct scan_plan {
  const swap_step* steps;
  std::size_t step_count;
  std::uint32_t start[2];   // factory position = card index
  std::uint32_t target[2];  // known final position
  // A third known card, followed by the filters that can use it (PHP: fewer lanes live on
  // and ~50 times fewer candidates); no_card when there is none. Filters that ignore it pass
  // on more candidates, and every candidate is checked against all the known cards anyway.
  static constexpr std::uint32_t no_card = 0xffffffffu;
  std::uint32_t third_start = no_card, third_target = no_card;
};

// Seeds replayed side by side: several vectors' worth, so the LCG's multiply latency of one
// vector overlaps the work of the others (at most 64: a hit mask is one 64-bit word).
inline constexpr unsigned lanes = 64;

// Appends to `out` the seeds in [first, first + count) whose tracked cards land on target.
using seed_scanner = void (*)(std::uint64_t first, std::uint64_t count, const scan_plan& plan,
                              std::vector<std::uint64_t>& out);

// Scanner for the engine's SIMD lane model and the best instruction set of this CPU, or
// nullptr when the engine has no lane model for a shuffle of `step_count` draws (the caller
// then replays seeds one by one). hand_tuned = false skips the intrinsics kernel (Delphi on
// AVX-512), for benchmarks.
[[nodiscard]] seed_scanner lane_scanner(engine_id engine, std::size_t step_count, bool hand_tuned = true);

// Appends first + l for every set bit l of `hits` (out of line, off the hot loops).
void push_hits(std::vector<std::uint64_t>& out, std::uint64_t first, std::uint64_t hits);

// The AVX-512 intrinsics Delphi filter (call only when lane_isa() is "avx512").
void delphi_scan_avx512(std::uint64_t first, std::uint64_t count, const scan_plan& plan,
                        std::vector<std::uint64_t>& out);

// The instruction set lane_scanner() uses: "avx512", "avx2" or "baseline".
[[nodiscard]] const char* lane_isa() noexcept;

}  // namespace fairdeck::detail
