// Helpers shared by the test files (tests/ and tests/service/): a temporary directory,
// whole-file reads and writes, and running a shell command for its output. One copy each:
// `duplicates` (tools) finds new ones.
#pragma once

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/wait.h>

namespace fairdeck::testing {

// A fresh empty directory under $TMPDIR (default /tmp), named after the running test
// (fairdeck_<Suite>.<Test>_XXXXXX) so a leftover says where it came from; removed with
// everything in it when the object dies, after detaching a file system a test mounted on it
// (root only; a no-op otherwise). Throws std::runtime_error when it cannot be created.
struct temp_dir {
  std::filesystem::path path;

  temp_dir() {
    std::string tag = "test";
    if (const auto* t = ::testing::UnitTest::GetInstance()->current_test_info())
      tag = std::string(t->test_suite_name()) + "." + t->name();
    for (char& c : tag)
      if (c == '/') c = '_';  // parameterised tests: "Suite/Test/0"
    std::string tmpl = (std::filesystem::temp_directory_path() / ("fairdeck_" + tag + "_XXXXXX")).string();
    if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp " + tmpl + " failed");
    path = tmpl;
  }
  ~temp_dir() {
    (void)::umount2(path.c_str(), MNT_DETACH);
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  // The path of `name` inside the directory, as text for a command line.
  [[nodiscard]] std::string file(std::string_view name) const { return (path / name).string(); }
  [[nodiscard]] std::string operator/(std::string_view name) const { return file(name); }
  // How many entries the directory holds (not recursive).
  [[nodiscard]] std::size_t entries() const {
    return static_cast<std::size_t>(
        std::distance(std::filesystem::directory_iterator(path), std::filesystem::directory_iterator()));
  }
};

// The whole file as bytes ("" when it cannot be read).
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

inline void write_file(const std::filesystem::path& p, std::string_view content) {
  std::ofstream(p, std::ios::binary) << content;
}

struct shell_result {
  int exit_code = -1;  // 128 + N when killed by signal N; -1 when the shell did not start
  std::string out;     // stdout only
};

// Runs `cmd` with /bin/sh (popen): its stdout and exit code.
inline shell_result run_shell(const std::string& cmd) {
  shell_result r;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  return r;
}

// Only the stdout of `cmd`.
inline std::string shell_output(const std::string& cmd) { return run_shell(cmd).out; }

// True when `err` is one error line, after --seed's "fairdeck: note: ... not secure" line
// when there is one (a note, not an error).
inline bool one_error_line(std::string err) {
  if (err.starts_with("fairdeck: note:")) err = err.substr(err.find('\n') + 1);
  return !err.empty() && err.find('\n') == err.size() - 1;
}

}  // namespace fairdeck::testing
