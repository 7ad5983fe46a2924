// V8's Math.random as Node.js runs it with `node --random_seed=S`, and the two idioms
// JavaScript code uses to shuffle an array:
//   Fisher–Yates: for (let i = n - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); swap }
//   sort:         a.sort(() => Math.random() - 0.5)
//
// Math.random (V8 src/numbers/math-random.cc, src/base/utils/random-number-generator.h):
// xorshift128+ (Vigna, "Further scramblings of Marsaglia's xorshift generators", 2017) with
// state s0 = fmix64(seed), s1 = fmix64(~seed) (MurmurHash3's finaliser) where seed is the
// --random_seed flag, an int, sign-extended to 64 bits. A refill computes 64 values into a
// cache, value k being ((s0 >> 12) | 0x3FF0000000000000) as a double minus 1 after the k-th
// step; Math.random reads the cache from the end (index 63 first).
//
// Array.prototype.sort (V8 third_party/v8/builtins/array-sort.tq) is TimSort (Peters 2002,
// CPython's listsort): runs found by CountAndMakeRun, extended to minrun by binary insertion
// sort, merged with galloping (min_gallop 7). The comparator ignores its arguments, so only
// the order of calls and the sign of each answer (Math.random() < 0.5 means "less") matter;
// this is a transcription of the Torque code, call for call.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "fairdeck/runtimes/internal/factories.hpp"
#include "fairdeck/runtimes/seed_range.hpp"

namespace fairdeck::runtimes::internal {
namespace {

constexpr std::uint64_t fmix64(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xFF51AFD7ED558CCDu;
  h ^= h >> 33;
  h *= 0xC4CEB9FE1A85EC53u;
  h ^= h >> 33;
  return h;
}

class v8_math_random {
 public:
  explicit v8_math_random(std::uint64_t flag) {
    // --random_seed is an int: S >= 2^31 is the int32 S - 2^32, sign-extended.
    const auto seed = static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(flag)));
    s0_ = fmix64(seed);
    s1_ = fmix64(~seed);
  }
  double operator()() noexcept {
    if (index_ == 0) refill();
    return cache_[--index_];
  }

 private:
  void refill() noexcept {
    for (double& v : cache_) {
      std::uint64_t s1 = s0_;
      const std::uint64_t s0 = s1_;
      s0_ = s0;
      s1 ^= s1 << 23;
      s1 ^= s1 >> 17;
      s1 ^= s0;
      s1 ^= s0 >> 26;
      s1_ = s1;
      const std::uint64_t bits = (s0_ >> 12) | 0x3FF0000000000000u;
      double d = 0;
      std::memcpy(&d, &bits, sizeof d);
      v = d - 1;
    }
    index_ = cache_size;
  }
  static constexpr unsigned cache_size = 64;
  std::uint64_t s0_, s1_;
  double cache_[cache_size] = {};
  unsigned index_ = 0;
};

// array-sort.tq's TimSort over a work array; less() is one comparator call, true when the
// comparator's answer is negative.
template <class Less>
class v8_timsort {
 public:
  v8_timsort(std::span<std::uint32_t> a, Less less) : w_(a), less_(less) {}

  void sort() {
    const long n = static_cast<long>(w_.size());
    if (n < 2) return;
    long remaining = n, low = 0;
    const long min_run = min_run_length(remaining);
    while (remaining != 0) {
      long run = count_and_make_run(low, low + remaining);
      if (run < min_run) {
        const long forced = std::min(min_run, remaining);
        binary_insertion_sort(low, low + run, low + forced);
        run = forced;
      }
      runs_.push_back({low, run});
      merge_collapse();
      low += run;
      remaining -= run;
    }
    merge_force_collapse();
  }

 private:
  struct run_t {
    long base, length;
  };
  static constexpr long min_gallop_wins = 7;

  static long min_run_length(long n) {
    long r = 0;
    while (n >= 64) {
      r |= n & 1;
      n >>= 1;
    }
    return n + r;
  }

