#include "fairdeck/random/chacha20.hpp"

#include <bit>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include <fmt/format.h>
#include <pthread.h>
#include <sodium.h>

#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/random/splitmix64.hpp"

namespace fairdeck {

namespace detail {
std::atomic<std::uint64_t> fork_generation{0};
void secure_wipe(void* p, std::size_t n) noexcept { sodium_memzero(p, n); }
}  // namespace detail

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Keystream bytes -> little-endian words, the same on every platform.
void bytes_to_words(const std::uint8_t* bytes, std::uint64_t* words, std::size_t n) noexcept {
  std::memcpy(words, bytes, n * 8);
  if constexpr (std::endian::native == std::endian::big)
    for (std::size_t i = 0; i < n; ++i) words[i] = __builtin_bswap64(words[i]);  // std::byteswap is C++23
}

void keystream(std::uint8_t* out, std::size_t len, std::uint64_t nonce, std::uint64_t block,
               const chacha_key& key) noexcept {
  // libsodium picks its SIMD ChaCha20 (AVX2 where available) in sodium_init(); without it a
  // seeded chacha20 engine ran the portable code at less than half the speed. The output is
  // identical either way.
  [[maybe_unused]] static const int sodium_ready = sodium_init();
  std::uint8_t n[crypto_stream_chacha20_NONCEBYTES];
  for (int i = 0; i < 8; ++i) n[i] = static_cast<std::uint8_t>(nonce >> (8 * i));
  std::memset(out, 0, len);
  crypto_stream_chacha20_xor_ic(out, out, len, n, block, key.data());
}

void register_fork_handler() {
  static std::once_flag once;
  std::call_once(once, [] {
    pthread_atfork(nullptr, nullptr, [] { detail::fork_generation.fetch_add(1, std::memory_order_relaxed); });
  });
}

}  // namespace

chacha_key parse_key_hex(std::string_view hex) {
  if (hex.size() != 64)
    throw std::invalid_argument(fmt::format("key must be 64 hex digits (256 bits), got {} characters", hex.size()));
  chacha_key key{};
  for (std::size_t i = 0; i < 32; ++i) {
    const int hi = hex_value(hex[2 * i]), lo = hex_value(hex[2 * i + 1]);
    if (hi < 0 || lo < 0)
      throw std::invalid_argument(fmt::format("key has a non-hex character at position {}", hi < 0 ? 2 * i + 1 : 2 * i + 2));
    key[i] = static_cast<std::uint8_t>(hi * 16 + lo);
  }
  return key;
}

std::string key_to_hex(const chacha_key& key) {
  std::string out;
  for (auto b : key) out += fmt::format("{:02x}", b);
  return out;
}

chacha_key key_from_seed(std::uint64_t seed) noexcept {
  chacha_key key{};
  splitmix64 sm(seed);
  for (std::size_t w = 0; w < 4; ++w) {
    const std::uint64_t v = sm();
    for (std::size_t b = 0; b < 8; ++b) key[8 * w + b] = static_cast<std::uint8_t>(v >> (8 * b));
  }
  return key;
}

// ---- chacha20_engine ----

chacha20_engine::chacha20_engine(const chacha_key& key, std::uint64_t stream) noexcept : key_(key), nonce_(stream) {}

chacha20_engine::~chacha20_engine() {
  detail::secure_wipe(key_.data(), key_.size());
  detail::secure_wipe(buf_.data(), sizeof buf_);
}

chacha20_engine::chacha20_engine(chacha20_engine&& o) noexcept
    : key_(o.key_), nonce_(o.nonce_), next_block_(o.next_block_), buf_(o.buf_), pos_(o.pos_) {
  detail::secure_wipe(o.key_.data(), o.key_.size());
  detail::secure_wipe(o.buf_.data(), sizeof o.buf_);
  o.pos_ = o.buf_.size();
}

chacha20_engine& chacha20_engine::operator=(chacha20_engine&& o) noexcept {
  if (this != &o) {
    key_ = o.key_;
    nonce_ = o.nonce_;
    next_block_ = o.next_block_;
    buf_ = o.buf_;
    pos_ = o.pos_;
    detail::secure_wipe(o.key_.data(), o.key_.size());
    detail::secure_wipe(o.buf_.data(), sizeof o.buf_);
    o.pos_ = o.buf_.size();
  }
  return *this;
}

void chacha20_engine::refill() noexcept {
  constexpr std::size_t bytes = detail::chacha_buffer_words * 8;
  alignas(64) std::uint8_t tmp[bytes];
  keystream(tmp, bytes, nonce_, next_block_, key_);
  next_block_ += bytes / 64;
  bytes_to_words(tmp, buf_.data(), buf_.size());
  detail::secure_wipe(tmp, bytes);
  pos_ = 0;
}

// ---- secure_engine ----

secure_engine::secure_engine() {
  register_fork_handler();
  fork_gen_ = detail::fork_generation.load(std::memory_order_relaxed);
  os_entropy(std::as_writable_bytes(std::span(key_)));
}

secure_engine::~secure_engine() {
  detail::secure_wipe(key_.data(), key_.size());
  detail::secure_wipe(buf_.data(), sizeof buf_);
}

secure_engine::secure_engine(secure_engine&& o) noexcept : key_(o.key_), buf_(o.buf_), pos_(o.pos_), fork_gen_(o.fork_gen_) {
  detail::secure_wipe(o.key_.data(), o.key_.size());
  detail::secure_wipe(o.buf_.data(), sizeof o.buf_);
  o.pos_ = o.buf_.size();
  o.fork_gen_ = ~std::uint64_t{0};  // a moved-from engine re-keys from the OS if used again
}

secure_engine& secure_engine::operator=(secure_engine&& o) noexcept {
  if (this != &o) {
    key_ = o.key_;
    buf_ = o.buf_;
    pos_ = o.pos_;
    fork_gen_ = o.fork_gen_;
    detail::secure_wipe(o.key_.data(), o.key_.size());
    detail::secure_wipe(o.buf_.data(), sizeof o.buf_);
    o.pos_ = o.buf_.size();
    o.fork_gen_ = ~std::uint64_t{0};
  }
  return *this;
}

void secure_engine::refill() {
  const std::uint64_t gen = detail::fork_generation.load(std::memory_order_relaxed);
  if (gen != fork_gen_) {
    // Forked (or moved-from): parent and child must never share outputs.
    os_entropy(std::as_writable_bytes(std::span(key_)));
    fork_gen_ = gen;
  }
  constexpr std::size_t bytes = 32 + detail::chacha_buffer_words * 8;
  alignas(64) std::uint8_t tmp[bytes];
  keystream(tmp, bytes, 0, 0, key_);
  std::memcpy(key_.data(), tmp, 32);  // fast key erasure: the old key is gone
  bytes_to_words(tmp + 32, buf_.data(), buf_.size());
  detail::secure_wipe(tmp, bytes);
  pos_ = 0;
}

}  // namespace fairdeck
