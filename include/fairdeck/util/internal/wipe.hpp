// Wiping a buffer that may hold a secret (a key, a key file's text) on every way out of a
// scope, exceptions included: the rule that secrets are wiped after use (sodium_memzero).
#pragma once

#include <cstddef>

#include <sodium.h>

namespace fairdeck::detail {

class wipe_on_exit {
 public:
  wipe_on_exit(void* p, std::size_t n) noexcept : p_(p), n_(n) {}
  ~wipe_on_exit() {
    if (n_ != 0) sodium_memzero(p_, n_);
  }
  wipe_on_exit(const wipe_on_exit&) = delete;
  wipe_on_exit& operator=(const wipe_on_exit&) = delete;
  // The buffer is handed on (returned): wiping it is now its new owner's job.
  void release() noexcept { n_ = 0; }

 private:
  void* p_;
  std::size_t n_;
};

}  // namespace fairdeck::detail
