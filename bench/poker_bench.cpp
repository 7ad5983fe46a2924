// Poker evaluator, odds and equity speed. Numbers to quote are the medians of
// --benchmark_repetitions=5; the reference evaluator (best of 21 five-card subsets by the
// textbook rules) is the baseline measured in the same run.
#include <benchmark/benchmark.h>

#include <array>
#include <vector>

#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/odds.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/omaha.hpp"
#include "fairdeck/poker/preflop_table.hpp"
#include "fairdeck/poker/reference_eval.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"

namespace fp = fairdeck::poker;
using fairdeck::card_t;

namespace {

std::vector<card_t> random_hands(std::size_t hands, std::size_t k) {
  std::vector<card_t> deck(52), out;
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  fairdeck::xoshiro256pp rng(2024);
  out.reserve(hands * k);
  for (std::size_t i = 0; i < hands; ++i) {
    auto h = fairdeck::partial_shuffle(deck, k, rng);
    out.insert(out.end(), h.begin(), h.end());
  }
  return out;
}

constexpr std::size_t kRandomHands = std::size_t{1} << 16;

// Random hands dealt before timing (the loop measures evaluation, not dealing). Default batch
// 65,536 hands (917 KB of 7-card input streamed through the caches next to the evaluator's
// 290 KB of tables); the /N variants show how the batch size (input footprint) matters.
template <std::size_t N>
void BM_EvalRandom(benchmark::State& state) {
  const auto count = state.range(0) ? static_cast<std::size_t>(state.range(0)) : kRandomHands;
  const auto hands = random_hands(count, N);
  const auto& ev = fp::hand_evaluator::instance();
  for (auto _ : state) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < hands.size(); i += N) sum += ev.eval<N>(&hands[i]);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
}
BENCHMARK(BM_EvalRandom<7>)->Arg(0)->Arg(1 << 12)->Arg(1 << 20);

// `count` random hands (7 cards of type Card each) through eval7_batch with kernel range(0).
template <class Card>
void eval_batch_bench(benchmark::State& state, std::size_t count) {
  const auto kernel = static_cast<fp::hand_evaluator::eval_kernel>(state.range(0));
  if (!fp::hand_evaluator::kernel_supported(kernel)) return state.SkipWithError("kernel not supported on this CPU");
  const auto hands16 = random_hands(count, 7);
  const std::vector<Card> hands(hands16.begin(), hands16.end());
  const auto& ev = fp::hand_evaluator::instance();
  std::vector<fp::strength_t> out(count);
  for (auto _ : state) {
    ev.eval7_batch(kernel, hands.data(), count, out.data());
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * count));
}

// The same hands through eval7_batch with each kernel this CPU has (0 = scalar, 1 = AVX-512,
// 2 = AVX2);
// baseline: BM_EvalRandom<7>/0 (one-hand loop) in the same run.
void BM_EvalRandomBatch7(benchmark::State& state) { eval_batch_bench<card_t>(state, kRandomHands); }
BENCHMARK(BM_EvalRandomBatch7)->Arg(0)->Arg(1)->Arg(2);

// The same with the cards as bytes (eval7_batch's byte overload: half the input), and both
// inputs at 4 Mi hands (29 MB as bytes, 59 MB as card_t: streamed from memory, where the card_t
// input's 14 bytes a hand are what limit the AVX-512 kernel). Arguments: kernel, hands (0: the
// 65,536 above). Baseline: card_t input with the same kernel and count in the same run.
template <class Card>
void BM_EvalRandomBatch7Input(benchmark::State& state) {
  eval_batch_bench<Card>(state, state.range(1) ? static_cast<std::size_t>(state.range(1)) : kRandomHands);
}
BENCHMARK(BM_EvalRandomBatch7Input<std::uint8_t>)->ArgsProduct({{0, 1, 2}, {0, 1 << 22}});
BENCHMARK(BM_EvalRandomBatch7Input<fairdeck::card_t>)->ArgsProduct({{0, 1, 2}, {1 << 22}});
BENCHMARK(BM_EvalRandom<6>)->Arg(0);
BENCHMARK(BM_EvalRandom<5>)->Arg(0);

