// Batched bounded integers: several exact dice from one engine word.
//
// Brackett-Rozinsky & Lemire, "Batched Ranged Random Integer Generation", Software:
// Practice and Experience 55(1), 2024. To roll dice of sizes s_0..s_{k-1} whose product
// P fits in a W-bit word, multiply a uniform W-bit word r by s_0, keep the high part as
// the first die and the low W bits as the next r, and so on. Then
//     r * P = D * 2^W + r_k,   D = d_0*s_1*...*s_{k-1} + d_1*s_2*...*s_{k-1} + ... + d_{k-1},
// i.e. (d_0..d_{k-1}) is the mixed-radix spelling of D = floor(r*P / 2^W) and r_k is the
// low word of Lemire's single multiplication for the range P. Rejecting r_k < 2^W mod P
// (Lemire 2019) makes D exactly uniform on [0, P), hence the dice exactly independent and
// uniform. A rejected word is replaced by a fresh one for the same batch. Proved over
// every word for small W in tests/batched_exact_test.cpp.
//
// Everything is generic over the word width W so the tests can enumerate all 2^W words of a
// narrow scripted engine through the very code the 64-bit engines run.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <iterator>
#include <ranges>
#include <type_traits>
#include <utility>

#include "fairdeck/random/bounded.hpp"

