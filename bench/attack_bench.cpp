// fairdeck attack throughput (seeds/s). Baseline: replaying each seed with the reference
// shuffle (what a naive attacker writes), measured in the same run. Quote medians:
//   fairdeck_bench --benchmark_filter=Attack --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/internal/attack_kernel.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"

namespace {

using namespace fairdeck;

// Five cards no seed in the range produces (positions 0..4 of a far-away seed's deck), so
// every benchmark scans the whole range, as a real search does.
attack_spec make_spec(engine_id engine, shuffle_kind algorithm, std::uint64_t seeds, unsigned threads) {
  attack_spec spec;
  spec.engine = engine;
  spec.algorithm = algorithm;
  spec.first_seed = 0;
  spec.last_seed = seeds - 1;
  spec.threads = threads;
  const auto deck = deck_for_seed(engine, algorithm, 0x7fff0000u);
  for (std::size_t p = 0; p < 5; ++p) spec.known.push_back({p, deck[p]});
  return spec;
}

void run(benchmark::State& state, engine_id engine, shuffle_kind algorithm, std::uint64_t seeds) {
  const auto spec = make_spec(engine, algorithm, seeds, static_cast<unsigned>(state.range(0)));
  for (auto _ : state) {
    const auto r = run_attack(spec);
    benchmark::DoNotOptimize(r.matches);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * seeds));
  state.SetLabel(detail::lane_scanner(engine, detail::swap_steps(algorithm, spec.deck_size).size())
                     ? detail::lane_isa()
                     : "scalar");
}

void BM_AttackDelphiAsf1999(benchmark::State& s) { run(s, engine_id::delphi, shuffle_kind::asf1999, 1u << 24); }
// The 1999 search itself: every millisecond of a day (86.4M seeds), all hardware threads.
void BM_AttackDelphiFullDay(benchmark::State& s) { run(s, engine_id::delphi, shuffle_kind::asf1999, ms_per_day); }
void BM_AttackDelphiFisherYates(benchmark::State& s) { run(s, engine_id::delphi, shuffle_kind::fisher_yates, 1u << 24); }
void BM_AttackMsvcNaive(benchmark::State& s) { run(s, engine_id::msvc_rand, shuffle_kind::naive, 1u << 22); }
void BM_AttackMinstdFisherYates(benchmark::State& s) { run(s, engine_id::minstd, shuffle_kind::fisher_yates, 1u << 22); }
void BM_AttackGlibcAsf1999(benchmark::State& s) { run(s, engine_id::glibc_rand, shuffle_kind::asf1999, 1u << 20); }
void BM_AttackJavaFisherYates(benchmark::State& s) { run(s, engine_id::java, shuffle_kind::fisher_yates, 1u << 22); }
void BM_AttackDotnetFisherYates(benchmark::State& s) { run(s, engine_id::dotnet, shuffle_kind::fisher_yates, 1u << 20); }
void BM_AttackMt19937Naive(benchmark::State& s) { run(s, engine_id::mt19937, shuffle_kind::naive, 1u << 16); }

// The same Delphi filter as the compiler vectorises it (no intrinsics), single thread.
void BM_AttackDelphiAsf1999AutoVectorised(benchmark::State& state) {
  const std::uint64_t seeds = 1u << 24;
  const auto spec = make_spec(engine_id::delphi, shuffle_kind::asf1999, seeds, 1);
  const auto steps = detail::swap_steps(spec.algorithm, spec.deck_size);
  const detail::scan_plan plan{steps.data(), steps.size(), {spec.known[0].card, spec.known[1].card},
                                      {0, 1}};
  const auto scan = detail::lane_scanner(engine_id::delphi, steps.size(), false);
  std::vector<std::uint64_t> out;
  for (auto _ : state) {
    out.clear();
    scan(0, seeds, plan, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * seeds));
  state.SetLabel(detail::lane_isa());
}

// Baseline: build each seed's deck with the reference shuffle and compare the known cards.
void BM_AttackBaselineReferenceReplay(benchmark::State& state) {
  const std::uint64_t seeds = 1u << 18;
  const auto spec = make_spec(engine_id::delphi, shuffle_kind::asf1999, seeds, 1);
  for (auto _ : state) {
    std::uint64_t hits = 0;
    for (std::uint64_t s = 0; s < seeds; ++s) {
      const auto deck = deck_for_seed(spec.engine, spec.algorithm, s);
      bool ok = true;
      for (const auto& k : spec.known) ok = ok && deck[k.position] == k.card;
      hits += ok;
    }
    benchmark::DoNotOptimize(hits);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * seeds));
}

// PHP 8.2 shuffle() filter (attack --algorithm php), one thread, each kernel this CPU runs:
// seeds/s per core; x 2^32 / (seeds/s x cores) is the whole seed space. Full 52-card plan
// (51 draws), tracked cards that no seed of the range produces, as a real search.
void BM_AttackPhpKernel(benchmark::State& state) {
  const auto kernels = detail::php_kernels();
  const auto idx = static_cast<std::size_t>(state.range(0));
  if (idx >= kernels.size()) {
    state.SkipWithError("instruction set not available on this CPU");
    return;
  }
  const std::uint64_t seeds = 1u << 20;
  const auto steps = detail::swap_steps(shuffle_kind::fisher_yates, 52);
  const detail::scan_plan plan{steps.data(), steps.size(), {17, 40}, {0, 1}};
  std::vector<std::uint64_t> out;
  for (auto _ : state) {
    out.clear();
    kernels[idx].scan(4'000'000'000u - seeds, seeds, plan, out);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * seeds));
  state.SetLabel(kernels[idx].isa);
}

BENCHMARK(BM_AttackPhpKernel)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_AttackDelphiAsf1999)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackDelphiFullDay)->Arg(0)->Iterations(1)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackDelphiFisherYates)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackMsvcNaive)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackMinstdFisherYates)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackGlibcAsf1999)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackJavaFisherYates)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackDotnetFisherYates)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackMt19937Naive)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackDelphiAsf1999AutoVectorised)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_AttackBaselineReferenceReplay)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