  long count_and_make_run(long low_arg, long high) {
    const long low = low_arg + 1;
    if (low == high) return 1;
    long run = 2;
    const bool descending = less_();  // Compare(a[low], a[low - 1]) < 0
    for (long idx = low + 1; idx < high; ++idx) {
      const bool lt = less_();  // Compare(a[idx], previous)
      if (descending ? !lt : lt) break;
      ++run;
    }
    if (descending) std::reverse(w_.begin() + low_arg, w_.begin() + low_arg + run);
    return run;
  }

  void binary_insertion_sort(long low, long start_arg, long high) {
    long start = low == start_arg ? start_arg + 1 : start_arg;
    for (; start < high; ++start) {
      long left = low, right = start;
      const std::uint32_t pivot = w_[static_cast<std::size_t>(start)];
      while (left < right) {
        const long mid = left + ((right - left) >> 1);
        if (less_())  // Compare(pivot, a[mid]) < 0
          right = mid;
        else
          left = mid + 1;
      }
      for (long p = start; p > left; --p) w_[static_cast<std::size_t>(p)] = w_[static_cast<std::size_t>(p - 1)];
      w_[static_cast<std::size_t>(left)] = pivot;
    }
  }

  bool invariant(long n) const {  // run_length(n-2) > run_length(n-1) + run_length(n)
    if (n < 2) return true;
    return runs_[static_cast<std::size_t>(n - 2)].length >
           runs_[static_cast<std::size_t>(n - 1)].length + runs_[static_cast<std::size_t>(n)].length;
  }
  long len(long i) const { return runs_[static_cast<std::size_t>(i)].length; }

  void merge_collapse() {
    while (runs_.size() > 1) {
      long n = static_cast<long>(runs_.size()) - 2;
      if (!invariant(n + 1) || !invariant(n)) {
        if (len(n - 1) < len(n + 1)) --n;
        merge_at(n);
      } else if (len(n) <= len(n + 1)) {
        merge_at(n);
      } else {
        break;
      }
    }
  }
  void merge_force_collapse() {
    while (runs_.size() > 1) {
      long n = static_cast<long>(runs_.size()) - 2;
      if (n > 0 && len(n - 1) < len(n + 1)) --n;
      merge_at(n);
    }
  }

  void merge_at(long i) {
    const auto u = static_cast<std::size_t>(i);
    long base_a = runs_[u].base, length_a = runs_[u].length;
    const long base_b = runs_[u + 1].base;
    long length_b = runs_[u + 1].length;
    runs_[u].length = length_a + length_b;
    runs_.erase(runs_.begin() + static_cast<std::ptrdiff_t>(u + 1));
    const long k = gallop_right(w_.data(), base_a, length_a, 0);
    base_a += k;
    length_a -= k;
    if (length_a == 0) return;
    length_b = gallop_left(w_.data(), base_b, length_b, length_b - 1);
    if (length_b == 0) return;
    if (length_a <= length_b)
      merge_low(base_a, length_a, base_b, length_b);
    else
      merge_high(base_a, length_a, base_b, length_b);
  }

  // GallopLeft: the comparisons are Compare(a[...], key); "key <= a[x]" is !less.
  long gallop_left(const std::uint32_t*, long, long length, long hint) {
    long last = 0, offset = 1;
    if (less_()) {  // a[hint] < key: gallop right
      const long max_ofs = length - hint;
      while (offset < max_ofs) {
        if (!less_()) break;
        last = offset;
        offset = (offset << 1) + 1;
      }
      if (offset > max_ofs) offset = max_ofs;
      last += hint;
      offset += hint;
    } else {  // key <= a[hint]: gallop left
      const long max_ofs = hint + 1;
      while (offset < max_ofs) {
        if (less_()) break;
        last = offset;
        offset = (offset << 1) + 1;
      }
      if (offset > max_ofs) offset = max_ofs;
      const long tmp = last;
      last = hint - offset;
      offset = hint - tmp;
    }
    ++last;
    while (last < offset) {
      const long m = last + ((offset - last) >> 1);
      if (less_())
        last = m + 1;
      else
        offset = m;
    }
    return offset;
  }

