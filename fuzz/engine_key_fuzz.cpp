// Fuzzes the engine options' parsers: engine names, 64-hex-digit keys (round trip through
// key_to_hex), key files (memfd) and make_engine_spec's combination rules. Errors are
// std::invalid_argument (std::runtime_error for an unreadable key file). Never crashes.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>

#include "fairdeck/random/engine_registry.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  if (size < 9) return 0;
  const std::uint8_t mode = data[0];
  std::uint64_t seed = 0;
  std::memcpy(&seed, data + 1, 8);
  const std::string_view text(reinterpret_cast<const char*>(data + 9), size - 9);
  try {
    switch (mode % 4) {
      case 0: {
        const engine_id id = parse_engine_name(text);
        if (info(id).name != text) std::abort();
        break;
      }
      case 1: {
        const chacha_key key = parse_key_hex(text);
        std::string lower(text);
        for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        if (key_to_hex(key) != lower) std::abort();
        break;
      }
      case 2: {
        static const int fd = ::memfd_create("key", MFD_CLOEXEC);
        if (fd < 0) std::abort();
        if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
          std::abort();
        (void)read_key_file("/proc/self/fd/" + std::to_string(fd));
        break;
      }
      default: {
        // name ; optional seed ; optional key, always with a seed so no OS entropy is needed
        const auto semi = text.find(';');
        const std::string_view name = text.substr(0, semi);
        const std::optional<std::string_view> key =
            semi == std::string_view::npos ? std::nullopt : std::optional(text.substr(semi + 1));
        const engine_spec spec = make_engine_spec(name, key ? std::nullopt : std::optional(seed), key);
        if (key && spec.id != engine_id::chacha20) std::abort();
        if (info(spec.id).seed_limit && spec.seed >= info(spec.id).seed_limit) std::abort();
        break;
      }
    }
  } catch (const std::invalid_argument&) {
  } catch (const std::runtime_error&) {
    if (mode % 4 != 2 && mode % 4 != 3) std::abort();  // I/O (key file) or entropy (chacha20 spec) only
  }
  return 0;
}
