// A 9-seat hand with seat commitments (issue #30) in server time: open, 9 commits, 9 reveals,
// deal -- 20 durable writes in 4 rounds (the seats of a round answer in parallel, as players
// do) -- through fairdeckd's API (routing, JSON, the group committer, SQLite with its WAL
// fsync per batch), without sockets. state.range(0) hands run at once on as many tables (the
// load); each hand's time runs from its open request to its deal answer. Baseline in the same
// run: one durable standing-seed deal (durable_deals/1 of store_bench.cpp) -- a hand needs
// four such commits in sequence. Goal: median < 5 ms.
//   build/release/bench/service/fairdeck_service_bench --benchmark_filter=hand --benchmark_repetitions=5
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include <benchmark/benchmark.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/store.hpp"

namespace {

using namespace fairdeck;
using namespace fairdeck::service;
using clock_type = std::chrono::steady_clock;

constexpr unsigned seats = 9;

struct harness {
  api& handler;
  std::string auth;
  // Sends every (method, target, body) at once and waits for all answers; aborts on an error.
  std::vector<nlohmann::json> round(const std::vector<std::array<std::string, 3>>& requests) {
    std::vector<std::promise<http_response>> answers(requests.size());
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const auto& [method, target, body] = requests[i];
      handler.handle({method, target, auth, body, "bench", http_request::listener_role::all, {}},
                     [&answers, i](http_response r) { answers[i].set_value(std::move(r)); });
    }
    std::vector<nlohmann::json> out;
    for (auto& a : answers) {
      const auto r = a.get_future().get();
      if (r.status >= 300) {
        fmt::print(stderr, "hand bench: {} {}\n", r.status, r.body);
        std::abort();
      }
      out.push_back(nlohmann::json::parse(r.body));
    }
    return out;
  }
  // One whole hand on table t; returns its time.
  double hand(const std::string& t) {
    const auto start = clock_type::now();
    const std::uint64_t h = round({{"POST", "/v1/tables/" + t + "/hands", ""}})[0]["hand"];
    std::vector<std::string> mine(seats);
    std::vector<std::array<std::string, 3>> commits, reveals;
    for (unsigned s = 1; s <= seats; ++s) {
      mine[s - 1] = fair::fresh_seat_seed();
      const auto path = fmt::format("/v1/tables/{}/hands/{}/seats/{}/", t, h, s);
      commits.push_back({"PUT", path + "commit", nlohmann::json{{"commitment", fair::seat_commitment(mine[s - 1])}}.dump()});
      reveals.push_back({"PUT", path + "reveal", nlohmann::json{{"client_seed", mine[s - 1]}}.dump()});
    }
    round(commits);
    round(reveals);
    round({{"POST", fmt::format("/v1/tables/{}/hands/{}/deal", t, h), R"({"game": "holdem"})"}});
    return std::chrono::duration<double, std::milli>(clock_type::now() - start).count();
  }
};

void nine_seat_hand(benchmark::State& state) {
  std::string dir = (std::filesystem::temp_directory_path() / "fairdeck-bench-XXXXXX").string();
  if (!::mkdtemp(dir.data())) return state.SkipWithError("mkdtemp");
  {
    store_options o;
    o.db = dir + "/h.db";
    init_store(o);
    auto s = open_store(o);
    const std::string token = generate_token();
    s->add_token_hash(token_hash(token));
    api handler(*s);
    harness H{handler, "Bearer " + token};
    const auto load = static_cast<int>(state.range(0));
    for (int i = 0; i < load; ++i)
      (void)H.round({{"POST", "/v1/tables", nlohmann::json{{"seats", seats}, {"table", fmt::format("h{}", i)}}.dump()}});
    std::vector<double> times;
    for (auto _ : state) {
      std::vector<std::future<double>> hands;
      for (int i = 0; i < load; ++i)
        hands.push_back(std::async(std::launch::async, [&H, i] { return H.hand(fmt::format("h{}", i)); }));
      for (auto& f : hands) times.push_back(f.get());
    }
    std::sort(times.begin(), times.end());
    state.SetItemsProcessed(static_cast<std::int64_t>(times.size()));
    state.counters["hand_ms_median"] = times[times.size() / 2];
    state.counters["hand_ms_p90"] = times[times.size() * 9 / 10];
    const auto st = s->stats();
    state.counters["writes_per_commit"] = static_cast<double>(st.writes) / static_cast<double>(st.batches);
  }
  std::filesystem::remove_all(dir);
}
BENCHMARK(nine_seat_hand)->Arg(1)->Arg(8)->Arg(32)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace
