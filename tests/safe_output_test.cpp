// fairdeck::safe_output: the path checks, atomic replacement, write-through and cleanup.
#include "fairdeck/util/safe_output.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <cerrno>
#include <cstring>
#include <vector>
#include <memory>
#include <optional>
#include <iostream>
#include <cstdlib>
#include <string>
#include <thread>

#include <gtest/gtest.h>
#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.hpp"

namespace fs = std::filesystem;
using fairdeck::output_error;
using fairdeck::output_error_kind;
using fairdeck::safe_output;

namespace {

using fairdeck::testing::slurp;
using fairdeck::testing::temp_dir;  // unmounts the small tmpfs a test mounted on it

output_error_kind kind_of_failure(const std::string& path, std::vector<std::string> inputs = {}) {
  try {
    safe_output out(path, inputs);
  } catch (const output_error& e) {
    return e.kind();
  }
  ADD_FAILURE() << path << " was accepted";
  return output_error_kind::io;
}

}  // namespace

TEST(SafeOutput, PathProblemsHaveDistinctKinds) {
  temp_dir dir;
  std::ofstream(dir / "in.txt") << "decks";
  EXPECT_EQ(kind_of_failure(""), output_error_kind::empty_path);
  EXPECT_EQ(kind_of_failure(dir / "missing/out.txt"), output_error_kind::no_parent);
  EXPECT_EQ(kind_of_failure(dir / "in.txt/out.txt"), output_error_kind::no_parent);
  EXPECT_EQ(kind_of_failure(dir.path.string()), output_error_kind::is_directory);
  EXPECT_EQ(kind_of_failure(dir / "in.txt", {dir / "in.txt"}), output_error_kind::same_as_input);
  fs::create_symlink(dir / "in.txt", dir / "alias");
  EXPECT_EQ(kind_of_failure(dir / "alias", {dir / "in.txt"}), output_error_kind::same_as_input);
  fs::create_hard_link(dir / "in.txt", dir / "hard");
  EXPECT_EQ(kind_of_failure(dir / "hard", {dir / "in.txt"}), output_error_kind::same_as_input);
  EXPECT_EQ(slurp(dir / "in.txt"), "decks");
  {  // "-" as an input is standard input: compared through fstat(0)
    const int saved = ::dup(STDIN_FILENO);
    const int fd = ::open((dir / "in.txt").c_str(), O_RDONLY);
    ASSERT_GE(fd, 0);
    ::dup2(fd, STDIN_FILENO);
    EXPECT_EQ(kind_of_failure(dir / "in.txt", {"-"}), output_error_kind::same_as_input);
    ::dup2(saved, STDIN_FILENO);
    ::close(fd);
    ::close(saved);
  }
  try {
    safe_output out(dir / "missing/out.txt");
  } catch (const output_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing/out.txt': No such file or directory"), std::string::npos) << e.what();
  }
  if (::geteuid() != 0) {  // root may write anywhere
    fs::create_directory(dir / "ro");
    fs::permissions(dir / "ro", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(kind_of_failure(dir / "ro/out.txt"), output_error_kind::not_writable);
  }
  EXPECT_EQ(dir.entries(), 3u);  // in.txt, alias, hard: nothing created by the failed attempts
}

bool tmpfile_supported(const std::filesystem::path& dir) {
#ifdef O_TMPFILE
  const int fd = ::open(dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  return ::access("/proc/self/fd", X_OK) == 0;
#else
  (void)dir;
  return false;
#endif
}

TEST(SafeOutput, ReplacesOnlyOnCommit) {
  temp_dir dir;
  const auto path = dir / "report.html";
  std::ofstream(path) << "old";
  {
    safe_output out(path);
    EXPECT_EQ(out.plan().mode, fairdeck::output_mode::replace);
    // The temporary file exists from the start: unnamed where the file system has O_TMPFILE
    // (nothing to clean up after a kill -9), else a named *.fairdeck-partial.
    EXPECT_EQ(dir.entries(), tmpfile_supported(dir.path) ? 1u : 2u);
    out.write("new ");
    out.write(std::string(3 << 20, 'x'));  // more than the buffer
    EXPECT_EQ(slurp(path), "old");
  }  // destroyed without commit: the old file stays, the temporary goes
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(dir.entries(), 1u);
  safe_output out(path);
  out.write("new");
  out.commit();
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(dir.entries(), 1u);
  EXPECT_THROW(out.write("more"), std::logic_error);
}

TEST(SafeOutput, ASymlinkIsNeverReplaced) {
  temp_dir dir;
  fs::create_symlink("real.txt", dir / "link.txt");  // dangling at first
  fairdeck::write_output_file(dir / "link.txt", "one");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "real.txt"), "one");
  fairdeck::write_output_file(dir / "link.txt", "two");
  EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
  EXPECT_EQ(slurp(dir / "real.txt"), "two");
}

