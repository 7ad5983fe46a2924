// Tokens, the key file and sealed seeds (service/secrets.hpp).
#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sodium.h>

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
  const auto c = fair::commitment(seed);
  const auto sealed = seal_seed(seed, key, "t1");
  EXPECT_EQ(sealed.size(), 3u + 144u);
  EXPECT_EQ(sealed.rfind("v2:", 0), 0u);
  EXPECT_FALSE(is_v1_seal(sealed));
  EXPECT_EQ(sealed.find(seed.hex()), std::string::npos);
  EXPECT_NE(seal_seed(seed, key, "t1"), sealed);  // fresh nonce every time
  EXPECT_EQ(open_seed(sealed, key, "t1", c), seed);
  EXPECT_THROW((void)open_seed(sealed, other, "t1", c), seal_error);
  auto tampered = sealed;
  tampered[100] = tampered[100] == '0' ? '1' : '0';
  EXPECT_THROW((void)open_seed(tampered, key, "t1", c), seal_error);
  EXPECT_THROW((void)open_seed("zz", key, "t1", c), seal_error);
  EXPECT_THROW((void)open_seed("v2:zz", key, "t1", c), seal_error);
  try {
    (void)open_seed(sealed, other, "t1", c);
  } catch (const seal_error& e) {
    EXPECT_EQ(std::string(e.what()).find(seed.hex()), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("table 't1'"), std::string::npos);
  }
}

// Issue #27 item 8: a sealed seed copied into another table's row must not open there.
TEST(ServiceSecrets, ASealedSeedIsBoundToItsTableAndCommitment) {
  const auto key = secret_key::generate();
  const auto seed = fair::server_seed::generate();
  const auto other_seed = fair::server_seed::generate();
  const auto sealed = seal_seed(seed, key, "alpha");
  EXPECT_THROW((void)open_seed(sealed, key, "beta", fair::commitment(seed)), seal_error);        // another table
  EXPECT_THROW((void)open_seed(sealed, key, "alpha", fair::commitment(other_seed)), seal_error);  // another commitment
  EXPECT_EQ(open_seed(sealed, key, "alpha", fair::commitment(seed)), seed);
}

// A batch opens each table's seed once and deals from it as from the seed itself; a rotation
// inside the batch (another sealed text) opens the new seed; open_seed's refusals stay.
TEST(ServiceSecrets, ABatchOpensEachSeedOnceAndDealsWhatTheSeedDeals) {
  const auto key = secret_key::generate();
  const auto s1 = fair::server_seed::generate(), s2 = fair::server_seed::generate();
  const auto sealed1 = seal_seed(s1, key, "alpha"), sealed2 = seal_seed(s2, key, "beta");
  batch_keys keys(key);
  const fair::keyed_seed& k1 = keys.keyed(sealed1, "alpha", fair::commitment(s1));
  EXPECT_EQ(&keys.keyed(sealed1, "alpha", fair::commitment(s1)), &k1) << "opened again";
  EXPECT_EQ(fair::deal_deck(k1, "alice", 3, {}), fair::deal_deck(s1, "alice", 3, {}));
  const fair::keyed_seed& k2 = keys.keyed(sealed2, "beta", fair::commitment(s2));
  EXPECT_NE(&k2, &k1);
  EXPECT_EQ(fair::deal_deck(k2, "alice", 3, {}), fair::deal_deck(s2, "alice", 3, {}));
  // alpha rotated to a new seed in the same batch
  const auto s3 = fair::server_seed::generate();
  const auto sealed3 = seal_seed(s3, key, "alpha");
  EXPECT_EQ(fair::deal_deck(keys.keyed(sealed3, "alpha", fair::commitment(s3)), "alice", 3, {}),
            fair::deal_deck(s3, "alice", 3, {}));
  // a seal that does not open, or not with this table or commitment, is refused as by open_seed
  EXPECT_THROW((void)keys.keyed(sealed2, "alpha", fair::commitment(s2)), seal_error);
  EXPECT_THROW((void)keys.keyed(sealed3, "alpha", fair::commitment(s1)), seal_error);
  batch_keys others(secret_key::generate());
  EXPECT_THROW((void)others.keyed(sealed1, "alpha", fair::commitment(s1)), seal_error);
  // an entry is used only for its exact seal: the refused lookups above did not replace alpha's
  EXPECT_EQ(fair::deal_deck(keys.keyed(sealed3, "alpha", fair::commitment(s3)), "bob", 0, {}),
            fair::deal_deck(s3, "bob", 0, {}));
}

// Stores written before v2 hold crypto_secretbox seals without associated data: they still
// open, and a copy into another table is caught by the commitment.
TEST(ServiceSecrets, OlderV1SealsStillOpenAndAreCheckedAgainstTheCommitment) {
  const auto key = secret_key::generate();
  const auto seed = fair::server_seed::generate();
  std::array<unsigned char, crypto_secretbox_NONCEBYTES + crypto_secretbox_MACBYTES + fair::seed_bytes> box{};
  randombytes_buf(box.data(), crypto_secretbox_NONCEBYTES);
  crypto_secretbox_easy(box.data() + crypto_secretbox_NONCEBYTES, seed.bytes().data(), seed.bytes().size(), box.data(),
                        key.bytes().data());
  std::string v1;
  for (const auto b : box) v1 += fmt::format("{:02x}", b);
  ASSERT_EQ(v1.size(), 144u);
  EXPECT_TRUE(is_v1_seal(v1));
  EXPECT_EQ(open_seed(v1, key, "any", fair::commitment(seed)), seed);
  EXPECT_THROW((void)open_seed(v1, key, "any", fair::commitment(fair::server_seed::generate())), seal_error);
  EXPECT_THROW((void)open_seed(v1, secret_key::generate(), "any", fair::commitment(seed)), seal_error);
}

TEST(ServiceSecrets, KeyCheckValueRecognisesTheKeyAndHidesIt) {
  const auto key = secret_key::generate();
  const auto check = key_check_value(key);
  EXPECT_EQ(check, key_check_value(key));
  EXPECT_NE(check, key_check_value(secret_key::generate()));
  EXPECT_EQ(check.size(), 3u + 64u);
  std::string key_hex;
  for (const auto b : key.bytes()) key_hex += fmt::format("{:02x}", b);
  EXPECT_EQ(check.find(key_hex.substr(0, 16)), std::string::npos);
}

}  // namespace
}  // namespace fairdeck::service
