#include <array>
#include <stdexcept>
#include <string>

#include "fairdeck/runtimes/internal/factories.hpp"
#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/runtimes/seed_range.hpp"

namespace fairdeck::runtimes {
namespace {

// Rows in enum order (checked below). The seed figures are the runtime's, see docs/engines.md.
constexpr std::array catalog{
    runtime_info{runtime_id::php, "php", "PHP 8.2", "mt_srand(S); shuffle($a);", 0x7fffffffffffffffu, 32,
                 "the first shuffle()/mt_rand() of a request seeds MT19937 with 32 bits from the OS CSPRNG (php_random_bytes)", 32},
    runtime_info{runtime_id::java, "java", "OpenJDK 17", "Collections.shuffle(list, new Random(S));",
                 0xffffffffffffffffu, 48, "new Random(): seedUniquifier() ^ System.nanoTime() (a monotonic clock, arbitrary origin: not wall time)", 48},
    runtime_info{runtime_id::dotnet_framework, "dotnet-framework", "Mono 6.8 (.NET Framework System.Random)",
                 "var r = new Random(S); for (int i = n - 1; i > 0; i--) swap(a, i, r.Next(i + 1));", 0x7fffffffu, 31,
                 "new Random(): Environment.TickCount (milliseconds since boot)", 31},
    runtime_info{runtime_id::dotnet_framework_orderby, "dotnet-framework-orderby",
                 "Mono 6.8 (.NET Framework System.Random)", "var r = new Random(S); a = a.OrderBy(_ => r.Next()).ToList();",
                 0x7fffffffu, 31, "new Random(): Environment.TickCount (milliseconds since boot)", 31},
    runtime_info{runtime_id::python, "python", "CPython 3.11", "random.Random(S).shuffle(x)", 0xffffffffffffffffu, 64,
                 "random.Random() and the module's shuffle(): init_by_array over 2500 bytes of os.urandom", 19937},
    runtime_info{runtime_id::go, "go", "Go 1.19", "rand.New(rand.NewSource(S)).Shuffle(n, swap)", 0xffffffffffffffffu,
                 30.999999998656385, "the global source is seeded with 1 unless rand.Seed is called", 0},
    runtime_info{runtime_id::node, "node", "Node.js (V8 Math.random, xorshift128+)",
                 "for (let i = n - 1; i > 0; i--) { const j = Math.floor(Math.random() * (i + 1)); swap(a, i, j); }",
                 0xffffffffu, 31.999999999664098, "a 64-bit seed from the OS entropy source, hashed into the 128-bit state", 64},
    runtime_info{runtime_id::node_sort, "node-sort", "Node.js (V8 Math.random, xorshift128+)",
                 "a.sort(() => Math.random() - 0.5)", 0xffffffffu, 31.999999999664098,
                 "a 64-bit seed from the OS entropy source, hashed into the 128-bit state", 64},
    runtime_info{runtime_id::libstdcxx, "libstdc++", "g++ 12 libstdc++", "std::shuffle(b, e, std::mt19937(S));",
                 0xffffffffffffffffu, 32,
                 "none built in (a default-constructed std::mt19937 uses 5489): programs pass std::random_device{}() or "
                 "time(nullptr), 32 bits",
                 32},
    runtime_info{runtime_id::libstdcxx_default, "libstdc++-default", "g++ 12 libstdc++",
                 "std::shuffle(b, e, std::default_random_engine(S));  // minstd_rand0", 0xffffffffffffffffu, 30.999999999,
                 "none built in (default-constructed: seed 1): programs pass std::random_device{}() or time(nullptr), "
                 "kept mod 2^31-1",
                 30.999999999},
    runtime_info{runtime_id::libcxx, "libc++", "clang 14 libc++", "std::shuffle(b, e, std::mt19937(S));", 0xffffffffffffffffu, 32,
                 "none built in (a default-constructed std::mt19937 uses 5489): programs pass std::random_device{}() or "
                 "time(nullptr), 32 bits",
                 32},
    runtime_info{runtime_id::libcxx_default, "libc++-default", "clang 14 libc++",
                 "std::shuffle(b, e, std::default_random_engine(S));  // minstd_rand", 0xffffffffffffffffu, 30.999999999,
                 "none built in (default-constructed: seed 1): programs pass std::random_device{}() or time(nullptr), "
                 "kept mod 2^31-1",
                 30.999999999},
};

constexpr bool rows_in_enum_order() {
  for (std::size_t i = 0; i < catalog.size(); ++i)
    if (static_cast<std::size_t>(catalog[i].id) != i) return false;
  return true;
}
static_assert(rows_in_enum_order(), "runtime catalog: one row per runtime_id, in enum order");
static_assert(catalog.size() == static_cast<std::size_t>(runtime_id::libcxx_default) + 1,
              "runtime catalog: a runtime_id has no row");

}  // namespace

std::span<const runtime_info> runtime_catalog() noexcept { return catalog; }
const runtime_info& info(runtime_id id) noexcept { return catalog[static_cast<std::size_t>(id)]; }

std::optional<runtime_id> find_runtime(std::string_view name) noexcept {
  for (const auto& row : catalog)
    if (row.name == name) return row.id;
  return std::nullopt;
}

std::uint64_t min_seed(runtime_id id) noexcept {
  return id == runtime_id::node || id == runtime_id::node_sort ? 1 : 0;
}

std::string seed_range_error(runtime_id id, std::uint64_t seed) {
  const bool node = min_seed(id) == 1;
  return std::string(info(id).name) + " takes a seed in [" + std::to_string(min_seed(id)) + ", " +
         std::to_string(info(id).max_seed) + "]" +
         (node ? " (node --random_seed=S; 0 means an unseeded, OS-entropy Math.random)" : "") + ", got " +
         std::to_string(seed);
}

runtime_shuffler::runtime_shuffler(runtime_id id, std::uint64_t seed) {
  if (seed < min_seed(id) || seed > info(id).max_seed) throw std::invalid_argument(seed_range_error(id, seed));
  using namespace internal;
  switch (id) {
    case runtime_id::php: impl_ = make_php(seed); break;
    case runtime_id::java: impl_ = make_java(seed); break;
    case runtime_id::dotnet_framework: impl_ = make_dotnet_framework(seed, false); break;
    case runtime_id::dotnet_framework_orderby: impl_ = make_dotnet_framework(seed, true); break;
    case runtime_id::python: impl_ = make_python(seed); break;
    case runtime_id::go: impl_ = make_go(seed); break;
    case runtime_id::node: impl_ = make_node(seed, false); break;
    case runtime_id::node_sort: impl_ = make_node(seed, true); break;
    case runtime_id::libstdcxx: impl_ = make_libstdcxx(seed, false); break;
    case runtime_id::libstdcxx_default: impl_ = make_libstdcxx(seed, true); break;
    case runtime_id::libcxx: impl_ = make_libcxx(seed, false); break;
    case runtime_id::libcxx_default: impl_ = make_libcxx(seed, true); break;
  }
}
runtime_shuffler::~runtime_shuffler() = default;
runtime_shuffler::runtime_shuffler(runtime_shuffler&&) noexcept = default;
runtime_shuffler& runtime_shuffler::operator=(runtime_shuffler&&) noexcept = default;

void runtime_shuffler::shuffle(std::span<std::uint32_t> list) { impl_->shuffle(list); }

}  // namespace fairdeck::runtimes
