// The guessing test's likelihood ratios and the shoe guesser (stats/machine.hpp).
#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "fairdeck/stats/machine.hpp"

namespace fairdeck::stats {

double log_mean_exp(std::span<const double> log_lr) noexcept {
  if (log_lr.empty()) return 0;
  const double top = *std::max_element(log_lr.begin(), log_lr.end());
  if (!std::isfinite(top)) return top;
  double sum = 0;
  for (const double x : log_lr) sum += std::exp(x - top);
  return top + std::log(sum / static_cast<double>(log_lr.size()));
}

guess_play deck_guess_play(std::size_t n, std::size_t hits) noexcept {
  guess_play g;
  g.hits = static_cast<std::uint32_t>(hits);
  for (std::size_t i = 0; i < guess_odds_grid.size(); ++i) {
    const double c = guess_odds_grid[i];
    double norm = 0;  // sum over R = 1..n of log(1 - p + c p), p = 1/R
    for (std::size_t r = 2; r <= n; ++r) norm += std::log1p((c - 1) / static_cast<double>(r));
    g.log_lr[i] = static_cast<double>(hits) * std::log(c) - (norm + std::log(c));
  }
  for (std::size_t r = 1; r <= n; ++r) g.null_mean += 1.0 / static_cast<double>(r);
  return g;
}

shoe_guesser::shoe_guesser(std::size_t faces, unsigned copies)
    : faces_(faces),
      n_(faces * copies),
      copies_(copies),
      unseen_(faces * copies),
      positions_(faces * copies),
      fill_(faces),
      remaining_(faces),
      face_at_(faces * copies) {
  if (faces < 1 || copies < 1) throw std::invalid_argument("shoe guesser: the shoe needs at least 1 card");
}

guess_play shoe_guesser::play(std::span<const card_t> order, std::span<const card_t> before) {
  if (order.size() != n_ || (!before.empty() && before.size() != n_))
    throw std::invalid_argument("shoe guesser: a shoe of the wrong size");
  // Before positions of each face, ascending.
  std::fill(fill_.begin(), fill_.end(), 0U);
  for (std::size_t i = 0; i < n_; ++i) {
    const card_t f = before.empty() ? static_cast<card_t>(i % faces_) : before[i];
    if (f >= faces_ || fill_[f] >= copies_)
      throw std::invalid_argument("shoe guesser: the before order is not the shoe");
    face_at_[i] = f;
    positions_[f * copies_ + fill_[f]++] = static_cast<std::uint32_t>(i);
  }
  unseen_.fill();
  std::fill(remaining_.begin(), remaining_.end(), copies_);
  guess_play g;
  std::array<double, guess_odds_grid.size()> log_c{};
  for (std::size_t i = 0; i < log_c.size(); ++i) log_c[i] = std::log(guess_odds_grid[i]);
  const bool high = high_tops_ >= 0;
  std::size_t guess = high ? n_ - 1 : 0;  // a label
  std::size_t previous = n_;
  bool down = high;
  std::size_t left = n_;
  for (const card_t f : order) {
    if (f >= faces_ || remaining_[f] == 0)
      throw std::invalid_argument("shoe guesser: the shoe does not hold these cards");
    const card_t guessed = face_at_[guess];
    const double p = static_cast<double>(remaining_[guessed]) / static_cast<double>(left);
    const bool hit = guessed == f;
    g.hits += hit;
    g.null_mean += p;
    for (std::size_t i = 0; i < log_c.size(); ++i)
      g.log_lr[i] += (hit ? log_c[i] : 0.0) - std::log1p(p * (guess_odds_grid[i] - 1));
    // The label of this card: its face's nearest unseen copy in the direction of travel.
    const std::uint32_t* pos = &positions_[f * copies_];
    std::size_t c = n_, other = n_;
    if (previous == n_) {  // the top card: the highest copy for a V machine, the lowest for its mirror
      for (unsigned k = 0; k < copies_; ++k) {
        const std::size_t x = pos[k];
        if (!unseen_.contains(x)) continue;
        if (c == n_ || high) c = x;  // ascending: the last unseen is the highest
      }
    } else {
      for (unsigned k = 0; k < copies_; ++k) {
        const std::size_t x = pos[k];
        if (!unseen_.contains(x)) continue;
        if (down ? x < previous : x > previous) {
          if (c == n_ || (down ? x > c : x < c)) c = x;
        } else if (other == n_ || (down ? x < other : x > other)) {
          other = x;
        }
      }
      if (c == n_) c = other;
    }
    unseen_.erase(c);
    --remaining_[f];
    --left;
    down = previous == n_ ? 2 * c >= n_ : c < previous;
    previous = c;
    if (left == 0) break;
    guess = down ? unseen_.below(c) : unseen_.above(c);
    if (guess == n_) guess = down ? unseen_.above(c) : unseen_.below(c);
  }
  if (!order.empty()) {
    // The top card's face lies in the upper or lower half of the before order (the mean of its
    // copies' positions): a V machine's top card went in last, its mirror's first.
    const std::uint32_t* pos = &positions_[order[0] * copies_];
    std::size_t sum = 0;
    for (unsigned k = 0; k < copies_; ++k) sum += pos[k];
    const std::size_t twice_mean = 2 * sum, middle = copies_ * (n_ - 1);  // compare 2 sum / copies with n - 1
    high_tops_ += twice_mean > middle ? 1 : twice_mean < middle ? -1 : 0;
  }
  return g;
}

}  // namespace fairdeck::stats
