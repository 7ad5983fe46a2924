// Exact big-integer helpers shared by the exact mixing computations (mixing.cpp: riffles,
// shelf.cpp: shelf machines): n!, and a quotient num/den of big integers rounded once, to the
// nearest double or to a number of decimals.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>

#include <boost/multiprecision/cpp_int.hpp>

namespace fairdeck::detail {

namespace mp = boost::multiprecision;
using big = mp::cpp_int;

inline big factorial(std::uint64_t n) {
  big f = 1;
  for (std::uint64_t i = 2; i <= n; ++i) f *= i;
  return f;
}

// num/den (num >= 0, den > 0) rounded to the nearest double, without the gcd a rational would
// take: a 64-bit quotient plus a sticky bit for the remainder rounds exactly like the real value.
inline double to_double(const big& num, const big& den) {
  if (num == 0) return 0.0;
  const auto shift = 64 - (static_cast<long>(mp::msb(num)) - static_cast<long>(mp::msb(den)));  // quotient 2^63..2^65
  big q, rem;
  if (shift >= 0)
    mp::divide_qr(big(num << static_cast<unsigned>(shift)), den, q, rem);
  else
    mp::divide_qr(num, big(den << static_cast<unsigned>(-shift)), q, rem);
  long exponent = -shift;
  bool sticky = rem != 0;
  while (mp::msb(q) >= 64) {
    sticky |= mp::bit_test(q, 0);
    q >>= 1;
    ++exponent;
  }
  const auto bits = q.convert_to<std::uint64_t>() | (sticky ? 1U : 0U);  // below the rounding bit
  return std::ldexp(static_cast<double>(bits), static_cast<int>(exponent));
}

// num/den in [0, 1] to `places` decimals, rounded half up: "0.3340...".
inline std::string to_decimal(const big& num, const big& den, unsigned places = 30) {
  big scale = 1;
  for (unsigned i = 0; i < places; ++i) scale *= 10;
  const big q = (num * scale * 2 + den) / (den * 2);
  if (q >= scale) return "1." + std::string(places, '0');
  std::string digits = q.str();
  return "0." + std::string(places - digits.size(), '0') + digits;
}

}  // namespace fairdeck::detail