void BM_ReferenceEvalRandom7(benchmark::State& state) {
  const auto hands = random_hands(kRandomHands, 7);
  for (auto _ : state) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < hands.size(); i += 7) sum += fp::reference_value({&hands[i], 7});
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * kRandomHands));
}
BENCHMARK(BM_ReferenceEvalRandom7);

// Every 7-card hand once, single thread. Baseline: the perfect-hash evaluator on incremental
// keys (for_each_completion), then the rank-state machine (for_each_hand) that the library's
// exact counts use; "Sum" adds strengths, "Histogram" counts per strength (what
// exact_category_counts does), "Categories" increments nine category counters.
void BM_EnumerateAll7Sum(benchmark::State& state) {
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (auto _ : state) {
    unsigned long long sum = 0;
    for (std::size_t first = 0; first < 46; ++first)
      fp::for_each_completion<6>(fp::hand_accumulator{} + deck[first], deck, first + 1, [&](fp::strength_t s) { sum += s; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7Sum)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7StatesSum(benchmark::State& state) {
  for (auto _ : state) {
    unsigned long long sum = 0;
    for (unsigned first = 0; first < 46; ++first) fp::for_each_hand<7>(first, [&](fp::strength_t s) { sum += s; });
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7StatesSum)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7StatesCategories(benchmark::State& state) {
  for (auto _ : state) {
    std::array<std::uint64_t, 9> counts{};
    for (unsigned first = 0; first < 46; ++first) fp::for_each_hand<7>(first, [&](fp::strength_t s) { ++counts[s >> 12]; });
    benchmark::DoNotOptimize(counts);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7StatesCategories)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7StatesHistogram(benchmark::State& state) {
  std::vector<std::uint32_t> hist(1u << 16);
  for (auto _ : state) {
    std::fill(hist.begin(), hist.end(), 0);
    for (unsigned first = 0; first < 46; ++first) fp::for_each_hand<7>(first, [&](fp::strength_t s) { ++hist[s]; });
    benchmark::DoNotOptimize(hist.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7StatesHistogram)->Unit(benchmark::kMillisecond);

void BM_EnumerateAll7Categories(benchmark::State& state) {
  std::vector<card_t> deck(52);
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  for (auto _ : state) {
    std::array<std::uint64_t, 9> counts{};
    for (std::size_t first = 0; first < 46; ++first)
      fp::for_each_completion<6>(fp::hand_accumulator{} + deck[first], deck, first + 1,
                                 [&](fp::strength_t s) { ++counts[s >> 12]; });
    benchmark::DoNotOptimize(counts);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_EnumerateAll7Categories)->Unit(benchmark::kMillisecond);


// The library's exact category counts for 7 cards (rank-state enumeration + histogram).
void BM_OddsExact7(benchmark::State& state) {
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_category_counts(7, threads));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 133784560LL));
}
BENCHMARK(BM_OddsExact7)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Monte Carlo 7-card odds: partial shuffle of 7 cards with deck reuse + evaluation.
void BM_OddsMonteCarlo7(benchmark::State& state) {
  const auto id = static_cast<fairdeck::engine_id>(state.range(0));
  const auto spec = fairdeck::make_engine_spec(fairdeck::info(id).name, 1, std::nullopt);
  const std::uint64_t trials = std::uint64_t{1} << 22;
  for (auto _ : state) benchmark::DoNotOptimize(fp::sample_category_counts(7, trials, spec, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
  state.SetLabel(std::string(fairdeck::info(id).name));
}
BENCHMARK(BM_OddsMonteCarlo7)
    ->Arg(static_cast<int>(fairdeck::engine_id::xoshiro256pp))
    ->Arg(static_cast<int>(fairdeck::engine_id::pcg64))
    ->Arg(static_cast<int>(fairdeck::engine_id::chacha20))
    ->Unit(benchmark::kMillisecond);

// Baseline for the Monte Carlo loop: a full 52-card Fisher-Yates per hand instead of the
// 7-card partial shuffle (same engine, same evaluator).
void BM_OddsMonteCarlo7FullShuffleBaseline(benchmark::State& state) {
  const auto& ev = fp::hand_evaluator::instance();
  std::array<card_t, 52> deck{};
  for (card_t c = 0; c < 52; ++c) deck[c] = c;
  fairdeck::xoshiro256pp rng(1);
  const std::uint64_t trials = std::uint64_t{1} << 20;
  for (auto _ : state) {
    std::array<std::uint64_t, 9> counts{};
    for (std::uint64_t t = 0; t < trials; ++t) {
      (void)fairdeck::partial_shuffle(deck, 52, rng);
      ++counts[static_cast<unsigned>(fp::category_of(ev.eval7(deck.data())))];
    }
    benchmark::DoNotOptimize(counts);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
}
BENCHMARK(BM_OddsMonteCarlo7FullShuffleBaseline)->Unit(benchmark::kMillisecond);

fp::equity_input equity_case(std::vector<std::string> hands, std::string_view board = "") {
  fp::equity_input in;
  for (const auto& h : hands) in.ranges.push_back(fp::parse_range(h));
  in.board = fp::parse_card_run(board);
  return fp::prepared(std::move(in));
}

// Heads-up preflop, exact: 1,712,304 boards x 2 hands.
void BM_EquityExactHeadsUpPreflop(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd"});
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, threads));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1712304LL));
}
BENCHMARK(BM_EquityExactHeadsUpPreflop)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Baseline for the exact enumerator (the library's algorithm before issue #18): for each
// assignment, every board completion, every hand through the perfect hash. Single thread.
void BM_EquityExactBaselineAssignmentMajor(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd"});
  const auto& ev = fp::hand_evaluator::instance();
  std::vector<card_t> rest;
  std::uint64_t used = 0;
  for (const auto& r : in.ranges) used |= fp::card_bits(r[0]);
  for (card_t c = 0; c < 52; ++c)
    if (!(used >> c & 1)) rest.push_back(c);
  const auto h0 = fp::hand_accumulator{} + in.ranges[0][0][0] + in.ranges[0][0][1];
  const auto h1 = fp::hand_accumulator{} + in.ranges[1][0][0] + in.ranges[1][0][1];
  for (auto _ : state) {
    std::uint64_t wins0 = 0, wins1 = 0;
    const std::size_t m = rest.size();
    for (std::size_t a = 0; a < m; ++a) {
      const auto ba = fp::hand_accumulator{} + rest[a];
      for (std::size_t b = a + 1; b < m; ++b) {
        const auto bb = ba + rest[b];
        for (std::size_t c = b + 1; c < m; ++c) {
          const auto bc = bb + rest[c];
          for (std::size_t d = c + 1; d < m; ++d) {
            const auto bd = bc + rest[d];
            for (std::size_t e = d + 1; e < m; ++e) {
              const auto board = bd + rest[e];
              const auto s0 = ev.eval(h0 + board), s1 = ev.eval(h1 + board);
              wins0 += s0 > s1;
              wins1 += s1 > s0;
            }
          }
        }
      }
    }
    benchmark::DoNotOptimize(wins0 + wins1);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1712304LL));
}
BENCHMARK(BM_EquityExactBaselineAssignmentMajor)->Unit(benchmark::kMillisecond)->UseRealTime();

// Issue #18 goals: a hand against a random hand, against a 20 % range, AA vs KK vs QQ.
void BM_EquityExactHandVsRandom(benchmark::State& state) {
  const auto in = equity_case({"AcKc", "random"});
  const auto threads = static_cast<unsigned>(state.range(0));
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, threads));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 2097572400LL));  // outcomes
}
BENCHMARK(BM_EquityExactHandVsRandom)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_EquityExactHandVsTwentyPercent(benchmark::State& state) {
  const auto in = equity_case({state.range(0) ? "AhKd" : "AcKc", "20%"});
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, 2));
  state.SetLabel(state.range(0) ? "AhKd vs 20%" : "AcKc vs 20%");
}
BENCHMARK(BM_EquityExactHandVsTwentyPercent)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_EquityExactThreeWayClasses(benchmark::State& state) {
  const auto in = equity_case({"AA", "KK", "QQ"});
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, 2));
}
BENCHMARK(BM_EquityExactThreeWayClasses)->Unit(benchmark::kMillisecond)->UseRealTime();

