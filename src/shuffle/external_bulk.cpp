// The bulk path of shuffle_records (include/fairdeck/shuffle/external.hpp), for sources that
// hand out whole blocks of records (record_source::bulk_format: files, standard input, gzip).
// Same order as the record-at-a-time path — it is defined by the keys alone — but every
// stage runs on all threads:
//   1. blocks of records are mapped from the input file (record_source::map_records: no
//      copy, no fresh memory to zero) or, from pipes and gzip, read with parallel preads
//      (record_reader::read_records), and stay in memory as they are; nothing is copied per
//      record;
//   2. each worker scans the block and keeps the records whose top key bits name one of its
//      in-memory buckets (or, once the input outgrows the budget, one of its bucket files),
//      so buckets need no locks and keep input order (ties stay in input order);
//   3. buckets are sorted and gathered into output blocks on all threads while the blocks
//      are written in bucket order (util/parallel.hpp: parallel_for_ordered).
#include <cstring>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "external_parts.hpp"
#include "fairdeck/util/byte_size.hpp"
#include "fairdeck/util/internal/delimiters.hpp"

namespace fairdeck::detail {
namespace {

// In-memory pos: block << 40 | offset in the block << len_bits_ | length. The low bits hold
// the record's length when it is below their largest value (else that value: the gather then
// finds the record's end again), so the gather copies short records without searching for
// their ends (400 MB of 44-byte lines: one memchr call per record was 15 % of the CPU time).
// The order of pos is still the input order (ties in a bucket keep it).
constexpr unsigned pos_shift = 40;
constexpr std::uint64_t pos_mask = (std::uint64_t{1} << pos_shift) - 1;

// One in-memory bucket's items in input order, in chunks (appended by one worker only).
class item_list {
 public:
  void push(const item& it, std::uint64_t chunk_items, ledger& mem) {
    if (count_ % chunk_items == 0) {
      chunks_.push_back(allocate_items(chunk_items, mem));
      held_ += chunk_items * sizeof(item);
    }
    chunks_.back()[count_ % chunk_items] = it;
    ++count_;
  }
  template <class Emit>
  void for_each(std::uint64_t chunk_items, Emit&& emit) const {
    for (std::uint64_t i = 0; i < count_; ++i) {
      const item& it = chunks_[i / chunk_items][i % chunk_items];
      emit(it.key, it.pos);
    }
  }
  [[nodiscard]] std::uint64_t size() const noexcept { return count_; }
  [[nodiscard]] const item& at(std::uint64_t i, std::uint64_t chunk_items) const { return chunks_[i / chunk_items][i % chunk_items]; }
  void clear(ledger& mem) {
    chunks_.clear();
    mem.give(held_);
    held_ = count_ = 0;
  }
  std::uint64_t bytes = 0;  // record bytes + delimiters

 private:
  std::vector<item_buffer> chunks_;
  std::uint64_t count_ = 0, held_ = 0;
};

class bulk_shuffle {
 public:
  bulk_shuffle(context& c, record_format fmt) : c_(c), fmt_(fmt), max_record_(max_record_bytes(c.plan.memory)) {
    block_cap_ = std::max(max_record_ + 2, std::min<std::uint64_t>(c.plan.in_memory / 4, std::uint64_t{64} << 20));
    if (fmt_.record_size) block_cap_ = std::max(block_cap_ / fmt_.record_size, std::uint64_t{1}) * fmt_.record_size;
    // In-memory buckets by the top key bits (at most 256, 32 KiB of budget or more each): they change
    // nothing in the order, only where records wait and how the work is shared.
    mem_bits_ = static_cast<unsigned>(std::bit_width(std::clamp<std::uint64_t>(c.plan.in_memory >> 15, 1, 256))) - 1;
    nlists_ = std::size_t{1} << mem_bits_;
    workers_ = std::min(c.threads, 16u);  // finishing: each worker holds a bucket; more would only shrink the shares
    // Scattering into files: every scan worker reads the whole block (and draws every key),
    // keeping its own files; past a few workers that repeated scan costs more than it saves.
    // Placing in memory: each worker takes a part of the block and has its own lists.
    scan_workers_ = std::min(workers_, 4u);
    placed_ = c.out.reserves_blocks(fmt_);
    lists_.resize(nlists_ * scan_workers_);
    chunk_items_ = std::clamp<std::uint64_t>(c.plan.in_memory / 256 / sizeof(item) / lists_.size(), 64, 1 << 16);
    // offsets in a block are below block_cap_; lengths get the bits the offset leaves (13 for
    // 64 MiB blocks), none for fixed-size records
    const auto offset_bits = static_cast<unsigned>(std::bit_width(block_cap_));
    len_bits_ = fmt_.record_size || offset_bits >= pos_shift ? 0 : std::min(pos_shift - offset_bits, 16u);
    len_cap_ = (std::uint64_t{1} << len_bits_) - 1;
  }

