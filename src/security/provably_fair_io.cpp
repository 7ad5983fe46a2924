// Text and file input for provably fair dealing: every parser names what is wrong.
#include <cerrno>
#include <charconv>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>
#include <sodium.h>

#include "fairdeck/random/chacha20.hpp"  // detail::secure_wipe
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/util/printable.hpp"
#include "fairdeck/util/secret_file.hpp"

namespace fairdeck::fair {
namespace {

// User text for an error message: the one escaping rule (util/printable.hpp).
std::string shown(std::string_view text) { return printable(text); }

bool is_hex_digit(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }

// Offset of the first byte that is not well-formed UTF-8 (Unicode 15, table 3-7), or npos.
std::size_t first_invalid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<unsigned char>(s[i]);
    std::size_t len = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // allowed range of the second byte
    if (b0 < 0x80) len = 1;
    else if (b0 >= 0xc2 && b0 <= 0xdf) len = 2;
    else if (b0 == 0xe0) len = 3, lo = 0xa0;
    else if (b0 == 0xed) len = 3, hi = 0x9f;  // no UTF-16 surrogates
    else if (b0 >= 0xe1 && b0 <= 0xef) len = 3;
    else if (b0 == 0xf0) len = 4, lo = 0x90;
    else if (b0 == 0xf4) len = 4, hi = 0x8f;  // nothing above U+10FFFF
    else if (b0 >= 0xf1 && b0 <= 0xf3) len = 4;
    else return i;
    if (i + len > s.size()) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto b = static_cast<unsigned char>(s[i + k]);
      if (b < (k == 1 ? lo : 0x80) || b > (k == 1 ? hi : 0xbf)) return i;
    }
    i += len;
  }
  return std::string_view::npos;
}

[[noreturn]] void fail_io(std::string_view action, const std::filesystem::path& path, int err) {
  throw std::runtime_error(fmt::format("cannot {} {}: {}", action, path.string(), std::strerror(err)));
}

}  // namespace

digest parse_hex32(std::string_view hex, std::string_view what) {
  if (hex.empty()) throw fair_input_error(fmt::format("{} is empty: expected 64 hex digits", what));
  for (std::size_t i = 0; i < hex.size(); ++i)
    if (!is_hex_digit(hex[i]))
      throw fair_input_error(fmt::format("{} has a non-hex character '{}' at position {} (expected 64 hex digits)", what,
                                         shown(hex.substr(i, 1)), i + 1));
  if (hex.size() != 2 * digest_bytes)
    throw fair_input_error(fmt::format("{} must be 64 hex digits (32 bytes), got {}", what, hex.size()));
  digest out{};
  std::size_t written = 0;
  if (sodium_hex2bin(out.data(), out.size(), hex.data(), hex.size(), nullptr, &written, nullptr) != 0 ||
      written != out.size())
    throw fair_input_error(fmt::format("{} is not valid hex", what));
  return out;
}

std::uint64_t parse_nonce(std::string_view text) {
  constexpr std::string_view range = "a decimal integer 0..18446744073709551615";
  if (text.empty()) throw fair_input_error(fmt::format("nonce is empty: expected {}", range));
  for (char c : text)
    if (c < '0' || c > '9')
      throw fair_input_error(fmt::format("nonce '{}' is not {} (digits only, no sign or spaces)", shown(text), range));
  if (text.size() > 1 && text[0] == '0')
    throw fair_input_error(fmt::format("nonce '{}' has leading zeros: it is hashed as text, so write it without them",
                                       shown(text)));
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc::result_out_of_range)
    throw fair_input_error(fmt::format("nonce '{}' is larger than 2^64-1 = 18446744073709551615", shown(text)));
  if (ec != std::errc{} || end != text.data() + text.size())
    throw fair_input_error(fmt::format("nonce '{}' is not {}", shown(text), range));
  return n;
}

void validate_client_seed(std::string_view client_seed) {
  if (client_seed.empty())
    throw fair_input_error("client seed is empty: the player's seed is what makes the deal theirs");
  if (client_seed.size() > max_client_seed_bytes)
    throw fair_input_error(fmt::format("client seed is {} bytes; at most {} are allowed", client_seed.size(),
                                       max_client_seed_bytes));
  if (const auto bad = first_invalid_utf8(client_seed); bad != std::string_view::npos)
    throw fair_input_error(fmt::format("client seed is not valid UTF-8 (byte {} is 0x{:02x})", bad + 1,
                                       static_cast<unsigned char>(client_seed[bad])));
  // Control characters are refused: a stray newline or tab is the classic reason two tools
  // "disagree" about a seed that looks identical on screen.
  for (std::size_t i = 0; i < client_seed.size(); ++i) {
    const auto b = static_cast<unsigned char>(client_seed[i]);
    if (b < 0x20 || b == 0x7f)
      throw fair_input_error(fmt::format("client seed contains a control character (byte {} is 0x{:02x})", i + 1, b));
  }
}

std::vector<card_t> parse_faces(std::string_view text, const deck_spec& spec) {
  std::vector<card_t> out;
  auto is_sep = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == ','; };
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && is_sep(text[i])) ++i;
    std::size_t j = i;
    while (j < text.size() && !is_sep(text[j])) ++j;
    if (j > i) out.push_back(parse_card(text.substr(i, j - i), spec));
    i = j;
  }
  return out;
}

// ---- seed file ----

void save_seed_file(const std::filesystem::path& path, const server_seed& seed) {
  // util/secret_file: O_EXCL (even a dangling symlink at the path refuses), 0600, synced with
  // its directory; so a published commitment's seed can never be replaced by accident, and a
  // crash right after 'fair commit' cannot lose it.
  std::string text = seed.hex();
  text += '\n';  // fits the capacity hex() reserved: no reallocation leaves an unwiped copy
  try {
    create_secret_file(path, text);
  } catch (const secret_file_error& e) {
    detail::secure_wipe(text.data(), text.size());
    if (e.kind() == secret_file_error::kind_t::exists)
      throw std::runtime_error(fmt::format("{} already exists: a server seed file is never overwritten", path.string()));
    throw;
  }
  detail::secure_wipe(text.data(), text.size());
}

server_seed create_seed_file(const std::filesystem::path& path) {
  server_seed seed = server_seed::generate();
  save_seed_file(path, seed);
  return seed;
}

server_seed read_seed_file(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_io("open", path, errno);
  std::array<char, 256> buf{};
  std::size_t len = 0;
  for (;;) {
    const ssize_t n = ::read(fd, buf.data() + len, buf.size() - len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const int err = errno;
      ::close(fd);
      fail_io("read", path, err);
    }
    if (n == 0) break;
    len += static_cast<std::size_t>(n);
    if (len == buf.size()) break;
  }
  ::close(fd);
  std::string_view text(buf.data(), len);
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  try {
    if (len == buf.size()) throw fair_input_error("too large for a seed file");
    server_seed seed = server_seed::from_hex(text);
    detail::secure_wipe(buf.data(), buf.size());
    return seed;
  } catch (const fair_input_error& e) {
    detail::secure_wipe(buf.data(), buf.size());
    throw fair_input_error(fmt::format("{} is not a server seed file: {}", path.string(), e.what()));
  }
}

}  // namespace fairdeck::fair
