// Run-time choice of engine (for the CLI and other front ends) with compile-time speed:
// visit_engine() constructs the concrete engine and calls a generic lambda with it, so the
// hot loop is instantiated per engine type with no virtual call per draw.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/legacy.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/splitmix64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"

namespace fairdeck {

enum class engine_id {
  secure, chacha20, xoshiro256pp, pcg64, mt19937_64,
  // Legacy emulations (fairdeck/random/legacy.hpp): bit-exact, never secure.
  glibc_rand, msvc_rand, delphi, dotnet, java, mt19937, minstd
};

struct engine_info {
  engine_id id;
  std::string_view name;         // the CLI spelling
  bool secure;                   // unpredictable to an observer without the key
  unsigned seed_bits;            // bits of seed/key that select the stream (secure: fresh 256-bit key)
  unsigned state_bits;           // internal state size
  std::string_view description;
  bool legacy = false;           // a historical generator emulated bit-exactly (with its range mapping)
  std::uint64_t seed_limit = 0;  // seeds must be < seed_limit (0: every 64-bit value is a seed)
};

[[nodiscard]] std::span<const engine_info> engine_catalog() noexcept;
[[nodiscard]] const engine_info& info(engine_id id) noexcept;
// Throws std::invalid_argument listing the valid names.
[[nodiscard]] engine_id parse_engine_name(std::string_view name);

struct engine_spec {
  engine_id id = engine_id::secure;
  std::uint64_t seed = 0;            // seeded engines; chacha20 without a key uses key_from_seed(seed)
  std::optional<chacha_key> key;     // chacha20 only
  [[nodiscard]] bool reproducible() const noexcept { return id != engine_id::secure; }
  // Unpredictable to whoever lacks the secret: the OS-keyed engine, or chacha20 with a
  // user key. A 64-bit --seed is never secure (2^64 seeds can be searched).
  [[nodiscard]] bool secure() const noexcept { return id == engine_id::secure || (id == engine_id::chacha20 && key); }
};

// Builds the spec the CLI asks for. A seed or key selects chacha20 when no engine is named;
// `secure` refuses seeds; keys only fit chacha20; a legacy engine refuses a seed at or above
// its seed_limit (e.g. 2^32 for srand's unsigned int). Throws std::invalid_argument.
// Throws entropy_error when the engine needs OS entropy (a fresh seed, or ChaCha20 via
// libsodium) and the OS has none.
[[nodiscard]] engine_spec make_engine_spec(std::optional<std::string_view> name, std::optional<std::uint64_t> seed,
                                           std::optional<std::string_view> key_hex);

// Seed of stream `stream` for a legacy engine: stream 0 is the seed itself (what the old
// program did); further streams hash (seed, stream) into the engine's seed space.
[[nodiscard]] std::uint64_t legacy_stream_seed(const engine_spec& spec, std::uint64_t stream) noexcept;

// Constructs engine `spec` for independent stream `stream` and returns f(engine).
// Streams are counter-based: stream s is the same on every thread and platform.
template <class F>
decltype(auto) visit_engine(const engine_spec& spec, std::uint64_t stream, F&& f) {
  switch (spec.id) {
    case engine_id::chacha20: {
      chacha20_engine e(spec.key ? *spec.key : key_from_seed(spec.seed), stream);
      return f(e);
    }
    case engine_id::xoshiro256pp: {
      xoshiro256pp e(stream_seed(spec.seed, stream));
      return f(e);
    }
    case engine_id::pcg64: {
      pcg64 e(spec.seed, stream);
      return f(e);
    }
    case engine_id::mt19937_64: {
      mt19937_64 e(stream_seed(spec.seed, stream));
      return f(e);
    }
    case engine_id::glibc_rand: {
      glibc_rand e(static_cast<std::uint32_t>(legacy_stream_seed(spec, stream)));
      return f(e);
    }
    case engine_id::msvc_rand: {
      msvc_rand e(static_cast<std::uint32_t>(legacy_stream_seed(spec, stream)));
      return f(e);
    }
    case engine_id::delphi: {
      delphi_random e(static_cast<std::uint32_t>(legacy_stream_seed(spec, stream)));
      return f(e);
    }
    case engine_id::dotnet: {
      dotnet_random e(static_cast<std::int32_t>(legacy_stream_seed(spec, stream)));
      return f(e);
    }
    case engine_id::java: {
      java_random e(legacy_stream_seed(spec, stream));
      return f(e);
    }
    case engine_id::mt19937: {
      mt19937_32 e(static_cast<std::uint32_t>(legacy_stream_seed(spec, stream)));
      return f(e);
    }
    case engine_id::minstd: {
      minstd_rand e(static_cast<std::uint32_t>(legacy_stream_seed(spec, stream)));
      return f(e);
    }
    case engine_id::secure:
      break;
  }
  // The calling thread's own engine (one engine per thread, chacha20.hpp): every stream
  // of a secure run is simply more of that thread's keystream.
  return f(secure_random());
}

}  // namespace fairdeck
