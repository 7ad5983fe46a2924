// Birthday spacings (Marsaglia 1985; Knuth TAOCP vol. 2 §3.3.2 J; L'Ecuyer & Simard 2001):
// one accumulator per variant (high bits, and for raw words the low bits); registered in
// battery.cpp. See certify/battery.hpp.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "accumulators.hpp"
#include "fairdeck/certify/null_laws.hpp"
#include "fairdeck/certify/validity.hpp"

namespace fairdeck::certify::detail {
namespace {

// LSD radix sort with 11-bit digits over the low `key_bits` bits (keys < 2^key_bits).
// Linear time; the birthday test sorts 2^22 keys twice per replicate.
void radix_sort(std::vector<std::uint64_t>& keys, unsigned key_bits, std::vector<std::uint64_t>& scratch) {
  constexpr unsigned digit = 11, buckets = 1u << digit;
  scratch.resize(keys.size());
  for (unsigned shift = 0; shift < key_bits; shift += digit) {
    std::array<std::size_t, buckets + 1> count{};
    for (std::uint64_t k : keys) ++count[((k >> shift) & (buckets - 1)) + 1];
    for (unsigned b = 0; b < buckets; ++b) count[b + 1] += count[b];
    for (std::uint64_t k : keys) scratch[count[(k >> shift) & (buckets - 1)]++] = k;
    keys.swap(scratch);
  }
}

// Equal spacings among the sorted points y in [0, k) (the points are overwritten).
std::uint64_t collisions(std::vector<std::uint64_t>& y, std::uint64_t k) {
  static thread_local std::vector<std::uint64_t> scratch;
  const auto kb = static_cast<unsigned>(std::bit_width(k));
  radix_sort(y, kb, scratch);
  // Spacings S_j = y_(j+1) - y_(j), and S_n = y_(1) + k - y_(n) (Knuth §3.3.2 J).
  const std::uint64_t wrap = y.front() + k - y.back();
  for (std::size_t j = 0; j + 1 < y.size(); ++j) y[j] = y[j + 1] - y[j];
  y.back() = wrap;
  radix_sort(y, kb, scratch);
  std::uint64_t equal = 0;
  for (std::size_t j = 1; j < y.size(); ++j) equal += y[j] == y[j - 1];
  return equal;
}

struct geometry {
  std::string name;
  unsigned t = 2;                // values per point
  std::uint64_t k = 0;           // cells
  std::uint64_t n = 0;           // points per replicate
  unsigned shift = 0, bits = 0;  // raw: cell coordinate = (x >> shift) & (2^bits - 1)
  std::uint64_t radix = 0;       // scaled: cell = sum x_i radix^i
};

class birthday_spacings final : public accumulator {
 public:
  explicit birthday_spacings(geometry g, std::string family) : g_(std::move(g)), family_(std::move(family)) {
    points_.reserve(g_.n);
  }
  void add(std::span<const std::uint64_t> values) override {
    values_ += values.size();
    for (std::uint64_t x : values) {
      if (g_.radix)
        partial_ = partial_ * g_.radix + x;
      else
        partial_ = (partial_ << g_.bits) | ((x >> g_.shift) & ((std::uint64_t{1} << g_.bits) - 1));
      if (++partial_count_ < g_.t) continue;
      points_.push_back(partial_);
      partial_ = 0;
      partial_count_ = 0;
      if (points_.size() == g_.n) {
        collisions_ += collisions(points_, g_.k);
        ++replicates_;
        points_.clear();
      }
    }
  }
  void results(std::vector<test_result>& out) const override {
    const double n = static_cast<double>(g_.n), k = static_cast<double>(g_.k);
    const double lambda = n * n * n / (4 * k), total = lambda * static_cast<double>(replicates_);
    test_result r{.name = g_.name,
                  .family = family_,
                  .description = g_.radix ? fmt::format("equal spacings among {} points of {} consecutive values "
                                                        "(k = {:.3g} cells)",
                                                        g_.n, g_.t, k)
                                          : fmt::format("equal spacings among {} points from {} bits of 2 consecutive "
                                                        "values ({} bits; k = 2^{} cells)",
                                                        g_.n, g_.bits, g_.shift ? "high" : "low", 2 * g_.bits),
                  .reference =
                      "Marsaglia 1985; Knuth §3.3.2 J; L'Ecuyer & Simard 2001: collisions ~ Poisson(n^3/4k) "
                      "per replicate, upper tail",
                  .distribution = "poisson",
                  .sample = replicates_,
                  .min_sample = validity_of(g_.name).min,
                  .unit = "replicates"};
    if (replicates_ < r.min_sample)
      return out.push_back(
          invalid(std::move(r), fmt::format("{} (a replicate is {} points of {} values)",
                                            needs(r.min_sample * g_.n * g_.t, values_, "values"), g_.n, g_.t)));
    r.statistic = static_cast<double>(collisions_);
    r.p_value = poisson_upper_tail(r.statistic, total);
    r.expected = total;
    r.note = fmt::format("{} collisions, {:.1f} expected (lambda = {:.3g} per replicate)", collisions_, total, lambda);
    r.effect = effect_kind::poisson_rate;
    r.effect_n = total;
    out.push_back(std::move(r));
  }