  void run() {
    for (;;) {
      c_.check_now();
      held_block b = next_block();
      if (b.size == 0) break;
      if (!fits(b.records, b.size)) {
        go_external(std::move(b));
        return;
      }
      place(b.data, b.size, blocks_.size());
      records_ += b.records;
      blocks_.push_back(std::move(b));
    }
    c_.stats.records += records_;
    c_.stats.passes = 1;
    finish_in_memory();
  }

 private:
  // A block of input records: mapped from the input where it can be (no copy, and no fresh
  // memory to fault in and zero: in memory, 400 MB of input cost ~0.7 s of CPU in page
  // clearing alone on this VM), else read into a buffer. Either way the ledger holds `held`.
  struct held_block {
    const char* data = nullptr;
    std::uint64_t size = 0, records = 0, held = 0;
    big_buffer owned;                  // read into
    std::shared_ptr<const void> keep;  // mapped
  };
  // The next block (size 0 at the end); `reuse`, if given, is a read buffer of block_cap_
  // bytes the ledger already holds, used when the input cannot be mapped.
  held_block next_block(big_buffer* reuse = nullptr) {
    held_block b;
    if (auto m = c_.in.map_records(block_cap_)) {
      b.data = m->data;
      b.size = m->bytes;
      b.records = m->records;
      b.keep = std::move(m->keep);
      b.held = b.size;
      c_.mem.take(b.held);
      return b;
    }
    char* dst;
    if (reuse && *reuse) {
      dst = reuse->get();
    } else {
      b.owned = allocate_big(block_cap_, "a block of input records");
      b.held = block_cap_;
      c_.mem.take(b.held);
      dst = b.owned.get();
    }
    const auto [size, n] = c_.in.read_records(dst, block_cap_, c_.threads);
    b.data = dst;
    b.size = size;
    b.records = n;
    if (size == 0) release(b);
    return b;
  }
  void release(held_block& b) {
    c_.mem.give(b.held);
    b.held = 0;
    b.owned.reset();
    b.keep.reset();
  }

  // Would the records so far plus a block of n records (size bytes) still fit, with room to
  // sort and gather the largest bucket on every worker?
  [[nodiscard]] bool fits(std::uint64_t n, std::uint64_t size) const {
    const double per_list = static_cast<double>(records_ + n) / static_cast<double>(nlists_);
    const auto largest = static_cast<std::uint64_t>(per_list + 6 * std::sqrt(per_list) + 64);
    const double bytes_per_record = static_cast<double>(bytes_ + size) / static_cast<double>(std::max<std::uint64_t>(records_ + n, 1));
    const auto largest_bytes = static_cast<std::uint64_t>(static_cast<double>(largest) * bytes_per_record);
    // the ledger already holds the blocks and the items so far; add this block's items and
    // one partly filled chunk per list
    const std::uint64_t items = n * sizeof(item) + lists_.size() * chunk_items_ * sizeof(item);
    const std::uint64_t finish = workers_ * (largest * sizeof(item) + largest_bytes + (std::uint64_t{8} << sort_bits(largest, std::uint64_t{8} << 16)) + 8);
    return c_.mem.held.load() + items + finish <= c_.plan.in_memory;
  }

