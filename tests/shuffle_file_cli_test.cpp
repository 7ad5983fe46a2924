// End-to-end `fairdeck shuffle-file` for issue #16: external memory (same output for every
// --memory/--threads/--temp-dir, peak memory under a real address-space limit, a full temp
// disk or output disk, Ctrl-C), the shuf features (-n, --header, several inputs, --paired,
// -z, .gz, stdin), safe outputs (/dev/full, -o IN, symlinks) and the error messages.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/mount.h>
#include <sys/stat.h>

#include "cli_runner.hpp"
#include "sanitizer_build.hpp"

namespace fs = std::filesystem;
using fairdeck::testing::run_cli;

namespace {

using fairdeck::testing::temp_dir;

// A small tmpfs at `dir` (root only); unmounted by the destructor.
struct small_disk {
  fs::path dir;
  bool ok = false;
  small_disk(const fs::path& d, const char* size) : dir(d) {
    fs::create_directories(dir);
    ok = ::mount("fairdeck-test", dir.c_str(), "tmpfs", 0, size) == 0;
  }
  ~small_disk() {
    if (ok) ::umount2(dir.c_str(), MNT_DETACH);
  }
};

using fairdeck::testing::slurp;
using fairdeck::testing::write_file;

std::vector<std::string> split(const std::string& s, char d = '\n') {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == d) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}
std::vector<std::string> sorted(std::vector<std::string> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string numbered(int n, const std::string& prefix = "line ") {
  std::string s;
  for (int i = 0; i < n; ++i) s += prefix + std::to_string(i) + "\n";
  return s;
}

using fairdeck::testing::one_error_line;

std::string sh(const std::string& cmd) { return fairdeck::testing::shell_output(cmd); }

}  // namespace

