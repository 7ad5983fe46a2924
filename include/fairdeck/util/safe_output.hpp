// Safe output files: every byte checked, nothing truncated or partial left behind, the path
// checked before the long work that produces the output.
//
// Guarantees of fairdeck::safe_output (POSIX):
//  * Checked early. The constructor validates the path at once and throws output_error with a
//    distinct kind: empty_path, no_parent (the folder does not exist or is not a folder),
//    is_directory (also a path ending in '/': it names a folder, as for the kernel),
//    not_writable, same_as_input (st_dev/st_ino equal to one of the given inputs, so
//    `--input dk.txt --html dk.txt` cannot overwrite the decks), unsafe_link
//    (another user's symbolic link in a sticky world-writable folder: see below). For a regular file
//    (or a new path) it also creates the temporary file, so a permission or read-only-disk
//    problem shows up before any computation, not after it.
//  * Regular files and new paths are replaced atomically: bytes go to a temporary file
//    `<name>.<random>.fairdeck-partial` in the same folder (so rename(2) never crosses file
//    systems); commit() flushes, fsync(2)s the file, close(2)s it (checked), rename(2)s it
//    over the target and fsync(2)s the folder (where the folder cannot be opened, e.g. a 0733
//    drop folder of another user, syncfs(2) through the file instead; a failure of either is
//    an error). Before commit() the old file, if any, is
//    untouched; after it the new one is complete and durable. A replaced file keeps its mode
//    and, where the caller may give them (root; else EPERM is ignored), its owner and group;
//    a new one gets 0666 & ~umask, like any file the user creates.
//  * Devices, FIFOs, sockets and "-" (standard output) are written through, never replaced:
//    a pipe works. They are opened lazily at the first write, so a FIFO with no reader does not
//    block the checks. Only what is a device, FIFO or socket is: a regular file is replaced as
//    above wherever it is, under /dev (/dev/shm) too.
//  * This process's own descriptors, named /dev/stdout, /dev/stderr, /dev/fd/N or
//    /proc/self/fd/N (also through links), are written through a duplicate of descriptor N
//    (/dev/stdout: descriptor 1, like "-"), so the output continues where the shell's
//    descriptor stands and keeps its O_APPEND: `{ echo head; fairdeck ... -o /dev/stdout; } > f`
//    keeps the head, `>> f` appends. (Opening the path anew, as the kernel would, starts a
//    new file description at offset 0.) A closed descriptor, or one not open for writing, is
//    an error (kind io or not_writable).
//  * Symbolic links are followed only as the kernel would with fs.protected_symlinks on,
//    whatever that sysctl says: a link in a sticky world-writable folder (/tmp, /dev/shm) is
//    followed only when it belongs to the caller (euid) or to the folder's owner; any other
//    throws output_error(kind unsafe_link) naming the link, before anything is created. The
//    rule applies to every link on the way (in the middle of the path, at its end, links to
//    links, dangling ones). A link that passes is never replaced by a file: its target is
//    written by the rules above (a regular target gets the temporary file in its own folder
//    and the rename; a dangling link's target is created there, as open(O_CREAT) would). The
//    path is walked one component at a time (lstat, readlink) so the target written holds no
//    link that was not checked; a device or FIFO reached through a checked link is opened
//    with O_NOFOLLOW on the resolved path, so a link swapped in after the check is refused.
//  * Every write(2), fsync(2), close(2) and rename(2) is checked (EINTR retried, short writes
//    continued); a failure throws output_error(kind io) naming the path and the OS reason,
//    e.g. "cannot write 'r.html': No space left on device".
//  * Not committed = nothing left: abort() or the destructor (exception, early return)
//    removes the temporary file. For signals, remove_partial_outputs() is async-signal-safe:
//    a SIGINT/SIGTERM handler calls it before _exit so even a second Ctrl-C during cleanup
//    leaves no *.fairdeck-partial file. (kill -9 cannot be caught; the temporary name says
//    what the file is.)
//  * Streaming: data passes through a fixed 1 MiB buffer, so outputs of many gigabytes cost
//    no memory; write() may be called any number of times before commit().
// Not thread-safe per object (one writer). Style: Boost.Beast's file_posix and the
// rename-into-place convention of editors and package managers (write, fsync, rename, fsync dir).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace fairdeck {

enum class output_error_kind {
  empty_path,     // "" given as a path: a usage error
  no_parent,      // the containing folder does not exist (or is not a folder)
  is_directory,   // the path names a folder
  not_writable,   // permission denied, read-only file system, ...
  same_as_input,  // the output is the same file as an input: a usage error
  io,             // a write, sync, close or rename failed (disk full, I/O error, ...)
  unsafe_link,    // a symbolic link the kernel's protected_symlinks rule would not follow
};

