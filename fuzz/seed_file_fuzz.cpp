// Fuzzes read_seed_file on arbitrary file contents (an in-memory file, memfd_create): it
// returns a seed only for 64 hex digits plus trailing whitespace, and then the seed's hex is
// those digits in lowercase; anything else is a fair_input_error. Never crashes.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include "fairdeck/security/provably_fair.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  static const int fd = ::memfd_create("seed", MFD_CLOEXEC);
  if (fd < 0) std::abort();
  if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, data, size, 0) != static_cast<ssize_t>(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const fair::server_seed seed = fair::read_seed_file(path);
    while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ' || text.back() == '\t'))
      text.pop_back();
    for (auto& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (seed.hex() != text) std::abort();
  } catch (const fair::fair_input_error&) {
  }
  return 0;
}