// Issue #27 item 5: in a shared sticky folder another user's link must not redirect an
// output (the kernel's fs.protected_symlinks rule, applied whatever the sysctl says).
namespace {

// A uid that is not ours, for lchown; nothing if this process may not give files away.
std::optional<uid_t> other_uid() {
  const uid_t other = ::geteuid() == 65534 ? 65533 : 65534;  // nobody, or one below
  temp_dir probe;
  const std::string link = probe / "probe";
  fs::create_symlink("x", link);
  if (::lchown(link.c_str(), other, static_cast<gid_t>(-1)) != 0) return std::nullopt;
  return other;
}

void plant(const std::string& target, const std::string& link, uid_t owner) {
  fs::create_symlink(target, link);
  ASSERT_EQ(::lchown(link.c_str(), owner, static_cast<gid_t>(-1)), 0) << std::strerror(errno);
}

}  // namespace

TEST(SafeOutput, AnotherUsersLinkInAStickyWorldWritableFolderIsRefused) {
  const auto other = other_uid();
  if (!other) GTEST_SKIP() << "lchown to another uid is not permitted here (tests need root or CAP_CHOWN)";
  temp_dir dir;
  const std::string shared = dir / "shared";
  fs::create_directory(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);  // like /tmp
  std::ofstream(dir / "victim.bashrc") << "the victim's file";
  plant(dir / "victim.bashrc", shared + "/out.html", *other);     // to an existing file
  plant(dir / "created.txt", shared + "/dangling.html", *other);  // dangling: would create it
  plant(dir.path.string(), shared + "/sub", *other);              // in the middle of the path
  plant("/dev/null", shared + "/dev.html", *other);                // to a device
  plant(shared + "/out.html", shared + "/mine.html", ::geteuid());  // ours, to theirs
  for (const std::string& p : {shared + "/out.html", shared + "/dangling.html", shared + "/sub/victim.bashrc",
                               shared + "/dev.html", shared + "/mine.html"}) {
    SCOPED_TRACE(p);
    try {
      safe_output out(p);
      ADD_FAILURE() << "followed to " << out.plan().target;
    } catch (const output_error& e) {
      EXPECT_EQ(e.kind(), output_error_kind::unsafe_link);
      EXPECT_EQ(e.os_error(), EACCES);
      const std::string what = e.what();
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      EXPECT_NE(what.find("refusing to follow the symbolic link"), std::string::npos) << what;
      EXPECT_NE(what.find("protected_symlinks"), std::string::npos) << what;
    }
  }
  EXPECT_EQ(slurp(dir / "victim.bashrc"), "the victim's file");
  EXPECT_FALSE(fs::exists(dir / "created.txt"));
  EXPECT_TRUE(fs::is_symlink(shared + "/out.html"));
  for (const auto& e : fs::directory_iterator(dir.path))  // no temporary file anywhere
    EXPECT_FALSE(e.path().string().ends_with(".fairdeck-partial")) << e.path();
}

TEST(SafeOutput, LinksTheKernelWouldFollowStillWork) {
  const auto other = other_uid();
  if (!other) GTEST_SKIP() << "lchown to another uid is not permitted here (tests need root or CAP_CHOWN)";
  temp_dir dir;
  const std::string shared = dir / "shared";
  fs::create_directory(shared);
  ASSERT_EQ(::chmod(shared.c_str(), 01777), 0);
  // our own link in the sticky folder: followed, its target replaced, the link kept
  plant(dir / "mine.txt", shared + "/mine.html", ::geteuid());
  fairdeck::write_output_file(shared + "/mine.html", "one");  // dangling: the target is created
  fairdeck::write_output_file(shared + "/mine.html", "two");
  EXPECT_EQ(slurp(dir / "mine.txt"), "two");
  EXPECT_TRUE(fs::is_symlink(shared + "/mine.html"));
  // a plain file of ours there, and an absolute link chain of ours
  fairdeck::write_output_file(shared + "/plain.html", "plain");
  EXPECT_EQ(slurp(shared + "/plain.html"), "plain");
  // the folder's owner's link: followed (the folder's owner could redirect anything anyway)
  const std::string owned = dir / "owned";
  fs::create_directory(owned);
  ASSERT_EQ(::chmod(owned.c_str(), 01777), 0);
  ASSERT_EQ(::chown(owned.c_str(), *other, static_cast<gid_t>(-1)), 0);
  plant(dir / "by_owner.txt", owned + "/out.html", *other);
  fairdeck::write_output_file(owned + "/out.html", "owner's link");
  EXPECT_EQ(slurp(dir / "by_owner.txt"), "owner's link");
  // another user's link outside a sticky world-writable folder: followed (0777 without the
  // sticky bit, and 1755: the rule needs both)
  for (const fs::perms mode : {fs::perms::all, fs::perms::sticky_bit | fs::perms::owner_all | fs::perms::group_read |
                                                   fs::perms::group_exec | fs::perms::others_read | fs::perms::others_exec}) {
    const std::string open_dir = dir / "open";
    fs::create_directory(open_dir);
    fs::permissions(open_dir, mode);
    plant(dir / "open.txt", open_dir + "/out.html", *other);
    fairdeck::write_output_file(open_dir + "/out.html", "open");
    EXPECT_EQ(slurp(dir / "open.txt"), "open");
    fs::remove_all(open_dir);
  }
  // a device through another user's link outside sticky folders, and /dev/stdout itself
  plant("/dev/null", dir / "null", *other);
  EXPECT_NO_THROW(fairdeck::write_output_file(dir / "null", "gone"));
  EXPECT_EQ(fairdeck::check_output_path("/dev/stdout").mode, fairdeck::output_mode::standard_output);
}

