// What writing one deal answer costs (docs/service.md, "Speed"): the nlohmann tree and its
// dump (deal_answer/0, the way every deal was answered before) against the direct writer
// (deal_answer/1, deal_answer_text; the same bytes, tests/service/deal_answer_test.cpp), for
// a real deal of a 2-seat table with its receipt (a checkpoint and a 10-hash inclusion proof
// in a 1,000-leaf tree), and a 9-seat hold'em deal (deal_answer_holdem). CPU time, medians:
//   build/release/bench/service/fairdeck_service_bench --benchmark_filter=deal_answer --benchmark_repetitions=5
//     --benchmark_report_aggregates_only=true
// Ratio: deal_answer/0 ÷ deal_answer/1 of the same run. Baseline in the same run: bare_deck.
#include <filesystem>
#include <future>
#include <vector>

#include <benchmark/benchmark.h>

#include "deal_answer.hpp"
#include "fairdeck/service/store.hpp"
#include "http_util.hpp"

namespace {

using namespace fairdeck;
using namespace fairdeck::service;

// One deal of a table that already holds 999 records, dealt with `g`.
write_result one_deal(unsigned seats, const game_spec& g) {
  std::string dir = (std::filesystem::temp_directory_path() / "fairdeck-bench-XXXXXX").string();
  if (!::mkdtemp(dir.data())) std::abort();
  store_options o;
  o.db = dir + "/b.db";
  o.log_name = "bench.example/log";
  init_store(o);
  write_result out;
  {
    auto s = open_store(o);
    (void)s->execute(open_table{seats, {}, "b"});
    for (unsigned i = 1; i <= seats; ++i) (void)s->execute(set_client_seed{"b", i, "player", std::nullopt});
    std::vector<std::promise<void>> earlier(999 - seats);  // submitted at once: a few group commits
    for (auto& e : earlier) s->submit(deal{"b", {}}, [&e](write_result) { e.set_value(); });
    for (auto& e : earlier) e.get_future().wait();
    std::promise<write_result> p;
    s->submit(deal{"b", g}, [&](write_result r) { p.set_value(std::move(r)); });
    out = p.get_future().get();
  }
  std::filesystem::remove_all(dir);
  if (out.code != outcome::ok || !out.log) std::abort();
  return out;
}

void run(benchmark::State& state, const write_result& r, const game_spec& g) {
  std::size_t bytes = 0;
  for (auto _ : state) {
    std::string body = state.range(0) == 0 ? http_util::json_response(200, deal_json(r, g)).body
                                           : deal_answer_text(r, g);
    bytes = body.size();
    benchmark::DoNotOptimize(body.data());
  }
  state.counters["bytes"] = static_cast<double>(bytes);
}

void deal_answer(benchmark::State& state) {
  static const write_result r = one_deal(2, {});
  run(state, r, {});
}
BENCHMARK(deal_answer)->Arg(0)->Arg(1);

void deal_answer_holdem(benchmark::State& state) {
  static const write_result r = one_deal(9, {true, 0, 0});
  run(state, r, {true, 0, 0});
}
BENCHMARK(deal_answer_holdem)->Arg(0)->Arg(1);

}  // namespace