// The two exact methods forced on the same range queries (exact_method in equity.hpp): the
// ratio is what the automatic choice's cost model (equity_exact.cpp) must reproduce. Arg 0:
// board-major, 1: assignment-major (fixed hands per assignment up to suit symmetry).
void BM_EquityExactMethods(benchmark::State& state, std::vector<std::string> hands, std::string board) {
  const auto in = equity_case(hands, board);
  const auto method = state.range(0) ? fp::exact_method::assignment_major : fp::exact_method::board_major;
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, 2, {}, method));
  state.SetLabel(state.range(0) ? "assignment-major" : "board-major");
}
BENCHMARK_CAPTURE(BM_EquityExactMethods, AA_KK_QQ, {"AA", "KK", "QQ"}, "")
    ->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EquityExactMethods, AA_KK_QQ_JJ, {"AA", "KK", "QQ", "JJ"}, "")
    ->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EquityExactMethods, AKs_QQ_JTs_flop, {"AKs", "QQ", "JTs"}, "Qh 9h 2c")
    ->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EquityExactMethods, QQplus_AK_turn, {"QQ+", "AK", "JJ"}, "7c 8d 9h 2s")
    ->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_CAPTURE(BM_EquityExactMethods, AKs_vs_QQ_headsup, {"AKs", "QQ"}, "")
    ->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime();