  // GallopRight: the comparisons are Compare(key, a[...]).
  long gallop_right(const std::uint32_t*, long, long length, long hint) {
    long last = 0, offset = 1;
    if (less_()) {  // key < a[hint]: gallop left
      const long max_ofs = hint + 1;
      while (offset < max_ofs) {
        if (!less_()) break;
        last = offset;
        offset = (offset << 1) + 1;
      }
      if (offset > max_ofs) offset = max_ofs;
      const long tmp = last;
      last = hint - offset;
      offset = hint - tmp;
    } else {  // a[hint] <= key: gallop right
      const long max_ofs = length - hint;
      while (offset < max_ofs) {
        if (less_()) break;
        last = offset;
        offset = (offset << 1) + 1;
      }
      if (offset > max_ofs) offset = max_ofs;
      last += hint;
      offset += hint;
    }
    ++last;
    while (last < offset) {
      const long m = last + ((offset - last) >> 1);
      if (less_())
        offset = m;
      else
        last = m + 1;
    }
    return offset;
  }

  std::uint32_t& at(long i) { return w_[static_cast<std::size_t>(i)]; }
  void copy(const std::uint32_t* src, long from, std::uint32_t* dst, long to, long n) {
    std::memmove(dst + to, src + from, static_cast<std::size_t>(n) * sizeof(std::uint32_t));
  }

  void merge_low(long base_a, long length_a, long base_b, long length_b) {
    std::uint32_t* w = w_.data();
    tmp_.assign(w + base_a, w + base_a + length_a);
    std::uint32_t* t = tmp_.data();
    long dest = base_a, cursor_t = 0, cursor_b = base_b;
    w[dest++] = w[cursor_b++];
    auto succeed = [&] {
      if (length_a > 0) copy(t, cursor_t, w, dest, length_a);
    };
    auto copy_b = [&] {
      copy(w, cursor_b, w, dest, length_b);
      w[dest + length_b] = t[cursor_t];
    };
    if (--length_b == 0) return succeed();
    if (length_a == 1) return copy_b();
    long min_gallop = min_gallop_;
    for (;;) {
      long wins_a = 0, wins_b = 0;
      for (;;) {
        if (less_()) {  // Compare(b, tmp) < 0
          w[dest++] = w[cursor_b++];
          ++wins_b;
          --length_b;
          wins_a = 0;
          if (length_b == 0) return succeed();
          if (wins_b >= min_gallop) break;
        } else {
          w[dest++] = t[cursor_t++];
          ++wins_a;
          --length_a;
          wins_b = 0;
          if (length_a == 1) return copy_b();
          if (wins_a >= min_gallop) break;
        }
      }
      ++min_gallop;
      bool first = true;
      while (wins_a >= min_gallop_wins || wins_b >= min_gallop_wins || first) {
        first = false;
        min_gallop = std::max(1L, min_gallop - 1);
        min_gallop_ = min_gallop;
        wins_a = gallop_right(t, cursor_t, length_a, 0);
        if (wins_a > 0) {
          copy(t, cursor_t, w, dest, wins_a);
          dest += wins_a;
          cursor_t += wins_a;
          length_a -= wins_a;
          if (length_a == 1) return copy_b();
          if (length_a == 0) return succeed();
        }
        w[dest++] = w[cursor_b++];
        if (--length_b == 0) return succeed();
        wins_b = gallop_left(w, cursor_b, length_b, 0);
        if (wins_b > 0) {
          copy(w, cursor_b, w, dest, wins_b);
          dest += wins_b;
          cursor_b += wins_b;
          length_b -= wins_b;
          if (length_b == 0) return succeed();
        }
        w[dest++] = t[cursor_t++];
        if (--length_a == 1) return copy_b();
      }
      ++min_gallop;
      min_gallop_ = min_gallop;
    }
  }

