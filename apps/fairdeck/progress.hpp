// Terminal progress bar (stderr, only when it is a terminal) and Ctrl-C handling, wired to
// the library's run_control.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <string>

#include "fairdeck/util/run_control.hpp"

namespace fairdeck::cli {

// First Ctrl-C sets the flag (work stops cleanly and reports what it counted); a second
// one kills the process as usual.
void install_interrupt_handler();
const std::atomic<bool>& interrupted();
// Before any command runs: SIGINT (until install_interrupt_handler), SIGTERM and SIGHUP end
// the process as usual but first remove unfinished output files (safe_output's temporaries).
void install_fatal_signal_cleanup();
// --quiet: no progress display at all.
void set_quiet(bool quiet);

class progress_bar {
 public:
  explicit progress_bar(std::string label);
  ~progress_bar();  // clears the line
  progress_bar(const progress_bar&) = delete;
  progress_bar& operator=(const progress_bar&) = delete;

  void update(std::uint64_t done, std::uint64_t total);
  // A run_control reporting here and stopping on Ctrl-C (installs the handler).
  [[nodiscard]] run_control control();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::mutex mu_;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace fairdeck::cli
