// `fairdeck shuffle-file --memory M` holds its peak resident memory to M plus the binary's own
// fixed overhead, for every thread count (issue #27 item 13: --memory 16M with 2 threads
// peaked at 43-70 MB, 8M at 24 MB).
//
// How it is measured: the CLI runs as a child (fork + exec), twice per case — on a 64 MB
// input and, for the fixed overhead of the binary itself (code, libraries, thread stacks),
// on a 3-line input with the same options; the overhead is measured, not guessed. The
// assertion is peak(64 MB) <= M + peak(3 lines), for two measures of the peak:
//  * wait4()'s ru_maxrss, from outside. Linux carries into it the pages the child had at
//    fork (this test process's), so both peaks are at least that: an upper bound;
//  * the CLI's own `peak_memory_bytes` (--json: VmHWM, its address space after exec only):
//    the tight one.
// Under AddressSanitizer (shadow memory, quarantine) resident memory says nothing about the
// program's own buffers, so the test is skipped there.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sanitizer_build.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

using fairdeck::testing::temp_dir;

// Lines of 8 to 71 bytes from a fixed LCG, written in pieces (this process stays small: its
// pages are part of the child's measured peak).
void write_lines(const std::string& path, std::uint64_t bytes) {
  std::ofstream f(path, std::ios::binary);
  std::uint64_t x = 12345, written = 0;
  std::string chunk;
  while (written < bytes) {
    chunk.clear();
    while (chunk.size() < (1u << 16)) {
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      const auto len = static_cast<std::size_t>(7 + (x >> 58));
      for (std::size_t i = 0; i < len; ++i) chunk += static_cast<char>('a' + ((x >> (i % 50)) & 15));
      chunk += '\n';
    }
    f << chunk;
    written += chunk.size();
  }
}

struct child_run {
  int exit_code = -1;
  std::uint64_t peak_bytes = 0;      // ru_maxrss
  std::uint64_t own_peak_bytes = 0;  // the CLI's --json peak_memory_bytes
};

// Runs the CLI with `args` (stdout to `out`, stderr to /dev/null) and returns its exit code
// and peak RSS.
child_run run_measured(const std::vector<std::string>& args, const std::string& out) {
  std::vector<char*> argv;
  std::string cli = FAIRDECK_CLI;
  argv.push_back(cli.data());
  std::vector<std::string> copy = args;
  for (auto& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int null = ::open("/dev/null", O_RDWR);
    const int json = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ::dup2(json, STDOUT_FILENO);
    ::dup2(null, STDERR_FILENO);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  child_run r;
  if (pid < 0) return r;
  int status = 0;
  struct rusage ru {};
  while (::wait4(pid, &status, 0, &ru) < 0 && errno == EINTR) {
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.peak_bytes = static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;  // ru_maxrss is in KiB
  std::ifstream f(out);
  const auto j = nlohmann::json::parse(f, nullptr, false);
  if (j.is_object() && j.contains("peak_memory_bytes")) r.own_peak_bytes = j["peak_memory_bytes"].get<std::uint64_t>();
  return r;
}

}  // namespace

TEST(ShuffleFileMemory, PeakResidentMemoryStaysWithinTheBudgetForEveryThreadCount) {
  if (FAIRDECK_SLOW_BUILD) GTEST_SKIP() << "resident memory under AddressSanitizer measures the sanitizer, not the budget";
  temp_dir dir;
  const std::string big = dir / "big.txt", tiny = dir / "tiny.txt";
  write_lines(big, std::uint64_t{64} << 20);  // 4x the largest budget: the external path
  std::ofstream(tiny) << "a\nb\nc\n";
  for (const std::uint64_t mib : {8u, 16u}) {
    for (const unsigned threads : {1u, 2u, 4u, 8u}) {
      const std::string memory = std::to_string(mib) + "M";
      SCOPED_TRACE("--memory " + memory + " --threads " + std::to_string(threads));
      auto args = [&](const std::string& in) {
        return std::vector<std::string>{"shuffle-file", "--seed", "7", "--quiet", "--json", "--memory", memory,
                                        "--threads", std::to_string(threads), in, "-o", dir / "out.txt"};
      };
      const child_run base = run_measured(args(tiny), dir / "base.json");
      ASSERT_EQ(base.exit_code, 0);
      const child_run run = run_measured(args(big), dir / "run.json");
      ASSERT_EQ(run.exit_code, 0);
      ASSERT_EQ(fs::file_size(dir / "out.txt"), fs::file_size(big));
      ASSERT_GT(base.own_peak_bytes, 0u);
      ASSERT_GT(run.own_peak_bytes, 0u);
      const std::uint64_t budget = mib << 20;
      const auto mb = [](std::uint64_t b) { return static_cast<double>(b) / (1 << 20); };
      std::printf("--memory %s --threads %u: own peak %.1f MiB (3-line input %.1f MiB); ru_maxrss %.1f MiB (3-line input %.1f MiB)\n",
                  memory.c_str(), threads, mb(run.own_peak_bytes), mb(base.own_peak_bytes), mb(run.peak_bytes), mb(base.peak_bytes));
      EXPECT_LE(run.own_peak_bytes, budget + base.own_peak_bytes)
          << "own peak " << run.own_peak_bytes << " bytes, budget " << budget << " + overhead " << base.own_peak_bytes;
      EXPECT_LE(run.peak_bytes, budget + base.peak_bytes)
          << "peak " << run.peak_bytes << " bytes, budget " << budget << " + overhead " << base.peak_bytes;
    }
  }
}
