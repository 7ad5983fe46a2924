// Fuzzes bulk record reading (util/record_io.hpp, record_reader::read_records, the input
// side of shuffle-file): for any bytes, delimiter, fixed record size, record limit and
// block size, the blocks hold whole records each ending with its delimiter and list the
// same records as next() does; a record that cannot fit is record_too_long, a file that is
// not whole fixed-size records is input_error — nothing else escapes, nothing hangs.
// The input is split in two files to cross an input boundary.
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "fairdeck/util/record_io.hpp"

namespace {

std::string memfile(const std::uint8_t* data, std::size_t size) {
  const int fd = ::memfd_create("fuzz", 0);
  if (fd < 0) std::abort();
  if (size && ::write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  if (size < 4) return 0;
  record_format fmt;
  fmt.delimiter = (data[0] & 1) ? '\0' : '\n';
  fmt.record_size = (data[0] & 2) ? 1 + (data[0] >> 5) : 0;
  const std::uint64_t limit = 1 + data[1] % 64;
  const std::uint64_t cap = limit + 2 + data[2] % 64;
  const std::size_t split = std::min<std::size_t>(data[3], size - 4);
  const std::string a = memfile(data + 4, split), b = memfile(data + 4 + split, size - 4 - split);
  std::vector<std::string> paths = {a, b};
  std::string by_next, by_block;
  std::uint64_t n_next = 0, n_block = 0;
  bool ok_next = true, ok_block = true;
  try {
    record_reader r(paths, fmt, limit);
    std::string_view rec;
    while (r.next(rec)) {
      if (!fmt.record_size && rec.size() > limit) std::abort();
      by_next.append(rec);
      if (!fmt.record_size) by_next += fmt.delimiter;
      ++n_next;
    }
  } catch (const record_too_long&) {
    ok_next = false;
  } catch (const input_error&) {
    ok_next = false;
  }
  try {
    record_reader r(paths, fmt, limit);
    std::string block(static_cast<std::size_t>(cap), 'X');
    for (int guard = 0;; ++guard) {
      if (guard > 100000) std::abort();  // no progress
      const records_read got = r.read_records(block.data(), cap, 1 + (data[0] >> 7));
      if (got.bytes == 0) break;
      if (got.bytes > cap) std::abort();
      if (!fmt.record_size && block[got.bytes - 1] != fmt.delimiter) std::abort();
      if (fmt.record_size && got.bytes % fmt.record_size) std::abort();
      by_block.append(block.data(), static_cast<std::size_t>(got.bytes));
      n_block += got.records;
    }
  } catch (const record_too_long&) {
    ok_block = false;
  } catch (const input_error&) {
    ok_block = false;
  }
  // Both ways agree when both succeed. The block reader refuses a record that cannot fit a
  // block; a record over the limit inside a block is its caller's to refuse (shuffle-file
  // does): so when only next() refused, the blocks must hold such a record.
  if (ok_block && !ok_next) {
    std::size_t longest = 0, run = 0;
    for (const char ch : by_block) run = ch == fmt.delimiter ? (longest = std::max(longest, run), 0) : run + 1;
    if (fmt.record_size || longest <= limit) std::abort();
  }
  if (ok_block && ok_next && (by_block != by_next || n_block != n_next)) std::abort();
  for (const auto& p : paths) ::close(std::atoi(p.c_str() + 14));
  return 0;
}
