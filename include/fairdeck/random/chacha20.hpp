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
//                   so a later memory dump cannot reveal earlier deals. After fork() the
//                   child re-keys from OS entropy before its next output.
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fairdeck {

using chacha_key = std::array<std::uint8_t, 32>;

// 64 hex digits (either case) -> key. Throws std::invalid_argument naming the problem.
[[nodiscard]] chacha_key parse_key_hex(std::string_view hex);
[[nodiscard]] std::string key_to_hex(const chacha_key& key);
// A key for --seed runs: four SplitMix64(seed) outputs, little-endian. Not secret.
[[nodiscard]] chacha_key key_from_seed(std::uint64_t seed) noexcept;

namespace detail {
inline constexpr std::size_t chacha_buffer_words = 128;  // 1 KiB of keystream per refill
void secure_wipe(void* p, std::size_t n) noexcept;
extern std::atomic<std::uint64_t> fork_generation;  // bumped in every forked child
}  // namespace detail

class chacha20_engine {
 public:
  using result_type = std::uint64_t;
  explicit chacha20_engine(const chacha_key& key, std::uint64_t stream = 0) noexcept;
  ~chacha20_engine();
  chacha20_engine(const chacha20_engine&) = delete;
  chacha20_engine& operator=(const chacha20_engine&) = delete;
  chacha20_engine(chacha20_engine&& other) noexcept;
  chacha20_engine& operator=(chacha20_engine&& other) noexcept;

  static constexpr result_type min() noexcept { return 0; }
  static constexpr result_type max() noexcept { return ~result_type{0}; }
  result_type operator()() noexcept {
    if (pos_ == buf_.size()) [[unlikely]] refill();
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
    if (pos_ == buf_.size() || fork_gen_ != detail::fork_generation.load(std::memory_order_relaxed)) [[unlikely]]
      refill();
    const result_type v = buf_[pos_];
    buf_[pos_++] = 0;  // forward secrecy for outputs already handed out
    return v;
  }

 private:
  void refill();
  chacha_key key_;
  std::array<std::uint64_t, detail::chacha_buffer_words> buf_;
  std::size_t pos_ = detail::chacha_buffer_words;
  std::uint64_t fork_gen_ = 0;
};

}  // namespace fairdeck
