#include "fairdeck/util/printable.hpp"

#include <fmt/format.h>

namespace fairdeck {
namespace {

// Length of the well-formed, printable UTF-8 sequence at s[i] (Unicode 15, table 3-7), or 0.
// C1 controls (U+0080..U+009F) count as unprintable.
std::size_t utf8_len(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = 0;
  unsigned char lo = 0x80, hi = 0xbf;
  if (b0 == 0xc2) len = 2, lo = 0xa0;  // no C1 controls
  else if (b0 >= 0xc3 && b0 <= 0xdf) len = 2;
  else if (b0 == 0xe0) len = 3, lo = 0xa0;
  else if (b0 == 0xed) len = 3, hi = 0x9f;
  else if (b0 >= 0xe1 && b0 <= 0xef) len = 3;
  else if (b0 == 0xf0) len = 4, lo = 0x90;
  else if (b0 == 0xf4) len = 4, hi = 0x8f;
  else if (b0 >= 0xf1 && b0 <= 0xf3) len = 4;
  else return 0;
  if (i + len > s.size()) return 0;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return 0;
  }
  return len;
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_bytes) {
  std::string out;
  std::size_t i = 0;
  while (i < text.size() && i < max_bytes) {
    const auto ch = static_cast<unsigned char>(text[i]);
    if (ch >= 0x20 && ch < 0x7f) {
      out += static_cast<char>(ch);
      ++i;
    } else if (const std::size_t len = ch >= 0x80 ? utf8_len(text, i) : 0; len > 0) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      out += fmt::format("\\x{:02x}", ch);
      ++i;
    }
  }
  if (i < text.size()) out += "...";
  return out;
}

}  // namespace fairdeck