  // Step 2: every scan worker w draws the key of every record of the block (keys depend on
  // the record's number only) and keeps those whose bucket b has b % scan workers == w.
  template <class Keep>
  void scan(const char* data, std::uint64_t size, unsigned shift, Keep&& keep) {
    const std::uint64_t first = records_;
    parallel_for(scan_workers_, scan_workers_, run_control{}, [&](std::uint64_t w, unsigned) {
      key_stream keys(c_.spec, first);
      for_each_record(data, size, fmt_.record_size, fmt_.delimiter, [&](std::uint64_t at, std::uint64_t len) {
        if (len > max_record_) throw too_long();
        const std::uint64_t key = keys.next();
        if ((key >> shift) % scan_workers_ == w) keep(key >> shift, key, at, len);
      });
    });
    bytes_ += size;
  }

  // In memory, the block is split at record boundaries and worker w places the records of
  // part w into its own lists (w * nlists + bucket): no scan is repeated. A bucket's lists
  // are not in input order, which the sort does not need (it orders by key, then by pos).
  void place(const char* data, std::uint64_t size, std::uint64_t block_no) {
    const unsigned parts = scan_workers_;
    std::vector<std::uint64_t> cut(parts + 1, size), count(parts, 0);
    cut[0] = 0;
    for (unsigned k = 1; k < parts; ++k) {
      std::uint64_t at = std::max(cut[k - 1], size / parts * k);
      if (fmt_.record_size) {
        at = std::min(size, (at + fmt_.record_size - 1) / fmt_.record_size * fmt_.record_size);
      } else if (at > 0 && at < size) {  // just after the delimiter that ends the record holding byte at - 1
        const void* d = std::memchr(data + at - 1, fmt_.delimiter, size - at + 1);
        at = static_cast<std::uint64_t>(static_cast<const char*>(d) - data) + 1;
      }
      cut[k] = at;
    }
    // the records before each part (the last part's own count is not needed)
    parallel_for(parts - 1, parts, run_control{}, [&](std::uint64_t k, unsigned) {
      const std::uint64_t bytes = cut[k + 1] - cut[k];
      count[k] = fmt_.record_size ? bytes / fmt_.record_size
                                  : count_delimiters(data + cut[k], static_cast<std::size_t>(bytes), fmt_.delimiter);
    });
    const unsigned shift = key_bits - mem_bits_;
    parallel_for(parts, parts, run_control{}, [&](std::uint64_t k, unsigned) {
      std::uint64_t first = records_;
      for (std::uint64_t j = 0; j < k; ++j) first += count[j];
      key_stream keys(c_.spec, first);
      for_each_record(data + cut[k], cut[k + 1] - cut[k], fmt_.record_size, fmt_.delimiter, [&](std::uint64_t at, std::uint64_t len) {
        if (len > max_record_) throw too_long();
        const std::uint64_t key = keys.next();
        item_list& list = lists_[k * nlists_ + (key >> shift)];
        list.push(item{key, block_no << pos_shift | (cut[k] + at) << len_bits_ | std::min(len, len_cap_)}, chunk_items_, c_.mem);
        list.bytes += len + (fmt_.record_size ? 0 : 1);
      });
    });
    bytes_ += size;
  }

  // The items of in-memory bucket b: its lists, in no particular order.
  template <class Emit>
  void for_each_in_bucket(std::uint64_t b, Emit&& emit) const {
    for (unsigned w = 0; w < scan_workers_; ++w) lists_[w * nlists_ + b].for_each(chunk_items_, emit);
  }
  // The same in input order (increasing pos): a merge of the lists, each in input order.
  template <class Emit>
  void for_each_in_bucket_in_order(std::uint64_t b, Emit&& emit) const {
    std::vector<std::uint64_t> next(scan_workers_, 0);
    for (;;) {
      const item* best = nullptr;
      unsigned from = 0;
      for (unsigned w = 0; w < scan_workers_; ++w) {
        const item_list& l = lists_[w * nlists_ + b];
        if (next[w] < l.size() && (!best || l.at(next[w], chunk_items_).pos < best->pos)) {
          best = &l.at(next[w], chunk_items_);
          from = w;
        }
      }
      if (!best) return;
      ++next[from];
      emit(best->key, best->pos);
    }
  }

  [[nodiscard]] record_too_long too_long() const {
    return record_too_long(fmt::format("a record longer than {} bytes, the most the memory limit allows", max_record_), max_record_);
  }

