// Engines for exact-distribution tests: they replay a scripted sequence, and throw
// path_exhausted when asked for more, so a test can enumerate every possible draw path.
#pragma once

#include <cstdint>
#include <map>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace fairdeck::testing {

struct path_exhausted : std::exception {};

// Raw engine with range [0, 2^W): replays `values` (masked to W bits).
template <unsigned W, class Result = std::uint64_t>
class scripted_engine {
 public:
  using result_type = Result;
  explicit scripted_engine(std::vector<std::uint64_t> values) : values_(std::move(values)) {}
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() {
    return W == 64 ? ~result_type{0} : static_cast<result_type>((std::uint64_t{1} << W) - 1);
  }
  result_type operator()() {
    if (pos_ == values_.size()) throw path_exhausted{};
    return static_cast<result_type>(values_[pos_++] & max());
  }
  [[nodiscard]] std::size_t used() const { return pos_; }

 private:
  std::vector<std::uint64_t> values_;
  std::size_t pos_ = 0;
};

// An "ideal" engine: native_below(n) replays scripted indices directly, so the odometer
// below can walk every path of ideal uniform draws an algorithm can take.
class ideal_draws {
 public:
  using result_type = std::uint64_t;
  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  explicit ideal_draws(const std::vector<std::uint64_t>& prefix) : prefix_(prefix) {}
  result_type operator()() { throw std::logic_error("ideal_draws: only bounded draws are scripted"); }
  std::uint64_t native_below(std::uint64_t n) {
    bounds_.push_back(n);
    const std::uint64_t v = pos_ < prefix_.size() ? prefix_[pos_] : 0;
    ++pos_;
    return v;
  }
  [[nodiscard]] const std::vector<std::uint64_t>& bounds() const { return bounds_; }

 private:
  const std::vector<std::uint64_t>& prefix_;
  std::vector<std::uint64_t> bounds_;
  std::size_t pos_ = 0;
};

// Calls run(engine) once for every sequence of ideal draws (each draw v < its bound), and
// visit(result, bounds) with its result. Every path with the same bound sequence has the
// same probability, prod 1/bounds.
template <class Run, class Visit>
void for_each_ideal_path(Run run, Visit visit) {
  std::vector<std::uint64_t> path;
  for (;;) {
    ideal_draws e(path);
    auto result = run(e);
    const auto& b = e.bounds();
    path.resize(b.size(), 0);
    visit(result, b);
    // Odometer: bump the last draw that can still grow, drop the ones after it.
    std::size_t i = b.size();
    while (i > 0 && path[i - 1] + 1 >= b[i - 1]) --i;
    if (i == 0) return;
    ++path[i - 1];
    path.resize(i);
  }
}

}  // namespace fairdeck::testing
