#include "fairdeck/random/chacha20.hpp"

#include <bit>
#include <cstring>
#include <mutex>
#include <new>
#include <stdexcept>

#include <fmt/format.h>
#include <pthread.h>
#include <sodium.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/random/splitmix64.hpp"
#include "fairdeck/util/printable.hpp"
#include "fairdeck/util/read_input.hpp"

namespace fairdeck {

namespace detail {
std::atomic<std::uint64_t> fork_generation{0};
void secure_wipe(void* p, std::size_t n) noexcept { sodium_memzero(p, n); }

namespace {
std::atomic<bool> g_force_fallback{false};
std::once_flag g_sodium_once;
}  // namespace

void force_fork_fallback_for_testing(bool on) noexcept { g_force_fallback.store(on); }

void prepare_sodium() {
  static std::atomic<bool> ready{false};
  if (ready.load(std::memory_order_acquire)) return;
  // Probe with our own reader: it throws entropy_error naming the cause, where sodium_init()
  // would abort() inside randombytes_stir().
  std::array<std::byte, 16> probe{};
  os_entropy(probe);
  secure_wipe(probe.data(), probe.size());
  std::call_once(g_sodium_once, [] {
    if (sodium_init() < 0) throw entropy_error("libsodium failed to initialise");
  });
  ready.store(true, std::memory_order_release);
}
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
  // libsodium picks its SIMD ChaCha20 (AVX2 where available) in sodium_init(), which every
  // engine's constructor ran (detail::prepare_sodium); the output is identical either way.
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

chacha_key read_key_file(std::string_view path) {
  std::string text = read_secret_input(path, 4096, "key file");
  std::string_view hex(text);
  while (!hex.empty() && (hex.back() == '\n' || hex.back() == '\r' || hex.back() == ' ' || hex.back() == '\t'))
    hex.remove_suffix(1);
  try {
    const chacha_key key = parse_key_hex(hex);
    detail::secure_wipe(text.data(), text.size());
    return key;
  } catch (const std::invalid_argument& e) {
    detail::secure_wipe(text.data(), text.size());
    throw std::invalid_argument(fmt::format("key file {}: {}", path == "-" ? std::string("(stdin)") : printable(path, 200),
                                            e.what()));
  }
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

chacha20_engine::chacha20_engine(const chacha_key& key, std::uint64_t stream) : key_(key), nonce_(stream) {
  detail::prepare_sodium();
}

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

namespace {

// One private anonymous page per engine: wiped in any forked child when the kernel accepts
// MADV_WIPEONFORK; never written to a core dump (MADV_DONTDUMP) either way.
detail::secure_state* map_state(bool& wipe_on_fork) {
  static_assert(sizeof(detail::secure_state) <= 4096);
  const long page = ::sysconf(_SC_PAGESIZE);
  const std::size_t len = page > 0 ? static_cast<std::size_t>(page) : 4096;
  void* p = ::mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  (void)::madvise(p, len, MADV_DONTDUMP);
  wipe_on_fork = !detail::g_force_fallback.load() && ::madvise(p, len, MADV_WIPEONFORK) == 0;
  return static_cast<detail::secure_state*>(p);  // zero-filled: live == 0, keyed on first use
}

void unmap_state(detail::secure_state* s) noexcept {
  if (!s) return;
  detail::secure_wipe(s, sizeof *s);
  const long page = ::sysconf(_SC_PAGESIZE);
  ::munmap(s, page > 0 ? static_cast<std::size_t>(page) : 4096);
}

}  // namespace

secure_engine::secure_engine() {
  register_fork_handler();
  detail::prepare_sodium();
  st_ = map_state(wipe_on_fork_);
  try {
    refill();  // keys now: no OS entropy -> entropy_error here, not at the first draw
  } catch (...) {
    release();
    throw;
  }
}

secure_engine::~secure_engine() { release(); }

void secure_engine::release() noexcept {
  unmap_state(st_);
  st_ = nullptr;
}

secure_engine::secure_engine(secure_engine&& o) noexcept : st_(o.st_), wipe_on_fork_(o.wipe_on_fork_) {
  o.st_ = nullptr;  // a moved-from engine maps a fresh page and re-keys from the OS if used again
}

secure_engine& secure_engine::operator=(secure_engine&& o) noexcept {
  if (this != &o) {
    release();
    st_ = o.st_;
    wipe_on_fork_ = o.wipe_on_fork_;
    o.st_ = nullptr;
  }
  return *this;
}

bool secure_engine::forked() const noexcept {
  return st_->fork_gen != detail::fork_generation.load(std::memory_order_relaxed) || st_->pid != ::getpid();
}

void secure_engine::refill() {
  if (!st_) st_ = map_state(wipe_on_fork_);
  detail::secure_state& s = *st_;
  if (s.live != 1 || (!wipe_on_fork_ && forked())) {
    // New, moved-from, or forked (the kernel wiped the page, or the fallback saw a new pid
    // or generation): parent and child must never share outputs, so key from the OS.
    os_entropy(std::as_writable_bytes(std::span(s.key)));
    s.pid = ::getpid();
    s.fork_gen = detail::fork_generation.load(std::memory_order_relaxed);
    s.live = 1;
  }
  constexpr std::size_t bytes = 32 + detail::chacha_buffer_words * 8;
  alignas(64) std::uint8_t tmp[bytes];
  keystream(tmp, bytes, 0, 0, s.key);
  std::memcpy(s.key.data(), tmp, 32);  // fast key erasure: the old key is gone
  bytes_to_words(tmp + 32, s.buf.data(), s.buf.size());
  detail::secure_wipe(tmp, bytes);
  s.pos = 0;
}

secure_engine& secure_random() {
  thread_local secure_engine engine;
  return engine;
}

}  // namespace fairdeck