TEST(SafeOutput, DevicesAndFifosAreWrittenThrough) {
  safe_output null("/dev/null");
  EXPECT_EQ(null.plan().mode, fairdeck::output_mode::write_through);
  null.write("x");
  null.commit();
  safe_output full("/dev/full");
  full.write("x");
  try {
    full.commit();
    ADD_FAILURE() << "/dev/full accepted the bytes";
  } catch (const output_error& e) {
    EXPECT_EQ(e.kind(), output_error_kind::io);
    EXPECT_EQ(e.os_error(), ENOSPC);
    EXPECT_STREQ(e.what(), "cannot write '/dev/full': No space left on device");
  }
  temp_dir dir;
  const auto fifo = dir / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  {
    safe_output out(fifo);  // opened lazily: does not block without a reader
    out.write("through the pipe");
    out.commit();
  }
  reader.join();
  EXPECT_EQ(got, "through the pipe");
  EXPECT_TRUE(fs::is_fifo(fifo));
}

TEST(SafeOutput, ADiskFullLeavesTheOldFileAndNoTemporary) {
  temp_dir dir;
  if (::mount("fairdeck-test", dir.path.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << std::strerror(errno);
  const auto path = dir / "big.bin";
  fairdeck::write_output_file(path, "old");
  safe_output out(path);
  try {
    for (int i = 0; i < 100; ++i) out.write(std::string(4096, 'x'));
    out.commit();
    ADD_FAILURE() << "400 KiB fitted in a 64 KiB tmpfs";
  } catch (const output_error& e) {
    EXPECT_EQ(e.os_error(), ENOSPC) << e.what();
    EXPECT_NE(std::string(e.what()).find("big.bin': No space left on device"), std::string::npos) << e.what();
  }
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

// Positional writing: ranges reserved in order and written from several threads at once
// give the bytes in reserved order; ordinary writes before and after keep their places;
// written-through outputs offer no ranges (the caller writes in order).
TEST(SafeOutput, ReservedRangesWrittenFromThreadsLandInOrder) {
  temp_dir dir;
  const auto path = dir / "blocks.txt";
  safe_output out(path);
  out.write("head|");
  std::vector<std::pair<std::uint64_t, std::string>> parts;
  std::string expect = "head|";
  for (int i = 0; i < 16; ++i) {
    std::string part(static_cast<std::size_t>(1000 + i * 37), static_cast<char>('a' + i));
    const auto at = out.reserve(part.size());
    ASSERT_TRUE(at.has_value());
    EXPECT_EQ(*at, expect.size());
    expect += part;
    parts.emplace_back(*at, std::move(part));
  }
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t)
    writers.emplace_back([&, t] {
      for (std::size_t i = static_cast<std::size_t>(t); i < parts.size(); i += 4)
        out.write_at(parts[i].second.data(), parts[i].second.size(), parts[i].first);
    });
  for (auto& w : writers) w.join();
  out.write("|tail");
  expect += "|tail";
  EXPECT_EQ(out.bytes_written(), expect.size());
  out.commit();
  EXPECT_EQ(slurp(path), expect);
  safe_output null("/dev/null");
  EXPECT_FALSE(null.reserve(10).has_value());
  null.commit();
}

// Open descriptors of this process with O_DIRECT set (from /proc/self/fdinfo).
int direct_descriptors() {
  int n = 0;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fdinfo")) {
    std::ifstream f(e.path());
    std::string key;
    unsigned long flags = 0;
    while (f >> key)
      if (key == "flags:" && (f >> std::oct >> flags) && (flags & O_DIRECT)) ++n;
  }
  return n;
}

// Large ranges whose bytes lie at the same spot in their 4 KiB page as their offset go to the
// file with O_DIRECT (whole pages) and through the cache (the partial pages at each end,
// shared with the neighbours); a range from a buffer off that spot goes through the cache.
// Either way the file holds exactly the bytes in reserved order.
TEST(SafeOutput, LargeRangesOnTheirPageSpotSkipTheCacheAndLandInOrder) {
  temp_dir dir;
  const auto path = dir / "direct.bin";
  safe_output out(path);
  out.write("head|");
  std::string expect = "head|";
  struct range {
    std::uint64_t at;
    char* data;
    std::size_t n;
  };
  std::vector<std::unique_ptr<char, decltype(&std::free)>> buffers;
  std::vector<range> ranges;
  for (int i = 0; i < 8; ++i) {
    const std::size_t n = (300u << 10) + static_cast<std::size_t>(i) * 70001;
    const auto at = out.reserve(n);
    ASSERT_TRUE(at.has_value());
    ASSERT_EQ(*at, expect.size());
    buffers.emplace_back(static_cast<char*>(std::aligned_alloc(4096, (n + 8192) / 4096 * 4096)), &std::free);
    const std::size_t pad = (*at % 4096) + (i == 5 ? 1 : 0);  // range 5: off its spot
    char* p = buffers.back().get() + pad;
    for (std::size_t k = 0; k < n; ++k) p[k] = static_cast<char>('a' + (k * 7 + static_cast<std::size_t>(i)) % 26);
    expect.append(p, n);
    ranges.push_back({*at, p, n});
  }
  const int probe = ::open((dir / "probe").c_str(), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0600);
  if (probe >= 0) {
    ::close(probe);
    EXPECT_EQ(direct_descriptors(), 1);  // the file system takes O_DIRECT: the output uses it
  } else {
    std::cout << "note: " << dir.path << " refuses O_DIRECT: all ranges go through the cache\n";
  }
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t)
    writers.emplace_back([&, t] {
      for (std::size_t i = static_cast<std::size_t>(t); i < ranges.size(); i += 3) out.write_at(ranges[i].data, ranges[i].n, ranges[i].at);
    });
  for (auto& w : writers) w.join();
  out.write("|tail");
  expect += "|tail";
  out.commit();
  EXPECT_EQ(direct_descriptors(), 0);  // closed at commit
  EXPECT_EQ(slurp(path), expect);
}

