// ChaCha20 engines (libsodium's crypto_stream_chacha20, Bernstein 2008).
//
//  chacha20_engine  the keystream for a given 256-bit key: reproducible, and secure while
//                   the key is secret. Stream s = nonce s (64-bit LE), block counter from 0;
//                   outputs are consecutive little-endian 64-bit words of the keystream, so
//                   any ChaCha20 implementation can re-derive them.
//  secure_engine    fairdeck's default: keyed from 256 bits of OS entropy, no seed accepted,
//                   fast key erasure (Bernstein, "Fast-key-erasure random-number
//                   generators", 2017): each refill replaces the key with the first 32 bytes
//                   of its own output, and every output word is wiped as it is handed out,
//                   so a later memory dump cannot reveal earlier deals.
//  secure_random()  the calling thread's own secure_engine: the safe default for code that
//                   just needs unpredictable cards.
//
// Threads: ONE ENGINE PER THREAD. No engine here is safe to share: two threads drawing from
// one engine race on its buffer position and receive repeated or zeroed words. Give every
// thread its own engine (secure_random() does), or guard a shared one with a mutex.
//
// Fork: a secure_engine keeps its key and buffer in an mmap'd page marked MADV_WIPEONFORK
// (Linux >= 4.14), so a child made by ANY kind of fork -- fork(), vfork-less clone(), a raw
// syscall(SYS_fork) that skips pthread_atfork -- sees a wiped page and re-keys from the OS
// before its next output. Where the kernel refuses the advice, a pthread_atfork child
// handler plus a getpid() check on every output catch the fork instead. Parent and child
// never deal the same cards.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include <sys/types.h>

namespace fairdeck {

using chacha_key = std::array<std::uint8_t, 32>;

// 64 hex digits (either case) -> key. Throws std::invalid_argument naming the problem.
[[nodiscard]] chacha_key parse_key_hex(std::string_view hex);
[[nodiscard]] std::string key_to_hex(const chacha_key& key);
// A key file: 64 hex digits, optionally followed by a newline or other trailing whitespace
// ("-": standard input). Keeps the key off the command line, where every user of the
// machine can read it in the process list. Throws std::runtime_error when the file cannot be
// read, std::invalid_argument (naming the file, never echoing its content) when it is not a
// key. Buffers holding the key are wiped.
[[nodiscard]] chacha_key read_key_file(std::string_view path);
// A key for --seed runs: four SplitMix64(seed) outputs, little-endian. Not secret.
[[nodiscard]] chacha_key key_from_seed(std::uint64_t seed) noexcept;

namespace detail {
inline constexpr std::size_t chacha_buffer_words = 128;  // 1 KiB of keystream per refill
void secure_wipe(void* p, std::size_t n) noexcept;
extern std::atomic<std::uint64_t> fork_generation;  // bumped in every forked child (atfork path)

// A secure_engine's secrets, alone in one page of their own (mmap'd, MADV_WIPEONFORK and
// MADV_DONTDUMP where the kernel allows). `live` is 1 while keyed: a forked child finds 0.
struct secure_state {
  std::array<std::uint64_t, chacha_buffer_words> buf;
  chacha_key key;
  std::size_t pos;
  std::uint32_t live;
  pid_t pid;                // fallback path: the process that keyed this state
  std::uint64_t fork_gen;   // fallback path: fork_generation when keyed
};

// Tests only: make new secure engines use the atfork + pid fallback as if the kernel had
// refused MADV_WIPEONFORK.
void force_fork_fallback_for_testing(bool on) noexcept;

// libsodium's sodium_init() aborts the process when the OS has no entropy. This probes OS
// entropy first (throwing entropy_error, a clean one-line failure) and calls sodium_init()
// only then; once it has succeeded it is a no-op.
void prepare_sodium();
}  // namespace detail

class chacha20_engine {
 public:
  using result_type = std::uint64_t;
  // Throws entropy_error when the OS has no entropy (libsodium cannot initialise).
  explicit chacha20_engine(const chacha_key& key, std::uint64_t stream = 0);
  ~chacha20_engine();
  chacha20_engine(const chacha20_engine&) = delete;
  chacha20_engine& operator=(const chacha20_engine&) = delete;
  chacha20_engine(chacha20_engine&& other) noexcept;
  chacha20_engine& operator=(chacha20_engine&& other) noexcept;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() noexcept {
    if (pos_ >= buf_.size()) [[unlikely]] refill();  // >=: never past the buffer
    return buf_[pos_++];
  }

 private:
  void refill() noexcept;
  chacha_key key_;
  std::uint64_t nonce_;
  std::uint64_t next_block_ = 0;
  std::array<std::uint64_t, detail::chacha_buffer_words> buf_;
  std::size_t pos_ = detail::chacha_buffer_words;
};

class secure_engine {
 public:
  using result_type = std::uint64_t;
  secure_engine();  // throws entropy_error if the OS has no entropy
  ~secure_engine();
  secure_engine(const secure_engine&) = delete;
  secure_engine& operator=(const secure_engine&) = delete;
  secure_engine(secure_engine&& other) noexcept;
  secure_engine& operator=(secure_engine&& other) noexcept;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() {
    detail::secure_state* s = st_;
    // >= rather than ==: a position past the end (a race the contract forbids, or memory
    // corruption) refills instead of reading beyond the buffer.
    if (!s || s->pos >= detail::chacha_buffer_words || s->live != 1 || (!wipe_on_fork_ && forked())) [[unlikely]] {
      refill();
      s = st_;
    }
    const result_type v = s->buf[s->pos];
    s->buf[s->pos++] = 0;  // forward secrecy for outputs already handed out
    return v;
  }
  // True when this engine's page is wiped in a forked child by the kernel (MADV_WIPEONFORK);
  // false when it relies on the atfork handler and a pid check.
  [[nodiscard]] bool wipes_on_fork() const noexcept { return wipe_on_fork_; }

 private:
  [[nodiscard]] bool forked() const noexcept;  // fallback path only
  void refill();
  void release() noexcept;
  detail::secure_state* st_ = nullptr;
  bool wipe_on_fork_ = false;
};

// The calling thread's secure engine, created (keyed from OS entropy) on first use and wiped
// when the thread exits. Throws entropy_error when the OS has no entropy. Never hand the
// reference to another thread.
[[nodiscard]] secure_engine& secure_random();

}  // namespace fairdeck
