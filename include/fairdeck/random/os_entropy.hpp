// Operating-system entropy: getrandom(2), retried on EINTR; /dev/urandom only when the
// kernel lacks getrandom (ENOSYS). Never time, PIDs or any other predictable fallback.
#pragma once

#include <cstddef>
#include <span>
#include <stdexcept>

namespace fairdeck {

// Raised when the OS cannot provide entropy. fairdeck never falls back to time or PIDs.
class entropy_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Fills `out` with OS entropy or throws entropy_error.
void os_entropy(std::span<std::byte> out);

// Tests only: replace the entropy source (nullptr restores libsodium). A source returns
// false to simulate an OS without entropy.
using entropy_source_fn = bool (*)(std::span<std::byte> out);
void set_entropy_source_for_testing(entropy_source_fn source) noexcept;

}  // namespace fairdeck
