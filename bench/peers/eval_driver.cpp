// 7-card evaluation speed, one thread, CPU time: the same driver is built against fairdeck
// (-DDRIVER_FAIRDECK, linking the shipped libfairdeck.a) or against OMPEval's HandEvaluator
// (-DDRIVER_OMPEVAL) by bench/peers/ompeval_eval.sh, so both sides do the same work.
//   eval_driver HANDS PASSES [ITEMS]
// ITEMS (comma-separated names, default all) runs only those items: bench/peers/ompeval_eval.sh
// runs each item in its own process at the same time as its OMPEval counterpart, the two
// alternating in 10 ms slices (bench/peers/alternate.py), so both sides of a ratio meet the same
// moments of the machine. Every timer here is CPU time: a stopped process uses none.
// Prints one line per work item, "name<TAB>M evaluations/s<TAB>checksum":
//   rand_cards   HANDS random 7-card hands given as 7 card indices (in each side's own card type
//                and encoding: fairdeck::card_t, 2 bytes; OMPEval's benchmark's uint8_t, 1 byte;
//                OMPEval README's "Rand1"); the hand is built from the 7 cards
//                inside the timed loop, PASSES passes over the array.
//   rand_hands   the same hands as each side's own hand object built before timing (OMPEval's
//                omp::Hand, fairdeck's hand_accumulator, 16 bytes each; OMPEval's "Rand2").
//   rand_batch_K  (fairdeck only) rand_cards through the batch interface (eval7_batch), with
//                 kernel K (scalar; avx512 where the CPU has it; eval7_batch without a kernel
//                 picks the best, fp::hand_evaluator::best_kernel()).
//   rand_bytes_K  (fairdeck only) the same on the cards as bytes (7 a hand, the input size of
//                 OMPEval's rand_cards), through eval7_batch's byte overload.
//   enum_nested  all 133,784,560 hands by five nested loops adding one card per level to the
//                level above's hand object (OMPEval's "Seq" shape).
//   enum_library (fairdeck only) all hands by the library's enumeration (for_each_hand<7>).
// An enumeration is one 0.2-0.5 s sample, which one noisy moment of a shared machine can slow by
// half: each enumeration item runs PASSES times and reports its fastest pass (both sides alike;
// the checksum is one pass's, and any pass that disagrees makes it 0).
// The hands come from one fixed seed (splitmix64), the same (rank, suit) cards for both sides.
// Checksum: the sum of the hands' categories counted from 0 (value >> 12; OMPEval counts high
// card as 1, and its ranks within a category count hands of fewer cards too, so only the
// categories compare), the same on both sides for the same hands.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <vector>

#if defined(DRIVER_FAIRDECK)
#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#elif defined(DRIVER_OMPEVAL)
#include "omp/HandEvaluator.h"
#else
#error "define DRIVER_FAIRDECK or DRIVER_OMPEVAL"
#endif

