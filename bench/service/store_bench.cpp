// The dealing service's store without HTTP: durable deals through the group committer
// (SQLite, WAL, fsync per batch) against the same run's baseline, the bare deck computation
// (fair::deal_deck). Their ratio is what storing, chaining, sealing and the transparency log
// (tree nodes, one signed checkpoint per batch) cost per deal.
// And the log's proofs on a million-record table through the real store (issue #29: each
// under 1 ms and 1 KB), against the same run's baseline, a plain read of the table's row.
//   build/release/bench/service/fairdeck_service_bench --benchmark_min_time=2
#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <future>

#include <random>

#include <benchmark/benchmark.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "api.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/service/secrets.hpp"
#include "fairdeck/service/store.hpp"
#include "fairdeck/util/hex.hpp"

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

// A deal's seed work as the writer did it before batch_keys (open the sealed seed, key HMAC with
// it, deal) against a batch's later deals on the same table (the keyed seed kept: deal only).
// The VM's speed drifts: compare them with --benchmark_enable_random_interleaving=true.
struct sealed_table {
  secret_key key = secret_key::generate();
  fair::server_seed seed = fair::server_seed::generate();
  std::string sealed = seal_seed(seed, key, "b");
  std::string commitment = fair::commitment(seed);
};

void deal_opening_the_seed(benchmark::State& state) {
  const sealed_table t;
  std::uint64_t nonce = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(fair::deal_deck(open_seed(t.sealed, t.key, "b", t.commitment), "alice", nonce++, {}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(deal_opening_the_seed);

void deal_from_batch_keys(benchmark::State& state) {
  const sealed_table t;
  batch_keys keys(t.key);
  std::uint64_t nonce = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(fair::deal_deck(keys.keyed(t.sealed, "b", t.commitment), "alice", nonce++, {}));
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(deal_from_batch_keys);

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

// What signing a checkpoint costs: once per group commit and table, not per deal (a batch
// holds tens to hundreds of deals at 256 connections). Compare with bare_deck above.
void checkpoint_sign(benchmark::State& state) {
  const auto signer = fairdeck::tlog::note_signer::generate("bench.example");
  fairdeck::tlog::hash root{};
  std::uint64_t size = 1;
  for (auto _ : state) benchmark::DoNotOptimize(sign_checkpoint(signer, "b", size++, root));
}
BENCHMARK(checkpoint_sign);

// ---- a million-record table's proofs ----

constexpr std::uint64_t big_size = 1'000'000;

// Built fast: the records (random hashes: proofs do not read bodies) go in with one SQL
// transaction, then open_store builds the table's tree in one pass over them (the path an
// older store takes), through the store's own transaction — the tree nodes, frontier and
// checkpoint are exactly what appends would have written.
struct big_table {
  std::string dir;
  std::unique_ptr<store> s;
  big_table() {
    dir = (std::filesystem::temp_directory_path() / "fairdeck-bench-XXXXXX").string();
    if (!::mkdtemp(dir.data())) std::abort();
    store_options o;
    o.db = dir + "/m.db";
    init_store(o);
    (void)open_store(o)->execute(open_table{2, {}, "m"});
    sqlite3* c = nullptr;
    if (sqlite3_open(o.db.c_str(), &c) != SQLITE_OK) std::abort();
    sqlite3_exec(c, "BEGIN", nullptr, nullptr, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(c, "INSERT INTO fairdeck_records(table_id, seq, nonce, body, hash) VALUES('m', ?1, ?1, '{}', ?2)", -1,
                       &st, nullptr);
    std::mt19937_64 rng(29);
    std::array<std::uint8_t, 32> h{};
    for (std::uint64_t seq = 1; seq < big_size; ++seq) {
      for (auto& b : h) b = static_cast<std::uint8_t>(rng());
      const std::string hex = fairdeck::to_hex(h);
      sqlite3_bind_int64(st, 1, static_cast<sqlite3_int64>(seq));
      sqlite3_bind_text(st, 2, hex.data(), static_cast<int>(hex.size()), SQLITE_TRANSIENT);
      if (sqlite3_step(st) != SQLITE_DONE) std::abort();
      sqlite3_reset(st);
    }
    sqlite3_finalize(st);
    const std::string sql = "UPDATE fairdeck_tables SET next_seq = " + std::to_string(big_size) +
                            " WHERE id = 'm'; DELETE FROM fairdeck_tree_heads; DELETE FROM fairdeck_tree_nodes; COMMIT";
    if (sqlite3_exec(c, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) std::abort();
    sqlite3_close(c);
    s = open_store(o);  // builds the tree
    if (s->tree_head("m")->size != big_size) std::abort();
  }
  ~big_table() {
    s.reset();
    std::filesystem::remove_all(dir);
  }
};
big_table& big() {
  static big_table t;
  return t;
}

// The proof's JSON as GET .../proof/... answers it.
std::size_t answer_bytes(const std::vector<fairdeck::tlog::hash>& proof) {
  nlohmann::json hashes = nlohmann::json::array();
  for (const auto& h : proof) hashes.push_back(fairdeck::tlog::to_hex(h));
  return nlohmann::json{{"seq", big_size - 1}, {"tree_size", big_size}, {"hashes", hashes}}.dump().size() + 1;
}

void proof_baseline_table_read(benchmark::State& state) {
  auto& b = big();
  for (auto _ : state) benchmark::DoNotOptimize(b.s->table("m"));
}
BENCHMARK(proof_baseline_table_read);

void proof_inclusion(benchmark::State& state) {
  auto& b = big();
  std::mt19937_64 rng(1);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto p = inclusion_proof(*b.s, "m", rng() % big_size, big_size).value();
    bytes = std::max(bytes, answer_bytes(p));
  }
  state.counters["max_answer_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(proof_inclusion);

void proof_consistency(benchmark::State& state) {
  auto& b = big();
  std::mt19937_64 rng(2);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const auto p = consistency_proof(*b.s, "m", 1 + rng() % (big_size - 1), big_size).value();
    bytes = std::max(bytes, answer_bytes(p));
  }
  state.counters["max_answer_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(proof_consistency);

// The same proofs through fairdeckd's route (api::handle: parameters, the store read, the
// encoding), per encoding (docs/log-format.md "Proof encodings"): 0 hex JSON (the default),
// 1 base64 JSON, 2 raw. Counter: the largest answer body seen, in bytes.
void proof_route(benchmark::State& state, const char* kind) {
  auto& b = big();
  static fairdeck::service::api handler(*b.s);
  const char* encoding[] = {"hex", "base64", "binary"};
  std::mt19937_64 rng(3);
  std::size_t bytes = 0;
  for (auto _ : state) {
    const std::uint64_t a = 1 + rng() % (big_size - 1);
    const std::string target =
        std::string(kind) == "inclusion"
            ? "/v1/tables/m/proof/inclusion?seq=" + std::to_string(a) + "&size=" + std::to_string(big_size)
            : "/v1/tables/m/proof/consistency?from=" + std::to_string(a) + "&to=" + std::to_string(big_size);
    const std::string q = target + "&encoding=" + encoding[state.range(0)];
    http_response out;
    handler.handle(http_request{"GET", q, {}, {}, "bench", {}, {}}, [&out](http_response r) { out = std::move(r); });
    if (out.status != 200) state.SkipWithError("the route failed");
    bytes = std::max(bytes, out.body.size());
  }
  state.counters["max_answer_bytes"] = static_cast<double>(bytes);
}
BENCHMARK_CAPTURE(proof_route, inclusion, "inclusion")->DenseRange(0, 2);
BENCHMARK_CAPTURE(proof_route, consistency, "consistency")->DenseRange(0, 2);

}  // namespace
