// util/secret_file: the one writer of secret files (server seeds, mental-poker key shares).
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/stat.h>

#include <cerrno>
#include <csignal>

#include <filesystem>
#include <fstream>
#include <iterator>

#include "fairdeck/util/secret_file.hpp"
#include "test_support.hpp"

namespace {

using fairdeck::create_secret_file;
using fairdeck::secret_file_error;
using fairdeck::testing::temp_dir;
using kind = secret_file_error::kind_t;

std::string contents(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

kind kind_of(const std::filesystem::path& p, std::string_view bytes) {
  try {
    create_secret_file(p, bytes);
  } catch (const secret_file_error& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no error creating " << p;
  return kind::io;
}

TEST(SecretFile, WritesExactBytesWithMode0600WhateverTheUmask) {
  temp_dir dir;
  const auto path = dir.path / "k.key";
  const std::string bytes("secret\0with a zero byte\n", 24);
  const mode_t old_mask = ::umask(0);
  create_secret_file(path, bytes);
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::lstat(path.c_str(), &st), 0);
  EXPECT_TRUE(S_ISREG(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(contents(path), bytes);
}

TEST(SecretFile, NeverReplacesAnythingNorFollowsALink) {
  temp_dir dir;
  const auto path = dir.path / "k.key";
  create_secret_file(path, "first");
  EXPECT_EQ(kind_of(path, "second"), kind::exists);
  EXPECT_EQ(contents(path), "first");  // untouched

  const auto link = dir.path / "link.key";  // dangling: open(O_CREAT) would create its target
  std::filesystem::create_symlink(dir.path / "target.key", link);
  EXPECT_EQ(kind_of(link, "x"), kind::exists);
  EXPECT_FALSE(std::filesystem::exists(dir.path / "target.key"));

  std::filesystem::create_directory(dir.path / "folder");
  EXPECT_EQ(kind_of(dir.path / "folder", "x"), kind::exists);
}

TEST(SecretFile, AMissingFolderIsACreateErrorNamingThePath) {
  temp_dir dir;
  const auto path = dir.path / "missing" / "k.key";
  try {
    create_secret_file(path, "x");
    FAIL() << "created a file in a missing folder";
  } catch (const secret_file_error& e) {
    EXPECT_EQ(e.kind(), kind::create);
    EXPECT_EQ(e.os_error(), ENOENT);
    EXPECT_NE(std::string(e.what()).find("cannot create " + path.string()), std::string::npos) << e.what();
  }
}

TEST(SecretFile, AFailedWriteRemovesTheFile) {
  // A file-size limit of 4 bytes: the first write(2) is short, the next fails with EFBIG
  // (SIGXFSZ ignored for the test, then the limit and the handler restored).
  temp_dir dir;
  const auto path = dir.path / "k.key";
  rlimit old_limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &old_limit), 0);
  const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
  rlimit small = old_limit;
  small.rlim_cur = 4;
  ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
  int os_error = 0;
  kind k = kind::exists;
  try {
    create_secret_file(path, std::string(100, 's'));
  } catch (const secret_file_error& e) {
    k = e.kind();
    os_error = e.os_error();
  }
  ::setrlimit(RLIMIT_FSIZE, &old_limit);
  std::signal(SIGXFSZ, old_handler);
  EXPECT_EQ(k, kind::io);
  EXPECT_EQ(os_error, EFBIG);
  EXPECT_FALSE(std::filesystem::exists(path)) << "a half-written secret file was left";
}

}  // namespace