  // The length of the in-memory record at pos (it ends at the next delimiter of its block).
  [[nodiscard]] std::uint64_t record_length(std::uint64_t pos) const {
    if (fmt_.record_size) return fmt_.record_size;
    if ((pos & len_cap_) != len_cap_) return pos & len_cap_;
    const char* p = address(pos);
    const std::uint64_t left = blocks_[pos >> pos_shift].size - ((pos & pos_mask) >> len_bits_);
    return static_cast<std::uint64_t>(static_cast<const char*>(std::memchr(p, fmt_.delimiter, left)) - p);
  }

  // One worker's output block and sort scratch, reused from bucket to bucket.
  struct lane {
    item_buffer items;
    std::uint64_t items_cap = 0;
    big_buffer out;  // page-aligned: see gathered
    std::uint64_t out_cap = 0;
    std::vector<std::uint64_t> counts;
    sorted_bucket bucket;  // bucket files: read back and sorted
  };
  // An output block. Where the sink places blocks (a file), its size is known once sorted:
  // it is placed in order, then gathered and written, both in parallel. Blocks from bucket
  // files are gathered at the same spot in their 4 KiB page as their place in the file, so
  // their whole pages skip the page cache (safe_output::write_at); in memory too, since
  // the input is mapped: the output must reach the disk anyway (fsync), and the cache only
  // adds a copy — 400 MB in memory, same runs under load: 0.38 s of system CPU direct
  // against 0.65 s through the cache, wall 3.6-5.4 s against 4.9-7.2 s. (An earlier, quiet
  // measurement with blocks read into fresh memory had the cache ahead: 350 MB, 0.51-0.57 s
  // against 0.62-0.74 s.) From bucket files direct was faster (1.75 GB under --memory 256M:
  // 3.5 s against 4.2-5.4 s; 10.5 GB under --memory 1G: 32.0 s against 39.4-41.7 s).
  // Elsewhere blocks are gathered in parallel and written in order.
  struct gathered {
    std::uint64_t size = 0, records = 0;
    lane* owner = nullptr;
    std::string_view bytes;                       // once gathered
    std::optional<record_sink::block_slot> slot;  // set by place_output: written by write_output
  };

  // Gathers g into its lane's buffer (at the spot in the page its slot asks for, if any)
  // with gather(char* out) -> end, which writes the block's records in order.
  template <class Gather>
  void gather_output(gathered& g, Gather&& gather, bool on_page_spot) {
    const std::uint64_t pad = g.slot && on_page_spot ? g.slot->data_offset() % safe_output::direct_alignment : 0;
    lane& l = *g.owner;
    if (l.out_cap < pad + g.size) {
      c_.mem.give(l.out_cap);
      l.out.reset();
      l.out_cap = 0;
      const std::uint64_t want = g.size + safe_output::direct_alignment;  // room for any pad
      l.out = allocate_big(want, "an output block");
      l.out_cap = want;
      c_.mem.take(want);
    }
    char* o = l.out.get() + pad;
    const char* end = gather(o);
    if (static_cast<std::uint64_t>(end - o) != g.size) throw std::logic_error("an output block's size was mispredicted");
    g.bytes = std::string_view(o, g.size);
  }

  // In order: the block's place in the output (then written in parallel), or the block
  // itself where the sink only writes in order.
  void place_output(gathered& g) {
    if (g.records == 0) return;
    if (placed_) {
      g.slot = c_.out.reserve_block(g.size, g.records, fmt_);
    } else {
      c_.out.put_block(g.bytes, g.records, fmt_);
    }
    c_.written_bytes += g.size;
    c_.stats.output_records += g.records;
    c_.check_now();
  }
  template <class Gather>
  void write_output(gathered& g, Gather&& gather, bool on_page_spot) {
    if (!g.slot) return;
    gather_output(g, gather, on_page_spot);
    c_.out.write_block(*g.slot, g.bytes);
  }

