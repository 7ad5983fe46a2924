// util/sha256: the FIPS 180-4 example vectors (NIST CSRC "SHA256.pdf"), the incremental
// hasher split at every position, whole files, and agreement with a second implementation
// (libsodium's portable crypto_hash_sha256) over every length across several blocks.
#include <gtest/gtest.h>

#include <sodium.h>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "fairdeck/util/hex.hpp"
#include "fairdeck/util/sha256.hpp"
#include "test_support.hpp"

namespace {

constexpr std::string_view abc_digest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr std::string_view two_block = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
constexpr std::string_view two_block_digest = "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1";
constexpr std::string_view empty_digest = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

}  // namespace

TEST(Sha256, FipsExampleVectors) {
  EXPECT_EQ(fairdeck::sha256_hex("abc"), abc_digest);
  EXPECT_EQ(fairdeck::sha256_hex(two_block), two_block_digest);
  EXPECT_EQ(fairdeck::sha256_hex(std::string_view{}), empty_digest);
  EXPECT_EQ(fairdeck::to_hex(fairdeck::sha256("abc")), abc_digest);
  const std::string a_million(1'000'000, 'a');
  EXPECT_EQ(fairdeck::sha256_hex(a_million), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
  const std::uint8_t bytes[] = {'a', 'b', 'c'};
  EXPECT_EQ(fairdeck::sha256_hex(std::span<const std::uint8_t>(bytes)), abc_digest);
}

TEST(Sha256, IncrementalEqualsOneShotAtEverySplit) {
  for (std::size_t cut = 0; cut <= two_block.size(); ++cut) {
    fairdeck::sha256_hasher h;
    h.update(two_block.substr(0, cut));
    h.update(two_block.substr(cut));
    EXPECT_EQ(h.hex(), two_block_digest) << cut;
  }
  fairdeck::sha256_hasher none;
  EXPECT_EQ(fairdeck::to_hex(none.digest()), empty_digest);
}

TEST(Sha256, FilesAreHashedWholeAndAMissingFileIsNamed) {
  fairdeck::testing::temp_dir dir;
  std::ofstream(dir.file("two_block")) << two_block;
  EXPECT_EQ(fairdeck::sha256_file_hex(dir.file("two_block")), two_block_digest);
  try {
    (void)fairdeck::sha256_file_hex(dir.file("missing"));
    ADD_FAILURE() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("missing"), std::string::npos) << e.what();
  }
}

// util/sha256 is Nettle's (with SHA-NI where the CPU has it); libsodium's is portable C. Every
// length 0..1100 (every tail of up to 17 blocks, each boundary), random bytes, one-shot and
// split at a random point, must give libsodium's digest.
TEST(Sha256, AgreesWithLibsodiumAtEveryLength) {
  std::mt19937_64 rng(20261129);
  for (std::size_t n = 0; n <= 1100; ++n) {
    std::vector<std::uint8_t> m(n);
    for (auto& b : m) b = static_cast<std::uint8_t>(rng());
    std::array<unsigned char, 32> want{};
    crypto_hash_sha256(want.data(), m.data(), m.size());
    EXPECT_EQ(fairdeck::to_hex(fairdeck::sha256(std::span<const std::uint8_t>(m))), fairdeck::to_hex(want)) << n;
    const std::size_t cut = n ? rng() % (n + 1) : 0;
    fairdeck::sha256_hasher h;
    h.update(std::span<const std::uint8_t>(m.data(), cut));
    h.update(std::span<const std::uint8_t>(m.data() + cut, n - cut));
    EXPECT_EQ(fairdeck::to_hex(h.digest()), fairdeck::to_hex(want)) << n << " cut at " << cut;
  }
}
