#include "fairdeck/certify/sources.hpp"

#include <array>
#include <bit>
#include <charconv>
#include <istream>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/legacy.hpp"

namespace fairdeck::certify {
namespace {

constexpr std::size_t buffer_values = 1u << 13;
constexpr std::uint64_t progress_every = std::uint64_t{1} << 20;

// Runs next(buffer) -> values written (0: end) into the battery with progress and stops.
template <class Next>
std::uint64_t pump(battery& b, std::uint64_t count, const run_control& rc, Next&& next, std::uint64_t total = 0) {
  if (total == 0 && count != UINT64_MAX) total = count;
  std::vector<std::uint64_t> buf(buffer_values);
  std::uint64_t done = 0, reported = 0;
  while (done < count && !rc.stopped()) {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf.size(), count - done));
    const std::size_t got = next(std::span(buf.data(), want));
    if (got == 0) break;
    b.feed(std::span<const std::uint64_t>(buf.data(), got));
    done += got;
    if (done - reported >= progress_every) {
      rc.progress(done, total);
      reported = done;
    }
  }
  return done;
}

template <class E>
constexpr std::uint64_t span_of() {  // max - min + 1, 0 for the full 2^64
  return static_cast<std::uint64_t>(E::max()) - static_cast<std::uint64_t>(E::min()) + 1;
}

template <class E>
stream_spec spec_of() {
  constexpr std::uint64_t s = span_of<E>();
  if (s == 0) return stream_spec::raw_words(64);
  if (std::has_single_bit(s) && s >= 256) return stream_spec::raw_words(static_cast<unsigned>(std::countr_zero(s)));
  return stream_spec::scaled(s);
}

// IBM RANDU.
struct randu {
  std::uint32_t x;
  std::uint64_t operator()() { return x = static_cast<std::uint32_t>((std::uint64_t{x} * 65539u) & 0x7fffffffu); }
};
// ANSI C sample rand() as glibc's TYPE_0: the whole 31-bit LCG state is the output.
struct ansi_c {
  std::uint32_t x;
  std::uint64_t operator()() { return x = (x * 1103515245u + 12345u) & 0x7fffffffu; }
};

constexpr std::array bad_catalog = {
    known_bad_info{known_bad::randu, "randu", "IBM RANDU, x' = 65539 x mod 2^31 (31-bit words)"},
    known_bad_info{known_bad::minstd_low, "minstd-low",
                   "std::minstd_rand: 32-bit words from the low 16 bits of two outputs"},
    known_bad_info{known_bad::ansi_c_mod52, "ansi-c-mod52",
                   "ANSI C / glibc TYPE_0 rand() (31-bit LCG mod 2^31) % 52"},
    known_bad_info{known_bad::msvc_mod52, "msvc-mod52", "Microsoft C rand() (15 bits) % 52"},
    known_bad_info{known_bad::java_abs_mod52, "java-abs-mod52", "Java Math.abs(rnd.nextInt()) % 52"},
    known_bad_info{known_bad::glibc_mod52, "glibc-mod52", "glibc rand() (TYPE_3 additive feedback) % 52"},
};

}  // namespace

stream_spec engine_raw_spec(const engine_spec& engine) {
  return visit_engine(engine, 0, [](auto& e) { return spec_of<std::remove_cvref_t<decltype(e)>>(); });
}

std::uint64_t feed_engine(const engine_spec& engine, std::uint64_t range, std::uint64_t count, battery& b,
                          const run_control& rc) {
  return visit_engine(engine, 0, [&](auto& e) {
    using E = std::remove_cvref_t<decltype(e)>;
    if (range) {
      return pump(b, count, rc, [&](std::span<std::uint64_t> out) {
        for (auto& v : out) v = draw_below(e, range);
        return out.size();
      });
    }
    constexpr auto lo = static_cast<std::uint64_t>(E::min());
    return pump(b, count, rc, [&](std::span<std::uint64_t> out) {
      for (auto& v : out) v = static_cast<std::uint64_t>(e()) - lo;
      return out.size();
    });
  });
}

