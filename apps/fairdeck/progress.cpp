#include "progress.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>

#include <unistd.h>

#include "fairdeck/util/safe_output.hpp"

namespace fairdeck::cli {
namespace {

std::atomic<bool> g_interrupted{false};
bool g_quiet = false;

// Progress is drawn only on a terminal that understands \r and ANSI erase (not TERM=dumb,
// not --quiet).
bool progress_wanted() {
  if (g_quiet || ::isatty(STDERR_FILENO) != 1) return false;
  const char* term = std::getenv("TERM");
  return !(term && std::string_view(term) == "dumb");
}

// Ends the process as the signal would, after removing unfinished *.fairdeck-partial files
// (only async-signal-safe calls).
extern "C" void on_fatal_signal(int sig) {
  remove_partial_outputs();
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

extern "C" void on_sigint(int sig) {
  if (g_interrupted.exchange(true)) on_fatal_signal(sig);  // a second Ctrl-C ends the process
}

}  // namespace

void install_interrupt_handler() { std::signal(SIGINT, on_sigint); }

void set_quiet(bool quiet) { g_quiet = quiet; }

void install_fatal_signal_cleanup() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) std::signal(sig, on_fatal_signal);  // keep SIG_IGN
  }
}
const std::atomic<bool>& interrupted() { return g_interrupted; }

progress_bar::progress_bar(std::string label)
    : label_(std::move(label)), enabled_(progress_wanted()), start_(std::chrono::steady_clock::now()) {}

progress_bar::~progress_bar() {
  if (drawn_) std::fprintf(stderr, "\r\033[K");
}

void progress_bar::update(std::uint64_t done, std::uint64_t total) {
  if (!enabled_) return;
  std::lock_guard lock(mu_);
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && now - last_ < std::chrono::milliseconds(100) && (total == 0 || done < total)) return;
  last_ = now;
  drawn_ = true;
  if (total == 0) {  // unknown total (a stream): count and rate
    const double secs = std::chrono::duration<double>(now - start_).count();
    std::fprintf(stderr, "\r%s: %llu so far, %.0f per second  ", label_.c_str(), static_cast<unsigned long long>(done),
                 secs > 0 ? static_cast<double>(done) / secs : 0.0);
    std::fflush(stderr);
    return;
  }
  const double frac = static_cast<double>(done) / static_cast<double>(total);
  constexpr int width = 30;
  const int filled = static_cast<int>(frac * width);
  const double secs = std::chrono::duration<double>(now - start_).count();
  const double eta = frac > 0 ? secs * (1 - frac) / frac : 0;
  std::fprintf(stderr, "\r%s [%.*s%*s] %5.1f%%  %.0fs left  ", label_.c_str(), filled,
               "##############################", width - filled, "", 100 * frac, eta);
  std::fflush(stderr);
}

run_control progress_bar::control() {
  install_interrupt_handler();
  run_control rc;
  rc.on_progress = [this](std::uint64_t d, std::uint64_t t) { update(d, t); };
  rc.stop = &g_interrupted;
  return rc;
}

}  // namespace fairdeck::cli
