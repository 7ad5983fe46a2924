// The dealing service's store without HTTP: durable deals through the group committer
// (SQLite, WAL, fsync per batch) against the same run's baseline, the bare deck computation
// (fair::deal_deck). Their ratio is what storing, chaining and sealing cost per deal.
//   build/release/bench/service/fairdeck_service_bench --benchmark_min_time=2
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>

#include <benchmark/benchmark.h>

#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/store.hpp"

namespace {

using namespace fairdeck;
using namespace fairdeck::service;

void bare_deck(benchmark::State& state) {
  const auto seed = fair::server_seed::generate();
  std::uint64_t nonce = 0;
  for (auto _ : state) benchmark::DoNotOptimize(fair::deal_deck(seed, "alice", nonce++, {}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(bare_deck);

// `state.range(0)` deals in flight at once (like that many HTTP clients).
void durable_deals(benchmark::State& state) {
  std::string dir = (std::filesystem::temp_directory_path() / "fairdeck-bench-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return state.SkipWithError("mkdtemp");
  {
    store_options o;
    o.db = dir + "/b.db";
    init_store(o);
    auto s = open_store(o);
    (void)s->execute(open_table{2, {}, "b"});
    (void)s->execute(set_client_seed{"b", 1, "alice", std::nullopt});
    (void)s->execute(set_client_seed{"b", 2, "bob", std::nullopt});
    const auto in_flight = static_cast<int>(state.range(0));
    for (auto _ : state) {
      std::atomic<int> left{in_flight};
      std::promise<void> all;
      for (int i = 0; i < in_flight; ++i)
        s->submit(deal{"b", {}}, [&](write_result r) {
          if (r.code != outcome::ok) std::abort();
          if (--left == 0) all.set_value();
        });
      all.get_future().wait();
    }
    state.SetItemsProcessed(state.iterations() * in_flight);
    const auto st = s->stats();
    state.counters["deals_per_commit"] = static_cast<double>(st.writes) / static_cast<double>(st.batches);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(durable_deals)->Arg(1)->Arg(16)->Arg(256)->UseRealTime();

}  // namespace