  void merge_high(long base_a, long length_a, long base_b, long length_b) {
    std::uint32_t* w = w_.data();
    tmp_.assign(w + base_b, w + base_b + length_b);
    std::uint32_t* t = tmp_.data();
    long dest = base_b + length_b - 1, cursor_t = length_b - 1, cursor_a = base_a + length_a - 1;
    w[dest--] = w[cursor_a--];
    auto succeed = [&] {
      if (length_b > 0) copy(t, 0, w, dest - (length_b - 1), length_b);
    };
    auto copy_a = [&] {
      dest -= length_a;
      cursor_a -= length_a;
      copy(w, cursor_a + 1, w, dest + 1, length_a);
      w[dest] = t[cursor_t];
    };
    if (--length_a == 0) return succeed();
    if (length_b == 1) return copy_a();
    long min_gallop = min_gallop_;
    for (;;) {
      long wins_a = 0, wins_b = 0;
      for (;;) {
        if (less_()) {  // Compare(tmp, a) < 0
          w[dest--] = w[cursor_a--];
          ++wins_a;
          --length_a;
          wins_b = 0;
          if (length_a == 0) return succeed();
          if (wins_a >= min_gallop) break;
        } else {
          w[dest--] = t[cursor_t--];
          ++wins_b;
          --length_b;
          wins_a = 0;
          if (length_b == 1) return copy_a();
          if (wins_b >= min_gallop) break;
        }
      }
      ++min_gallop;
      bool first = true;
      while (wins_a >= min_gallop_wins || wins_b >= min_gallop_wins || first) {
        first = false;
        min_gallop = std::max(1L, min_gallop - 1);
        min_gallop_ = min_gallop;
        long k = gallop_right(w, base_a, length_a, length_a - 1);
        wins_a = length_a - k;
        if (wins_a > 0) {
          dest -= wins_a;
          cursor_a -= wins_a;
          copy(w, cursor_a + 1, w, dest + 1, wins_a);
          length_a -= wins_a;
          if (length_a == 0) return succeed();
        }
        w[dest--] = t[cursor_t--];
        if (--length_b == 1) return copy_a();
        k = gallop_left(t, 0, length_b, length_b - 1);
        wins_b = length_b - k;
        if (wins_b > 0) {
          dest -= wins_b;
          cursor_t -= wins_b;
          copy(t, cursor_t + 1, w, dest + 1, wins_b);
          length_b -= wins_b;
          if (length_b == 1) return copy_a();
          if (length_b == 0) return succeed();
        }
        w[dest--] = w[cursor_a--];
        if (--length_a == 0) return succeed();
      }
      ++min_gallop;
      min_gallop_ = min_gallop;
    }
  }

  std::span<std::uint32_t> w_;
  Less less_;
  std::vector<run_t> runs_;
  std::vector<std::uint32_t> tmp_;
  long min_gallop_ = 7;
};

struct node_shuffle final : runtime_shuffler::impl {
  v8_math_random random;
  bool sort_idiom;
  node_shuffle(std::uint64_t seed, bool sort) : random(seed), sort_idiom(sort) {}
  void shuffle(std::span<std::uint32_t> list) override {
    // A JavaScript array holds at most 2^32-1 elements.
    if (list.size() > 0xfffffffeu) throw std::invalid_argument("node: an Array holds at most 2^32-1 elements");
    if (sort_idiom) {
      v8_timsort sorter(list, [this] { return random() - 0.5 < 0; });
      sorter.sort();
      return;
    }
    for (std::size_t i = list.size(); i > 1; --i) {
      const auto j = static_cast<std::size_t>(std::floor(random() * static_cast<double>(i)));
      std::swap(list[i - 1], list[j]);
    }
  }
};

}  // namespace

impl_ptr make_node(std::uint64_t seed, bool sort_idiom) {
  // V8 treats --random_seed=0 as "no seed" and draws the state from the OS: nothing to replay.
  if (static_cast<std::uint32_t>(seed) == 0)
    throw std::invalid_argument(seed_range_error(sort_idiom ? runtime_id::node_sort : runtime_id::node, seed));
  return std::make_unique<node_shuffle>(seed, sort_idiom);
}

}  // namespace fairdeck::runtimes::internal
