// Probes for secrets left behind after use (a copy freed or a frame returned from without
// being wiped, against the rule that secrets are wiped after use, sodium_memzero):
//  * freed_heap_scan: while one runs on a thread, every block that thread frees through the
//    global operator delete is copied aside before it goes back to malloc; freed(p) then says
//    whether one held p. The test binary replaces operator delete in one file
//    (FAIRDECK_SECRET_SCAN_DELETE below).
//  * clear_dead_stack() / dead_stack_holds(p): zero, then search, the stack just below the
//    caller's frame, where the frames of the functions it called last lay.
// Neither works under AddressSanitizer or ThreadSanitizer (their allocators, fake stacks and
// shadow memory): secret_scan_works is false there and the tests skip.
#pragma once

#include <malloc.h>

#include <array>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <sodium.h>

#include "sanitizer_build.hpp"

namespace fairdeck::testing {

inline constexpr bool secret_scan_works = FAIRDECK_SLOW_BUILD == 0;
inline constexpr std::size_t stack_scan_bytes = std::size_t{256} << 10;

// Whether `pattern` occurs in [p, p + n), read through volatile loads and with no call: the
// stack probe must not put a frame of its own over what it reads.
[[gnu::always_inline]] inline bool holds(const volatile unsigned char* p, std::size_t n,
                                         std::string_view pattern) noexcept {
  if (pattern.empty() || pattern.size() > n) return false;
  for (std::size_t i = 0; i + pattern.size() <= n; ++i) {
    std::size_t k = 0;
    while (k < pattern.size() && p[i + k] == static_cast<unsigned char>(pattern[k])) ++k;
    if (k == pattern.size()) return true;
  }
  return false;
}

class freed_heap_scan {
 public:
  freed_heap_scan() : store_(store_bytes) {
    previous_ = active();
    active() = this;
  }
  ~freed_heap_scan() { stop(); }
  freed_heap_scan(const freed_heap_scan&) = delete;
  freed_heap_scan& operator=(const freed_heap_scan&) = delete;

  // Ends the scan early (before the test frees its own copies of the secret).
  void stop() noexcept {
    if (active() == this) active() = previous_;
  }
  // Whether a block freed during the scan held `pattern` (a secret or a piece of one).
  [[nodiscard]] bool freed(std::string_view pattern) const noexcept {
    for (std::size_t i = 0; i < blocks_; ++i)
      if (std::string_view(reinterpret_cast<const char*>(store_.data()) + spans_[i].first, spans_[i].second)
              .find(pattern) != std::string_view::npos)
        return true;
    return false;
  }
  [[nodiscard]] std::size_t blocks() const noexcept { return blocks_; }
  // More was freed than the scan could keep: a test asserts this is false.
  [[nodiscard]] bool overflowed() const noexcept { return overflowed_; }

  // Called by the replaced operator delete with every block before it is freed.
  static void inspect(void* block) noexcept {
    freed_heap_scan* s = active();
    if (s && block) s->keep(block, malloc_usable_size(block));
  }

 private:
  static constexpr std::size_t store_bytes = std::size_t{4} << 20, max_blocks = 4096;
  static freed_heap_scan*& active() noexcept {
    static thread_local freed_heap_scan* a = nullptr;
    return a;
  }
  void keep(const void* block, std::size_t n) noexcept {
    if (blocks_ == max_blocks || n > store_.size() - used_) {
      overflowed_ = true;
      return;
    }
    std::memcpy(store_.data() + used_, block, n);
    spans_[blocks_++] = {used_, n};
    used_ += n;
  }
  std::vector<unsigned char> store_;
  std::array<std::pair<std::size_t, std::size_t>, max_blocks> spans_{};
  std::size_t blocks_ = 0, used_ = 0;
  bool overflowed_ = false;
  freed_heap_scan* previous_ = nullptr;
};

// Zeroes stack_scan_bytes below the caller's frame, so that a later dead_stack_holds sees only
// what the calls in between left there.
[[gnu::noinline]] inline void clear_dead_stack() noexcept {
  unsigned char pad[stack_scan_bytes];
  sodium_memzero(pad, sizeof pad);
}

// Whether `pattern` lies in the stack_scan_bytes below the caller's frame (the dead frames of
// what it called). Reads below the stack pointer: only where clear_dead_stack ran first.
[[gnu::noinline]] inline bool dead_stack_holds(std::string_view pattern) noexcept {
  const auto* top = static_cast<const volatile unsigned char*>(__builtin_frame_address(0));
  return holds(top - stack_scan_bytes, stack_scan_bytes, pattern);
}

// Runs f() below a padding frame: a caller catching what f throws then runs the exception
// runtime's frames over the padding, not over f's dead frames.
template <class F>
[[gnu::noinline]] void below_padding(F&& f) {
  volatile unsigned char pad[16384];
  pad[0] = 0;
  f();
  pad[sizeof pad - 1] = 0;
}

// Positive controls: a copy of `secret` freed unwiped, and one left in a dead frame. A test
// checks that the probes see both, so that a probe that stopped working (operator delete not
// replaced, the stack laid out otherwise) cannot pass the tests unnoticed.
inline const char* volatile escaped = nullptr;
[[gnu::noinline]] inline void free_unwiped_copy(std::string_view secret) {
  const std::string copy(secret);
  escaped = copy.data();
}
[[gnu::noinline]] inline void leave_unwiped_copy_on_stack(std::string_view secret) {
  volatile char frame[256];
  for (std::size_t i = 0; i < secret.size() && i < sizeof frame; ++i) frame[i] = secret[i];
}

}  // namespace fairdeck::testing

// In exactly one file of a test binary, at global scope: every operator delete goes through
// the scan. Nothing under the sanitizers, whose runtimes own operator delete.
#if FAIRDECK_SLOW_BUILD
#define FAIRDECK_SECRET_SCAN_DELETE
#else
#define FAIRDECK_SECRET_SCAN_DELETE                                       \
  [[gnu::noinline]] void operator delete(void* p) noexcept {              \
    fairdeck::testing::freed_heap_scan::inspect(p);                       \
    std::free(p);                                                         \
  }                                                                       \
  [[gnu::noinline]] void operator delete(void* p, std::size_t) noexcept { \
    fairdeck::testing::freed_heap_scan::inspect(p);                       \
    std::free(p);                                                         \
  }
#endif
