#include "fairdeck/security/runtime_attack.hpp"

#include <array>
#include <numeric>
#include <stdexcept>

namespace fairdeck {
namespace {

using runtimes::runtime_id;

// One row per runtime, in runtime_id order.
constexpr std::array attack_rows{
    runtime_attack_info{runtime_id::php, true, 0xffffffffu, false,
                        "mt_srand(S) takes 32 bits; unseeded, PHP 8.2 seeds from 32 random bits",
                        "every 2^32 seed: about two minutes on two AVX-512 cores (docs/cli-attack.md)"},
    runtime_attack_info{runtime_id::java, true, (std::uint64_t{1} << 48) - 1, true,
                        "new Random(S) keeps S mod 2^48; the attackable idiom is new Random(System.currentTimeMillis())",
                        "2^48 seeds take days on one machine: search a window of clock readings around the seeding"},
    runtime_attack_info{runtime_id::dotnet_framework, true, 0x7fffffffu, true,
                        "new Random() uses Environment.TickCount, milliseconds since boot (|int32|)",
                        "every 2^31 seed, or a window of boot times"},
    runtime_attack_info{runtime_id::dotnet_framework_orderby, true, 0x7fffffffu, true,
                        "new Random() uses Environment.TickCount, milliseconds since boot (|int32|)",
                        "no SIMD filter for the OrderBy idiom: each seed is replayed whole; search a window of boot "
                        "times"},
    runtime_attack_info{runtime_id::python, true, 0xffffffffu, false,
                        "random.Random(S) for small integer S (unseeded: 2500 bytes of os.urandom, not searchable)",
                        "each seed is replayed whole (CPython's init_by_array): search a narrow seed range"},
    runtime_attack_info{runtime_id::go, true, 0x7ffffffeu, false,
                        "rand.NewSource(S) keeps S mod 2^31-1 (0 acts as 89482311); unseeded, the global source uses 1",
                        "every one of the 2^31-2 sources (docs/cli-attack.md)"},
    runtime_attack_info{runtime_id::node, false, 0, false, "",
                        "V8 seeds Math.random's 128-bit xorshift128+ state from 64 random bits (fmix64 of a 64-bit "
                        "seed): 2^64 seeds are out of reach (584 years at 10^9 seeds/s), and recovering the state "
                        "from card positions needs an SMT solve over floor(Math.random() * n) values (each reveals "
                        "only log2(n) bits of a 52-bit mantissa, read backwards through a 64-value cache), which "
                        "fairdeck does not implement. Only a process started with node --random_seed=S (32 bits) is "
                        "searchable: replay the node shuffle with seed S"},
    runtime_attack_info{runtime_id::node_sort, false, 0, false, "",
                        "V8 seeds Math.random's 128-bit xorshift128+ state from 64 random bits: 2^64 seeds are out "
                        "of reach, and with sort(() => Math.random() - 0.5) each comparison reveals one bit of a "
                        "Math.random value (whether it is below 0.5), far from a state recovery"},
    runtime_attack_info{runtime_id::libstdcxx, true, 0xffffffffu, false, "std::mt19937(S) takes 32 bits",
                        "each seed is replayed whole: search a seed range"},
    runtime_attack_info{runtime_id::libstdcxx_default, true, 0x7ffffffeu, false,
                        "std::minstd_rand0(S) keeps S mod 2^31-1", "each seed is replayed whole: search a seed range"},
    runtime_attack_info{runtime_id::libcxx, true, 0xffffffffu, false, "std::mt19937(S) takes 32 bits",
                        "each seed is replayed whole: search a seed range"},
    runtime_attack_info{runtime_id::libcxx_default, true, 0x7ffffffeu, false, "std::minstd_rand(S) keeps S mod 2^31-1",
                        "each seed is replayed whole: search a seed range"},
};

constexpr bool rows_in_order() {
  for (std::size_t i = 0; i < attack_rows.size(); ++i)
    if (static_cast<std::size_t>(attack_rows[i].id) != i) return false;
  return attack_rows.size() == static_cast<std::size_t>(runtime_id::libcxx_default) + 1;
}
static_assert(rows_in_order(), "runtime attack table: one row per runtime_id, in enum order");

}  // namespace

const runtime_attack_info& attack_info(runtimes::runtime_id id) noexcept {
  return attack_rows[static_cast<std::size_t>(id)];
}

std::vector<card_t> runtime_deck(runtimes::runtime_id id, std::uint64_t seed, std::size_t deck_size) {
  std::vector<std::uint32_t> list(deck_size);
  std::iota(list.begin(), list.end(), 0u);
  try {
    runtimes::runtime_shuffler(id, seed).shuffle(list);
  } catch (const std::logic_error& e) {
    // Until src/runtimes/php.cpp is on this branch the PHP shuffle is the attack's own reference.
    if (dynamic_cast<const std::invalid_argument*>(&e) || id != runtime_id::php) throw;
    detail::php_reference_shuffle(static_cast<std::uint32_t>(seed), list);
  }
  return std::vector<card_t>(list.begin(), list.end());
}

}  // namespace fairdeck
