// Runs the built fairdeck binary for end-to-end tests: exit code, stdout, stderr.
#pragma once

#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>

#include <sys/wait.h>
#include <unistd.h>

namespace fairdeck::testing {

struct cli_result {
  int exit_code;
  std::string out;
  std::string err;
};

// `args` is appended to the binary path and run by /bin/sh; stdin is empty unless
// `input` is given.
inline cli_result run_cli(const std::string& args, const std::string& input = {}) {
  char err_name[] = "/tmp/fairdeck_test_err_XXXXXX";
  const int fd = ::mkstemp(err_name);
  if (fd >= 0) ::close(fd);
  std::string cmd = std::string(FAIRDECK_CLI) + " " + args + " 2>" + err_name;
  std::string in_name;
  if (!input.empty()) {
    char tmpl[] = "/tmp/fairdeck_test_in_XXXXXX";
    const int ifd = ::mkstemp(tmpl);
    if (ifd >= 0) {
      (void)!::write(ifd, input.data(), input.size());
      ::close(ifd);
    }
    in_name = tmpl;
    cmd += " <" + in_name;
  } else {
    cmd += " </dev/null";
  }
  cli_result r{-1, {}, {}};
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    std::array<char, 4096> buf{};
    std::size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    const int status = ::pclose(p);
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::ifstream ef(err_name);
  std::stringstream ss;
  ss << ef.rdbuf();
  r.err = ss.str();
  ::unlink(err_name);
  if (!in_name.empty()) ::unlink(in_name.c_str());
  return r;
}

}  // namespace fairdeck::testing
