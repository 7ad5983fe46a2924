// Fuzzes parse_byte_size (shuffle-file --memory): any text either parses to at most 2^62
// bytes or is refused with std::invalid_argument — never another exception, a wrap or a
// crash; a plain number of bytes parses to itself, and format_byte_size never fails.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fairdeck/util/byte_size.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const std::uint64_t v = fairdeck::parse_byte_size(text);
    if (v > (std::uint64_t{1} << 62)) std::abort();
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos && std::to_string(v) != std::string(text)) {
      // leading zeros are fine ("007" = 7); anything else must round-trip
      if (text.find_first_not_of('0') != std::string_view::npos && text[0] != '0') std::abort();
    }
    (void)fairdeck::format_byte_size(v);
  } catch (const std::invalid_argument&) {
  }
  (void)fairdeck::format_byte_size(size * 0x9E3779B97F4A7C15ull);
  return 0;
}
