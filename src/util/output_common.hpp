// What src/util/output_path.cpp (the checks of an output path) and src/util/safe_output.cpp
// (the writer) share: the messages and the path helpers. Private to the library.
#pragma once

#include <cerrno>
#include <cstring>
#include <string>
#include <string_view>

#include <sys/stat.h>

#include <fmt/format.h>

#include "fairdeck/util/safe_output.hpp"

namespace fairdeck::output_detail {

inline std::string shown(const std::string& path) {
  return path == "-" ? "standard output" : fmt::format("'{}'", path);
}

[[noreturn]] inline void fail(output_error_kind kind, const std::string& path, int err,
                              std::string_view action = "write") {
  throw output_error(kind, path, err, fmt::format("cannot {} {}: {}", action, shown(path), std::strerror(err)));
}

inline output_error_kind kind_of(int err) {
  switch (err) {
    case EACCES:
    case EPERM:
    case EROFS: return output_error_kind::not_writable;
    case EISDIR: return output_error_kind::is_directory;
    case ENOENT:
    case ENOTDIR: return output_error_kind::no_parent;
    default: return output_error_kind::io;
  }
}

inline std::string parent_of(const std::string& p) {
  const auto slash = p.find_last_of('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return p.substr(0, slash);
}

inline std::string base_of(const std::string& p) {
  const auto slash = p.find_last_of('/');
  return slash == std::string::npos ? p : p.substr(slash + 1);
}

inline bool same_file(const struct stat& a, const struct stat& b) {
  return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace fairdeck::output_detail