namespace fairdeck {

namespace batched {

inline constexpr unsigned max_batch = 12;
// Above batch_limits[long_runs + 1] (16,384 for 64-bit words) every batch holds at most
// long_runs dice, and runs of one batch size are long: fisher_yates loops over a run.
inline constexpr unsigned long_runs = 3;

// The per-batch code must be inlined with its batch size as a constant (unrolled loops);
// big translation units otherwise tempt the compiler into out-of-line, run-time-k copies
// that are 2-3 times slower.
#define FAIRDECK_BATCH_INLINE [[gnu::always_inline]] inline
#define FAIRDECK_LAMBDA_INLINE __attribute__((always_inline))  // dice per word at most (52 cards: 5 words)

template <unsigned W>
inline constexpr std::uint64_t word_mask = W == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << W) - 1;

// (hi, lo) of r * s for a W-bit r and s <= 2^W: hi = floor(r*s / 2^W), lo = r*s mod 2^W.
template <unsigned W>
[[nodiscard]] FAIRDECK_BATCH_INLINE constexpr std::uint64_t mul_split(std::uint64_t r, std::uint64_t s, std::uint64_t& lo) noexcept {
  if constexpr (W == 64) {
    const detail::uint128 m = detail::uint128{r} * s;
    lo = static_cast<std::uint64_t>(m);
    return static_cast<std::uint64_t>(m >> 64);
  } else {
    static_assert(W >= 2 && W <= 32, "batched words are 2..32 or 64 bits wide");
    const std::uint64_t m = r * s;
    lo = m & word_mask<W>;
    return m >> W;
  }
}

// 2^W mod p, for 1 <= p <= 2^W (p = 2^W is passed as 0 when W == 64 cannot hold it).
template <unsigned W>
[[nodiscard]] constexpr std::uint64_t two_pow_mod(std::uint64_t p) noexcept {
  if constexpr (W == 64)
    return (0 - p) % p;
  else
    return ((word_mask<W> + 1) - p) % p;
}

// True when the leftover lo(word * P) of a batch with product P accepts the word. The cheap
// test leftover >= P settles almost every word without the division (2^W mod P < P).
template <unsigned W>
[[nodiscard]] FAIRDECK_BATCH_INLINE constexpr bool accepts(std::uint64_t leftover, std::uint64_t product) noexcept {
  return leftover >= product || leftover >= two_pow_mod<W>(product);
}

// Rolls the dice sizes[0..k) from `word` into out[0..k); P = product of the sizes
// (<= 2^W). Returns false when the word must be rejected (probability < P / 2^W); out is
// then meaningless.
//
// No multiply chain: with the prefix products P_j = s_0 * ... * s_j and H_j = hi(word * P_j)
// = floor(word * P_j / 2^W), the serial form's d_j = hi(r_j * s_j), r_{j+1} = lo(r_j * s_j)
// (r_0 = word) satisfies r_j = lo(word * P_{j-1}) and word * P_j = (H_{j-1} 2^W + r_j) s_j,
// so H_j = s_j H_{j-1} + d_j: d_j = H_j - s_j H_{j-1}, and the leftover is lo(word * P).
// Every H_j is one independent multiply (the serial chain cost k multiply latencies: 7 of
// them in a 7-card deal, 12 in a batch of a 52-card shuffle); the dice are bit-identical to
// the serial form (dice_from_word_serial, kept as the reference for the tests).
template <unsigned W>
[[nodiscard]] FAIRDECK_BATCH_INLINE constexpr bool dice_from_word(std::uint64_t word, const std::uint64_t* sizes, unsigned k,
                                            std::uint64_t product, std::uint64_t* out) noexcept {
  std::uint64_t prefix = 1, prev = 0, leftover = word;
  for (unsigned j = 0; j < k; ++j) {
    prefix *= sizes[j];
    const std::uint64_t h = mul_split<W>(word, prefix, leftover);
    out[j] = h - sizes[j] * prev;
    prev = h;
  }
  return accepts<W>(leftover, product);
}

// The textbook serial form of dice_from_word (Brackett-Rozinsky & Lemire's Algorithm): the
// reference the tests compare the parallel form with, word for word.
template <unsigned W>
[[nodiscard]] constexpr bool dice_from_word_serial(std::uint64_t word, const std::uint64_t* sizes, unsigned k,
                                                   std::uint64_t product, std::uint64_t* out) noexcept {
  std::uint64_t r = word;
  for (unsigned j = 0; j < k; ++j) out[j] = mul_split<W>(r, sizes[j], r);
  return accepts<W>(r, product);
}

// Draws words from `next` (a callable returning uniform W-bit words) until one is accepted.
template <unsigned W, class Next>
FAIRDECK_BATCH_INLINE constexpr void roll_dice(Next& next, const std::uint64_t* sizes, unsigned k, std::uint64_t product, std::uint64_t* out) {
  while (!dice_from_word<W>(next(), sizes, k, product, out)) {
  }
}

// How many dice to take from one word when the largest die is n: the largest k <= max_batch
// with n^k <= 2^(W - W/8). The W/8 spare bits keep the rejection (and division) chance of
// a batch below 2^-(W/8): 2^-8 for 64-bit engines.
template <unsigned W>
inline constexpr auto batch_limits = [] {
  constexpr unsigned budget = W - W / 8;
  std::array<std::uint64_t, max_batch + 1> limit{};  // limit[k] = largest n with n^k <= 2^budget
  for (unsigned k = 1; k <= max_batch; ++k) {
    std::uint64_t lo = 1, hi = std::uint64_t{1} << (budget / k + 1);
    while (lo + 1 < hi) {  // binary search for the k-th root, overflow-free
      const std::uint64_t mid = lo + (hi - lo) / 2;
      std::uint64_t pow = 1;
      bool fits = true;
      for (unsigned j = 0; j < k && fits; ++j) {
        if (pow > (std::uint64_t{1} << budget) / mid) fits = false;
        else pow *= mid;
      }
      (fits ? lo : hi) = mid;
    }
    limit[k] = lo;
  }
  return limit;
}();

template <unsigned W>
[[nodiscard]] constexpr unsigned batch_size(std::uint64_t n) noexcept {
  unsigned k = 1;
  while (k < max_batch && n <= batch_limits<W>[k + 1]) ++k;
  return k;
}

// The W-bit words of a full-range engine (engine_bits<E> == W).
template <class E>
struct engine_words {
  E& e;
  std::uint64_t operator()() { return static_cast<std::uint64_t>(e()); }
};

// Runs step.template operator()<K>() for a run-time k in [1, max_batch] with K == k as a
// compile-time constant, so each batch's loops have a fixed trip count and unroll.
template <class Step, unsigned... I>
FAIRDECK_BATCH_INLINE void with_static_batch(unsigned k, Step& step, std::integer_sequence<unsigned, I...>) {
  (void)((k == I + 1 ? (step.template operator()<I + 1>(), true) : false) || ...);
}
template <unsigned N = max_batch, class Step>
FAIRDECK_BATCH_INLINE void with_static_batch(unsigned k, Step& step) {
  assert(k >= 1 && k <= N);
  with_static_batch(k, step, std::make_integer_sequence<unsigned, N>{});
}

// A W-bit word source seen as an engine, for the rare die wider than a word (W < 64).
template <unsigned W, class Next>
struct wide_die_engine {
  using result_type = std::uint64_t;
  Next* next;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return word_mask<W>; }
  result_type operator()() { return (*next)(); }
};

