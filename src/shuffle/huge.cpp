#include "fairdeck/shuffle/huge.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <memory>
#include <new>
#include <stdexcept>
#include <thread>
#include <vector>

#include <sys/mman.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "fairdeck/random/bounded.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"

namespace fairdeck {
namespace {

constexpr std::uint64_t default_bucket_bytes = 1u << 20;  // L2-resident (measured best on a 2 MiB L2)
constexpr unsigned max_bucket_bits = 13;                     // scatter fan-out: 8192 staged lines (512 KiB)
constexpr std::uint64_t min_chunk_elements = 1u << 18;
constexpr std::uint64_t target_chunks = 256;                 // load balance without a big table
constexpr std::uint64_t bucket_stream_base = std::uint64_t{1} << 62;

// `secure` cannot be replayed, but labels are drawn twice (count, then scatter): use
// chacha20 under a fresh OS key instead — equally unpredictable, and replayable by us.
engine_spec replayable(const engine_spec& spec) {
  if (spec.id != engine_id::secure) return spec;
  engine_spec out;
  out.id = engine_id::chacha20;
  secure_engine e;
  chacha_key key{};
  for (std::size_t w = 0; w < 4; ++w) {
    std::uint64_t v = e();
    for (std::size_t b = 0; b < 8; ++b) key[8 * w + b] = static_cast<std::uint8_t>(v >> (8 * b));
    v = 0;
  }
  out.key = key;
  detail::secure_wipe(key.data(), key.size());
  return out;
}

// Calls f(i, label) for i in [0, len): b-bit labels, 64/b of them per engine word.
template <class E, class F>
void for_each_label(E& e, std::uint64_t len, unsigned bits, F&& f) {
  const unsigned per_word = 64 / bits;
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1;
  std::uint64_t i = 0;
  while (i < len) {
    std::uint64_t w = detail::draw_u64(e);
    const std::uint64_t end = std::min(len, i + per_word);
    for (; i < end; ++i) {
      f(i, w & mask);
      w >>= bits;
    }
  }
}

// One cache line of elements; the scratch array is 2 MiB-aligned, so element index k lives
// in slot k % size of its line.
template <class T>
struct alignas(64) line_of {
  static constexpr std::uint64_t size = 64 / sizeof(T);
  T v[size];
};

// Writes staged slots [first, end) of the line starting at element line_start, skipping
// slots before `region` (another chunk's or bucket's). Full lines bypass the cache.
template <class T>
void flush_line(T* out, std::uint64_t line_start, std::uint64_t end, std::uint64_t region, const line_of<T>& stage,
                bool streaming) {
#if defined(__SSE2__)
  if (streaming && line_start >= region && end - line_start == line_of<T>::size) {
    auto* dst = reinterpret_cast<__m128i*>(out + line_start);
    const auto* src = reinterpret_cast<const __m128i*>(stage.v);
    for (int q = 0; q < 4; ++q) _mm_stream_si128(dst + q, _mm_load_si128(src + q));
    return;
  }
#else
  (void)streaming;
#endif
  const std::uint64_t first = std::max(line_start, region);
  std::memcpy(out + first, stage.v + (first - line_start), (end - first) * sizeof(T));
}

inline void store_fence() {
#if defined(__SSE2__)
  _mm_sfence();  // streaming stores are weakly ordered: publish before the join
#endif
}

// dst[0..m) = src[0..m) in uniformly random order (src == dst allowed), in one pass (batched inside-out
// Fisher–Yates for 64-bit engines; copy then fisher_yates for the others).
template <class T, class E>
void copy_shuffled(const T* src, T* dst, std::uint64_t m, E& e) {
  if constexpr (batchable_engine<E>) {
    batched::inside_out_copy<64>(src, dst, m, batched::engine_words<E>{e});
  } else {
    if (src != dst) std::memcpy(dst, src, m * sizeof(T));
    fisher_yates(std::span<T>(dst, m), e);
  }
}

struct progress_state {
  const run_control& control;
  std::uint64_t total;
  std::atomic<std::uint64_t> done{0};
};

// Runs f(i) for i in [0, count) on `threads` threads (the caller is one of them and the
// only one reporting progress). f returns the work units it did. Items are independent,
// so which thread runs which item never shows in the result. Returns false if stopped
// before every item ran.
template <class F>
bool parallel_for(std::uint64_t count, unsigned threads, progress_state& ps, F&& f) {
  std::atomic<std::uint64_t> next{0}, finished{0};
  auto work = [&](bool report) {
    for (;;) {
      if (ps.control.stopped()) return;
      const std::uint64_t i = next.fetch_add(1, std::memory_order_relaxed);
      if (i >= count) return;
      ps.done.fetch_add(f(i), std::memory_order_relaxed);
      finished.fetch_add(1, std::memory_order_relaxed);
      if (report) ps.control.progress(ps.done.load(std::memory_order_relaxed), ps.total);
    }
  };
  {
    std::vector<std::jthread> pool;
    const std::uint64_t helpers = std::min<std::uint64_t>(threads, count) - (count > 0 ? 1 : 0);
    for (std::uint64_t t = 0; t < helpers; ++t) pool.emplace_back([&] { work(false); });
    work(true);
  }  // joins
  return finished.load() == count;
}

// Permutation == false: shuffle data (scatter into the workspace, copy buckets home).
// Permutation == true: data = a random permutation of 0..n-1; the "input" is the index
// itself, so the scatter writes straight into data and buckets are shuffled in place: no
// scratch memory at all.
template <class T, bool Permutation>
bool shuffle_impl(std::span<T> data, const engine_spec& user_spec, const huge_shuffle_options& options,
                  huge_shuffle_workspace* workspace) {
  const huge_shuffle_plan plan = plan_huge_shuffle(data.size(), sizeof(T), options);
  engine_spec spec = replayable(user_spec);
  struct key_wiper {
    engine_spec& s;
    ~key_wiper() {
      if (s.key) detail::secure_wipe(s.key->data(), s.key->size());
    }
  } wipe_key_on_exit{spec};

  const run_control& rc = options.control;
  if (plan.bucket_bits == 0) {
    if (rc.stopped()) return false;
    if constexpr (Permutation)
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<T>(i);
    visit_engine(spec, 0, [&](auto& e) { fisher_yates(data, e); });
    rc.progress(data.size(), data.size());
    return true;
  }

  const std::uint64_t n = plan.elements;
  const unsigned bits = plan.bucket_bits;
  const std::uint64_t buckets = plan.buckets();
  const unsigned threads =
      options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  auto chunk_len = [&](std::uint64_t c) { return std::min(plan.chunk_elements, n - c * plan.chunk_elements); };
  progress_state ps{rc, 3 * n};

  // 1. Count labels per (chunk, bucket). Labels need no input: only the engine streams.
  std::vector<std::uint64_t> table(plan.chunks * buckets, 0);
  if (!parallel_for(plan.chunks, threads, ps, [&](std::uint64_t c) {
        std::uint64_t* row = table.data() + c * buckets;
        const std::uint64_t len = chunk_len(c);
        visit_engine(spec, c, [&](auto& e) { for_each_label(e, len, bits, [row](std::uint64_t, std::uint64_t l) { ++row[l]; }); });
        return len;
      }))
    return false;

  // Counts -> write cursors: bucket-major, chunks in input order within a bucket.
  std::vector<std::uint64_t> bucket_start(buckets + 1, 0);
  std::uint64_t running = 0;
  for (std::uint64_t b = 0; b < buckets; ++b) {
    bucket_start[b] = running;
    for (std::uint64_t c = 0; c < plan.chunks; ++c) {
      const std::uint64_t count = table[c * buckets + b];
      table[c * buckets + b] = running;
      running += count;
    }
  }
  bucket_start[buckets] = running;

  T* const target = Permutation ? data.data() : static_cast<T*>(workspace->reserve(n * sizeof(T)));
  const bool streaming = reinterpret_cast<std::uintptr_t>(target) % 64 == 0;
  // 2. Scatter: replay each chunk's labels; each chunk owns its cursors. Elements are
  // staged per bucket in the slot their destination has within its 64-byte line, and a
  // completed line is written with streaming stores (software write combining): no read
  // for ownership and one line per 64 bytes instead of a random access per element.
  if (!parallel_for(plan.chunks, threads, ps, [&](std::uint64_t c) {
        std::uint64_t* cursor = table.data() + c * buckets;
        const T* in = data.data() + c * plan.chunk_elements;
        const std::uint64_t base = c * plan.chunk_elements;
        T* out = target;
        const std::uint64_t len = chunk_len(c);
        thread_local std::vector<line_of<T>> staging;
        thread_local std::vector<std::uint64_t> region_start;
        staging.resize(buckets);
        region_start.assign(cursor, cursor + buckets);
        line_of<T>* const stage = staging.data();
        const std::uint64_t* const region = region_start.data();
        visit_engine(spec, c, [&](auto& e) {
          for_each_label(e, len, bits, [&](std::uint64_t i, std::uint64_t l) {
            const std::uint64_t at = cursor[l]++;
            if constexpr (Permutation)
              stage[l].v[at % line_of<T>::size] = static_cast<T>(base + i);
            else
              stage[l].v[at % line_of<T>::size] = in[i];
            if ((at + 1) % line_of<T>::size == 0)
              flush_line(out, at + 1 - line_of<T>::size, at + 1, region[l], stage[l], streaming);
          });
        });
        for (std::uint64_t b = 0; b < buckets; ++b)
          if (const std::uint64_t end = cursor[b]; end % line_of<T>::size)
            flush_line(out, end - end % line_of<T>::size, end, region_start[b], staging[b], streaming);
        store_fence();
        return len;
      }))
    return false;  // shuffle: data untouched so far

  // 3. Shuffle each bucket in cache and copy it home.
  std::vector<std::uint8_t> done(buckets, 0);
  const bool complete = parallel_for(buckets, threads, ps, [&](std::uint64_t b) {
    const std::uint64_t first = bucket_start[b], len = bucket_start[b + 1] - first;
    visit_engine(spec, bucket_stream_base + b, [&](auto& e) {
      copy_shuffled(target + first, data.data() + first, len, e);  // in place when Permutation
    });
    done[b] = 1;
    return len;
  });
  if (!complete && !Permutation)  // stopped: put the rest back unshuffled, data stays a permutation
    for (std::uint64_t b = 0; b < buckets; ++b)
      if (!done[b])
        std::memcpy(data.data() + bucket_start[b], target + bucket_start[b],
                    (bucket_start[b + 1] - bucket_start[b]) * sizeof(T));
  return complete;
}

}  // namespace

huge_shuffle_plan plan_huge_shuffle(std::uint64_t n, std::size_t element_bytes, const huge_shuffle_options& options) noexcept {
  huge_shuffle_plan plan;
  plan.elements = n;
  plan.element_bytes = element_bytes;
  plan.chunk_elements = n;
  const std::uint64_t bucket_bytes = options.bucket_bytes ? options.bucket_bytes : default_bucket_bytes;
  const std::uint64_t per_bucket = std::max<std::uint64_t>(1, bucket_bytes / std::max<std::size_t>(1, element_bytes));
  if (n <= 2 * per_bucket) return plan;  // fits in cache: one Fisher–Yates is fastest
  const std::uint64_t want = (n + per_bucket - 1) / per_bucket;
  plan.bucket_bits = std::min<unsigned>(max_bucket_bits, static_cast<unsigned>(std::bit_width(want - 1)));
  plan.chunk_elements = options.chunk_elements
                            ? options.chunk_elements
                            : std::max(min_chunk_elements, (n + target_chunks - 1) / target_chunks);
  plan.chunks = (n + plan.chunk_elements - 1) / plan.chunk_elements;
  return plan;
}

namespace {
constexpr std::size_t huge_page = std::size_t{2} << 20;
}

huge_shuffle_workspace::~huge_shuffle_workspace() { release(); }

void huge_shuffle_workspace::release() noexcept {
  if (base_) ::munmap(base_, mapped_);
  base_ = data_ = nullptr;
  mapped_ = bytes_ = 0;
}

// 2 MiB-aligned (the staged lines of the scatter must be 64-byte aligned). Transparent huge
// pages were measured slower here: the first call paid seconds of memory compaction.
void* huge_shuffle_workspace::reserve(std::size_t bytes) {
  if (bytes <= bytes_) return data_;
  release();
  const std::size_t rounded = (bytes + huge_page - 1) & ~(huge_page - 1);
  void* p = ::mmap(nullptr, rounded + huge_page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  base_ = p;
  mapped_ = rounded + huge_page;
  data_ = reinterpret_cast<void*>((reinterpret_cast<std::uintptr_t>(p) + huge_page - 1) & ~(huge_page - 1));
  bytes_ = rounded;
  return data_;
}

bool huge_shuffle(std::span<std::uint32_t> data, const engine_spec& spec, const huge_shuffle_options& options) {
  huge_shuffle_workspace ws;
  return shuffle_impl<std::uint32_t, false>(data, spec, options, &ws);
}

bool huge_shuffle(std::span<std::uint64_t> data, const engine_spec& spec, const huge_shuffle_options& options) {
  huge_shuffle_workspace ws;
  return shuffle_impl<std::uint64_t, false>(data, spec, options, &ws);
}

bool huge_shuffle(std::span<std::uint32_t> data, const engine_spec& spec, const huge_shuffle_options& options,
                  huge_shuffle_workspace& workspace) {
  return shuffle_impl<std::uint32_t, false>(data, spec, options, &workspace);
}

bool huge_shuffle(std::span<std::uint64_t> data, const engine_spec& spec, const huge_shuffle_options& options,
                  huge_shuffle_workspace& workspace) {
  return shuffle_impl<std::uint64_t, false>(data, spec, options, &workspace);
}

bool random_permutation(std::span<std::uint32_t> out, const engine_spec& spec, const huge_shuffle_options& options) {
  if (out.size() > std::uint64_t{0xFFFFFFFF} + 1) throw std::length_error("random_permutation: n exceeds 2^32 for uint32_t");
  return shuffle_impl<std::uint32_t, true>(out, spec, options, nullptr);
}

bool random_permutation(std::span<std::uint64_t> out, const engine_spec& spec, const huge_shuffle_options& options) {
  return shuffle_impl<std::uint64_t, true>(out, spec, options, nullptr);
}

}  // namespace fairdeck
