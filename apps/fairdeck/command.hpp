// Subcommand registry: each cmd_*.cpp registers its setup function at static-init time.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <CLI/CLI.hpp>

namespace fairdeck::cli {

// setup(app, exit_code) adds a subcommand to `app`; its callback stores the exit code.
using setup_fn = void (*)(CLI::App& app, int& exit_code);

struct command_entry {
  int order;  // position in --help
  setup_fn setup;
};

bool register_command(int order, setup_fn setup);
std::vector<command_entry>& commands();

// Usage problems found after parsing (bad combinations, out-of-range values): exit 2.
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Runs f() and returns its result; a std::invalid_argument it throws (the library names what
// is wrong with a value, never an option) becomes usage_error("<flag>: <what>"), so the user
// learns which option held the value. Any other std::invalid_argument reaches main, which
// reports it as it is (exit 2 either way).
template <class F>
auto labelled(std::string_view flag, F&& f) -> decltype(std::forward<F>(f)()) {
  try {
    return std::forward<F>(f)();
  } catch (const std::invalid_argument& e) {
    throw usage_error(std::string(flag) + ": " + e.what());
  }
}

}  // namespace fairdeck::cli

#define FAIRDECK_CONCAT_INNER(a, b) a##b
#define FAIRDECK_CONCAT(a, b) FAIRDECK_CONCAT_INNER(a, b)
// __COUNTER__, not __LINE__: the command files are compiled as a unity build (CMakeLists.txt),
// where two files' registrations may share a line number. Each file keeps its own names in
// its own namespace (fairdeck::cli::cmd_<name>) for the same reason.
#define FAIRDECK_REGISTER_COMMAND(order, fn)                                    \
  namespace {                                                                   \
  [[maybe_unused]] const bool FAIRDECK_CONCAT(fairdeck_registered_, __COUNTER__) = \
      ::fairdeck::cli::register_command(order, fn);                             \
  }
