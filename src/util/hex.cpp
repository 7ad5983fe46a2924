// Hex encoding: see include/fairdeck/util/hex.hpp.
#include "fairdeck/util/hex.hpp"

#include <sodium.h>

namespace fairdeck {

std::string to_hex(std::span<const std::uint8_t> bytes) {
  std::string out(bytes.size() * 2 + 1, '\0');
  sodium_bin2hex(out.data(), out.size(), bytes.data(), bytes.size());  // lowercase
  out.pop_back();
  return out;
}

bool from_hex(std::string_view hex, std::span<std::uint8_t> out) noexcept {
  if (hex.size() != 2 * out.size()) return false;
  std::size_t len = 0;
  return sodium_hex2bin(out.data(), out.size(), hex.data(), hex.size(), nullptr, &len, nullptr) == 0 &&
         len == out.size();
}

}  // namespace fairdeck