std::uint64_t feed_raw(std::istream& in, unsigned bits, std::uint64_t limit, battery& b, const run_control& rc,
                       std::uint64_t expected) {
  if (bits != 32 && bits != 64) throw std::invalid_argument(fmt::format("a raw word is 32 or 64 bits, not {}", bits));
  const std::size_t width = bits / 8;
  std::vector<unsigned char> bytes;
  std::uint64_t total_bytes = 0;
  const std::uint64_t n = pump(b, limit, rc, [&](std::span<std::uint64_t> out) -> std::size_t {
    bytes.resize(out.size() * width);
    in.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    total_bytes += got;
    if (got % width) throw std::runtime_error(fmt::format("raw input ends in a partial {}-bit word ({} bytes read)",
                                                          bits, total_bytes));
    const std::size_t words = got / width;
    for (std::size_t i = 0; i < words; ++i) {
      std::uint64_t v = 0;
      for (std::size_t k = 0; k < width; ++k) v |= std::uint64_t{bytes[i * width + k]} << (8 * k);
      out[i] = v;
    }
    return words;
  }, std::min(expected, limit == UINT64_MAX ? expected : limit));
  if (in.bad()) throw std::runtime_error("read error on the raw input");
  return n;
}

std::uint64_t feed_scaled(std::istream& in, std::uint64_t range, std::uint64_t limit, battery& b,
                          const run_control& rc) {
  std::string line;
  std::uint64_t line_no = 0;
  const std::uint64_t n = pump(b, limit, rc, [&](std::span<std::uint64_t> out) -> std::size_t {
    std::size_t got = 0;
    while (got < out.size() && std::getline(in, line)) {
      ++line_no;
      std::string_view s(line);
      if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
      while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
      while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
      if (s.empty() || s.front() == '#') continue;
      std::uint64_t v = 0;
      const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
      if (ec != std::errc() || end != s.data() + s.size())
        throw std::runtime_error(fmt::format("scaled input line {}: '{}' is not a non-negative integer", line_no,
                                             s.substr(0, 40)));
      if (v >= range)
        throw std::runtime_error(fmt::format("scaled input line {}: {} is outside [0, {})", line_no, v, range));
      out[got++] = v;
    }
    return got;
  });
  if (in.bad()) throw std::runtime_error("read error on the scaled input");
  return n;
}

std::span<const known_bad_info> known_bad_catalog() noexcept { return bad_catalog; }

known_bad parse_known_bad(std::string_view name) {
  std::string names;
  for (const auto& k : bad_catalog) {
    if (k.name == name) return k.id;
    names += fmt::format("{}{}", names.empty() ? "" : ", ", k.name);
  }
  throw std::invalid_argument(fmt::format("unknown known-bad generator '{}' (choose from {})", name, names));
}

stream_spec known_bad_spec(known_bad id) {
  switch (id) {
    case known_bad::randu: return stream_spec::raw_words(31);
    case known_bad::minstd_low: return stream_spec::raw_words(32);
    default: return stream_spec::scaled(52);
  }
}

std::uint64_t feed_known_bad(known_bad id, std::uint64_t seed, std::uint64_t count, battery& b,
                             const run_control& rc) {
  const auto s32 = static_cast<std::uint32_t>(seed);
  auto run = [&](auto gen) {
    return pump(b, count, rc, [&](std::span<std::uint64_t> out) {
      for (auto& v : out) v = gen();
      return out.size();
    });
  };
  switch (id) {
    case known_bad::randu:
      return run(randu{s32 | 1u});  // RANDU needs an odd seed
    case known_bad::minstd_low: {
      minstd_rand g(s32);
      return run([&] { return (std::uint64_t{g() & 0xffffu} << 16) | (g() & 0xffffu); });
    }
    case known_bad::ansi_c_mod52:
      return run([g = ansi_c{s32}]() mutable { return g() % 52; });
    case known_bad::msvc_mod52: {
      msvc_rand g(s32);
      return run([&] { return std::uint64_t{g()} % 52; });
    }
    case known_bad::java_abs_mod52: {
      java_random g(seed);
      return run([&] {
        const auto x = static_cast<std::int32_t>(g());
        // Math.abs(Integer.MIN_VALUE) stays negative and % 52 then gives a negative index:
        // the idiom's other bug (once in 2^32 draws); it is counted here as 0.
        const std::int64_t a = x < 0 ? -static_cast<std::int64_t>(x) : x;
        return static_cast<std::uint64_t>((a > 0x7fffffff ? 0 : a) % 52);
      });
    }
    case known_bad::glibc_mod52: {
      glibc_rand g(s32);
      return run([&] { return std::uint64_t{g()} % 52; });
    }
  }
  return 0;
}

}  // namespace fairdeck::certify
