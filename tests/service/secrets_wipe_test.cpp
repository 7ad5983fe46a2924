// fairdeckd's secrets are wiped after use (../secret_scan.hpp): the key file's bytes and a new
// access token leave no copy in a dead stack frame or a freed heap block.
#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sodium.h>

#include "../secret_scan.hpp"
#include "fairdeck/service/secrets.hpp"
#include "fairdeck/util/hex.hpp"
#include "service_test_support.hpp"

FAIRDECK_SECRET_SCAN_DELETE

namespace fairdeck::service {
namespace {

using fairdeck::testing::freed_heap_scan;

TEST(ServiceSecretsWipe, TheProbesSeeASecretLeftBehind) {
  if (!fairdeck::testing::secret_scan_works) GTEST_SKIP() << "no heap or stack probe under the sanitizers";
  const std::string token = generate_token();
  freed_heap_scan scan;
  fairdeck::testing::free_unwiped_copy(token);
  scan.stop();
  EXPECT_TRUE(scan.freed(token));
  fairdeck::testing::clear_dead_stack();
  fairdeck::testing::leave_unwiped_copy_on_stack(token);
  EXPECT_TRUE(fairdeck::testing::dead_stack_holds(token));
}

// A key file whose last two digits are not hex: the 31 bytes before them were decoded into the
// reader's buffer before it refused the file.
TEST(ServiceSecretsWipe, MalformedKeyFileLeavesNoDecodedByteOnTheStack) {
  if (!fairdeck::testing::secret_scan_works) GTEST_SKIP() << "no stack probe under the sanitizers";
  test_dir dir;
  std::array<std::uint8_t, 32> key{};
  randombytes_buf(key.data(), key.size());
  std::string hex = to_hex(key);
  hex.replace(62, 2, "zz");
  const auto path = dir.path / "k.key";
  std::ofstream(path) << hex << "\n";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  const std::string decoded(key.begin(), key.begin() + 24);
  fairdeck::testing::clear_dead_stack();
  std::string message;
  try {
    fairdeck::testing::below_padding([&] { (void)read_key_file(path); });
  } catch (const std::runtime_error& e) {
    message = e.what();
  }
  const bool left = fairdeck::testing::dead_stack_holds(decoded);
  EXPECT_NE(message.find("does not hold 64 hex digits"), std::string::npos) << message;
  EXPECT_FALSE(left);
}

TEST(ServiceSecretsWipe, NewTokenFreesNoCopyOfIt) {
  if (!fairdeck::testing::secret_scan_works) GTEST_SKIP() << "no heap probe under the sanitizers";
  freed_heap_scan scan;
  const std::string token = generate_token();
  scan.stop();
  ASSERT_FALSE(scan.overflowed());
  EXPECT_FALSE(scan.freed(token.substr(4, 32)));
}

}  // namespace
}  // namespace fairdeck::service
