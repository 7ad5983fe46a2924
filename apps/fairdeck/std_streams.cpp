#include "std_streams.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "fairdeck/util/safe_output.hpp"

namespace fairdeck::cli {
namespace {

// stdio keeps only an error flag: when an earlier write failed and its buffer was dropped,
// find the OS reason again without writing any data.
int probe_stdout_error() {
  if (::write(STDOUT_FILENO, "", 0) < 0) return errno;  // /dev/full, a closed descriptor, ...
  struct stat st {};
  struct statvfs fs {};
  if (::fstat(STDOUT_FILENO, &st) == 0 && S_ISREG(st.st_mode) && ::fstatvfs(STDOUT_FILENO, &fs) == 0 &&
      fs.f_bavail == 0)
    return ENOSPC;
  return 0;
}

}  // namespace

void flush_standard_output() {
  errno = 0;
  const bool flush_failed = std::fflush(stdout) != 0;
  int err = flush_failed ? errno : 0;
  if (!flush_failed && !std::ferror(stdout)) return;
  if (err == 0) err = probe_stdout_error();
  throw output_error(output_error_kind::io, "-", err,
                     std::string("cannot write standard output: ") + (err ? std::strerror(err) : "write error"));
}

}  // namespace fairdeck::cli