// A reserved range that does not fit the disk: write_at fails with ENOSPC naming the file,
// and dropping the output leaves the old file and no temporary.
TEST(SafeOutput, AReservedRangeOnAFullDiskFailsAndLeavesTheOldFile) {
  temp_dir dir;
  if (::mount("fairdeck-test", dir.path.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a small tmpfs here (needs root): " << std::strerror(errno);
  const auto path = dir / "blocks.bin";
  fairdeck::write_output_file(path, "old");
  {
    safe_output out(path);
    const std::string block(256 << 10, 'x');
    const auto at = out.reserve(block.size());
    ASSERT_TRUE(at.has_value());
    try {
      out.write_at(block.data(), block.size(), *at);
      ADD_FAILURE() << "256 KiB fitted in a 64 KiB tmpfs";
    } catch (const output_error& e) {
      EXPECT_EQ(e.os_error(), ENOSPC) << e.what();
      EXPECT_NE(std::string(e.what()).find("blocks.bin': No space left on device"), std::string::npos) << e.what();
    }
  }  // destroyed without commit
  EXPECT_EQ(slurp(path), "old");
  EXPECT_EQ(dir.entries(), 1u);
}

// A regular file is replaced wherever it lives, /dev/shm included (it was written through
// there, in place and without truncation), and its same-as-input check applies.
TEST(SafeOutput, ARegularFileUnderDevIsReplacedWhole) {
  std::string shm = "/dev/shm/fairdeck_safe_output_XXXXXX";
  if (::mkdtemp(shm.data()) == nullptr) GTEST_SKIP() << "no /dev/shm here: " << std::strerror(errno);
  const std::string path = shm + "/out.txt";
  fairdeck::testing::write_file(path, std::string(100000, 'x'));
  EXPECT_EQ(fairdeck::check_output_path(path).mode, fairdeck::output_mode::replace);
  EXPECT_EQ(kind_of_failure(path, {path}), output_error_kind::same_as_input);
  fairdeck::write_output_file(path, "short");
  EXPECT_EQ(slurp(path), "short");
  fs::remove_all(shm);
}

// /dev/fd/N and /proc/self/fd/N name this process's descriptor N: it is written through a
// duplicate of it, at its offset and with its O_APPEND (opening the path anew would start at
// offset 0, over what the descriptor had written); a closed or read-only one is an error.
TEST(SafeOutput, OwnDescriptorsAreWrittenAtTheirOffset) {
  temp_dir dir;
  const std::string file = dir / "f.txt";
  for (const int flags : {O_WRONLY | O_CREAT | O_TRUNC, O_WRONLY | O_CREAT | O_APPEND}) {
    for (const std::string prefix : {"/dev/fd/", "/proc/self/fd/"}) {
      SCOPED_TRACE(prefix + ((flags & O_APPEND) != 0 ? " O_APPEND" : ""));
      const int fd = ::open(file.c_str(), flags | O_CLOEXEC, 0644);
      ASSERT_GE(fd, 0);
      if ((flags & O_APPEND) != 0) fairdeck::testing::write_file(file, "old\n");
      ASSERT_EQ(::write(fd, "head\n", 5), 5);
      const auto plan = fairdeck::check_output_path(prefix + std::to_string(fd));
      EXPECT_EQ(plan.mode, fairdeck::output_mode::descriptor);
      EXPECT_EQ(plan.fd, fd);
      fairdeck::write_output_file(prefix + std::to_string(fd), "body\n");
      EXPECT_EQ(slurp(file), (flags & O_APPEND) != 0 ? "old\nhead\nbody\n" : "head\nbody\n");
      EXPECT_EQ(::write(fd, "tail\n", 5), 5);  // the descriptor is still open, after the body
      EXPECT_EQ(slurp(file), (flags & O_APPEND) != 0 ? "old\nhead\nbody\ntail\n" : "head\nbody\ntail\n");
      ::close(fd);
    }
  }
  const int ro = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(ro, 0);
  try {
    safe_output out("/dev/fd/" + std::to_string(ro));
    ADD_FAILURE() << "a read-only descriptor was accepted";
  } catch (const output_error& e) {
    EXPECT_EQ(e.kind(), output_error_kind::not_writable) << e.what();
    EXPECT_NE(std::string(e.what()).find("not open for writing"), std::string::npos) << e.what();
  }
  ::close(ro);
  EXPECT_EQ(kind_of_failure("/dev/fd/" + std::to_string(ro)), output_error_kind::io);  // closed now: EBADF
  EXPECT_EQ(dir.entries(), 1u);
}

// A replaced file keeps its owner and group as well as its mode (root only: others may not
// give a file away; then the new file is theirs, as any file they write).
TEST(SafeOutput, AReplacedFileKeepsItsOwner) {
  if (::geteuid() != 0) GTEST_SKIP() << "keeping another user's ownership needs root";
  temp_dir dir;
  const std::string path = dir / "owned.txt";
  fairdeck::testing::write_file(path, "old");
  if (::chown(path.c_str(), 65534, 65534) != 0) GTEST_SKIP() << "chown to 65534: " << std::strerror(errno);
  ASSERT_EQ(::chmod(path.c_str(), 0640), 0);
  fairdeck::write_output_file(path, "new");
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(slurp(path), "new");
  EXPECT_EQ(st.st_uid, 65534u);
  EXPECT_EQ(st.st_gid, 65534u);
  EXPECT_EQ(st.st_mode & 07777, 0640u);
}

// A path ending in '/' names a folder, as for the kernel: never a file created without it.
TEST(SafeOutput, APathEndingInASlashIsAFolder) {
  temp_dir dir;
  fairdeck::testing::write_file(dir / "file.txt", "kept");
  EXPECT_THROW((void)fairdeck::check_output_path("new.txt/"), output_error);
  EXPECT_THROW((void)fairdeck::check_output_path(dir / "new.txt/"), output_error);
  EXPECT_EQ(kind_of_failure(dir / "missing/new.txt/"), output_error_kind::no_parent);
  EXPECT_EQ(kind_of_failure(dir / "new.txt/"), output_error_kind::is_directory);
  EXPECT_EQ(kind_of_failure(dir / "file.txt/"), output_error_kind::no_parent);  // ENOTDIR, as open(2)
  EXPECT_EQ(kind_of_failure(dir.path.string() + "/"), output_error_kind::is_directory);
  EXPECT_EQ(slurp(dir / "file.txt"), "kept");
  EXPECT_EQ(dir.entries(), 1u);
}