namespace {

double cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

std::uint64_t splitmix(std::uint64_t& s) {
  std::uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Each side's own card type: fairdeck::card_t (2 bytes), OMPEval's uint8_t (its benchmark's).
#if defined(DRIVER_FAIRDECK)
using card_in = fairdeck::card_t;
#else
using card_in = std::uint8_t;
#endif

// Card given as poker rank (0 = deuce .. 12 = ace) and suit 0..3, in the side's encoding.
card_in encode(unsigned rank, unsigned suit) {
#if defined(DRIVER_FAIRDECK)
  return static_cast<card_in>(13 * suit + (rank + 1) % 13);  // fairdeck: ace is rank 0
#else
  return static_cast<card_in>(4 * rank + suit);  // OMPEval: 4 * rank + suit
#endif
}

std::vector<card_in> random_hands(std::size_t n) {
  std::vector<card_in> out;
  out.reserve(7 * n);
  std::uint64_t seed = 20261126;
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t used = 0;
    for (int k = 0; k < 7;) {
      const unsigned c = static_cast<unsigned>(splitmix(seed) % 52);  // c = 4 * rank + suit
      if (used >> c & 1) continue;
      used |= std::uint64_t{1} << c;
      out.push_back(encode(c / 4, c % 4));
      ++k;
    }
  }
  return out;
}

#if defined(DRIVER_FAIRDECK)
namespace fp = fairdeck::poker;
using hand_t = fp::hand_accumulator;
const fp::hand_evaluator& ev() { return fp::hand_evaluator::instance(); }
hand_t empty_hand() { return {}; }
hand_t add(const hand_t& h, unsigned c) { return h + static_cast<fairdeck::card_t>(c); }
std::uint64_t value(std::uint16_t s) { return s >> 12; }
std::uint16_t eval_hand(const fp::hand_evaluator& e, const hand_t& h) { return e.eval(h); }
#else
using hand_t = omp::Hand;
const omp::HandEvaluator& ev() {
  static const omp::HandEvaluator e;
  return e;
}
hand_t empty_hand() { return omp::Hand::empty(); }
hand_t add(const hand_t& h, unsigned c) { return h + omp::Hand(c); }
std::uint64_t value(std::uint16_t s) { return (s >> 12) - 1u; }
std::uint16_t eval_hand(const omp::HandEvaluator& e, const hand_t& h) { return e.evaluate(h); }
#endif

void report(const char* name, std::uint64_t evals, double seconds, std::uint64_t sum) {
  std::printf("%s\t%.1f\t%llu\n", name, 1e-6 * static_cast<double>(evals) / seconds,
              static_cast<unsigned long long>(sum));
}

// Runs one_pass() (returning its checksum) `passes` times and reports the fastest pass.
template <class F>
void report_fastest(const char* name, std::uint64_t evals, int passes, F&& one_pass) {
  double best = 0;
  std::uint64_t sum = 0;
  for (int p = 0; p < passes; ++p) {
    const double t0 = cpu_seconds();
    const std::uint64_t s = one_pass();
    const double t = cpu_seconds() - t0;
    if (p == 0 || t < best) best = t;
    sum = p == 0 || s == sum ? s : 0;
  }
  report(name, evals, best, sum);
}

}  // namespace

// Each item runs in a function of its own (a lambda kept out of line), so a change to one
// item's code (or to a library header it inlines) does not move another item's register
// allocation and code layout: with all items in main, a change to for_each_hand's header
// moved fairdeck's enum_nested by a third.
#define NOINLINE __attribute__((noinline))

int main(int argc, char** argv) {
  if (argc != 3 && argc != 4) {
    std::fprintf(stderr, "usage: %s HANDS PASSES [ITEMS]\n", argv[0]);
    return 2;
  }
  const std::string items = argc == 4 ? "," + std::string(argv[3]) + "," : "";
  const auto wanted = [&](const std::string& name) {
    return items.empty() || items.find("," + name + ",") != std::string::npos;
  };
  const auto n = static_cast<std::size_t>(std::atoll(argv[1]));
  const int passes = std::atoi(argv[2]);
  const auto& e = ev();
  const auto cards = random_hands(n);
  std::vector<hand_t> hands(n);
  for (std::size_t i = 0; i < n; ++i) {
    hand_t h = empty_hand();
    for (int k = 0; k < 7; ++k) h = add(h, cards[7 * i + static_cast<std::size_t>(k)]);
    hands[i] = h;
  }

  if (wanted("rand_cards"))
    [&]() NOINLINE {
      std::uint64_t sum = 0;
      const double t0 = cpu_seconds();
      for (int p = 0; p < passes; ++p) {
        const card_in* c = cards.data();
        for (std::size_t i = 0; i < n; ++i, c += 7) {
#if defined(DRIVER_FAIRDECK)
          sum += value(e.eval7(c));
#else
          omp::Hand h = omp::Hand::empty();
          for (int k = 0; k < 7; ++k) h += omp::Hand(c[k]);
          sum += value(eval_hand(e, h));
#endif
        }
      }
      report("rand_cards", static_cast<std::uint64_t>(passes) * n, cpu_seconds() - t0, sum);
    }();
  if (wanted("rand_hands"))
    [&]() NOINLINE {
      std::uint64_t sum = 0;
      const double t0 = cpu_seconds();
      for (int p = 0; p < passes; ++p)
        for (const auto& h : hands) sum += value(eval_hand(e, h));
      report("rand_hands", static_cast<std::uint64_t>(passes) * n, cpu_seconds() - t0, sum);
    }();
#if defined(DRIVER_FAIRDECK)
  using kernel = fp::hand_evaluator::eval_kernel;
  // rand_batch_K: eval7_batch with kernel K on the card_t hands; rand_bytes_K: on the same
  // cards as bytes.
  const auto batch_item = [&](const std::string& name, kernel k, const auto& input) NOINLINE {
    std::vector<fp::strength_t> out(n);
    std::uint64_t sum = 0;
    const double t0 = cpu_seconds();
    for (int p = 0; p < passes; ++p) {
      e.eval7_batch(k, input.data(), n, out.data());
      for (const auto s : out) sum += value(s);
    }
    report(name.c_str(), static_cast<std::uint64_t>(passes) * n, cpu_seconds() - t0, sum);
  };
  for (const std::string input : {"rand_batch", "rand_bytes"})
    for (const kernel k : {kernel::scalar, kernel::avx2, kernel::avx512}) {
      const std::string name = input + (k == kernel::scalar ? "_scalar" : k == kernel::avx2 ? "_avx2" : "_avx512");
      if (!fp::hand_evaluator::kernel_supported(k) || !wanted(name)) continue;
      if (input == "rand_batch")
        batch_item(name, k, cards);
      else
        batch_item(name, k, std::vector<std::uint8_t>(cards.begin(), cards.end()));
    }
#endif
  if (wanted("enum_nested"))
    report_fastest("enum_nested", 133784560, passes, [&]() NOINLINE {
      std::uint64_t sum = 0, count = 0;
      for (unsigned c1 = 0; c1 < 52; ++c1) {
        const hand_t h1 = add(empty_hand(), c1);
        for (unsigned c2 = c1 + 1; c2 < 52; ++c2) {
          const hand_t h2 = add(h1, c2);
          for (unsigned c3 = c2 + 1; c3 < 52; ++c3) {
            const hand_t h3 = add(h2, c3);
            for (unsigned c4 = c3 + 1; c4 < 52; ++c4) {
              const hand_t h4 = add(h3, c4);
              for (unsigned c5 = c4 + 1; c5 < 52; ++c5) {
                const hand_t h5 = add(h4, c5);
                for (unsigned c6 = c5 + 1; c6 < 52; ++c6) {
                  const hand_t h6 = add(h5, c6);
                  for (unsigned c7 = c6 + 1; c7 < 52; ++c7) sum += value(eval_hand(e, add(h6, c7)));
                  count += 51 - c6;
                }
              }
            }
          }
        }
      }
      return count == 133784560 ? sum : 0;
    });
#if defined(DRIVER_FAIRDECK)
  if (wanted("enum_library"))
    report_fastest("enum_library", 133784560, passes, [&]() NOINLINE {
      std::uint64_t sum = 0;
      for (unsigned first = 0; first < 46; ++first)
        fp::for_each_hand<7>(first, [&](fp::strength_t s) { sum += value(s); });
      return sum;
    });
#endif
  return 0;
}
