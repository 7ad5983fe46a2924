// Transparency-log proofs on a million-record tree (include/fairdeck/tlog/merkle.hpp): proof
// generation through a node_source over the stored complete subtrees, and the RFC 9162
// verifiers. The baseline in the same run is the cost of one SHA-256 node hash (a proof of a
// 2^20-leaf tree needs about 20 of them to verify). fairdeckd's proofs over its stores are
// timed in bench/service.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>
#include <vector>

#include "fairdeck/tlog/merkle.hpp"

namespace {

using namespace fairdeck::tlog;

constexpr std::uint64_t leaves = 1'000'000;

struct tree {
  std::vector<std::vector<hash>> levels;  // levels[L][i]: complete subtree (L, i)
  frontier f;
  tree() {
    for (std::uint64_t i = 0; i < leaves; ++i) {
      const std::string s = "record " + std::to_string(i);
      f.append(leaf_hash({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()}),
               [&](unsigned level, std::uint64_t index, const hash& h) {
                 if (levels.size() <= level) levels.resize(level + 1);
                 if (levels[level].size() <= index) levels[level].resize(index + 1);
                 levels[level][index] = h;
               });
    }
  }
  node_source source() const {
    return [this](unsigned level, std::uint64_t index) { return levels[level][index]; };
  }
};

const tree& million() {
  static const tree t;
  return t;
}

void BM_NodeHash(benchmark::State& state) {
  hash a{}, b{};
  b[0] = 1;
  for (auto _ : state) {
    a = node_hash(a, b);
    benchmark::DoNotOptimize(a);
  }
}
BENCHMARK(BM_NodeHash);

void BM_InclusionProofMillion(benchmark::State& state) {
  const tree& t = million();
  std::uint64_t i = 12345;
  std::size_t bytes = 0;
  for (auto _ : state) {
    i = (i * 6364136223846793005ULL + 1442695040888963407ULL) % leaves;
    auto p = inclusion_proof(i, leaves, t.source());
    bytes = p.size() * 32;
    benchmark::DoNotOptimize(p);
  }
  state.counters["proof_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_InclusionProofMillion);

void BM_ConsistencyProofMillion(benchmark::State& state) {
  const tree& t = million();
  std::uint64_t m = 777;
  std::size_t bytes = 0;
  for (auto _ : state) {
    m = (m * 6364136223846793005ULL + 1442695040888963407ULL) % (leaves - 1) + 1;
    auto p = consistency_proof(m, leaves, t.source());
    bytes = p.size() * 32;
    benchmark::DoNotOptimize(p);
  }
  state.counters["proof_bytes"] = static_cast<double>(bytes);
}
BENCHMARK(BM_ConsistencyProofMillion);

void BM_VerifyInclusionMillion(benchmark::State& state) {
  const tree& t = million();
  const std::uint64_t i = 654'321;
  const auto p = inclusion_proof(i, leaves, t.source());
  const hash root = t.f.root();
  const hash leaf = t.levels[0][i];
  for (auto _ : state) benchmark::DoNotOptimize(verify_inclusion(i, leaves, leaf, p, root));
}
BENCHMARK(BM_VerifyInclusionMillion);

void BM_VerifyConsistencyMillion(benchmark::State& state) {
  const tree& t = million();
  const std::uint64_t m = 654'321;
  const auto p = consistency_proof(m, leaves, t.source());
  const hash from = root(m, t.source()), to = t.f.root();
  for (auto _ : state) benchmark::DoNotOptimize(verify_consistency(m, leaves, from, to, p));
}
BENCHMARK(BM_VerifyConsistencyMillion);

void BM_Append(benchmark::State& state) {
  frontier f;
  hash leaf{};
  for (auto _ : state) {
    leaf[0]++;
    f.append(leaf);
  }
}
BENCHMARK(BM_Append);

}  // namespace