 private:
  geometry g_;
  std::string family_;
  std::vector<std::uint64_t> points_{};
  std::uint64_t partial_ = 0;
  unsigned partial_count_ = 0;
  std::uint64_t replicates_ = 0, collisions_ = 0, values_ = 0;
};

// n = cbrt(64 k) points per replicate (lambda = 16), at most 2^birthday_max_log2_points.
std::uint64_t points_for(std::uint64_t cells, const battery_settings& settings) {
  const double n = std::floor(std::cbrt(64.0 * static_cast<double>(cells)));
  return static_cast<std::uint64_t>(std::min(n, std::ldexp(1.0, static_cast<int>(settings.birthday_max_log2_points))));
}

// Raw words: points are pairs of s-bit coordinates, k = 2^2s cells about 2^birthday_cell_bits.
// Cells never fewer than 2^birthday_min_cell_bits (validity.hpp: the Poisson law's range).
unsigned cell_bits_of(const battery_settings& settings) {
  return std::clamp(settings.birthday_cell_bits, birthday_min_cell_bits, 62u);
}

geometry raw_geometry(const stream_setup& s, bool high) {
  const unsigned cell_bits = cell_bits_of(s.settings);
  const unsigned b = std::min(s.spec.bits, cell_bits / 2);
  geometry g{.name = high ? "birthday-spacings" : "birthday-spacings-low",
             .t = 2,
             .k = std::uint64_t{1} << (2 * b),
             .n = 0,
             .shift = high ? s.spec.bits - b : 0,
             .bits = b};
  g.n = points_for(g.k, s.settings);
  return g;
}

}  // namespace

// High bits of raw words, or t consecutive scaled draws (none when range^t overflows 62 bits).
std::unique_ptr<accumulator> make_birthday_spacings(const stream_setup& s) {
  if (s.raw) {
    geometry g = raw_geometry(s, true);
    // Words too narrow for 2^30 cells from pairs: the Poisson law would be off; not applied.
    if (2 * g.bits < birthday_min_cell_bits) return nullptr;
    return std::make_unique<birthday_spacings>(std::move(g), s.spec.family);
  }
  const unsigned cell_bits = cell_bits_of(s.settings);
  const double log2r = std::log2(s.range);
  unsigned t = std::max(1u, static_cast<unsigned>(std::floor(cell_bits / log2r)));
  if (log2r * t < birthday_min_cell_bits) t = static_cast<unsigned>(std::ceil(birthday_min_cell_bits / log2r));
  if (log2r * t > 62.5) return nullptr;
  std::uint64_t cells = 1;
  for (unsigned i = 0; i < t; ++i) cells *= s.spec.range;
  return std::make_unique<birthday_spacings>(geometry{.name = "birthday-spacings",
                                                      .t = t,
                                                      .k = cells,
                                                      .n = points_for(cells, s.settings),
                                                      .radix = s.spec.range},
                                             s.spec.family);
}

// Low bits of raw words wider than the coordinates (none for draws).
std::unique_ptr<accumulator> make_birthday_spacings_low(const stream_setup& s) {
  if (!s.raw) return nullptr;
  geometry g = raw_geometry(s, false);
  if (s.spec.bits <= g.bits || 2 * g.bits < birthday_min_cell_bits) return nullptr;
  return std::make_unique<birthday_spacings>(std::move(g), s.spec.family);
}

}  // namespace fairdeck::certify::detail