// One seed, one order: default (in memory), 64K..4M budgets (external, 1-3 bucket levels),
// 1 or 2 threads, two temporary folders. The output is a permutation of the input lines.
TEST(ShuffleFileCli, SameSeedSameOutputForEveryMemoryThreadsAndTempDir) {
  temp_dir dir, t1, t2;
  const std::string input = numbered(150'000);
  write_file(dir / "in.txt", input);
  const auto ref = run_cli("shuffle-file " + (dir / "in.txt") + " --seed 21 -o " + (dir / "ref.txt") + " --json");
  ASSERT_EQ(ref.exit_code, 0) << ref.err;
  EXPECT_EQ(nlohmann::json::parse(ref.out)["passes"], 1);
  const std::string expect = slurp(dir / "ref.txt");
  EXPECT_EQ(sorted(split(expect)), sorted(split(input)));
  EXPECT_NE(expect, input);
  for (const std::string memory : {"64K", "300K", "1M", "4M"})
    for (const std::string threads : {"1", "2"})
      for (const auto* tmp : {&t1, &t2}) {
        SCOPED_TRACE(memory + " " + threads);
        const auto r = run_cli("shuffle-file " + (dir / "in.txt") + " --seed 21 --memory " + memory + " --threads " + threads +
                               " --temp-dir " + tmp->path.string() + " -o " + (dir / "out.txt") + " --json");
        ASSERT_EQ(r.exit_code, 0) << r.err;
        const auto j = nlohmann::json::parse(r.out);
        EXPECT_GE(j["passes"].get<int>(), 2);
        EXPECT_GE(j["buckets"].get<int>(), 2);
        EXPECT_EQ(j["lines"], 150000);
        EXPECT_EQ(j["bytes"], input.size());
        EXPECT_GT(j["peak_memory_bytes"].get<std::uint64_t>(), 0u);
        EXPECT_EQ(slurp(dir / "out.txt"), expect);
        EXPECT_EQ(tmp->entries(), 0u);  // temporary files are gone
      }
  // standard input streams through the same path
  const auto s = run_cli("shuffle-file - --seed 21 --memory 300K", input);
  ASSERT_EQ(s.exit_code, 0) << s.err;
  EXPECT_EQ(s.out, expect);
}

// Peak memory under --memory, measured with a real address-space limit (prlimit --as): a
// 70 MB file shuffles under a 90 MiB limit with --memory 16M, while --memory 512M under the
// same limit fails cleanly, naming the size (so the limit is real).
TEST(ShuffleFileCli, StaysUnderARealMemoryLimit) {
  if (FAIRDECK_SLOW_BUILD) GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: no --as limit can apply";
  if (sh("command -v prlimit").empty()) GTEST_SKIP() << "prlimit (util-linux) not installed";
  temp_dir dir;
  {
    std::ofstream f(dir / "big.txt");
    for (int i = 0; i < 2'500'000; ++i) f << "record number " << i << " with some padding\n";  // ~95 MB
  }
  const std::string limit = "prlimit --as=" + std::to_string(90u << 20) + " ";
  const std::string cmd = std::string(FAIRDECK_CLI) + " shuffle-file " + (dir / "big.txt") + " --seed 4 --threads 2 -o " + (dir / "out.txt");
  const std::string ok = sh(limit + cmd + " --memory 16M --json 2>&1; echo rc=$?");
  ASSERT_NE(ok.find("rc=0"), std::string::npos) << ok;
  const auto j = nlohmann::json::parse(ok.substr(ok.find('{'), ok.rfind('}') - ok.find('{') + 1));
  EXPECT_EQ(j["passes"], 2);
  EXPECT_LT(j["peak_memory_bytes"].get<std::uint64_t>(), 40u << 20);  // 16M budget + the binary
  EXPECT_EQ(fs::file_size(dir / "out.txt"), fs::file_size(dir / "big.txt"));
  const std::string bad = sh(limit + cmd + " --memory 512M 2>&1; echo rc=$?");
  EXPECT_NE(bad.find("rc=1"), std::string::npos) << bad;
  EXPECT_NE(bad.find("--memory"), std::string::npos) << bad;
  EXPECT_EQ(bad.find("bad_alloc"), std::string::npos) << bad;
}

// Disk full: a 2 MiB tmpfs as --temp-dir (and then as the output folder). Exit 1, one line
// naming the problem, the old output and the input untouched, nothing partial left.
TEST(ShuffleFileCli, AFullDiskIsAClearErrorAndLeavesNothing) {
  temp_dir dir;
  small_disk disk(dir.path / "disk", "size=2m");
  if (!disk.ok) GTEST_SKIP() << "cannot mount a small tmpfs here (needs root / CAP_SYS_ADMIN)";
  const std::string input = numbered(300'000);  // ~3.7 MB
  write_file(dir / "in.txt", input);
  write_file(dir / "old.txt", "keep me\n");
  auto r = run_cli("shuffle-file --seed 1 --memory 1M --temp-dir " + disk.dir.string() + " " + (dir / "in.txt") + " -o " + (dir / "old.txt"));
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("temporary"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(dir / "old.txt"), "keep me\n");
  EXPECT_EQ(slurp(dir / "in.txt"), input);
  EXPECT_TRUE(fs::is_empty(disk.dir));
  for (const auto& e : fs::directory_iterator(dir.path)) EXPECT_EQ(e.path().string().find("partial"), std::string::npos) << e.path();
  // the output's disk is full instead
  write_file(disk.dir / "old.txt", "keep me too\n");
  r = run_cli("shuffle-file --seed 1 --memory 1M --temp-dir " + dir.path.string() + " " + (dir / "in.txt") + " -o " + (disk.dir / "old.txt").string());
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  EXPECT_EQ(slurp((disk.dir / "old.txt").string()), "keep me too\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(disk.dir), fs::directory_iterator()), 1);
  EXPECT_EQ(slurp(dir / "in.txt"), input);
}

// Ctrl-C during the scatter (input from a FIFO that stays open): exit 130, the temporary
// bucket files — seen open (and already unlinked) in /proc/PID/fd — are gone, no output.
TEST(ShuffleFileCli, CtrlCRemovesTemporaryFiles) {
  temp_dir dir, tmp;
  const std::string fifo = dir / "in.fifo", out = dir / "out.txt";
  const std::string script = "mkfifo " + fifo + "; " + FAIRDECK_CLI + " shuffle-file --seed 1 --memory 64K --temp-dir " +
                             tmp.path.string() + " " + fifo + " -o " + out + " 2>/dev/null & p=$!; exec 3>" + fifo +
                             "; seq 1 200000 >&3; for i in $(seq 100); do ls -l /proc/$p/fd | grep -q fairdeck-shuffle && break; sleep 0.05; done;" +
                             " ls -l /proc/$p/fd | grep -q fairdeck-shuffle && echo seen; kill -INT $p; sleep 0.3; kill -INT $p 2>/dev/null; wait $p; echo $?; exec 3>&-";
  const std::string text = sh("sh -c '" + script + "'");
  EXPECT_EQ(text, "seen\n130\n");
  EXPECT_EQ(tmp.entries(), 0u);
  EXPECT_FALSE(fs::exists(out));
}

TEST(ShuffleFileCli, SampleHeaderSeveralInputsAndStdin) {
  temp_dir dir;
  write_file(dir / "a.txt", "id,name\n" + numbered(500, "a"));
  write_file(dir / "b.txt", numbered(500, "b"));
  const auto full = run_cli("shuffle-file --seed 8 " + (dir / "a.txt") + " " + (dir / "b.txt"));
  ASSERT_EQ(full.exit_code, 0) << full.err;
  EXPECT_EQ(sorted(split(full.out)), sorted(split(slurp(dir / "a.txt") + slurp(dir / "b.txt"))));
  // -n K: the first K lines of the full shuffle, in memory or streamed from stdin
  const auto five = run_cli("shuffle-file --seed 8 -n 5 " + (dir / "a.txt") + " " + (dir / "b.txt"));
  ASSERT_EQ(five.exit_code, 0) << five.err;
  const auto lines = split(full.out);
  EXPECT_EQ(split(five.out), std::vector<std::string>(lines.begin(), lines.begin() + 5));
  const auto piped = run_cli("shuffle-file --seed 8 -n 5 -", slurp(dir / "a.txt") + slurp(dir / "b.txt"));
  EXPECT_EQ(piped.out, five.out);
  // --header 1 keeps the CSV header first; --memory does not change the rest
  const auto h1 = run_cli("shuffle-file --seed 8 --header 1 " + (dir / "a.txt"));
  const auto h2 = run_cli("shuffle-file --seed 8 --header 1 --memory 64K " + (dir / "a.txt"));
  ASSERT_EQ(h1.exit_code, 0) << h1.err;
  EXPECT_EQ(h1.out.substr(0, 8), "id,name\n");
  EXPECT_EQ(h1.out, h2.out);
  EXPECT_EQ(sorted(split(h1.out)), sorted(split(slurp(dir / "a.txt"))));
  const auto hn = run_cli("shuffle-file --seed 8 --header 1 -n 3 " + (dir / "a.txt"));
  EXPECT_EQ(split(hn.out).size(), 4u);
  EXPECT_EQ(hn.out.substr(0, 8), "id,name\n");
}

// CRLF stays CRLF, a missing final newline stays missing; -z keeps NUL records.
TEST(ShuffleFileCli, BytesAreKeptAsTheyAre) {
  temp_dir dir;
  std::string crlf;
  for (int i = 0; i < 200; ++i) crlf += "row " + std::to_string(i) + "\r\n";
  crlf += "last row without newline";
  write_file(dir / "crlf.txt", crlf);
  for (const std::string memory : {"", " --memory 64K"}) {
    const auto r = run_cli("shuffle-file --seed 2 " + (dir / "crlf.txt") + memory);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.size(), crlf.size());
    EXPECT_NE(r.out.back(), '\n');
    std::string a = r.out, b = crlf;
    std::sort(a.begin(), a.end());
    std::sort(b.begin(), b.end());
    EXPECT_EQ(a, b);
    EXPECT_EQ(std::count(r.out.begin(), r.out.end(), '\r'), 200);
  }
  std::string z;
  for (int i = 0; i < 300; ++i) z += "file name " + std::to_string(i) + "\nwith newline" + std::string(1, '\0');
  write_file(dir / "z.bin", z);
  const auto r = run_cli("shuffle-file -z --seed 3 " + (dir / "z.bin") + " -o " + (dir / "z.out"));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string out = slurp(dir / "z.out");
  EXPECT_EQ(sorted(split(out, '\0')), sorted(split(z, '\0')));
  EXPECT_NE(out, z);
}

TEST(ShuffleFileCli, GzipInAndOut) {
  if (sh("command -v gzip").empty()) GTEST_SKIP() << "gzip not installed";
  temp_dir dir;
  const std::string input = numbered(50'000);
  write_file(dir / "in.txt", input);
  sh("gzip -k " + (dir / "in.txt"));
  const auto plain = run_cli("shuffle-file --seed 5 " + (dir / "in.txt"));
  for (const std::string memory : {"", " --memory 64K"}) {
    const auto r = run_cli("shuffle-file --seed 5 " + (dir / "in.txt.gz") + " -o " + (dir / "out.txt.gz") + memory);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(slurp(dir / "out.txt.gz").substr(0, 2), "\x1f\x8b");
    EXPECT_EQ(sh("gzip -dc " + (dir / "out.txt.gz")), plain.out);
  }
  write_file(dir / "bad.gz", "this is not gzip data\n");
  const auto r = run_cli("shuffle-file --seed 5 " + (dir / "bad.gz"));
  (void)r;  // zlib reads a non-gzip .gz transparently as plain data: accepted as lines
}

// --paired: one permutation for two line-aligned files.
TEST(ShuffleFileCli, PairedFilesShareOnePermutation) {
  temp_dir dir;
  write_file(dir / "src.txt", numbered(3000, "source "));
  write_file(dir / "tgt.txt", numbered(3000, "target "));
  for (const std::string memory : {"", " --memory 64K"}) {
    const auto r = run_cli("shuffle-file --seed 6 --paired " + (dir / "src.txt") + " " + (dir / "tgt.txt") + " -o " +
                           (dir / "s2.txt") + " -o " + (dir / "t2.txt") + memory);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto s = split(slurp(dir / "s2.txt")), t = split(slurp(dir / "t2.txt"));
    ASSERT_EQ(s.size(), 3000u);
    ASSERT_EQ(t.size(), 3000u);
    for (std::size_t i = 0; i < s.size(); ++i) ASSERT_EQ(s[i].substr(7), t[i].substr(7)) << i;
    EXPECT_NE(s, split(numbered(3000, "source ")));
    EXPECT_EQ(sorted(s), sorted(split(numbered(3000, "source "))));
  }
  write_file(dir / "short.txt", numbered(2999, "target "));
  const auto r = run_cli("shuffle-file --seed 6 --paired " + (dir / "src.txt") + " " + (dir / "short.txt") + " -o " +
                         (dir / "s3.txt") + " -o " + (dir / "t3.txt"));
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(one_error_line(r.err)) << r.err;
  EXPECT_NE(r.err.find("not line-aligned"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir / "s3.txt"));
  EXPECT_FALSE(fs::exists(dir / "t3.txt"));
}

// Outputs: /dev/full fails (and stays a device), -o IN shuffles in place, a symlink is
// written through and stays a symlink.
TEST(ShuffleFileCli, OutputsAreSafe) {
  temp_dir dir;
  const std::string input = numbered(20'000);
  write_file(dir / "in.txt", input);
  auto r = run_cli("shuffle-file --seed 1 " + (dir / "in.txt") + " -o /dev/full");
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_NE(r.err.find("No space left on device"), std::string::npos) << r.err;
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  const auto ref = run_cli("shuffle-file --seed 1 " + (dir / "in.txt"));
  for (const std::string memory : {"", " --memory 64K"}) {
    write_file(dir / "in.txt", input);
    r = run_cli("shuffle-file --seed 1 " + (dir / "in.txt") + " -o " + (dir / "in.txt") + memory);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(slurp(dir / "in.txt"), ref.out);
  }
  write_file(dir / "in.txt", input);
  write_file(dir / "target.txt", "old\n");
  fs::create_symlink(dir / "target.txt", dir / "link.txt");
  r = run_cli("shuffle-file --seed 1 " + (dir / "in.txt") + " -o " + (dir / "link.txt"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "target.txt"), ref.out);
}

TEST(ShuffleFileCli, ErrorsAreOneLine) {
  temp_dir dir;
  write_file(dir / "in.txt", "a\n" + std::string(10000, 'x') + "\nb\n");
  const struct {
    std::string args, needle;
    int code;
  } cases[] = {
      {"--memory 64K " + (dir / "in.txt"), "longer than", 1},
      {"--memory 12Q " + (dir / "in.txt"), "invalid size '12Q'", 2},
      {"--memory 1K " + (dir / "in.txt"), "too small", 2},
      {"--temp-dir " + (dir / "nope") + " " + (dir / "in.txt"), "not a folder", 2},
      {"-n 2 --records 4 --paired a b -o x -o y", "--paired", 2},
      {"--paired " + (dir / "in.txt") + " " + (dir / "in.txt"), "two outputs", 2},
      {(dir / "in.txt") + " -o a -o b", "-o is given once", 2},
      {"-z --records 4 " + (dir / "in.txt"), "excludes", 2},
  };
  for (const auto& c : cases) {
    const auto r = run_cli("shuffle-file --seed 1 " + c.args);
    EXPECT_EQ(r.exit_code, c.code) << c.args << ": " << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << c.args << ": " << r.err;
    EXPECT_NE(r.err.find(c.needle), std::string::npos) << c.args << ": " << r.err;
  }
}

// A cut-off or corrupt .gz input is an error (it was read as if it ended there: exit 0 and a
// cut-off last record): one line naming the file, no output created, an old one untouched.
TEST(ShuffleFileCli, ATruncatedGzipInputIsAnError) {
  temp_dir dir;
  write_file(dir / "in.txt", numbered(100'000));
  ASSERT_EQ(fairdeck::testing::run_shell("gzip -c " + (dir / "in.txt") + " > " + (dir / "in.txt.gz")).exit_code, 0);
  const std::string gz = slurp(dir / "in.txt.gz");
  write_file(dir / "trunc.gz", gz.substr(0, gz.size() / 2));
  std::string bad_crc = gz;
  bad_crc[bad_crc.size() - 6] ^= 1;  // the CRC-32 in the trailer
  write_file(dir / "crc.gz", bad_crc);
  write_file(dir / "old.txt", "keep me\n");
  for (const auto& [name, needle] : {std::pair{"trunc.gz", "unexpected end of file"}, std::pair{"crc.gz", "crc.gz"}}) {
    SCOPED_TRACE(name);
    for (const std::string out : {"new.txt", "old.txt"}) {
      const auto r = run_cli("shuffle-file --seed 1 " + (dir / name) + " -o " + (dir / out));
      EXPECT_NE(r.exit_code, 0) << r.err;
      EXPECT_TRUE(one_error_line(r.err)) << r.err;
      EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
      EXPECT_NE(r.err.find("'" + (dir / name) + "'"), std::string::npos) << r.err;
    }
    EXPECT_FALSE(fs::exists(dir / "new.txt"));
    EXPECT_TRUE(slurp(dir / "old.txt") == "keep me\n");  // (no diff of 500 KB)
  }
}

// --paired writes two outputs: the same one twice (also through another name for it, or
// standard output as "-" and /dev/stdout) would interleave the pairs, so it is a usage
// error; so is --json with the data on standard output through /dev/stdout.
TEST(ShuffleFileCli, PairedOutputsMustDiffer) {
  temp_dir dir;
  write_file(dir / "a.txt", numbered(100, "a "));
  write_file(dir / "b.txt", numbered(100, "b "));
  const std::string paired = "shuffle-file --seed 1 --paired " + (dir / "a.txt") + " " + (dir / "b.txt");
  for (const std::string& outs :
       std::vector<std::string>{"-o - -o -", "-o /dev/stdout -o -", "-o - -o /proc/self/fd/1",
                                "-o " + (dir / "x.txt") + " -o " + (dir / "./x.txt"), "-o /dev/stdout -o /dev/fd/3 3>&1"}) {
    SCOPED_TRACE(outs);
    const auto r = run_cli(paired + " " + outs);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_TRUE(one_error_line(r.err)) << r.err;
    EXPECT_NE(r.err.find("two different outputs"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty());
  }
  EXPECT_FALSE(fs::exists(dir / "x.txt"));
  const auto r = run_cli("shuffle-file --seed 1 --json " + (dir / "a.txt") + " -o /dev/stdout");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("needs -o OUT"), std::string::npos) << r.err;
  // two different outputs, also both discarded, are fine
  EXPECT_EQ(run_cli(paired + " -o /dev/null -o /dev/null").exit_code, 0);
  EXPECT_EQ(run_cli(paired + " -o " + (dir / "x.txt") + " -o /dev/stdout").exit_code, 0);
}
