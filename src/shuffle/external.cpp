// The external-memory shuffle's driver (include/fairdeck/shuffle/external.hpp): in memory
// while the input fits, else scatter into bucket files by key bits; sampling by smallest keys.
#include <cstdlib>
#include <optional>
#include <queue>
#include <thread>

#include <fmt/format.h>

#include "external_parts.hpp"
#include "fairdeck/shuffle/huge.hpp"
#include "fairdeck/util/byte_size.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck {

using detail::allocate;
using detail::bucket_file;
using detail::budget;
using detail::get_varint;
using detail::item;
using detail::key_bits;
using detail::key_stream;
using detail::ledger;
using detail::put_varint;
using detail::sort_bits;
using detail::sort_items;
using detail::tie_stream_base;
using detail::varint_size;
using detail::allocate_items;
using detail::context;
using detail::finish_bucket;
using detail::prefetch_ahead;
using detail::run_bulk_shuffle;

namespace {


// The records of one in-memory bucket, each stored as varint length + bytes, in chunks
// (pos = chunk << 40 | offset), with their (key, pos) items in input order.
class arena {
 public:
  // chunk: bytes per record chunk; block: items per item block (both scale with the budget)
  arena(std::uint64_t chunk, std::uint64_t items_per_block, ledger& mem) : chunk_(chunk), block(items_per_block), mem_(mem) {}
  ~arena() { clear(); }
  arena(const arena&) = delete;
  arena& operator=(const arena&) = delete;
  // Bytes this arena would allocate to add `record` now.
  [[nodiscard]] std::uint64_t extra_for(std::string_view record) const {
    const std::uint64_t need = varint_size(record.size()) + record.size();
    const bool fits = !chunks_.empty() && used_ + need <= caps_.back();
    return (fits ? 0 : std::max(chunk_, need)) + (count_ % block == 0 ? block * sizeof(item) : 0);
  }
  void add(std::uint64_t key, std::string_view record) {
    const std::uint64_t need = varint_size(record.size()) + record.size();
    if (chunks_.empty() || used_ + need > caps_.back()) {
      const std::uint64_t cap = std::max(chunk_, need);
      chunks_.push_back(allocate(cap, "the records held in memory"));
      caps_.push_back(cap);
      take(cap);
      used_ = 0;
    }
    if (count_ % block == 0) {
      auto raw = allocate(block * sizeof(item), "the index of the records held in memory");
      const detail::buffer_deleter d = raw.get_deleter();
      item_blocks_.push_back(detail::item_buffer(reinterpret_cast<item*>(raw.release()), d));
      take(block * sizeof(item));
    }
    auto* p = reinterpret_cast<std::uint8_t*>(chunks_.back().get() + used_);
    const auto* e = put_varint(p, record.size());
    std::memcpy(const_cast<std::uint8_t*>(e), record.data(), record.size());
    item_blocks_.back()[count_ % block] = item{key, ((chunks_.size() - 1) << 40) | used_};
    used_ += static_cast<std::uint64_t>(e - p) + record.size();
    ++count_;
  }
  [[nodiscard]] std::uint64_t size() const noexcept { return count_; }
  [[nodiscard]] const item& at_index(std::uint64_t i) const { return item_blocks_[i / block][i % block]; }
  [[nodiscard]] const char* address(std::uint64_t pos) const {
    return chunks_[pos >> 40].get() + (pos & ((std::uint64_t{1} << 40) - 1));
  }
  [[nodiscard]] std::string_view at(std::uint64_t pos) const {
    const auto* p = reinterpret_cast<const std::uint8_t*>(address(pos));
    std::uint64_t n;
    p = get_varint(p, n);
    return {reinterpret_cast<const char*>(p), static_cast<std::size_t>(n)};
  }
  void clear() {
    item_blocks_.clear();
    chunks_.clear();
    mem_.give(held_);
    held_ = 0;
    caps_.clear();
    count_ = 0;
  }

