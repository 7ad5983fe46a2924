// RFC 9162 Merkle trees (include/fairdeck/tlog/merkle.hpp): roots against the RFC 6962 test
// vectors, every proof of every small tree against a naive implementation of the RFC's
// definitions written here, every proof accepted by the RFC's verifiers and every mutation
// refused, and the proofs checked again by an independent Python implementation (hashlib,
// written from the RFC text: tests/tlog/rfc9162_reference.py).
#include <gtest/gtest.h>

#include <bit>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairdeck/tlog/merkle.hpp"
#include "test_support.hpp"

namespace {

using namespace fairdeck::tlog;

// The RFC 6962 test leaves (certificate-transparency's merkle_tree_test.cc).
std::vector<std::vector<std::uint8_t>> rfc6962_leaves() {
  return {{},
          {0x00},
          {0x10},
          {0x20, 0x21},
          {0x30, 0x31},
          {0x40, 0x41, 0x42, 0x43},
          {0x50, 0x51, 0x52, 0x53, 0x54, 0x55, 0x56, 0x57},
          {0x60, 0x61, 0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69, 0x6a, 0x6b, 0x6c, 0x6d, 0x6e, 0x6f}};
}

// ---- a naive implementation of RFC 9162 §2.1, straight from the definitions ----
std::uint64_t k_of(std::uint64_t n) {
  std::uint64_t k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}
hash naive_mth(const std::vector<hash>& leaves, std::uint64_t a, std::uint64_t b) {
  if (b - a == 1) return leaves[a];
  const std::uint64_t k = k_of(b - a);
  return node_hash(naive_mth(leaves, a, a + k), naive_mth(leaves, a + k, b));
}
std::vector<hash> naive_path(const std::vector<hash>& leaves, std::uint64_t m, std::uint64_t a, std::uint64_t b) {
  if (b - a == 1) return {};
  const std::uint64_t k = k_of(b - a);
  std::vector<hash> p;
  if (m < k) {
    p = naive_path(leaves, m, a, a + k);
    p.push_back(naive_mth(leaves, a + k, b));
  } else {
    p = naive_path(leaves, m - k, a + k, b);
    p.push_back(naive_mth(leaves, a, a + k));
  }
  return p;
}
std::vector<hash> naive_subproof(const std::vector<hash>& leaves, std::uint64_t m, std::uint64_t a, std::uint64_t b,
                                 bool whole) {
  const std::uint64_t n = b - a;
  if (m == n) return whole ? std::vector<hash>{} : std::vector<hash>{naive_mth(leaves, a, b)};
  const std::uint64_t k = k_of(n);
  std::vector<hash> p;
  if (m <= k) {
    p = naive_subproof(leaves, m, a, a + k, whole);
    p.push_back(naive_mth(leaves, a + k, b));
  } else {
    p = naive_subproof(leaves, m - k, a + k, b, false);
    p.push_back(naive_mth(leaves, a, a + k));
  }
  return p;
}

// A log kept the way a store keeps it: every completed subtree stored as frontier::append reports it.
struct stored_log {
  frontier f;
  std::map<std::pair<unsigned, std::uint64_t>, hash> nodes;
  std::vector<hash> leaves;
  std::size_t reads = 0;
  void append(const hash& leaf) {
    leaves.push_back(leaf);
    f.append(leaf, [&](unsigned level, std::uint64_t index, const hash& h) { nodes[{level, index}] = h; });
  }
  node_source source() {
    return [this](unsigned level, std::uint64_t index) {
      ++reads;
      const auto it = nodes.find({level, index});
      if (it == nodes.end()) throw std::logic_error("asked for a node that is not complete");
      return it->second;
    };
  }
};

hash leaf_of(std::uint64_t i) {
  const std::string s = "record " + std::to_string(i);
  return leaf_hash({reinterpret_cast<const std::uint8_t*>(s.data()), s.size()});
}

TEST(TlogMerkle, RootsMatchTheRfc6962TestVectors) {
  const char* want[] = {"6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
                        "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
                        "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
                        "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
                        "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
                        "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
                        "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
                        "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"};
  EXPECT_EQ(to_hex(empty_root()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  stored_log log;
  for (const auto& entry : rfc6962_leaves()) {
    log.append(leaf_hash(entry));
    EXPECT_EQ(to_hex(log.f.root()), want[log.f.size() - 1]) << "size " << log.f.size();
    EXPECT_EQ(to_hex(root(log.f.size(), log.source())), want[log.f.size() - 1]);
  }
}

TEST(TlogMerkle, EveryProofOfEverySmallTreeIsTheRfcsAndVerifies) {
  stored_log log;
  for (std::uint64_t n = 1; n <= 70; ++n) {
    log.append(leaf_of(n - 1));
    const hash r = naive_mth(log.leaves, 0, n);
    ASSERT_EQ(log.f.root(), r) << n;
    ASSERT_EQ(root(n, log.source()), r);
    for (std::uint64_t m = 0; m < n; ++m) {
      const auto p = inclusion_proof(m, n, log.source());
      ASSERT_EQ(p, naive_path(log.leaves, m, 0, n)) << m << " in " << n;
      ASSERT_TRUE(verify_inclusion(m, n, log.leaves[m], p, r)) << m << " in " << n;
      // Refused: another leaf, another index, another root, a flipped bit, a dropped or extra hash.
      EXPECT_FALSE(verify_inclusion(m, n, leaf_of(1000), p, r));
      if (n > 1) {
        EXPECT_FALSE(verify_inclusion((m + 1) % n, n, log.leaves[m], p, r));
      }
      EXPECT_FALSE(verify_inclusion(m, n, log.leaves[m], p, leaf_of(7)));
      for (std::size_t i = 0; i < p.size(); ++i) {
        auto q = p;
        q[i][i % 32] ^= 0x40;
        EXPECT_FALSE(verify_inclusion(m, n, log.leaves[m], q, r));
      }
      if (!p.empty()) {
        EXPECT_FALSE(verify_inclusion(m, n, log.leaves[m], std::span(p).first(p.size() - 1), r));
        auto q = p;
        q.push_back(r);
        EXPECT_FALSE(verify_inclusion(m, n, log.leaves[m], q, r));
      }
    }
    for (std::uint64_t m = 0; m <= n; ++m) {
      const hash rm = m == 0 ? empty_root() : naive_mth(log.leaves, 0, m);
      const auto p = consistency_proof(m, n, log.source());
      if (m > 0 && m < n) {
        ASSERT_EQ(p, naive_subproof(log.leaves, m, 0, n, true)) << m << " -> " << n;
      }
      ASSERT_TRUE(verify_consistency(m, n, rm, r, p)) << m << " -> " << n;
      if (m > 0) {  // (every tree extends the empty one)
        EXPECT_FALSE(verify_consistency(m, n, rm, leaf_of(3), p));
      }
      if (m > 0 && m < n) {
        EXPECT_FALSE(verify_consistency(m, n, leaf_of(3), r, p));
        EXPECT_FALSE(verify_consistency(m + 1 <= n ? m + 1 : m - 1, n, rm, r, p));
        for (std::size_t i = 0; i < p.size(); ++i) {
          auto q = p;
          q[i][0] ^= 1;
          EXPECT_FALSE(verify_consistency(m, n, rm, r, q)) << m << " -> " << n << " hash " << i;
        }
      }
    }
  }
}

TEST(TlogMerkle, ProofsReadLogarithmicallyManyStoredNodes) {
  stored_log log;
  const std::uint64_t n = 100'003;
  for (std::uint64_t i = 0; i < n; ++i) log.append(leaf_of(i));
  EXPECT_EQ(log.nodes.size(), 2 * n - static_cast<std::uint64_t>(std::popcount(n)));
  for (std::uint64_t m : std::vector<std::uint64_t>{0, 1, 4'095, 65'536, 99'999, n - 1}) {
    log.reads = 0;
    const auto p = inclusion_proof(m, n, log.source());
    EXPECT_LE(p.size(), 17u);
    EXPECT_LE(log.reads, 2 * 17u) << m;
    EXPECT_TRUE(verify_inclusion(m, n, log.leaves[m], p, log.f.root()));
  }
  for (std::uint64_t m : std::vector<std::uint64_t>{1, 3, 65'536, 77'777, n - 1}) {
    log.reads = 0;
    const auto p = consistency_proof(m, n, log.source());
    EXPECT_LE(log.reads, 3 * 17u) << m;
    const hash rm = root(m, log.source());
    EXPECT_TRUE(verify_consistency(m, n, rm, log.f.root(), p));
  }
}

// inclusion_proofs gives every leaf of a range exactly inclusion_proof's path (every range of
// every tree up to 70 leaves), and for a batch at the right edge of a large tree it works out
// the shared ragged edge once: the stored nodes under it are read once, not once per proof.
TEST(TlogMerkle, ProofsOfARangeAreEachLeafsProofSharingTheEdge) {
  stored_log log;
  for (std::uint64_t n = 1; n <= 70; ++n) {
    log.append(leaf_of(n - 1));
    for (std::uint64_t first = 0; first <= n; first += 3)
      for (std::uint64_t last = first; last <= n; last += 5) {
        const auto all = inclusion_proofs(first, last, n, log.source());
        ASSERT_EQ(all.size(), last - first);
        for (std::uint64_t m = first; m < last; ++m)
          ASSERT_EQ(all[m - first], inclusion_proof(m, n, log.source()))
              << m << " of " << first << ".." << last << " in " << n;
      }
  }
  EXPECT_THROW((void)inclusion_proofs(3, 2, 5, log.source()), std::invalid_argument);
  EXPECT_THROW((void)inclusion_proofs(0, 71, 70, log.source()), std::invalid_argument);
  stored_log big;
  const std::uint64_t n = 100'003;  // 17 set bits: a long ragged edge
  for (std::uint64_t i = 0; i < n; ++i) big.append(leaf_of(i));
  big.reads = 0;
  const auto batch = inclusion_proofs(n - 64, n, n, big.source());
  const auto batch_reads = big.reads;
  big.reads = 0;
  std::uint64_t separate_reads = 0;
  for (std::uint64_t m = n - 64; m < n; ++m) {
    big.reads = 0;
    EXPECT_EQ(inclusion_proof(m, n, big.source()), batch[m - (n - 64)]);
    separate_reads += big.reads;
  }
  EXPECT_LT(batch_reads + 100, separate_reads) << batch_reads << " vs " << separate_reads;
}

TEST(TlogMerkle, BadArgumentsAreRefusedNotOverflowed) {
  stored_log log;
  for (int i = 0; i < 5; ++i) log.append(leaf_of(static_cast<std::uint64_t>(i)));
  EXPECT_THROW((void)inclusion_proof(5, 5, log.source()), std::invalid_argument);
  EXPECT_THROW((void)consistency_proof(6, 5, log.source()), std::invalid_argument);
  EXPECT_THROW((void)inclusion_proof(0, std::uint64_t{1} << 63, log.source()), std::invalid_argument);
  EXPECT_FALSE(verify_inclusion(0, 0, leaf_of(0), {}, empty_root()));
  EXPECT_FALSE(verify_inclusion(UINT64_MAX - 1, UINT64_MAX, leaf_of(0), {}, empty_root()));
  EXPECT_FALSE(verify_consistency(6, 5, empty_root(), empty_root(), {}));
  EXPECT_TRUE(verify_consistency(0, 5, empty_root(), log.f.root(), {}));
  EXPECT_FALSE(verify_consistency(0, 5, leaf_of(1), log.f.root(), {}));
  EXPECT_FALSE(verify_consistency(2, 5, root(2, log.source()), log.f.root(), {}));  // an empty proof proves nothing
}

TEST(TlogMerkle, StoredHashIndexesAreTheOrderOfCreation) {
  // Every node frontier::append reports, leaves included, in the order it reports them: their
  // stored hash indexes are exactly 0, 1, 2, ... (no gap, no repeat) for 2^12 + 3 leaves.
  frontier f;
  std::uint64_t next = 0;
  for (std::uint64_t i = 0; i < 4099; ++i)
    f.append(leaf_of(i), [&](unsigned level, std::uint64_t index, const hash&) {
      ASSERT_EQ(stored_hash_index(level, index), next) << level << " " << index;
      ++next;
    });
  EXPECT_EQ(next, 2 * 4099 - std::popcount(std::uint64_t{4099}));
  // Cox's worked positions (research.swtch.com/tlog): leaves 0, 1 at 0, 1; their parent at 2.
  EXPECT_EQ(stored_hash_index(1, 0), 2u);
  EXPECT_EQ(stored_hash_index(2, 0), 6u);
  EXPECT_EQ(stored_hash_index(0, 4), 7u);
  // The last representable nodes, and the first that are not.
  EXPECT_EQ(stored_hash_index(61, 0), 2 * ((std::uint64_t{1} << 61) - 1) - 61 + 61);
  EXPECT_LT(stored_hash_index(0, (std::uint64_t{1} << 62) - 1), std::uint64_t{1} << 63);
  EXPECT_THROW((void)stored_hash_index(0, std::uint64_t{1} << 62), std::invalid_argument);
  EXPECT_THROW((void)stored_hash_index(62, 0), std::invalid_argument);
  EXPECT_THROW((void)stored_hash_index(3, UINT64_MAX), std::invalid_argument);
}

TEST(TlogMerkle, FrontierRoundTripsAsTextAndRefusesDamage) {
  stored_log log;
  for (int i = 0; i < 13; ++i) log.append(leaf_of(static_cast<std::uint64_t>(i)));
  const std::string text = log.f.to_text();
  const frontier back = frontier::from_text(text);
  EXPECT_EQ(back.size(), 13u);
  EXPECT_EQ(back.root(), log.f.root());
  EXPECT_EQ(frontier::from_text("0").root(), empty_root());
  for (const std::string& bad :
       std::vector<std::string>{"", " ", "x", "13", "12 " + text.substr(3), text + " ", text.substr(0, text.size() - 1),
                                "-1", "99999999999999999999999", "013" + text.substr(2)})
    EXPECT_THROW((void)frontier::from_text(bad), std::invalid_argument) << bad;
}

TEST(TlogMerkle, AnIndependentPythonImplementationOfTheRfcAgrees) {
  // Proofs and roots of trees up to 300 leaves, written out and recomputed by Python's hashlib
  // from RFC 9162's text (tests/tlog/rfc9162_reference.py), which also runs its verifiers.
  stored_log log;
  nlohmann::json cases = nlohmann::json::array();
  std::vector<std::string> leaves;
  for (std::uint64_t n = 1; n <= 300; ++n) {
    log.append(leaf_of(n - 1));
    leaves.push_back("record " + std::to_string(n - 1));
    if (n > 40 && n % 37 != 0 && n != 256 && n != 300) continue;
    nlohmann::json c{{"size", n}, {"root", to_hex(log.f.root())}};
    for (std::uint64_t m = 0; m < n; m += 1 + n / 9)
      c["inclusion"].push_back({{"index", m}, {"path", [&] {
                                                 std::vector<std::string> v;
                                                 for (const auto& h : inclusion_proof(m, n, log.source()))
                                                   v.push_back(to_hex(h));
                                                 return v;
                                               }()}});
    for (std::uint64_t m = 1; m < n; m += 1 + n / 7)
      c["consistency"].push_back(
          {{"from", m}, {"from_root", to_hex(root(m, log.source()))}, {"proof", [&] {
                                                                         std::vector<std::string> v;
                                                                         for (const auto& h :
                                                                              consistency_proof(m, n, log.source()))
                                                                           v.push_back(to_hex(h));
                                                                         return v;
                                                                       }()}});
    cases.push_back(c);
  }
  fairdeck::testing::temp_dir dir;
  const auto file = dir.path / "cases.json";
  std::ofstream(file) << nlohmann::json{{"leaves", leaves}, {"cases", cases}}.dump();
  const std::string cmd = std::string("/usr/bin/python3 ") + FAIRDECK_SOURCE_DIR + "/tests/tlog/rfc9162_reference.py " +
                          file.string();
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
}

}  // namespace
