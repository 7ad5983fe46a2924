// Parts of the external shuffle (include/fairdeck/shuffle/external.hpp) shared by
// external.cpp (the driver) and external_buckets.cpp (temporary bucket files). Not an API.
#pragma once

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/shuffle/external.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck::detail {

inline constexpr std::uint64_t key_block = 512;                  // keys per engine stream
inline constexpr std::uint64_t tie_stream_base = std::uint64_t{1} << 63;
inline constexpr unsigned key_bits = 63;

// Keys of records [block * key_block, (block + 1) * key_block).
inline void fill_key_block(const engine_spec& spec, std::uint64_t block, std::uint64_t* out) {
  visit_engine(spec, block, [&](auto& e) {
    for (std::uint64_t k = 0; k < key_block; ++k) out[k] = detail::draw_u64(e) >> 1;
  });
}

// Keys of records first, first + 1, ... in order.
class key_stream {
 public:
  explicit key_stream(const engine_spec& spec, std::uint64_t first = 0) : spec_(spec), block_(first / key_block) {
    if (first % key_block) {
      fill_key_block(spec_, block_++, keys_);
      pos_ = first % key_block;
    }
  }
  std::uint64_t next() {
    if (pos_ == key_block) {
      fill_key_block(spec_, block_++, keys_);
      pos_ = 0;
    }
    return keys_[pos_++];
  }

 private:
  const engine_spec& spec_;
  std::uint64_t block_ = 0, pos_ = key_block;
  std::uint64_t keys_[key_block];
};

struct item {
  std::uint64_t key;
  std::uint64_t pos;  // where the record is; increases with the input order
};

inline std::uint8_t* put_varint(std::uint8_t* p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<std::uint8_t>(v | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<std::uint8_t>(v);
  return p;
}
inline const std::uint8_t* get_varint(const std::uint8_t* p, std::uint64_t& v) {
  v = 0;
  for (unsigned shift = 0;; shift += 7) {
    const std::uint8_t b = *p++;
    v |= std::uint64_t{b & 0x7Fu} << shift;
    if (!(b & 0x80)) return p;
  }
}
inline std::size_t varint_size(std::uint64_t v) { return v < 0x80 ? 1 : v < 0x4000 ? 2 : v < 0x200000 ? 3 : 10; }

// Sorts the items by (key, pos) and shuffles runs of equal keys; for_each(emit) must call
// emit(key, pos) for every item, in increasing pos order (it runs twice). One counting pass
// over the key bits [shift, shift + bits) places the items; each bucket is then sorted on
// its own (expected O(1) items per bucket slot for uniform keys). `counts` is scratch of
// 2^bits + 1 words.
template <class ForEach>
void sort_items(std::span<item> items, unsigned shift, unsigned bits, ForEach&& for_each, const engine_spec& spec,
                unsigned threads, std::vector<std::uint64_t>& counts) {
  const std::uint64_t nb = std::uint64_t{1} << bits;
  const std::uint64_t mask = nb - 1;
  counts.assign(nb + 1, 0);
  for_each([&](std::uint64_t key, std::uint64_t) { ++counts[((key >> shift) & mask) + 1]; });
  for (std::uint64_t b = 1; b <= nb; ++b) counts[b] += counts[b - 1];
  for_each([&](std::uint64_t key, std::uint64_t pos) { items[counts[(key >> shift) & mask]++] = item{key, pos}; });
  // now counts[b] is the end of bucket b
  const std::uint64_t grain = 64;
  fairdeck::parallel_for((nb + grain - 1) / grain, threads, run_control{}, [&](std::uint64_t g, unsigned) {
    for (std::uint64_t b = g * grain; b < std::min(nb, (g + 1) * grain); ++b) {
      const std::uint64_t lo = b ? counts[b - 1] : 0, hi = counts[b];
      if (hi - lo > 1)
        std::sort(items.begin() + static_cast<std::ptrdiff_t>(lo), items.begin() + static_cast<std::ptrdiff_t>(hi),
                  [](const item& x, const item& y) { return x.key != y.key ? x.key < y.key : x.pos < y.pos; });
    }
  });
  for (std::size_t i = 0; i + 1 < items.size();) {
    std::size_t j = i + 1;
    while (j < items.size() && items[j].key == items[i].key) ++j;
    if (j - i > 1) visit_engine(spec, tie_stream_base | items[i].key, [&](auto& e) { fisher_yates(items.subspan(i, j - i), e); });
    i = j;
  }
}

// Counting-sort bits for n items within `scratch_bytes` of counts.
inline unsigned sort_bits(std::uint64_t n, std::uint64_t scratch_bytes) {
  unsigned bits = n < 8 ? 0 : static_cast<unsigned>(std::bit_width(n / 4)) - 1;
  bits = std::min(bits, 16u);
  while (bits > 0 && ((std::uint64_t{8} << bits) + 8) > scratch_bytes) --bits;
  return bits;
}

// Memory bookkeeping: what is held now and the peak (workers take and give concurrently).
struct ledger {
  std::atomic<std::uint64_t> held{0}, peak{0};
  void take(std::uint64_t b) {
    const std::uint64_t now = held.fetch_add(b) + b;
    std::uint64_t p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {
    }
  }
  void give(std::uint64_t b) { held.fetch_sub(std::min(held.load(), b)); }
  void set(std::uint64_t b) {
    held = b;
    take(0);
  }
};

// The budget's buffers. From 64 KiB up they are mapped with mmap(2) and unmapped when freed,
// so memory leaves the process the moment the ledger gives it back. Through malloc it did
// not: glibc keeps freed chunks in the arena of the thread that allocated them (one arena
// per thread, each with its own high-water mark) and, once a large block is freed, raises
// its mmap threshold so later large blocks come from those arenas too — --memory 8M with
// 8 threads peaked at 73 MB resident while the ledger never held more than 6.5 MB.
// Smaller buffers come from malloc (their waste is bounded by the ledger's small items).
struct buffer_deleter {
  std::size_t mapped = 0;  // bytes mapped at the pointer; 0: from malloc
  void operator()(void* p) const noexcept;
};
template <class T>
using buffer = std::unique_ptr<T[], buffer_deleter>;
using big_buffer = buffer<char>;
inline constexpr std::uint64_t map_min_bytes = std::uint64_t{64} << 10;

// Hands the free memory malloc still holds (small buffers freed by many threads) back to
// the system: called after the in-memory buckets are dropped for bucket files.
void release_freed_memory() noexcept;

// Allocates n bytes or throws memory_error naming the size and purpose.
big_buffer allocate(std::uint64_t bytes, const char* purpose);

// The same, always mapped, so at least 4 KiB-aligned (O_DIRECT can use them); from 4 MiB up
// 2 MiB-aligned and marked for transparent huge pages (one page fault per 2 MiB instead of
// per 4 KiB, where the kernel's THP mode is `madvise`).
big_buffer allocate_big(std::uint64_t bytes, const char* purpose);

// The budget split (external.hpp: "Memory stays within memory_bytes").
struct budget {
  std::uint64_t memory;          // M
  std::uint64_t work;            // the work area: M - read buffer - output buffers
  std::uint64_t bucket_buffers;  // write buffers of all bucket files while scattering
  std::uint64_t in_memory;       // what the in-memory path may use (work - bucket_buffers)
  std::uint64_t max_buckets;     // buckets per scatter (power of two, >= 2)
  explicit budget(std::uint64_t m);
};

// A temporary bucket file: unlinked at once, written through a buffer, read back whole or
// in pieces. Records: 8-byte key, varint length, bytes.
class bucket_file {
 public:
  bucket_file(const std::string& dir, std::uint64_t buffer_bytes, ledger& mem, external_shuffle_stats& stats);
  ~bucket_file();
  bucket_file(const bucket_file&) = delete;
  bucket_file& operator=(const bucket_file&) = delete;
  void append(std::uint64_t key, std::string_view record);
  void flush();     // writes the buffer out and frees it (no append after it)
  void release();   // closes the file: its disk space is freed
  [[nodiscard]] std::uint64_t size() const noexcept { return size_; }
  [[nodiscard]] std::uint64_t records() const noexcept { return records_; }
  [[nodiscard]] std::uint64_t record_bytes() const noexcept { return record_bytes_; }  // the records alone
  [[nodiscard]] bool direct() const noexcept { return direct_; }  // writing with O_DIRECT now
  static constexpr std::uint64_t direct_min_buffer = std::uint64_t{256} << 10;
  // Reads bytes [offset, offset + n) into out (all of them, or throws).
  void read(std::uint64_t offset, char* out, std::uint64_t n) const;

 private:
  void put(const char* p, std::uint64_t n);  // through the buffer, writing it out whenever full
  void write_out(const char* p, std::uint64_t n);
  void stop_direct();  // clears O_DIRECT: what follows goes through the page cache
  std::string dir_;
  int fd_ = -1;
  bool direct_ = false;  // O_DIRECT: whole aligned pages from an aligned buffer, no page-cache copy
  big_buffer buf_;
  std::uint64_t cap_ = 0, used_ = 0, size_ = 0, records_ = 0, record_bytes_ = 0;
  ledger& mem_;
  external_shuffle_stats& stats_;
};

// The state of one shuffle_records call.
struct context {
  record_source& in;
  record_sink& out;
  engine_spec spec;  // keyed: reproducible streams
  const external_shuffle_options& options;
  budget plan;
  unsigned threads;
  std::string temp_dir;
  ledger mem;
  external_shuffle_stats stats;
  std::uint64_t written_bytes = 0;
  std::uint64_t total_hint = 0;  // 2 x input size when known (read + write), for progress

  void check(std::uint64_t counter) {
    if ((counter & 0x3FFF) != 0) return;
    check_now();
  }
  void check_now() const {
    if (options.control.stopped()) throw interrupted("interrupted; nothing written");
    options.control.progress(in.bytes_read() + written_bytes, total_hint);
  }
  void emit(std::string_view record) {
    out.put(record);
    written_bytes += record.size() + 1;
    ++stats.output_records;
    check(stats.output_records);
  }
};

using item_buffer = buffer<item>;
item_buffer allocate_items(std::uint64_t n, ledger& mem);

// A bucket file read back whole with its items sorted by (key, pos), ties shuffled; pos is
// the record's offset in data (8-byte key, varint length, bytes).
// Its buffers are kept from bucket to bucket (release() gives them back to the ledger).
struct sorted_bucket {
  big_buffer data;
  item_buffer items;
  std::uint64_t size = 0, n = 0, data_cap = 0, items_cap = 0;
  std::vector<std::uint64_t> counts;
  void release(ledger& mem) {
    mem.give(data_cap + items_cap * sizeof(item));
    data.reset();
    items.reset();
    data_cap = items_cap = 0;
  }
  [[nodiscard]] std::string_view record(std::uint64_t k) const {
    std::uint64_t len;
    const auto* p = get_varint(reinterpret_cast<const std::uint8_t*>(data.get() + items[k].pos + 8), len);
    return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(len)};
  }
  [[nodiscard]] const char* address(std::uint64_t k) const { return data.get() + items[k].pos; }
};
// Memory sort_bucket needs for `file` (its data, items and counting scratch).
[[nodiscard]] std::uint64_t bucket_need(const bucket_file& file, std::uint64_t work);
// Reads `file` (keys agree on the top `used` bits) into b, releases the file, sorts it;
// `threads` sort it.
void sort_bucket(context& c, bucket_file& file, unsigned used, unsigned threads, sorted_bucket& b);
// Writes `file` in key order through c.emit, splitting it again when it does not fit `work`.
void finish_bucket(context& c, bucket_file& file, unsigned used, unsigned depth, std::uint64_t work);

constexpr std::size_t prefetch_ahead = 16;  // records: enough misses in flight to hide memory latency

// The bulk path (external_bulk.cpp): for sources with a bulk_format; true if it ran.
bool run_bulk_shuffle(context& c);

}  // namespace fairdeck::detail
