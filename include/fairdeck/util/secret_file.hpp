// A new file that holds a secret (a server seed, a player's key share): created once, never
// replaced, readable by its owner alone, and durable before the call returns.
//
// Guarantees of create_secret_file (POSIX):
//  * New only: open(2) with O_CREAT | O_EXCL | O_NOFOLLOW fails if anything is at the path,
//    a dangling symbolic link included, so a secret is never overwritten and no link can
//    redirect it elsewhere (kind `exists`).
//  * Mode 0600 whatever the umask (fchmod(2) after the open, before the first byte).
//  * Every write(2) is checked (EINTR retried, short writes continued); the file is
//    fsync(2)ed, closed (checked), and its folder fsync(2)ed, so the new entry survives a
//    crash once the call returns.
//  * Any failure after the file was created removes it: nothing half-written is left.
//  * The bytes are written from the caller's buffer and never copied: wiping it
//    (sodium_memzero) stays the caller's job, on every path.
// Errors: secret_file_error (a std::runtime_error) with its kind, errno and a message naming
// the path and the OS reason ("cannot create x/y.key: No such file or directory").
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fairdeck {

class secret_file_error : public std::runtime_error {
 public:
  enum class kind_t {
    exists,  // something (a file, a folder, a dangling link) is already at the path
    create,  // open(2) failed otherwise: no such folder, permission denied, ...
    io,      // fchmod, write, fsync or close failed: the file was removed again
  };
  secret_file_error(kind_t kind, int os_error, const std::string& message)
      : std::runtime_error(message), kind_(kind), os_error_(os_error) {}
  [[nodiscard]] kind_t kind() const noexcept { return kind_; }
  [[nodiscard]] int os_error() const noexcept { return os_error_; }  // errno

 private:
  kind_t kind_;
  int os_error_;
};

// Creates `path` holding exactly `bytes`, by the rules above.
void create_secret_file(const std::filesystem::path& path, std::string_view bytes);
// The same rules with another mode (e.g. 0644 for the public half of a key pair written beside
// its secret): still new only, set by fchmod(2) whatever the umask, synced, removed on failure.
void create_new_file(const std::filesystem::path& path, std::string_view bytes, unsigned mode);

}  // namespace fairdeck
