// Whole-file input for front ends: FILE, or "-" for standard input, with a size cap so a
// huge or endless input fails with a message instead of growing memory without bound.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace fairdeck {

// Reads all of `path` ("-": stdin). Throws std::runtime_error naming `what` and the path
// when it cannot be read or holds more than max_bytes.
[[nodiscard]] std::string read_input(std::string_view path, std::size_t max_bytes, std::string_view what);

// read_input for a small input that is a secret (a key file): the same contract, but the text
// is read straight into the returned string, allocated once at max_bytes + 1 (no stack buffer,
// nothing moved), and wiped (sodium_memzero) on every error path. The caller wipes the result.
[[nodiscard]] std::string read_secret_input(std::string_view path, std::size_t max_bytes, std::string_view what);

// read_secret_input for a file that must be private, as fairdeckd's key file: a regular file
// ("-" is a file name here) no one but its owner may read, write or run (mode & 077 == 0).
// Refused otherwise, in one line naming the file and the fix: "{what} F is accessible by other
// users (mode 644); chmod 600 it".
[[nodiscard]] std::string read_secret_file(std::string_view path, std::size_t max_bytes, std::string_view what);

}  // namespace fairdeck