  // Step 3 in memory: each list is sorted and gathered by a worker, written in list order.
  void finish_in_memory() {
    std::vector<lane> lanes(workers_);
    const unsigned rest = key_bits - mem_bits_;
    const std::uint64_t counts_bytes = std::max<std::uint64_t>(c_.plan.in_memory / 16 / workers_, 4096);
    auto gather = [&](const gathered& g) {
      return [&](char* o) {
        const std::span<const item> sorted(g.owner->items.get(), static_cast<std::size_t>(g.records));
        for (std::size_t k = 0; k < sorted.size(); ++k) {
          if (k + prefetch_ahead < sorted.size()) __builtin_prefetch(address(sorted[k + prefetch_ahead].pos));
          const char* p = address(sorted[k].pos);
          const std::uint64_t len = record_length(sorted[k].pos) + (fmt_.record_size ? 0 : 1);
          std::memcpy(o, p, len);
          o += len;
        }
        return o;
      };
    };
    const bool ok = parallel_for_ordered(
        nlists_, workers_, c_.options.control,
        [&](std::uint64_t b, unsigned w) {
          lane& l = lanes[w];
          std::uint64_t n = 0, bytes = 0;
          for (unsigned k = 0; k < scan_workers_; ++k) {
            n += lists_[k * nlists_ + b].size();
            bytes += lists_[k * nlists_ + b].bytes;
          }
          if (n == 0) return gathered{};
          if (l.items_cap < n) {
            if (l.items) c_.mem.give(l.items_cap * sizeof(item));
            l.items.reset();
            l.items = allocate_items(n, c_.mem);
            l.items_cap = n;
          }
          const std::span<item> sorted(l.items.get(), static_cast<std::size_t>(n));
          const unsigned bits = std::min(sort_bits(n, std::min<std::uint64_t>(counts_bytes, 8u << 16)), rest);
          sort_items(sorted, rest - bits, bits, [&](auto&& emit) { for_each_in_bucket(b, emit); }, c_.spec, 1, l.counts);
          gathered g{bytes, n, &l, {}, {}};
          if (!placed_) gather_output(g, gather(g), false);
          return g;
        },
        [&](std::uint64_t, gathered& g) { place_output(g); }, [&](std::uint64_t, gathered& g) { write_output(g, gather(g), true); });
    if (!ok) throw interrupted("interrupted; nothing written");
    for (auto& l : lanes) c_.mem.give(l.items_cap * sizeof(item) + l.out_cap);
  }

  [[nodiscard]] const char* address(std::uint64_t pos) const { return blocks_[pos >> pos_shift].data + ((pos & pos_mask) >> len_bits_); }

  // The input outgrew the budget: scatter what is held and the rest into bucket files.
  void go_external(held_block first) {
    const std::uint64_t size = first.size, n = first.records;
    // Enough bucket files that every worker can finish one in its share of the work area.
    std::uint64_t buckets = c_.plan.max_buckets;
    if (const auto hint = c_.in.size_hint(); hint && bytes_ + size > 0) {
      const double per_byte = 1.0 + static_cast<double>(records_ + n) * (sizeof(item) + 9) / static_cast<double>(bytes_ + size);
      const double expect = static_cast<double>(*hint) * per_byte;  // bucket data + items + output, roughly
      const auto want = static_cast<std::uint64_t>(4 * workers_ * expect / static_cast<double>(c_.plan.work)) + 1;
      buckets = std::bit_ceil(std::clamp<std::uint64_t>(want, 2, c_.plan.max_buckets));
    }
    bits_ = static_cast<unsigned>(std::countr_zero(buckets));
    c_.stats.passes = 2;
    const std::uint64_t buffer = c_.plan.bucket_buffers / buckets;
    for (std::uint64_t b = 0; b < buckets; ++b) files_.push_back(std::make_unique<bucket_file>(c_.temp_dir, buffer, c_.mem, c_.stats));
    // What is held: bucket by bucket, each in input order (equal keys share a bucket).
    const unsigned shift = key_bits - bits_;
    parallel_for(scan_workers_, scan_workers_, run_control{}, [&](std::uint64_t w, unsigned) {
      for (std::uint64_t b = 0; b < nlists_; ++b)
        for_each_in_bucket_in_order(b, [&](std::uint64_t key, std::uint64_t pos) {
          const std::uint64_t f = key >> shift;
          if (f % scan_workers_ == w) files_[f]->append(key, std::string_view(address(pos), static_cast<std::size_t>(record_length(pos))));
        });
    });
    for (auto& list : lists_) list.clear(c_.mem);
    for (auto& b : blocks_) release(b);
    blocks_.clear();
    release_freed_memory();
    // Then the block in hand and the rest of the input, one block at a time (a read
    // buffer, once one was needed, is kept for the next blocks).
    big_buffer read_buffer;
    held_block b = std::move(first);
    while (b.size > 0) {
      scatter(b.data, b.size);
      records_ += b.records;
      c_.check_now();
      if (b.owned) {
        read_buffer = std::move(b.owned);
        b.held = 0;  // the ledger keeps holding block_cap_ for the buffer
      }
      release(b);
      b = next_block(&read_buffer);
    }
    if (read_buffer) {
      read_buffer.reset();
      c_.mem.give(block_cap_);
    }
    c_.stats.records += records_;
    for (auto& f : files_) f->flush();
    finish_files();
  }