// One batch of Fisher–Yates: positions i-1, ..., i-K swapped with dice of sizes i, ..., i-K+1
// rolled from one accepted word (sizes, dice: scratch of K words).
template <unsigned W, unsigned K, class It, class Next>
FAIRDECK_BATCH_INLINE void fisher_yates_batch(It first, std::uint64_t i, Next& next, std::uint64_t* sizes, std::uint64_t* dice) {
  std::uint64_t product = 1;
  for (unsigned j = 0; j < K; ++j) product *= (sizes[j] = i - j);
  roll_dice<W>(next, sizes, K, product, dice);
  for (unsigned j = 0; j < K; ++j)
    std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(i - 1 - j), first + static_cast<std::ptrdiff_t>(dice[j]));
}

// Fisher–Yates (Durstenfeld) with batched dice: positions n-1, n-2, ... take a die of
// size i+1, i, ..., k per word. Exactly uniform over the n! orders; the indices differ from
// one-die-per-word fisher_yates with the same engine, and so do the orders.
template <unsigned W, std::random_access_iterator It, class Next>
void fisher_yates(It first, std::uint64_t n, Next&& next) {
  std::array<std::uint64_t, max_batch> sizes{}, dice{};
  std::uint64_t i = n;  // dice of size i, i-1, ... fill positions i-1, i-2, ...
  // Large i (above batch_limits[long_runs + 1]: 16,384 for 64-bit words): batches of at most
  // long_runs dice, in long runs of one size (batch_size(i) stays k while i >
  // batch_limits[k + 1]), so k and its unrolled loop are chosen once per run. The same
  // batches as the loop below would take: the same dice, the same order.
  while (i > batch_limits<W>[long_runs + 1] && i <= word_mask<W>) {
    const unsigned k = batch_size<W>(i);
    const std::uint64_t stop = batch_limits<W>[k + 1];
    auto run = [&]<unsigned K>() FAIRDECK_LAMBDA_INLINE {
      do {
        fisher_yates_batch<W, K>(first, i, next, sizes.data(), dice.data());
        i -= K;
      } while (i > stop);
    };
    with_static_batch<long_runs>(k, run);
  }
  while (i > 1) {  // a deck's worth (or a die wider than a word): a new batch size almost every batch
    if constexpr (W < 64) {
      if (i > word_mask<W>) {  // die wider than a word: one concatenated exact draw
        wide_die_engine<W, std::remove_reference_t<Next>> e{&next};
        const std::uint64_t j = uniform_below(e, i);
        std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(i - 1), first + static_cast<std::ptrdiff_t>(j));
        --i;
        continue;
      }
    }
    unsigned k = batch_size<W>(i);
    if (k > i - 1) k = static_cast<unsigned>(i - 1);
    auto step = [&]<unsigned K>() FAIRDECK_LAMBDA_INLINE {
      fisher_yates_batch<W, K>(first, i, next, sizes.data(), dice.data());
    };
    with_static_batch(k, step);
    i -= k;
  }
}

// "Inside-out" Fisher–Yates (Durstenfeld's variant that shuffles while copying, Knuth
// TAOCP 3.4.2): dst[0..m) receives src[0..m) in uniformly random order; element i takes a
// die of size i+1. One pass instead of copy-then-shuffle. src == dst is allowed (each step
// is then a swap of positions i and j <= i, still exact); other overlaps are not.
template <unsigned W, class T, class Next>
void inside_out_copy(const T* src, T* dst, std::uint64_t m, Next&& next) {
  std::array<std::uint64_t, max_batch> sizes{}, dice{};
  std::uint64_t i = 0;
  if (m > 0) dst[0] = src[0];  // die of size 1
  i = 1;
  while (i < m) {
    const std::uint64_t top = std::min(m, i + max_batch);  // sizes i+1 .. top
    if constexpr (W < 64) {
      if (top > word_mask<W>) {
        wide_die_engine<W, std::remove_reference_t<Next>> e{&next};
        const std::uint64_t j = uniform_below(e, i + 1);
        const T v = src[i];
        dst[i] = dst[j];
        dst[j] = v;
        ++i;
        continue;
      }
    }
    unsigned k = batch_size<W>(top);
    if (k > m - i) k = static_cast<unsigned>(m - i);
    auto step = [&]<unsigned K>() FAIRDECK_LAMBDA_INLINE {
      std::uint64_t product = 1;
      for (unsigned j = 0; j < K; ++j) product *= (sizes[j] = i + 1 + j);
      roll_dice<W>(next, sizes.data(), K, product, dice.data());
      for (unsigned j = 0; j < K; ++j) {
        const T v = src[i + j];  // read first: src == dst is allowed (then it is a swap)
        dst[i + j] = dst[dice[j]];
        dst[dice[j]] = v;
      }
    };
    with_static_batch(k, step);
    i += k;
  }
}