// A preflop class-vs-class query from the shipped table (microseconds goal).
void BM_PreflopTableQuery(benchmark::State& state) {
  unsigned a = 0, b = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(fp::preflop_heads_up(a, b).equity_a());
    a = (a + 7) % fp::preflop_classes, b = (b + 13) % fp::preflop_classes;
  }
}
BENCHMARK(BM_PreflopTableQuery);

// Omaha high evaluation of random hands, each on its own random board (board preparation
// included), and many hands on one prepared board (what enumeration does).
template <unsigned Hole>
void BM_OmahaEvalRandom(benchmark::State& state) {
  const auto cards = random_hands(kRandomHands / 4, Hole + 5);
  std::size_t hands = 0;
  for (auto _ : state) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < cards.size(); i += Hole + 5) {
      const fp::omaha_board b(std::span<const card_t, 5>(&cards[i + Hole], 5));
      sum += b.high({&cards[i], Hole});
    }
    hands += cards.size() / (Hole + 5);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(hands));
}
BENCHMARK(BM_OmahaEvalRandom<4>);
BENCHMARK(BM_OmahaEvalRandom<5>);

// Baseline (the evaluator before the rank-pair rows): every 2 + 3 choice through the perfect
// hash on precomputed triple keys, flush table for suited pairs on suited triples.
template <unsigned Hole>
void BM_OmahaEvalRandomBaselineHash(benchmark::State& state) {
  const auto cards = random_hands(kRandomHands / 4, Hole + 5);
  const auto& ev = fp::hand_evaluator::instance();
  auto rk = [](card_t c) { return fp::detail::card_keys[c] & fp::detail::rank_bits; };
  static constexpr std::array<std::array<unsigned, 3>, 10> tri{
      {{0, 1, 2}, {0, 1, 3}, {0, 1, 4}, {0, 2, 3}, {0, 2, 4}, {0, 3, 4}, {1, 2, 3}, {1, 2, 4}, {1, 3, 4}, {2, 3, 4}}};
  std::size_t hands = 0;
  for (auto _ : state) {
    unsigned sum = 0;
    for (std::size_t i = 0; i < cards.size(); i += Hole + 5) {
      const card_t* h = &cards[i];
      const card_t* b = h + Hole;
      std::array<std::uint64_t, 10> tk{};
      std::array<unsigned, 10> ts{}, tm{};
      for (unsigned t = 0; t < 10; ++t) {
        const card_t x = b[tri[t][0]], y = b[tri[t][1]], z = b[tri[t][2]];
        tk[t] = rk(x) + rk(y) + rk(z);
        ts[t] = fairdeck::suit_of(x) == fairdeck::suit_of(y) && fairdeck::suit_of(y) == fairdeck::suit_of(z) ? fairdeck::suit_of(x) : 4;
        tm[t] = (1u << fairdeck::rank_of(x)) | (1u << fairdeck::rank_of(y)) | (1u << fairdeck::rank_of(z));
      }
      fp::strength_t best = 0;
      for (unsigned p = 0; p < Hole; ++p)
        for (unsigned q = p + 1; q < Hole; ++q) {
          const std::uint64_t pk = rk(h[p]) + rk(h[q]);
          for (unsigned t = 0; t < 10; ++t) best = std::max(best, ev.by_ranks(pk + tk[t]));
          if (fairdeck::suit_of(h[p]) == fairdeck::suit_of(h[q]))
            for (unsigned t = 0; t < 10; ++t)
              if (ts[t] == fairdeck::suit_of(h[p]))
                best = std::max(best, ev.by_flush_mask(tm[t] | (1u << fairdeck::rank_of(h[p])) | (1u << fairdeck::rank_of(h[q]))));
        }
      sum += best;
    }
    hands += cards.size() / (Hole + 5);
    benchmark::DoNotOptimize(sum);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(hands));
}
BENCHMARK(BM_OmahaEvalRandomBaselineHash<4>);
BENCHMARK(BM_OmahaEvalRandomBaselineHash<5>);

