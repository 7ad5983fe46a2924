#include "fairdeck/util/byte_size.hpp"

#include <cctype>
#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck {

namespace {
__extension__ using u128 = unsigned __int128;
constexpr std::uint64_t max_bytes = std::uint64_t{1} << 62;

[[noreturn]] void bad(std::string_view text, std::string_view why) {
  throw std::invalid_argument(fmt::format("invalid size '{}': {} (examples: 600M, 2G, 1.5G, 65536)", text, why));
}
}  // namespace

std::uint64_t parse_byte_size(std::string_view text) {
  std::size_t i = 0;
  std::uint64_t whole = 0;
  const auto digit = [&](std::size_t k) { return k < text.size() && std::isdigit(static_cast<unsigned char>(text[k])); };
  if (!digit(0)) bad(text, "expected a number");
  for (; digit(i); ++i) {
    if (whole > max_bytes / 10) bad(text, "too large");
    whole = whole * 10 + static_cast<std::uint64_t>(text[i] - '0');
  }
  // Fraction: up to 9 digits kept (exact in nanounits), further digits ignored.
  std::uint64_t frac = 0, frac_scale = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    if (!digit(i)) bad(text, "expected digits after '.'");
    for (; digit(i); ++i)
      if (frac_scale < 1'000'000'000) {
        frac = frac * 10 + static_cast<std::uint64_t>(text[i] - '0');
        frac_scale *= 10;
      }
  }
  std::string_view unit = text.substr(i);
  unsigned shift = 0;
  if (!unit.empty()) {
    switch (std::toupper(static_cast<unsigned char>(unit[0]))) {
      case 'K': shift = 10; break;
      case 'M': shift = 20; break;
      case 'G': shift = 30; break;
      case 'T': shift = 40; break;
      case 'B': shift = 0; break;
      default: bad(text, "unknown unit (use K, M, G or T)");
    }
    std::string_view rest = unit.substr(1);
    if (shift == 0) {  // a bare "B"
      if (!rest.empty()) bad(text, "unknown unit (use K, M, G or T)");
    } else if (!(rest.empty() || rest == "B" || rest == "b" || rest == "iB" || rest == "ib")) {
      bad(text, "unknown unit (use K, M, G or T)");
    }
  }
  if (shift == 0 && frac != 0) bad(text, "a fraction of a byte");
  if (whole > (max_bytes >> shift)) bad(text, "too large");
  const std::uint64_t unit_bytes = std::uint64_t{1} << shift;
  // frac / frac_scale of a unit, rounded down; unit_bytes <= 2^40 and frac < 10^9 < 2^30.
  const auto extra = static_cast<std::uint64_t>((static_cast<u128>(frac) * unit_bytes) / frac_scale);
  const std::uint64_t total = (whole << shift) + extra;
  if (total > max_bytes) bad(text, "too large");
  return total;
}

std::string format_byte_size(std::uint64_t bytes) {
  static constexpr const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  if (bytes < 1024) return fmt::format("{} B", bytes);
  double v = static_cast<double>(bytes);
  unsigned u = 0;
  while (v >= 1024 && u + 1 < std::size(units)) {
    v /= 1024;
    ++u;
  }
  return v >= 100 ? fmt::format("{:.0f} {}", v, units[u]) : v >= 10 ? fmt::format("{:.1f} {}", v, units[u]) : fmt::format("{:.2f} {}", v, units[u]);
}

}  // namespace fairdeck
