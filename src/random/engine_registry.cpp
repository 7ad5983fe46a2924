#include "fairdeck/random/engine_registry.hpp"

#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/util/printable.hpp"

#include <array>
#include <bit>
#include <exception>
#include <stdexcept>

#include <fmt/format.h>

// The public headers use unsigned __int128 for 64x64->128-bit products (Lemire's bounded
// draws in random/bounded.hpp, pcg64, the huge shuffle's scatter step): GCC and Clang on
// 64-bit targets (x86-64, aarch64) have it; other compilers are not supported (README).
#if !defined(__SIZEOF_INT128__)
#error "fairdeck needs unsigned __int128: build with GCC or Clang for a 64-bit target"
#endif

namespace fairdeck {
namespace {

constexpr std::array catalog = {
    engine_info{engine_id::secure, "secure", true, 256, 256,
                "ChaCha20 keyed from 256 bits of OS entropy, fast key erasure, fork-safe (default)"},
    engine_info{engine_id::chacha20, "chacha20", true, 256, 256,
                "ChaCha20 keystream of a given 256-bit key; secure while the key is secret"},
    engine_info{engine_id::xoshiro256pp, "xoshiro256pp", false, 64, 256,
                "xoshiro256++ (Blackman & Vigna 2021), seeded via SplitMix64; fast, not secure"},
    engine_info{engine_id::pcg64, "pcg64", false, 64, 256,
                "PCG64 XSL-RR 128/64 (O'Neill 2014, pcg-cpp), seeded via SplitMix64; fast, not secure"},
    engine_info{engine_id::mt19937_64, "mt19937_64", false, 64, 19968,
                "std::mt19937_64 with the standard u64 seeding; for comparison, not secure"},
    // Legacy emulations: seed_bits counts distinct seeds (log2, rounded down), state_bits the state.
    engine_info{engine_id::glibc_rand, "glibc-rand", false, 32, 31 * 32,
                "glibc rand() after srand(seed) (TYPE_3 additive feedback), shuffles with rand() % n; legacy, never secure",
                true, std::uint64_t{1} << 32},
    engine_info{engine_id::msvc_rand, "msvc-rand", false, 32, 32,
                "Microsoft C rand() after srand(seed) (LCG 214013, 2531011; 15-bit outputs), rand() % n; legacy, never secure",
                true, std::uint64_t{1} << 32},
    engine_info{engine_id::delphi, "delphi", false, 32, 32,
                "Borland Delphi Random (RandSeed*$08088405+1), Random(n) = (RandSeed*n) shr 32; legacy, never secure",
                true, std::uint64_t{1} << 32},
    engine_info{engine_id::dotnet, "dotnet", false, 31, 55 * 32,
                ".NET Framework System.Random(seed) (Knuth subtractive), Next(n) = (int)(Sample()*n); legacy, never secure",
                true, std::uint64_t{1} << 31},
    engine_info{engine_id::java, "java", false, 48, 48,
                "java.util.Random(seed) (48-bit LCG), nextInt(bound) with its rejection loop; legacy, never secure",
                true, 0},
    engine_info{engine_id::mt19937, "mt19937", false, 32, 19968,
                "std::mt19937 with a 32-bit seed, mt() % n; legacy, never secure", true, std::uint64_t{1} << 32},
    engine_info{engine_id::minstd, "minstd", false, 31, 31,
                "std::minstd_rand (Park-Miller 48271) with a 32-bit seed, minstd() % n; legacy, never secure", true,
                std::uint64_t{1} << 32},
};

// One case per enumerator and no default: with -Wall -Werror (-Wswitch) a new engine_id
// missing here fails the build, and the static_assert below then demands its catalog row.
constexpr bool is_enumerator(engine_id id) noexcept {
  switch (id) {
    case engine_id::secure: case engine_id::chacha20: case engine_id::xoshiro256pp: case engine_id::pcg64:
    case engine_id::mt19937_64: case engine_id::glibc_rand: case engine_id::msvc_rand: case engine_id::delphi:
    case engine_id::dotnet: case engine_id::java: case engine_id::mt19937: case engine_id::minstd:
      return true;
  }
  return false;
}

// Row i describes engine_id(i), and every enumerator has a row: info() cannot fall back on
// another engine's row (row 0 is `secure`: a new engine without a row would pass as secure).
constexpr bool catalog_complete() noexcept {
  for (std::size_t i = 0; i < catalog.size(); ++i)
    if (static_cast<std::size_t>(catalog[i].id) != i || !is_enumerator(catalog[i].id)) return false;
  return !is_enumerator(static_cast<engine_id>(catalog.size()));
}
static_assert(catalog_complete(), "engine catalog: one row per engine_id, in enum order (docs/engines.md)");

}  // namespace

std::span<const engine_info> engine_catalog() noexcept { return catalog; }

const engine_info& info(engine_id id) noexcept {
  const auto i = static_cast<std::size_t>(id);
  if (i >= catalog.size()) std::terminate();  // not an engine_id: a cast gone wrong, never row 0
  return catalog[i];
}

engine_id parse_engine_name(std::string_view name) {
  for (const auto& e : catalog)
    if (e.name == name) return e.id;
  std::string names;
  for (const auto& e : catalog) names += fmt::format("{}{}", names.empty() ? "" : ", ", e.name);
  throw std::invalid_argument(fmt::format("unknown engine '{}' (choose from {})", printable(name), names));
}

engine_spec make_engine_spec(std::optional<std::string_view> name, std::optional<std::uint64_t> seed,
                             std::optional<std::string_view> key_hex) {
  if (seed && key_hex) throw std::invalid_argument("a seed and a key are mutually exclusive");
  engine_spec spec;
  if (name)
    spec.id = parse_engine_name(*name);
  else if (seed || key_hex)
    spec.id = engine_id::chacha20;  // reproducible, and still ChaCha20
  if (spec.id == engine_id::secure && (seed || key_hex))
    throw std::invalid_argument("the secure engine takes no seed or key: it is keyed from OS entropy "
                                "(the chacha20 engine with a key gives a reproducible ChaCha20 stream)");
  if (key_hex) {
    if (spec.id != engine_id::chacha20) throw std::invalid_argument("a key applies only to the chacha20 engine");
    spec.key = parse_key_hex(*key_hex);
  }
  const std::uint64_t limit = info(spec.id).seed_limit;
  if (seed) {
    if (limit && *seed >= limit)
      throw std::invalid_argument(fmt::format("engine {} takes a seed below 2^{} (0..{}), got {}", info(spec.id).name,
                                              std::countr_zero(limit), limit - 1, *seed));
    spec.seed = *seed;
  } else if (spec.id != engine_id::secure && !spec.key) {
    // A seeded engine named without a seed gets a fresh one from the OS (never the time);
    // front ends print it so the run can be repeated.
    std::uint64_t fresh = 0;
    os_entropy(std::as_writable_bytes(std::span(&fresh, 1)));
    spec.seed = limit ? fresh % limit : fresh;
  }
  // ChaCha20 engines need libsodium, which needs OS entropy to initialise: fail here, before
  // a front end prints anything about the run, with entropy_error naming the cause.
  if (spec.id == engine_id::secure || spec.id == engine_id::chacha20) detail::prepare_sodium();
  return spec;
}

std::uint64_t legacy_stream_seed(const engine_spec& spec, std::uint64_t stream) noexcept {
  const std::uint64_t limit = info(spec.id).seed_limit;
  const std::uint64_t s = stream_seed(spec.seed, stream);
  return limit ? s % limit : s;
}

}  // namespace fairdeck
