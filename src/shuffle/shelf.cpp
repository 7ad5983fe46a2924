#include "fairdeck/shuffle/shelf.hpp"

#include <bit>
#include <numeric>
#include <stdexcept>

#include <boost/multiprecision/cpp_int.hpp>
#include <fmt/format.h>

#include "exact_ratio.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"

namespace fairdeck {
namespace {

namespace mp = boost::multiprecision;
using big = mp::cpp_int;
using detail::factorial;
using detail::to_decimal;
using detail::to_double;

// The shelves of the one pass equivalent to k passes of m: M = 2^(k-1) m^k (shelf.hpp),
// checked against the limits.
big total_shelves(std::uint64_t n, std::uint64_t shelves, std::uint64_t passes) {
  if (n < 1 || n > shelf_mixing_max_cards)
    throw std::invalid_argument(fmt::format("shelf mixing: n = {} cards is outside 1..{}", n, shelf_mixing_max_cards));
  if (shelves < 1) throw std::invalid_argument("shelf mixing: a machine needs at least 1 shelf");
  if (passes < 1) throw std::invalid_argument("shelf mixing: a machine makes at least 1 pass");
  if (static_cast<double>(passes) * (1 + std::log2(static_cast<double>(shelves))) > static_cast<double>(shelf_mixing_max_bits))
    throw std::invalid_argument(
        fmt::format("shelf mixing: {} passes of {} shelves make more than 2^{} shelves", passes, shelves, shelf_mixing_max_bits));
  return mp::pow(big(shelves), static_cast<unsigned>(passes)) << static_cast<unsigned>(passes - 1);
}

// Pascal's triangle up to row n.
std::vector<std::vector<big>> pascal(std::uint64_t n) {
  std::vector<std::vector<big>> c(n + 1);
  for (std::uint64_t a = 0; a <= n; ++a) {
    c[a].assign(a + 1, big(1));
    for (std::uint64_t i = 1; i < a; ++i) c[a][i] = c[a - 1][i - 1] + c[a - 1][i];
  }
  return c;
}

// W(n, p): permutations of n with p peaks, p = 0..(n-1)/2.
std::vector<big> peak_counts(std::uint64_t n) {
  std::vector<big> w{1};  // n = 1
  for (std::uint64_t k = 2; k <= n; ++k) {
    std::vector<big> next((k - 1) / 2 + 1);
    for (std::uint64_t p = 0; p < next.size(); ++p) {
      if (p < w.size()) next[p] += w[p] * (2 * p + 2);
      if (p >= 1 && p - 1 < w.size() && k >= 2 * p) next[p] += w[p - 1] * (k - 2 * p);
    }
    w = std::move(next);
  }
  return w;
}

// N_M(p) for p = 0..(n-1)/2: the number of the (2M)^n choice sequences that give one given deck
// with p peaks (shelf.hpp). With T(a, q) = sum_i C(a, i) 2^i C(M, i + q):
//   N(p) = 2^(2p+1) sum_b C(p, b) T(n-1-2p, p+b+1).
std::vector<big> shelf_weights(std::uint64_t n, const big& M) {
  const auto c = pascal(n);
  std::vector<big> cm(n + 1);  // C(M, j), j = 0..n
  cm[0] = 1;
  for (std::uint64_t j = 1; j <= n; ++j) cm[j] = M < j ? big(0) : big(cm[j - 1] * (M - (j - 1)) / j);
  std::vector<big> out((n - 1) / 2 + 1);
  for (std::uint64_t p = 0; p < out.size(); ++p) {
    const std::uint64_t a = n - 1 - 2 * p;
    big sum = 0;
    for (std::uint64_t b = 0; b <= p; ++b) {
      big t = 0;
      for (std::uint64_t i = 0; i <= a && i + p + b + 1 <= n; ++i) t += (c[a][i] << static_cast<unsigned>(i)) * cm[i + p + b + 1];
      sum += c[p][b] * t;
    }
    out[p] = sum << static_cast<unsigned>(2 * p + 1);
  }
  return out;
}

}  // namespace

std::vector<std::string> permutations_by_peaks(std::uint64_t n) {
  if (n < 1 || n > shelf_mixing_max_cards) throw std::invalid_argument("permutations by peaks: n outside the limits");
  std::vector<std::string> out;
  for (const auto& w : peak_counts(n)) out.push_back(w.str());
  return out;
}

shelf_probability shelf_deck_probability(std::uint64_t n, std::uint64_t total, std::uint64_t p) {
  const big M = total_shelves(n, total, 1);
  const auto weights = shelf_weights(n, M);
  const big den = mp::pow(big(2) * M, static_cast<unsigned>(n));
  return {p < weights.size() ? weights[p].str() : std::string("0"), den.str()};
}

shelf_distance shelf_mixing(std::uint64_t n, std::uint64_t shelves, std::uint64_t passes) {
  const big M = total_shelves(n, shelves, passes);
  const auto weights = shelf_weights(n, M);
  const auto counts = peak_counts(n);
  const big D = mp::pow(big(2) * M, static_cast<unsigned>(n));  // (2M)^n choice sequences
  const big nf = factorial(n);
  // |P(p) - 1/n!| = |N(p) n! - D| / (D n!); TV = 1/2 sum_p W(p) |...|.
  big excess = 0, min_weight = -1;
  for (std::size_t p = 0; p < weights.size(); ++p) {
    if (counts[p] == 0) continue;
    big diff = weights[p] * nf - D;
    if (diff < 0) diff = -diff;
    excess += counts[p] * diff;
    if (min_weight < 0 || weights[p] < min_weight) min_weight = weights[p];
  }
  const big tv_den = D * nf * 2;
  big sep_num = D - min_weight * nf;  // 1 - n! min P = (D - n! min N) / D
  if (sep_num < 0) sep_num = 0;
  return {n, shelves, passes, to_double(excess, tv_den), to_double(sep_num, D), to_decimal(excess, tv_den),
          to_decimal(sep_num, D)};
}

// ---------------------------------------------------------------------------------------------

shelf_guesser::shelf_guesser(std::size_t n) : n_(n), unseen_(n) {
  if (n < 1) throw std::invalid_argument("shelf guesser: the deck needs at least 1 card");
}

std::size_t shelf_guesser::play(std::span<const std::uint32_t> labels) {
  if (labels.size() != n_) throw std::invalid_argument("shelf guesser: deck of the wrong size");
  unseen_.fill();
  std::size_t hits = 0;
  std::size_t guess = high_tops_ >= 0 ? n_ - 1 : 0;
  std::size_t previous = n_;
  for (const std::uint32_t label : labels) {
    const std::size_t c = label;
    hits += guess == c;
    unseen_.erase(c);
    // Going down after a fall, or after a top card in the upper half; up otherwise.
    const bool down = previous == n_ ? 2 * c >= n_ : c < previous;
    guess = down ? unseen_.below(c) : unseen_.above(c);
    if (guess == n_) guess = down ? unseen_.above(c) : unseen_.below(c);
    previous = c;
  }
  if (!labels.empty()) high_tops_ += 2 * std::size_t{labels[0]} >= n_ ? 1 : -1;
  return hits;
}

guess_moments shelf_guess_moments(std::size_t n, std::uint64_t shelves, std::uint64_t passes, std::uint64_t decks,
                                  const run_control& control) {
  xoshiro256pp engine(1);
  std::vector<std::uint32_t> deck(n);
  double mean = 0, m2 = 0;  // Welford
  std::uint64_t done = 0;
  for (; done < decks; ++done) {
    if ((done & 1023) == 0 && control.stopped()) break;
    std::iota(deck.begin(), deck.end(), std::uint32_t{0});
    shelf_shuffle(deck, shelves, passes, engine);
    shelf_guesser guesser(n);
    const auto x = static_cast<double>(guesser.play(deck));
    const double delta = x - mean;
    mean += delta / static_cast<double>(done + 1);
    m2 += delta * (x - mean);
  }
  return {mean, done > 1 ? m2 / static_cast<double>(done - 1) : 0.0, done};
}

}  // namespace fairdeck
