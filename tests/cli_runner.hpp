// Runs the built fairdeck binary for end-to-end tests: exit code, stdout, stderr.
#pragma once

#include <string>

#include <unistd.h>

#include "test_support.hpp"

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
  auto [exit_code, out] = run_shell(cmd);
  cli_result r{exit_code, std::move(out), slurp(err_name)};
  ::unlink(err_name);
  if (!in_name.empty()) ::unlink(in_name.c_str());
  return r;
}

}  // namespace fairdeck::testing