 private:
  void take(std::uint64_t b) {
    held_ += b;
    mem_.take(b);
  }
  std::uint64_t chunk_, block;
  ledger& mem_;
  std::vector<detail::big_buffer> chunks_;
  std::vector<std::uint64_t> caps_;
  std::vector<detail::item_buffer> item_blocks_;
  std::uint64_t used_ = 0, held_ = 0, count_ = 0;
};

// All records are in memory, in 2^mem_bits arenas by their top key bits: sort each arena's
// items and write its records (the gather stays within one arena: cache-friendly).
void finish_in_memory(context& c, std::vector<std::unique_ptr<arena>>& arenas, unsigned mem_bits) {
  std::uint64_t largest = 0;
  for (const auto& a : arenas) largest = std::max(largest, a->size());
  auto items = allocate_items(largest, c.mem);
  std::vector<std::uint64_t> counts;
  for (const auto& ap : arenas) {
    const arena& a = *ap;
    const std::uint64_t n = a.size();
    const unsigned bits = std::min(sort_bits(n, std::max<std::uint64_t>(c.plan.in_memory / 16, 4096)), key_bits - mem_bits);
    auto for_each = [&](auto&& emit) {
      for (std::uint64_t i = 0; i < n; ++i) {
        const item& it = a.at_index(i);
        emit(it.key, it.pos);
      }
    };
    const std::span<item> sorted(items.get(), static_cast<std::size_t>(n));
    sort_items(sorted, key_bits - mem_bits - bits, bits, for_each, c.spec, c.threads, counts);
    for (std::size_t k = 0; k < sorted.size(); ++k) {
      if (k + prefetch_ahead < sorted.size()) __builtin_prefetch(a.address(sorted[k + prefetch_ahead].pos));
      c.emit(a.at(sorted[k].pos));
    }
  }
}

}  // namespace

namespace detail {

item_buffer allocate_items(std::uint64_t n, ledger& mem) {
  const std::uint64_t bytes = n * sizeof(item);
  big_buffer raw;
  try {
    raw = allocate(bytes, "sorting");
  } catch (const memory_error&) {
    throw memory_error(fmt::format("cannot allocate {} to sort {} records", format_byte_size(bytes), n), bytes);
  }
  const buffer_deleter d = raw.get_deleter();
  item_buffer v(reinterpret_cast<item*>(raw.release()), d);
  mem.take(bytes);
  return v;
}

namespace {
std::uint64_t counts_bytes_for(std::uint64_t work) { return std::min<std::uint64_t>(work / 16, 8u << 16); }
}  // namespace

std::uint64_t bucket_need(const bucket_file& file, std::uint64_t work) {
  return file.size() + file.records() * sizeof(item) + counts_bytes_for(work);
}

void sort_bucket(context& c, bucket_file& file, unsigned used, unsigned threads, sorted_bucket& b) {
  b.n = file.records();
  b.size = file.size();
  if (b.data_cap < b.size) {
    c.mem.give(b.data_cap);
    b.data.reset();
    b.data = allocate_big(b.size, "a bucket read back from its temporary file");
    b.data_cap = b.size;
    c.mem.take(b.size);
  }
  file.read(0, b.data.get(), b.size);
  file.release();
  if (b.items_cap < b.n) {
    c.mem.give(b.items_cap * sizeof(item));
    b.items.reset();
    b.items = allocate_items(b.n, c.mem);
    b.items_cap = b.n;
  }
  const std::uint64_t counts_bytes = counts_bytes_for(c.plan.work);
  const unsigned bits = std::min(sort_bits(b.n, counts_bytes), key_bits - used);
  auto for_each = [&](auto&& emit) {
    const auto* base = reinterpret_cast<const std::uint8_t*>(b.data.get());
    for (std::uint64_t off = 0; off < b.size;) {
      std::uint64_t key, len;
      std::memcpy(&key, base + off, 8);
      const auto* p = get_varint(base + off + 8, len);
      emit(key, off);
      off = static_cast<std::uint64_t>(p - base) + len;
    }
  };
  sort_items(std::span<item>(b.items.get(), static_cast<std::size_t>(b.n)), key_bits - used - bits, bits, for_each, c.spec,
             threads, b.counts);
}

void finish_bucket(context& c, bucket_file& file, unsigned used, unsigned depth, std::uint64_t work) {
  const std::uint64_t n = file.records(), size = file.size();
  if (n == 0) return;
  const std::uint64_t need = bucket_need(file, work);
  c.stats.passes = std::max(c.stats.passes, depth + 2);
  if (need <= work || n == 1 || used >= key_bits - 4) {
    sorted_bucket b;
    sort_bucket(c, file, used, c.threads, b);
    for (std::uint64_t k = 0; k < b.n; ++k) {
      if (k + prefetch_ahead < b.n) __builtin_prefetch(b.address(k + prefetch_ahead));
      c.emit(b.record(k));
    }
    b.release(c.mem);
    return;
  }
  // Too big: scatter again by the next bits.
  const std::uint64_t want = (2 * need + work - 1) / work;
  const unsigned bits = std::min<unsigned>(static_cast<unsigned>(std::bit_width(std::clamp<std::uint64_t>(want, 2, c.plan.max_buckets) - 1)),
                                           key_bits - used);
  const std::uint64_t nb = std::uint64_t{1} << bits;
  std::vector<std::unique_ptr<bucket_file>> subs;
  for (std::uint64_t b = 0; b < nb; ++b)
    subs.push_back(std::make_unique<bucket_file>(c.temp_dir, c.plan.bucket_buffers / nb, c.mem, c.stats));
  // Stream the file through a window holding at least one whole record.
  const std::uint64_t window = std::max({c.plan.work / 4, max_record_bytes(c.plan.memory) + 32, std::uint64_t{4096}});
  auto buf = allocate(window, "reading back a temporary file");
  c.mem.take(window);
  std::uint64_t off = 0, have = 0, start = 0;  // buf holds file bytes [start, start + have)
  std::uint64_t counter = 0;
  while (off < size) {
    const std::uint64_t rel = off - start;
    // make sure the whole record at off is in the window
    auto ensure = [&](std::uint64_t bytes) {
      if (off - start + bytes <= have) return;
      const std::uint64_t keep = have - (off - start);
      std::memmove(buf.get(), buf.get() + (off - start), static_cast<std::size_t>(keep));
      start = off;
      const std::uint64_t more = std::min(window - keep, size - (start + keep));
      file.read(start + keep, buf.get() + keep, more);
      have = keep + more;
    };
    (void)rel;
    ensure(std::min<std::uint64_t>(18, size - off));
    std::uint64_t key, len;
    std::memcpy(&key, buf.get() + (off - start), 8);
    const auto* h = reinterpret_cast<const std::uint8_t*>(buf.get() + (off - start));
    const std::uint64_t head = static_cast<std::uint64_t>(get_varint(h + 8, len) - h);
    ensure(head + len);
    const char* rec = buf.get() + (off - start) + head;
    subs[(key >> (key_bits - used - bits)) & (nb - 1)]->append(key, std::string_view(rec, static_cast<std::size_t>(len)));
    off += head + len;
    if ((++counter & 0x3FFF) == 0 && c.options.control.stopped()) throw interrupted("interrupted; nothing written");
  }
  buf.reset();
  c.mem.give(window);
  file.release();
  for (auto& s : subs) s->flush();
  for (auto& s : subs) {
    finish_bucket(c, *s, used + bits, depth + 1, work);
    s->release();
  }
}

}  // namespace detail

