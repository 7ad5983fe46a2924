// Secrets are wiped after use: no copy of a signer key (the witness's cosignature/v1 key) or
// of a key file's text is left in a freed heap block or a dead stack frame (secret_scan.hpp).
#include <gtest/gtest.h>

#include <array>
#include <filesystem>
#include <fstream>
#include <string>

#include <sys/stat.h>

#include <sodium.h>

#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/tlog/key_file.hpp"
#include "fairdeck/tlog/note.hpp"
#include "secret_scan.hpp"
#include "test_support.hpp"

FAIRDECK_SECRET_SCAN_DELETE

namespace {

using namespace fairdeck::tlog;
using fairdeck::testing::freed_heap_scan;
namespace fs = std::filesystem;

#define SKIP_UNLESS_SCANS \
  if (!fairdeck::testing::secret_scan_works) GTEST_SKIP() << "no heap or stack probe under the sanitizers"

// A fresh witness key and the forms of its secret a leak would show: the base64 of type ‖
// seed (the key text's last field) and the 32 seed bytes.
struct scanned_key {
  note_signer signer = note_signer::generate("wipe.example", key_type::cosignature_v1);
  std::string text = signer.secret_text();
  std::string b64 = text.substr(text.rfind('+') + 1, 40);
  std::string seed = [this] {
    std::array<std::uint8_t, 32> s{};
    signer.copy_seed(s);
    return std::string(s.begin(), s.begin() + 24);
  }();
  [[nodiscard]] bool freed_in(const freed_heap_scan& scan) const { return scan.freed(b64) || scan.freed(seed); }
};

TEST(SecretWipe, TheProbesSeeASecretLeftBehind) {
  SKIP_UNLESS_SCANS;
  const scanned_key k;
  freed_heap_scan scan;
  fairdeck::testing::free_unwiped_copy(k.text);
  scan.stop();
  EXPECT_TRUE(scan.freed(k.b64));
  fairdeck::testing::clear_dead_stack();
  fairdeck::testing::leave_unwiped_copy_on_stack(k.b64);
  EXPECT_TRUE(fairdeck::testing::dead_stack_holds(k.b64));
}

TEST(SecretWipe, SignerKeyParsingFreesNoCopyOfTheKey) {
  SKIP_UNLESS_SCANS;
  const scanned_key k;
  // Malformed: a stray character after the key (the bytes decoded up to it are secret too), a
  // wrong key ID. Made before the scan: the test's own copies are not the parser's.
  const std::string stray = k.text + "!";
  std::string wrong_id = k.text;
  wrong_id[wrong_id.rfind('+') - 1] ^= 1;
  freed_heap_scan scan;
  { const note_signer parsed = note_signer::parse(k.text); }
  EXPECT_THROW((void)note_signer::parse(stray), malformed);
  EXPECT_THROW((void)note_signer::parse(wrong_id), malformed);
  scan.stop();
  ASSERT_FALSE(scan.overflowed());
  EXPECT_GT(scan.blocks(), 0u);
  EXPECT_FALSE(k.freed_in(scan));
}

TEST(SecretWipe, SignerKeyTextFreesNoCopyOfTheKey) {
  SKIP_UNLESS_SCANS;
  const scanned_key k;
  freed_heap_scan scan;
  {
    std::string text = k.signer.secret_text();
    EXPECT_EQ(text, k.text);
    sodium_memzero(text.data(), text.size());
  }
  scan.stop();
  ASSERT_FALSE(scan.overflowed());
  EXPECT_FALSE(k.freed_in(scan));
}

TEST(SecretWipe, WitnessKeyFileWrittenAndReadFreesNoCopyOfTheKey) {
  SKIP_UNLESS_SCANS;
  const fairdeck::testing::temp_dir dir;
  const scanned_key k;
  const std::string path = (dir.path / "witness.key").string();
  freed_heap_scan scan;
  create_signer_key_file(path, k.signer);
  { const note_signer read = read_signer_key_file(path, "witness key file"); }
  scan.stop();
  ASSERT_FALSE(scan.overflowed());
  EXPECT_FALSE(k.freed_in(scan));
  EXPECT_EQ(read_signer_key_file(path).verifier().text(), k.signer.verifier().text());
}

TEST(SecretWipe, WitnessKeyFileReadLeavesNoCopyOnTheStack) {
  SKIP_UNLESS_SCANS;
  const fairdeck::testing::temp_dir dir;
  const scanned_key k;
  const std::string path = (dir.path / "witness.key").string();
  create_signer_key_file(path, k.signer);
  fairdeck::testing::clear_dead_stack();
  const note_signer read = read_signer_key_file(path);
  const bool left = fairdeck::testing::dead_stack_holds(k.b64);
  EXPECT_EQ(read.verifier().text(), k.signer.verifier().text());
  EXPECT_FALSE(left);
}

// fairdeckd refuses a key file others may read (service/secrets.cpp, read_key_file); so does
// the witness, in the same words, naming no part of the key.
TEST(SecretWipe, WitnessKeyFileOthersMayReadIsRefused) {
  const fairdeck::testing::temp_dir dir;
  const scanned_key k;
  const fs::path path = dir.path / "witness.key";
  create_signer_key_file(path, k.signer);
  for (const unsigned mode : {0644u, 0640u, 0604u, 0660u}) {
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    try {
      (void)read_signer_key_file(path.string(), "witness key file");
      ADD_FAILURE() << "mode " << std::oct << mode << " accepted";
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("witness key file " + path.string() + " is accessible by other users"), std::string::npos)
          << what;
      EXPECT_NE(what.find("chmod 600 it"), std::string::npos) << what;
      EXPECT_EQ(what.find(k.b64.substr(0, 8)), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
  }
  for (const unsigned mode : {0600u, 0400u}) {
    ASSERT_EQ(::chmod(path.c_str(), mode), 0);
    EXPECT_EQ(read_signer_key_file(path.string()).verifier().text(), k.signer.verifier().text()) << std::oct << mode;
  }
  EXPECT_THROW((void)read_signer_key_file(dir.path.string()), std::runtime_error);  // not a regular file
}

// --key-file (random/chacha20.hpp): the hex key read, on the success path and when the file is
// too large, leaves no copy in a dead frame of the reader.
TEST(SecretWipe, ChachaKeyFileLeavesNoCopyOnTheStack) {
  SKIP_UNLESS_SCANS;
  const fairdeck::testing::temp_dir dir;
  std::array<std::uint8_t, 32> key{};
  randombytes_buf(key.data(), key.size());
  const std::string hex = fairdeck::key_to_hex(key);
  const fs::path good = dir.path / "good.key", big = dir.path / "big.key";
  std::ofstream(good) << hex << "\n";
  std::ofstream(big) << hex << "\n" << std::string(5000, ' ');
  const std::string piece = hex.substr(0, 32);
  fairdeck::testing::clear_dead_stack();
  const auto got = fairdeck::read_key_file(good.string());
  const bool left = fairdeck::testing::dead_stack_holds(piece);
  EXPECT_EQ(got, key);
  EXPECT_FALSE(left) << "after a good key file";
  fairdeck::testing::clear_dead_stack();
  bool refused = false;
  try {
    fairdeck::testing::below_padding([&] { (void)fairdeck::read_key_file(big.string()); });
  } catch (const std::runtime_error&) {
    refused = true;
  }
  const bool left_refused = fairdeck::testing::dead_stack_holds(piece);
  EXPECT_TRUE(refused);
  EXPECT_FALSE(left_refused) << "after a key file too large";
}

}  // namespace

#undef SKIP_UNLESS_SCANS