void BM_OmahaEquityExactHeadsUp(benchmark::State& state) {
  fp::omaha_input in;
  in.rules = {4, state.range(0) != 0};
  in.hands = {fp::parse_card_run("Ac 2c Kd Qs"), fp::parse_card_run("Ad 3d 9h 9c")};
  for (auto _ : state) benchmark::DoNotOptimize(fp::omaha_exact_equity(in, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1086008LL * 2));  // hand evaluations
  state.SetLabel(state.range(0) ? "hi/lo" : "high");
}
BENCHMARK(BM_OmahaEquityExactHeadsUp)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Three-way preflop, exact: C(46,5) = 1,370,754 boards x 3 hands.
void BM_EquityExactThreeWayPreflop(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd", "7c6c"});
  for (auto _ : state) benchmark::DoNotOptimize(fp::exact_equity(in, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * 1370754LL));
}
BENCHMARK(BM_EquityExactThreeWayPreflop)->Unit(benchmark::kMillisecond);

// Ranges, Monte Carlo (rejection-sampled hole cards): deals per second.
void BM_EquityMonteCarloRanges(benchmark::State& state) {
  const auto in = equity_case({"QQ+", "AKs,A5s-A2s", "random"});
  const auto spec = fairdeck::make_engine_spec("xoshiro256pp", 1, std::nullopt);
  const std::uint64_t trials = std::uint64_t{1} << 18;
  for (auto _ : state) benchmark::DoNotOptimize(fp::sample_equity(in, trials, spec, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
}
BENCHMARK(BM_EquityMonteCarloRanges)->Unit(benchmark::kMillisecond);

// Fixed hands, Monte Carlo with deck reuse: deals per second.
void BM_EquityMonteCarloHeadsUp(benchmark::State& state) {
  const auto in = equity_case({"AhKh", "QsQd"});
  const auto spec = fairdeck::make_engine_spec("xoshiro256pp", 1, std::nullopt);
  const std::uint64_t trials = std::uint64_t{1} << 20;
  for (auto _ : state) benchmark::DoNotOptimize(fp::sample_equity(in, trials, spec, 1));
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * trials));
}
BENCHMARK(BM_EquityMonteCarloHeadsUp)->Unit(benchmark::kMillisecond);

}  // namespace