namespace {

void run_sample(context& c, std::uint64_t k) {
  struct kept {
    std::uint64_t key, index;
    std::string data;
  };
  auto less = [](const kept& x, const kept& y) { return x.key != y.key ? x.key < y.key : x.index < y.index; };
  std::vector<kept> heap;  // max-heap by (key, index): all records with key <= the K-th smallest key
  std::uint64_t held = 0;
  key_stream keys(c.spec);
  std::string_view rec;
  for (std::uint64_t i = 0; c.in.next(rec); ++i) {
    const std::uint64_t key = keys.next();
    ++c.stats.records;
    c.check(i);
    if (k == 0) continue;
    if (heap.size() >= k && key > heap.front().key) continue;
    heap.push_back(kept{key, i, std::string(rec)});
    std::push_heap(heap.begin(), heap.end(), less);
    held += rec.size() + sizeof(kept);
    if (heap.size() > k && key < heap.front().key) {
      // Drop the records with the largest key if at least k records have smaller keys.
      const std::uint64_t top = heap.front().key;
      std::vector<kept> ties;
      while (!heap.empty() && heap.front().key == top) {
        std::pop_heap(heap.begin(), heap.end(), less);
        ties.push_back(std::move(heap.back()));
        heap.pop_back();
      }
      if (heap.size() < k) {
        for (auto& t : ties) {
          heap.push_back(std::move(t));
          std::push_heap(heap.begin(), heap.end(), less);
        }
      } else {
        for (const auto& t : ties) held -= t.data.size() + sizeof(kept);
      }
    }
    if (held > c.plan.work)
      throw memory_error(fmt::format("a sample of {} records needs more than {} of memory", k, format_byte_size(c.plan.work)), held);
    c.mem.set(held);
  }
  std::sort(heap.begin(), heap.end(), less);
  for (std::size_t i = 0; i + 1 < heap.size();) {  // ties: the shuffle's own rule
    std::size_t j = i + 1;
    while (j < heap.size() && heap[j].key == heap[i].key) ++j;
    if (j - i > 1)
      visit_engine(c.spec, tie_stream_base | heap[i].key, [&](auto& e) { fisher_yates(std::span(heap).subspan(i, j - i), e); });
    i = j;
  }
  for (std::size_t i = 0; i < heap.size() && i < k; ++i) c.emit(heap[i].data);
}

void run_shuffle(context& c) {
  if (run_bulk_shuffle(c)) return;
  const auto hint = c.in.size_hint();
  // In-memory buckets by the top key bits (at most 256, ~4 MiB of budget each); they change
  // nothing in the order, only where records sit while waiting.
  const unsigned mem_bits = static_cast<unsigned>(std::bit_width(std::clamp<std::uint64_t>(c.plan.in_memory >> 22, 1, 256))) - 1;
  const std::uint64_t nmem = std::uint64_t{1} << mem_bits;
  std::vector<std::unique_ptr<arena>> arenas;
  for (std::uint64_t b = 0; b < nmem; ++b)
    arenas.push_back(std::make_unique<arena>(std::clamp<std::uint64_t>(c.plan.in_memory / 32 / nmem, 1024, std::uint64_t{64} << 20),
                                             std::clamp<std::uint64_t>(c.plan.in_memory / 512 / nmem, 64, 1 << 14), c.mem));
  key_stream keys(c.spec);
  std::string_view rec;
  bool more = false;
  const std::uint64_t sort_scratch = std::min<std::uint64_t>(c.plan.in_memory / 16, 8u << 16);
  std::uint64_t held = 0, largest = 0, key = 0;
  while ((more = c.in.next(rec))) {
    key = keys.next();
    arena& a = *arenas[key >> (key_bits - mem_bits)];
    const std::uint64_t extra = a.extra_for(rec);
    const std::uint64_t big = std::max(largest, a.size() + 1);
    if (held + extra + big * sizeof(item) + sort_scratch > c.plan.in_memory && c.stats.records > 0) break;
    a.add(key, rec);
    held += extra;
    largest = big;
    c.check(++c.stats.records);
  }
  if (!more) {
    c.stats.passes = 1;
    finish_in_memory(c, arenas, mem_bits);
    return;
  }
  // External: choose the bucket count from the expected total (the input size when known).
  std::uint64_t buckets = c.plan.max_buckets;
  if (hint && c.in.bytes_read() > 0) {
    const double per_byte = static_cast<double>(c.plan.in_memory) / static_cast<double>(c.in.bytes_read());
    const double expect = static_cast<double>(*hint) * per_byte;  // memory the whole input needs
    const auto want = static_cast<std::uint64_t>(2 * expect / static_cast<double>(c.plan.work)) + 1;
    buckets = std::bit_ceil(std::clamp<std::uint64_t>(want, 2, c.plan.max_buckets));
  }
  const unsigned bits = static_cast<unsigned>(std::countr_zero(buckets));
  c.stats.passes = 2;
  std::vector<std::unique_ptr<bucket_file>> files;
  const std::uint64_t buffer = c.plan.bucket_buffers / buckets;
  for (std::uint64_t b = 0; b < buckets; ++b) files.push_back(std::make_unique<bucket_file>(c.temp_dir, buffer, c.mem, c.stats));
  // Spill the arenas (records of equal keys share an arena, in input order, so ties keep
  // input order in the bucket files), then the pending record and the rest of the input.
  for (auto& a : arenas) {
    for (std::uint64_t i = 0; i < a->size(); ++i) {
      const item& it = a->at_index(i);
      files[it.key >> (key_bits - bits)]->append(it.key, a->at(it.pos));
    }
    a->clear();
  }
  detail::release_freed_memory();
  files[key >> (key_bits - bits)]->append(key, rec);
  ++c.stats.records;
  while (c.in.next(rec)) {
    key = keys.next();
    files[key >> (key_bits - bits)]->append(key, rec);
    c.check(++c.stats.records);
  }
  for (auto& f : files) f->flush();
  for (auto& f : files) {
    finish_bucket(c, *f, bits, 0, c.plan.work);
    f->release();
  }
}

}  // namespace

external_shuffle_stats shuffle_records(record_source& in, record_sink& out, const engine_spec& spec,
                                       const external_shuffle_options& options) {
  const std::uint64_t m = options.memory_bytes ? options.memory_bytes : default_memory_budget();
  context c{in, out, detail::keyed_once(spec), options, budget(m), options.threads, options.temp_dir, {}, {}, 0, 0};
  c.threads = resolve_threads(c.threads);
  if (c.temp_dir.empty()) {
    const char* t = std::getenv("TMPDIR");
    c.temp_dir = t && *t ? t : "/tmp";
  }
  c.stats.memory_bytes = m;
  if (const auto hint = in.size_hint()) c.total_hint = 2 * *hint;
  std::string_view rec;
  while (c.stats.header_records < options.header && in.next(rec)) {
    c.emit(rec);
    ++c.stats.header_records;
  }
  if (c.stats.header_records == options.header) {
    if (options.sample) run_sample(c, *options.sample);
    else run_shuffle(c);
  }
  if (c.stats.passes == 0) c.stats.passes = 1;
  c.stats.peak_reserved_bytes = c.mem.peak;
  options.control.progress(c.total_hint, c.total_hint);
  return c.stats;
}

}  // namespace fairdeck