class output_error : public std::runtime_error {
 public:
  output_error(output_error_kind kind, std::string path, int os_error, const std::string& message)
      : std::runtime_error(message), kind_(kind), path_(std::move(path)), os_error_(os_error) {}
  [[nodiscard]] output_error_kind kind() const noexcept { return kind_; }
  [[nodiscard]] const std::string& path() const noexcept { return path_; }
  [[nodiscard]] int os_error() const noexcept { return os_error_; }  // errno, 0 if none

 private:
  output_error_kind kind_;
  std::string path_;
  int os_error_;
};

// How a path will be written (see the guarantees above).
enum class output_mode {
  replace,         // regular file or new path: temp file + fsync + rename
  write_through,   // device, FIFO, socket: opened and written in place
  standard_output, // "-", /dev/stdout, /dev/fd/1, ...: descriptor 1
  descriptor       // /dev/stderr, /dev/fd/N, /proc/self/fd/N (N != 1): a duplicate of descriptor N
};

struct output_plan {
  std::string path;    // as given (used in messages)
  std::string target;  // the file actually written (links resolved as the kernel would)
  output_mode mode = output_mode::replace;
  int fd = -1;  // standard_output and descriptor: the process's descriptor written
};

// Checks `path` as described above without creating anything; `inputs` are files the
// command reads ("-" = standard input, compared through fstat(0)). Throws output_error.
[[nodiscard]] output_plan check_output_path(const std::string& path, std::span<const std::string> inputs = {});

// Whether two checked paths write the same file: the same descriptor, the same target
// path (also a new one), or the same existing file (st_dev/st_ino: a hard link, "-" and
// /dev/stdout, /dev/stdout and /dev/fd/3 after 3>&1, a pipe or terminal both are on).
[[nodiscard]] bool same_output_target(const output_plan& a, const output_plan& b);

class safe_output {
 public:
  // Checks the path (check_output_path) and, in replace mode, creates the temporary file.
  explicit safe_output(const std::string& path, std::span<const std::string> inputs = {});
  ~safe_output();  // abort() unless committed
  safe_output(safe_output&&) noexcept;
  safe_output& operator=(safe_output&&) noexcept;
  safe_output(const safe_output&) = delete;
  safe_output& operator=(const safe_output&) = delete;

  void write(const void* data, std::size_t size);
  void write(std::string_view text) { write(text.data(), text.size()); }
  // Positional writing, for writers that produce consecutive pieces on several threads:
  // reserve(n), called in output order like write(), returns the offset where the next n
  // bytes go — or nothing when the output is not a temporary file (written through: then
  // use write()). write_at(data, n, offset) fills a reserved range and may run on any
  // thread concurrently with other write_at calls; every reserved byte must be written
  // before commit(). Errors are output_error, as for write().
  // Large ranges skip the page cache: the whole 4 KiB pages inside a write_at of 256 KiB or
  // more are written with O_DIRECT when data lies at the same place in its page as offset
  // (data ≡ offset mod direct_alignment), so a writer that places its bytes accordingly saves
  // the kernel's copy; the partial pages at the ends (shared with the neighbouring ranges)
  // go through the cache. Where the file system refuses O_DIRECT, all goes through the cache.
  static constexpr std::uint64_t direct_alignment = 4096;
  static constexpr std::uint64_t direct_min_bytes = std::uint64_t{256} << 10;
  [[nodiscard]] std::optional<std::uint64_t> reserve(std::uint64_t n);
  void write_at(const void* data, std::size_t n, std::uint64_t offset);
  // Makes the output complete and durable (see above). After it, write() is an error.
  void commit();
  // Drops the output: the temporary file is removed (write-through targets keep what was
  // written). noexcept; safe to call twice.
  void abort() noexcept;

  [[nodiscard]] const output_plan& plan() const;
  [[nodiscard]] std::uint64_t bytes_written() const;

 private:
  struct state;
  std::unique_ptr<state> s_;
};

// Whole-buffer convenience: safe_output(path, inputs), write(content), commit().
void write_output_file(const std::string& path, std::string_view content, std::span<const std::string> inputs = {});

// Async-signal-safe: unlinks the temporary files of every live, uncommitted safe_output.
// Call it from a signal handler right before _exit.
void remove_partial_outputs() noexcept;

}  // namespace fairdeck