  // ... or into bucket files.
  void scatter(const char* data, std::uint64_t size) {
    scan(data, size, key_bits - bits_, [&](std::uint64_t f, std::uint64_t key, std::uint64_t at, std::uint64_t len) {
      files_[f]->append(key, std::string_view(data + at, static_cast<std::size_t>(len)));
    });
  }

  // Step 3 outside memory: each file read back, sorted and gathered by a worker (within its
  // share of the work area), written in file order; a file too big for a share is finished
  // in its turn, splitting it again if needed.
  void finish_files() {
    std::vector<lane> lanes(workers_);
    const std::uint64_t share = c_.plan.work / (workers_ + 1);  // + 1: a big bucket finished in its turn
    struct result {
      gathered g;
      bool big = false;
    };
    auto gather = [&](const gathered& g) {
      return [&](char* o) {
        const sorted_bucket& b = g.owner->bucket;
        for (std::uint64_t k = 0; k < b.n; ++k) {
          if (k + prefetch_ahead < b.n) __builtin_prefetch(b.address(k + prefetch_ahead));
          const std::string_view r = b.record(k);
          std::memcpy(o, r.data(), r.size());
          o += r.size();
          if (!fmt_.record_size) *o++ = fmt_.delimiter;
        }
        return o;
      };
    };
    const bool ok = parallel_for_ordered(
        files_.size(), workers_, c_.options.control,
        [&](std::uint64_t f, unsigned w) {
          bucket_file& file = *files_[f];
          if (file.records() == 0) return result{};
          if (bucket_need(file, share) + file.size() > share && file.records() > 1) return result{{}, true};
          lane& l = lanes[w];
          const std::uint64_t bytes = file.record_bytes() + (fmt_.record_size ? 0 : file.records());
          sort_bucket(c_, file, bits_, 1, l.bucket);
          result r{gathered{bytes, l.bucket.n, &l, {}, {}}, false};
          if (!placed_) gather_output(r.g, gather(r.g), false);
          return r;
        },
        [&](std::uint64_t f, result& r) {
          if (r.big) finish_bucket(c_, *files_[f], bits_, 0, share);
          else place_output(r.g);
          files_[f]->release();
        },
        [&](std::uint64_t, result& r) { write_output(r.g, gather(r.g), true); });
    if (!ok) throw interrupted("interrupted; nothing written");
    for (auto& l : lanes) {
      c_.mem.give(l.out_cap);
      l.bucket.release(c_.mem);
    }
  }

  context& c_;
  record_format fmt_;
  std::uint64_t max_record_, block_cap_ = 0, chunk_items_ = 0;
  unsigned mem_bits_ = 0, bits_ = 0, workers_ = 1, scan_workers_ = 1, len_bits_ = 0;
  std::uint64_t len_cap_ = 0;  // the largest length pos holds: at it or above, record_length searches
  bool placed_ = false;  // the sink places blocks (reserve_block): gathered after placing
  std::vector<held_block> blocks_;
  std::uint64_t nlists_ = 1;
  std::vector<item_list> lists_;  // [scan worker * nlists_ + bucket]
  std::vector<std::unique_ptr<bucket_file>> files_;
  std::uint64_t records_ = 0, bytes_ = 0;
};

}  // namespace

bool run_bulk_shuffle(context& c) {
  const auto fmt = c.in.bulk_format();
  if (!fmt) return false;
  bulk_shuffle(c, *fmt).run();
  return true;
}

}  // namespace fairdeck::detail
