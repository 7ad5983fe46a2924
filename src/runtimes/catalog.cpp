// The runtime catalogue: one row per runtime_id, everything fairdeck knows about the runtime
// in one place -- names, the program it reproduces, its seeds (docs/engines.md), how the attack
// searches them, and the factory of its emulation (src/runtimes/<runtime>.cpp).
#include <array>
#include <stdexcept>
#include <string>

#include "fairdeck/runtimes/internal/factories.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/runtimes/seed_range.hpp"

namespace fairdeck::runtimes {
namespace internal {
// Each defined in its src/runtimes/<runtime>.cpp: the seeded generator with its shuffle idiom.
impl_ptr make_php(std::uint64_t seed);
impl_ptr make_python(std::uint64_t seed);
impl_ptr make_libstdcxx(std::uint64_t seed, bool default_engine);
impl_ptr make_libcxx(std::uint64_t seed, bool default_engine);
impl_ptr make_java(std::uint64_t seed);
impl_ptr make_dotnet_framework(std::uint64_t seed, bool orderby);
impl_ptr make_go(std::uint64_t seed);
impl_ptr make_node(std::uint64_t seed, bool sort_idiom);
}  // namespace internal

namespace {

using factory = internal::impl_ptr (*)(std::uint64_t seed);

struct row {
  runtime_info info;
  factory make;
};

constexpr std::string_view cxx_mt19937_seeding =
    "none built in (a default-constructed std::mt19937 uses 5489): programs pass std::random_device{}() or "
    "time(nullptr), 32 bits";
constexpr std::string_view cxx_minstd_seeding =
    "none built in (default-constructed: seed 1): programs pass std::random_device{}() or time(nullptr), "
    "kept mod 2^31-1";
constexpr std::string_view dotnet_seeds = "new Random() uses Environment.TickCount, milliseconds since boot (|int32|)";
constexpr std::string_view node_seeding = "a 64-bit seed from the OS entropy source, hashed into the 128-bit state";

// Rows in enum order (checked below). The seed figures are the runtime's, see docs/engines.md.
constexpr std::array<row, runtime_count> rows{{
    {.info = {.id = runtime_id::php, .name = "php", .runtime = "PHP 8.2", .code = "mt_srand(S); shuffle($a);",
              .max_seed = 0x7fffffffffffffffu, .explicit_seed_bits = 32,
              .default_seeding = "the first shuffle()/mt_rand() of a request seeds MT19937 with 32 bits from the OS "
                                 "CSPRNG (php_random_bytes)",
              .default_seed_bits = 32,
              .search = {.searchable = true, .last_seed = 0xffffffffu,
                         .seeds = "mt_srand(S) takes 32 bits; unseeded, PHP 8.2 seeds from 32 random bits",
                         .note = "every 2^32 seed: about two minutes on two AVX-512 cores (docs/cli-attack.md)"}},
     .make = internal::make_php},
    {.info = {.id = runtime_id::java, .name = "java", .runtime = "OpenJDK 17",
              .code = "Collections.shuffle(list, new Random(S));", .max_seed = 0xffffffffffffffffu,
              .explicit_seed_bits = 48,
              .default_seeding = "new Random(): seedUniquifier() ^ System.nanoTime() (a monotonic clock, arbitrary "
                                 "origin: not wall time)",
              .default_seed_bits = 48,
              .search = {.searchable = true, .last_seed = (std::uint64_t{1} << 48) - 1, .clock_seeded = true,
                         .seeds = "new Random(S) keeps S mod 2^48; the attackable idiom is new "
                                  "Random(System.currentTimeMillis())",
                         .note = "2^48 seeds take days on one machine: search a window of clock readings around the "
                                 "seeding"}},
     .make = internal::make_java},
    {.info = {.id = runtime_id::dotnet_framework, .name = "dotnet-framework",
              .runtime = "Mono 6.8 (.NET Framework System.Random)",
              .code = "var r = new Random(S); for (int i = n - 1; i > 0; i--) swap(a, i, r.Next(i + 1));",
              .max_seed = 0x7fffffffu, .explicit_seed_bits = 31,
              .default_seeding = "new Random(): Environment.TickCount (milliseconds since boot)", .default_seed_bits = 31,
              .search = {.searchable = true, .last_seed = 0x7fffffffu, .clock_seeded = true, .seeds = dotnet_seeds,
                         .note = "every 2^31 seed, or a window of boot times"}},
     .make = [](std::uint64_t seed) { return internal::make_dotnet_framework(seed, false); }},
    {.info = {.id = runtime_id::dotnet_framework_orderby, .name = "dotnet-framework-orderby",
              .runtime = "Mono 6.8 (.NET Framework System.Random)",
              .code = "var r = new Random(S); a = a.OrderBy(_ => r.Next()).ToList();", .max_seed = 0x7fffffffu,
              .explicit_seed_bits = 31,
              .default_seeding = "new Random(): Environment.TickCount (milliseconds since boot)", .default_seed_bits = 31,
              // OrderBy on 31-bit keys ties in about n^2/2^32 of the deals: too rare to see, exact.
              .search = {.searchable = true, .last_seed = 0x7fffffffu, .clock_seeded = true, .seeds = dotnet_seeds,
                         .note = "no SIMD filter for the OrderBy idiom: each seed is replayed whole; search a window "
                                 "of boot times"}},
     .make = [](std::uint64_t seed) { return internal::make_dotnet_framework(seed, true); }},
    {.info = {.id = runtime_id::python, .name = "python", .runtime = "CPython 3.11",
              .code = "random.Random(S).shuffle(x)", .max_seed = 0xffffffffffffffffu, .explicit_seed_bits = 64,
              .default_seeding = "random.Random() and the module's shuffle(): init_by_array over 2500 bytes of "
                                 "os.urandom",
              .default_seed_bits = 19937,
              .search = {.searchable = true, .last_seed = 0xffffffffu,
                         .seeds = "random.Random(S) for small integer S (unseeded: 2500 bytes of os.urandom, not "
                                  "searchable)",
                         .note = "each seed is replayed whole (CPython's init_by_array): search a narrow seed range"}},
     .make = internal::make_python},
    {.info = {.id = runtime_id::go, .name = "go", .runtime = "Go 1.19",
              .code = "rand.New(rand.NewSource(S)).Shuffle(n, swap)", .max_seed = 0xffffffffffffffffu,
              .explicit_seed_bits = 30.999999998656385,
              .default_seeding = "the global source is seeded with 1 unless rand.Seed is called", .default_seed_bits = 0,
              .search = {.searchable = true, .last_seed = 0x7ffffffeu,
                         .seeds = "rand.NewSource(S) keeps S mod 2^31-1 (0 acts as 89482311); unseeded, the global "
                                  "source uses 1",
                         .note = "every one of the 2^31-2 sources (docs/cli-attack.md)"}},
     .make = internal::make_go},
    {.info = {.id = runtime_id::node, .name = "node", .runtime = "Node.js (V8 Math.random, xorshift128+)",
              .code = "for (let i = n - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); swap(a, i, j); }",
              .min_seed = 1, .max_seed = 0xffffffffu, .explicit_seed_bits = 31.999999999664098,
              .default_seeding = node_seeding, .default_seed_bits = 64,
              .search = {.note = "V8 seeds Math.random's 128-bit xorshift128+ state from 64 random bits (fmix64 of a "
                                 "64-bit seed): 2^64 seeds are out of reach (584 years at 10^9 seeds/s), and "
                                 "recovering the state from card positions needs an SMT solve over floor(Math.random() "
                                 "* n) values (each reveals only log2(n) bits of a 52-bit mantissa, read backwards "
                                 "through a 64-value cache), which fairdeck does not implement. Only a process started "
                                 "with node --random_seed=S (32 bits) is searchable: replay the node shuffle with seed "
                                 "S"}},
     .make = [](std::uint64_t seed) { return internal::make_node(seed, false); }},
    {.info = {.id = runtime_id::node_sort, .name = "node-sort", .runtime = "Node.js (V8 Math.random, xorshift128+)",
              .code = "a.sort(() => Math.random() - 0.5)", .min_seed = 1, .max_seed = 0xffffffffu,
              .explicit_seed_bits = 31.999999999664098, .default_seeding = node_seeding, .default_seed_bits = 64,
              // Array.prototype.sort with a random comparator: TimSort's order is far from uniform.
              .idiom_exact = false,
              .search = {.note = "V8 seeds Math.random's 128-bit xorshift128+ state from 64 random bits: 2^64 seeds are "
                                 "out of reach, and with sort(() => Math.random() - 0.5) each comparison reveals one "
                                 "bit of a Math.random value (whether it is below 0.5), far from a state recovery"}},
     .make = [](std::uint64_t seed) { return internal::make_node(seed, true); }},
    {.info = {.id = runtime_id::libstdcxx, .name = "libstdc++", .runtime = "g++ 12 libstdc++",
              .code = "std::shuffle(b, e, std::mt19937(S));", .max_seed = 0xffffffffffffffffu, .explicit_seed_bits = 32,
              .default_seeding = cxx_mt19937_seeding, .default_seed_bits = 32,
              .search = {.searchable = true, .last_seed = 0xffffffffu, .seeds = "std::mt19937(S) takes 32 bits",
                         .note = "each seed is replayed whole: search a seed range"}},
     .make = [](std::uint64_t seed) { return internal::make_libstdcxx(seed, false); }},
    {.info = {.id = runtime_id::libstdcxx_default, .name = "libstdc++-default", .runtime = "g++ 12 libstdc++",
              .code = "std::shuffle(b, e, std::default_random_engine(S));  // minstd_rand0",
              .max_seed = 0xffffffffffffffffu, .explicit_seed_bits = 30.999999999,
              .default_seeding = cxx_minstd_seeding, .default_seed_bits = 30.999999999,
              .search = {.searchable = true, .last_seed = 0x7ffffffeu, .seeds = "std::minstd_rand0(S) keeps S mod 2^31-1",
                         .note = "each seed is replayed whole: search a seed range"}},
     .make = [](std::uint64_t seed) { return internal::make_libstdcxx(seed, true); }},
    {.info = {.id = runtime_id::libcxx, .name = "libc++", .runtime = "clang 14 libc++",
              .code = "std::shuffle(b, e, std::mt19937(S));", .max_seed = 0xffffffffffffffffu, .explicit_seed_bits = 32,
              .default_seeding = cxx_mt19937_seeding, .default_seed_bits = 32,
              .search = {.searchable = true, .last_seed = 0xffffffffu, .seeds = "std::mt19937(S) takes 32 bits",
                         .note = "each seed is replayed whole: search a seed range"}},
     .make = [](std::uint64_t seed) { return internal::make_libcxx(seed, false); }},
    {.info = {.id = runtime_id::libcxx_default, .name = "libc++-default", .runtime = "clang 14 libc++",
              .code = "std::shuffle(b, e, std::default_random_engine(S));  // minstd_rand",
              .max_seed = 0xffffffffffffffffu, .explicit_seed_bits = 30.999999999,
              .default_seeding = cxx_minstd_seeding, .default_seed_bits = 30.999999999,
              .search = {.searchable = true, .last_seed = 0x7ffffffeu, .seeds = "std::minstd_rand(S) keeps S mod 2^31-1",
                         .note = "each seed is replayed whole: search a seed range"}},
     .make = [](std::uint64_t seed) { return internal::make_libcxx(seed, true); }},
}};

constexpr bool rows_complete() {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (static_cast<std::size_t>(rows[i].info.id) != i || rows[i].info.name.empty() || rows[i].make == nullptr) return false;
  return true;
}
static_assert(rows_complete(), "runtime catalog: one row per runtime_id, in enum order, each with a name and a factory");

constexpr std::array<runtime_info, runtime_count> infos = [] {
  std::array<runtime_info, runtime_count> out{};
  for (std::size_t i = 0; i < rows.size(); ++i) out[i] = rows[i].info;
  return out;
}();

}  // namespace

std::span<const runtime_info> runtime_catalog() noexcept { return infos; }
const runtime_info& info(runtime_id id) noexcept { return infos[static_cast<std::size_t>(id)]; }

std::optional<runtime_id> find_runtime(std::string_view name) noexcept {
  for (const auto& r : infos)
    if (r.name == name) return r.id;
  return std::nullopt;
}

std::uint64_t min_seed(runtime_id id) noexcept { return info(id).min_seed; }

std::string seed_range_error(runtime_id id, std::uint64_t seed) {
  const bool node = min_seed(id) == 1;
  return std::string(info(id).name) + " takes a seed in [" + std::to_string(min_seed(id)) + ", " +
         std::to_string(info(id).max_seed) + "]" +
         (node ? " (node --random_seed=S; 0 means an unseeded, OS-entropy Math.random)" : "") + ", got " +
         std::to_string(seed);
}

runtime_shuffler::runtime_shuffler(runtime_id id, std::uint64_t seed) {
  if (static_cast<std::size_t>(id) >= runtime_count) throw std::invalid_argument("runtime_shuffler: not a runtime");
  if (seed < min_seed(id) || seed > info(id).max_seed) throw std::invalid_argument(seed_range_error(id, seed));
  impl_ = rows[static_cast<std::size_t>(id)].make(seed);
}
runtime_shuffler::~runtime_shuffler() = default;
runtime_shuffler::runtime_shuffler(runtime_shuffler&&) noexcept = default;
runtime_shuffler& runtime_shuffler::operator=(runtime_shuffler&&) noexcept = default;

void runtime_shuffler::shuffle(std::span<std::uint32_t> list) { impl_->shuffle(list); }

}  // namespace fairdeck::runtimes
