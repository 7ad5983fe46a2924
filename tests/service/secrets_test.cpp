// Tokens, the key file and sealed seeds (service/secrets.hpp).
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include <gtest/gtest.h>

#include "fairdeck/service/secrets.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

TEST(ServiceSecrets, TokensAreRandomAndStoredAsHashes) {
  const auto a = generate_token();
  const auto b = generate_token();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.size(), 4u + 64u);
  EXPECT_EQ(a.rfind("fdk_", 0), 0u);
  EXPECT_EQ(token_hash(a).size(), 64u);
  EXPECT_EQ(token_hash(a), token_hash(a));
  EXPECT_NE(token_hash(a), token_hash(b));
  EXPECT_EQ(token_hash(a).find(a.substr(4)), std::string::npos);
  EXPECT_TRUE(equal_constant_time(token_hash(a), token_hash(a)));
  EXPECT_FALSE(equal_constant_time(token_hash(a), token_hash(b)));
  EXPECT_FALSE(equal_constant_time("abc", "abcd"));
}

TEST(ServiceSecrets, KeyFileIsPrivateAndNeverOverwritten) {
  test_dir dir;
  const auto path = dir.path / "k.key";
  const auto key = create_key_file(path);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(read_key_file(path).bytes(), key.bytes());
  EXPECT_THROW((void)create_key_file(path), std::runtime_error);  // O_EXCL
  EXPECT_EQ(read_key_file(path).bytes(), key.bytes());
  ::chmod(path.c_str(), 0644);
  EXPECT_THROW((void)read_key_file(path), std::runtime_error);
  ::chmod(path.c_str(), 0600);
  std::ofstream(path) << "not hex\n";
  EXPECT_THROW((void)read_key_file(path), std::runtime_error);
  EXPECT_THROW((void)read_key_file(dir.path / "missing.key"), std::runtime_error);
}

TEST(ServiceSecrets, SealedSeedsOpenOnlyWithTheirKeyAndUntampered) {
  const auto key = secret_key::generate();
  const auto other = secret_key::generate();
  const auto seed = fair::server_seed::generate();
  const auto sealed = seal_seed(seed, key);
  EXPECT_EQ(sealed.size(), 144u);
  EXPECT_EQ(sealed.find(seed.hex()), std::string::npos);
  EXPECT_NE(seal_seed(seed, key), sealed);  // fresh nonce every time
  EXPECT_EQ(open_seed(sealed, key), seed);
  EXPECT_THROW((void)open_seed(sealed, other), seal_error);
  auto tampered = sealed;
  tampered[100] = tampered[100] == '0' ? '1' : '0';
  EXPECT_THROW((void)open_seed(tampered, key), seal_error);
  EXPECT_THROW((void)open_seed("zz", key), seal_error);
  try {
    (void)open_seed(sealed, other);
  } catch (const seal_error& e) {
    EXPECT_EQ(std::string(e.what()).find(seed.hex()), std::string::npos);
  }
}

}  // namespace
}  // namespace fairdeck::service
