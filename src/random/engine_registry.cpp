#include "fairdeck/random/engine_registry.hpp"

#include "fairdeck/random/os_entropy.hpp"

#include <array>
#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck {
namespace {

constexpr std::array catalog = {
    engine_info{engine_id::secure, "secure", true, 256, 256,
                "ChaCha20 keyed from 256 bits of OS entropy, fast key erasure, fork-safe (default)"},
    engine_info{engine_id::chacha20, "chacha20", true, 256, 256,
                "ChaCha20 keystream of a given 256-bit key (--key HEX); secure while the key is secret"},
    engine_info{engine_id::xoshiro256pp, "xoshiro256pp", false, 64, 256,
                "xoshiro256++ (Blackman & Vigna 2021), seeded via SplitMix64; fast, not secure"},
    engine_info{engine_id::pcg64, "pcg64", false, 64, 256,
                "PCG64 XSL-RR 128/64 (O'Neill 2014, pcg-cpp), seeded via SplitMix64; fast, not secure"},
    engine_info{engine_id::mt19937_64, "mt19937_64", false, 64, 19968,
                "std::mt19937_64 with the standard u64 seeding; for comparison, not secure"},
};

}  // namespace

std::span<const engine_info> engine_catalog() noexcept { return catalog; }

const engine_info& info(engine_id id) noexcept {
  for (const auto& e : catalog)
    if (e.id == id) return e;
  return catalog[0];
}

engine_id parse_engine_name(std::string_view name) {
  for (const auto& e : catalog)
    if (e.name == name) return e.id;
  std::string names;
  for (const auto& e : catalog) names += fmt::format("{}{}", names.empty() ? "" : ", ", e.name);
  throw std::invalid_argument(fmt::format("unknown engine '{}' (choose from {})", name, names));
}

engine_spec make_engine_spec(std::optional<std::string_view> name, std::optional<std::uint64_t> seed,
                             std::optional<std::string_view> key_hex) {
  if (seed && key_hex) throw std::invalid_argument("--seed and --key are mutually exclusive");
  engine_spec spec;
  if (name)
    spec.id = parse_engine_name(*name);
  else if (seed || key_hex)
    spec.id = engine_id::chacha20;  // reproducible, and still ChaCha20
  if (spec.id == engine_id::secure && (seed || key_hex))
    throw std::invalid_argument("the secure engine takes no seed or key: it is keyed from OS entropy "
                                "(use --engine chacha20 --key HEX for a reproducible ChaCha20 stream)");
  if (key_hex) {
    if (spec.id != engine_id::chacha20) throw std::invalid_argument("--key applies only to --engine chacha20");
    spec.key = parse_key_hex(*key_hex);
  }
  if (seed) {
    spec.seed = *seed;
  } else if (spec.id != engine_id::secure && !spec.key) {
    // A seeded engine named without a seed gets a fresh one from the OS (never the time);
    // front ends print it so the run can be repeated.
    std::uint64_t fresh = 0;
    os_entropy(std::as_writable_bytes(std::span(&fresh, 1)));
    spec.seed = fresh;
  }
  return spec;
}

}  // namespace fairdeck