// The general loop of partial_fisher_yates (several batches, or dice wider than a word).
template <unsigned W, std::random_access_iterator It, class Next>
void partial_fisher_yates_batches(It first, std::uint64_t n, std::uint64_t steps, Next&& next) {
  std::array<std::uint64_t, max_batch> sizes{}, dice{};
  std::uint64_t p = 0;
  while (p < steps) {
    const std::uint64_t m = n - p;  // largest die of this batch
    if constexpr (W < 64) {
      if (m > word_mask<W>) {
        wide_die_engine<W, std::remove_reference_t<Next>> e{&next};
        const std::uint64_t j = p + uniform_below(e, m);
        std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(p), first + static_cast<std::ptrdiff_t>(j));
        ++p;
        continue;
      }
    }
    // A whole short deal usually fits one word: test that first (one comparison).
    const std::uint64_t left = steps - p;
    const unsigned k = left <= max_batch && m <= batch_limits<W>[left]
                           ? static_cast<unsigned>(left)
                           : std::min<unsigned>(batch_size<W>(m), static_cast<unsigned>(std::min<std::uint64_t>(left, max_batch)));
    auto step = [&]<unsigned K>() FAIRDECK_LAMBDA_INLINE {
      std::uint64_t product = 1;
      for (unsigned j = 0; j < K; ++j) product *= (sizes[j] = m - j);
      roll_dice<W>(next, sizes.data(), K, product, dice.data());
      for (unsigned j = 0; j < K; ++j)
        std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(p + j),
                               first + static_cast<std::ptrdiff_t>(p + j + dice[j]));
    };
    with_static_batch(k, step);
    p += k;
  }
}

// Forward partial Fisher–Yates with batched dice: position p (0 <= p < steps) takes a die
// of size n-p. Same guarantee as fairdeck::partial_shuffle.
//
// A short deal whose dice all fit one word (7 cards of 52, 12 of 312) takes the small loop
// below, which the compiler inlines into the caller: the product, one word (redrawn while
// rejected), then each die from its own multiply (dice_from_word's parallel form) and its
// swap. The dice, the rejections and so the deal are exactly those of the batch loop
// (partial_fisher_yates_batches takes the same single batch of `steps` dice); measured on a
// Zen 4 core it is twice as fast as calling the unrolled batch loop out of line.
template <unsigned W, std::random_access_iterator It, class Next>
FAIRDECK_BATCH_INLINE void partial_fisher_yates(It first, std::uint64_t n, std::uint64_t steps, Next&& next) {
  if (steps == 0 || steps > max_batch || n > batch_limits<W>[steps]) {
    partial_fisher_yates_batches<W>(first, n, steps, next);
    return;
  }
  std::uint64_t product = 1;
  for (std::uint64_t j = 0; j < steps; ++j) product *= n - j;
  std::uint64_t word = 0, leftover = 0;
  do {
    word = next();
    (void)mul_split<W>(word, product, leftover);
  } while (!accepts<W>(leftover, product));
  std::uint64_t prefix = 1, prev = 0;
  for (std::uint64_t j = 0; j < steps; ++j) {
    const std::uint64_t size = n - j;
    prefix *= size;
    const std::uint64_t h = mul_split<W>(word, prefix, leftover);
    const std::uint64_t die = h - size * prev;
    prev = h;
    std::ranges::iter_swap(first + static_cast<std::ptrdiff_t>(j), first + static_cast<std::ptrdiff_t>(j + die));
  }
}

}  // namespace batched

// Engines the shuffles batch for: full 64-bit words and no historical native_below mapping
// (legacy emulations keep drawing one index at a time, as the programs they emulate did).
template <class E>
concept batchable_engine = random_engine<E> && !has_native_below<E> && engine_bits<E> == 64;

}  // namespace fairdeck

#undef FAIRDECK_BATCH_INLINE
#undef FAIRDECK_LAMBDA_INLINE
