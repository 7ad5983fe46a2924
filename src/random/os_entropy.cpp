#include "fairdeck/random/os_entropy.hpp"

#include <atomic>

#include <sodium.h>

namespace fairdeck {
namespace {

bool libsodium_source(std::span<std::byte> out) {
  // sodium_init() opens the OS source (getrandom, else /dev/urandom) and reports failure.
  if (sodium_init() < 0) return false;
  randombytes_buf(out.data(), out.size());
  return true;
}

std::atomic<entropy_source_fn> g_source{&libsodium_source};

}  // namespace

void os_entropy(std::span<std::byte> out) {
  if (!g_source.load()(out))
    throw entropy_error("the operating system provided no entropy (libsodium could not open getrandom or "
                        "/dev/urandom); fairdeck will not fall back to a predictable seed");
}

void set_entropy_source_for_testing(entropy_source_fn source) noexcept {
  g_source.store(source ? source : &libsodium_source);
}

}  // namespace fairdeck
