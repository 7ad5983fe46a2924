// Secrets are wiped after use: no copy of a signer key (the witness's cosignature/v1 key) or
// of a key file's text is left in a freed heap block or a dead stack frame (secret_scan.hpp).
#include <gtest/gtest.h>

#include <array>
#include <string>

#include <sodium.h>

#include "fairdeck/tlog/note.hpp"
#include "secret_scan.hpp"

FAIRDECK_SECRET_SCAN_DELETE

namespace {

using namespace fairdeck::tlog;
using fairdeck::testing::freed_heap_scan;

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

}  // namespace

#undef SKIP_UNLESS_SCANS
