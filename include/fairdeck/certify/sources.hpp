// Where the battery's values come from: a built-in engine (raw words or scaled draws),
// outside data (binary words, one integer per line) and the known-bad generators the
// battery must reject (the power evidence in docs/certify.md).
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/certify/battery.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::certify {

// The raw word size of an engine (64 for secure, chacha20, xoshiro256pp, pcg64, mt19937_64;
// 32, 31 or 15 for the legacy ones). Engines whose output range is not a power of two
// (minstd: [1, 2^31 - 2]) are tested as scaled draws of (output - min): raw_spec returns a
// scaled spec for them.
[[nodiscard]] stream_spec engine_raw_spec(const engine_spec& engine);

// Feeds `count` values of `engine` (stream 0) to `b`: raw outputs (minus the engine's
// minimum), or with range > 0 the engine's bounded draws draw_below(range) (legacy engines:
// their historical mapping, e.g. rand() % n). Progress in values; stops early on request.
// Returns the values fed.
std::uint64_t feed_engine(const engine_spec& engine, std::uint64_t range, std::uint64_t count, battery& b,
                          const run_control& control = {});

// Reads little-endian binary words of `bits` (32 or 64) from `in` until EOF or `limit`
// values. A trailing partial word is an error (std::runtime_error naming the byte count).
// `expected` (0: unknown) is the total reported with progress.
std::uint64_t feed_raw(std::istream& in, unsigned bits, std::uint64_t limit, battery& b,
                       const run_control& control = {}, std::uint64_t expected = 0);

// Reads one decimal integer in [0, range) per line ('#' comments and blank lines skipped);
// anything else is a std::runtime_error naming the line.
std::uint64_t feed_scaled(std::istream& in, std::uint64_t range, std::uint64_t limit, battery& b,
                          const run_control& control = {});

// Generators with known flaws, for power checks. Each is bit-exact to what it names.
enum class known_bad {
  randu,           // IBM RANDU x' = 65539 x mod 2^31, 31-bit words
  minstd_low,      // std::minstd_rand, 32-bit words of the low 16 bits of two outputs
  ansi_c_mod52,    // ANSI C / glibc TYPE_0 rand(): x' = 1103515245 x + 12345 mod 2^31, % 52
  msvc_mod52,      // Microsoft C rand() (15-bit) % 52
  java_abs_mod52,  // Java Math.abs(new Random(seed).nextInt()) % 52
  glibc_mod52,     // glibc rand() (TYPE_3 additive feedback) % 52
};
struct known_bad_info {
  known_bad id;
  std::string_view name;  // CLI spelling
  std::string_view description;
};
[[nodiscard]] std::span<const known_bad_info> known_bad_catalog() noexcept;
[[nodiscard]] known_bad parse_known_bad(std::string_view name);  // throws std::invalid_argument
[[nodiscard]] stream_spec known_bad_spec(known_bad id);
std::uint64_t feed_known_bad(known_bad id, std::uint64_t seed, std::uint64_t count, battery& b,
                             const run_control& control = {});

}  // namespace fairdeck::certify
