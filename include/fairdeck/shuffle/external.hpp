// Exactly uniform shuffles of record streams larger than memory (`fairdeck shuffle-file`).
//
// The order. Record i (counting from 0 after the header) gets a key K_i: 63 bits of the
// counter-based stream (seed, i / 512) of the engine (visit_engine; `secure` becomes chacha20
// under a fresh OS key, as in huge.hpp). The output lists the records by increasing key;
// records with equal keys (probability about n^2 / 2^64) are first put in input order and
// then shuffled by Fisher–Yates with the stream (seed, 2^63 + key). Why exactly uniform:
// the keys are i.i.d. uniform, so conditioned on the partition of the records into tie
// groups every assignment of distinct key values to groups is equally likely — the order
// of the groups is a uniformly random permutation — and each group is then shuffled
// uniformly and independently; every one of the n! orders has probability 1/n! (the
// random-keys argument: Knuth TAOCP vol. 2, 3.4.2, "assign random numbers and sort"; the
// scatter-by-labels construction of Rao 1961 / Sandelius 1962 / Sanders 1998 used by
// huge.hpp is the same argument with the top key bits as labels).
//
// The algorithm. Records are read once into memory while they fit in the budget, placed by
// the top key bits into up to 256 in-memory buckets (so that writing in key order later
// reads one bucket's few megabytes at a time, not the whole work area at random); each
// bucket's keys are sorted by one counting pass over the next bits plus a small sort per
// slot (expected O(n)), and the records written in key order. If the input outgrows the budget,
// it is scattered into 2^b temporary bucket files by the top b key bits (in input order, so
// ties keep input order), each bucket is read back, sorted by key in memory and appended to
// the output; a bucket that still does not fit is scattered again by the next key bits.
// Because the output is defined by the keys alone, it is identical — byte for byte — for
// every memory budget, bucket count, thread count and temporary folder: the in-memory and
// the external path give the same order for a seed, and so does sampling (below).
//
// Threads. Sources that hand out whole blocks of records (record_source::bulk_format: files,
// standard input, gzip) take a bulk path where every stage runs on all threads: blocks are
// mapped from a regular input file (mmap: the page cache's own pages, no copy and no fresh
// memory to zero — on this project's VM, zeroing 400 MB of new memory was a third of an
// in-memory run's CPU) or else read with parallel preads, and kept as they are (no copy per
// record); each worker scans the
// block and keeps the records whose top key bits name one of its own buckets (in memory, or
// bucket files once the input outgrows the budget), so buckets need no locks and keep input
// order; buckets are then sorted and gathered into output blocks by the workers, placed in
// the output in bucket order and written there in parallel (positional writes into the
// temporary output file; in order to pipes and devices). Scanning is repeated per worker
// (at most 4), the price of lock-free buckets. Data too big for memory skips the page cache
// where the file system allows (O_DIRECT): bucket files are written from page-aligned
// buffers of 256 KiB or more, and output blocks from bucket files are gathered at their
// place's spot in the page so their whole pages go straight to the file
// (safe_output::write_at); so are output blocks in memory (the output is fsync'd anyway).
// On a VM the kernel's page-cache copies cost about a second of CPU per GB written;
// skipping them took 10.5 GB under 1 GB of memory from ~40 s to ~32 s.
//
// Sampling (options.sample = K): the K records with the smallest keys, in key order, kept
// in a max-heap while streaming (reservoir sampling by random keys, one pass, O(K) memory;
// Efraimidis & Spirakis, IPL 97(5), 2006, with equal weights). Exactly uniform: every
// K-subset is equally likely and its order uniform — and it equals the first K records of
// the full shuffle with the same seed.
//
// Cost: in memory, one read and one write of the data, O(n) expected time, memory
// bytes + 24 per record (+ ~1 byte length prefix). External: the data is read twice and
// written twice (plus once more per extra split level, `passes` in the stats); temporary
// space is the input plus 9 bytes per record. Memory stays within memory_bytes: the budget
// is split between the read buffer (the longest record allowed, max_record_bytes), output
// buffers, bucket write buffers and the in-memory work area, for every thread count (each
// worker's sort and output block is part of that split); allocation failure throws
// memory_error naming the size. Buffers of 64 KiB and more are mapped (mmap) and unmapped
// when freed, so what the accounting gives back leaves the process at once and resident
// memory follows it: peak RSS <= memory_bytes + the program's fixed overhead (code, thread
// stacks), tested with 1, 2, 4 and 8 threads (tests/shuffle_file_memory_test.cpp). Through
// malloc it did not: glibc's per-thread arenas each kept their own freed chunks (8 MiB with
// 8 threads peaked at 73 MB). Temporary files are unlinked as soon as they are created, so
// they vanish on success, error, Ctrl-C and even kill -9; a full disk throws temp_space_error.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/record_io.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck {

struct external_shuffle_options {
  std::uint64_t memory_bytes = 0;       // the budget; 0: default_memory_budget(). Never changes the result.
  std::string temp_dir;                 // "": $TMPDIR, else /tmp. Never changes the result.
  unsigned threads = 0;                 // 0: all cores. Never changes the result.
  std::uint64_t header = 0;             // the first `header` records are written first, in place
  std::optional<std::uint64_t> sample;  // K: only the first K records of the shuffle, in O(K) memory
  run_control control;                  // progress in input+output bytes; stop -> fairdeck::interrupted
};

struct external_shuffle_stats {
  std::uint64_t records = 0;             // records shuffled (after the header)
  std::uint64_t header_records = 0;
  std::uint64_t output_records = 0;      // header + shuffled (or sampled) records written
  unsigned passes = 0;                   // times the data was read: 1 in memory, 2 with one scatter, ...
  std::uint64_t buckets = 0;             // temporary bucket files (all levels)
  std::uint64_t temp_bytes = 0;          // bytes written to temporary files
  std::uint64_t peak_reserved_bytes = 0; // the most memory the algorithm's buffers held at once
  std::uint64_t memory_bytes = 0;        // the budget used
};

// An allocation the budget allowed failed, or sampling needs more than the budget.
class memory_error : public std::runtime_error {
 public:
  memory_error(const std::string& message, std::uint64_t bytes) : std::runtime_error(message), bytes_(bytes) {}
  [[nodiscard]] std::uint64_t bytes() const noexcept { return bytes_; }

 private:
  std::uint64_t bytes_;
};

// A temporary file could not be created, written or read (disk full, no such folder, EIO).
class temp_space_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The longest record a budget allows (memory_bytes / 16): pass it to record_reader.
[[nodiscard]] std::uint64_t max_record_bytes(std::uint64_t memory_bytes) noexcept;
// Half of what the machine can give now: min(MemAvailable, cgroup v2 memory.max headroom,
// RLIMIT_AS / RLIMIT_DATA headroom) / 2, at least 16 MiB.
[[nodiscard]] std::uint64_t default_memory_budget() noexcept;

// Writes the header, then the shuffled (or sampled) records of `in` to `out`. Throws
// memory_error, temp_space_error, interrupted, and what `in` and `out` throw.
external_shuffle_stats shuffle_records(record_source& in, record_sink& out, const engine_spec& spec,
                                       const external_shuffle_options& options = {});

}  // namespace fairdeck
