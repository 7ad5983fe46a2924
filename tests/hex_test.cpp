// util/hex.hpp: the one hex codec of server seeds, signing keys and service tokens.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "fairdeck/util/hex.hpp"

namespace {

TEST(Hex, RoundTripsLowercaseAndAcceptsEitherCase) {
  const std::vector<std::uint8_t> bytes{0x00, 0x01, 0x7f, 0x80, 0xab, 0xff};
  EXPECT_EQ(fairdeck::to_hex(bytes), "00017f80abff");
  EXPECT_EQ(fairdeck::to_hex(std::vector<std::uint8_t>{}), "");
  std::array<std::uint8_t, 6> back{};
  ASSERT_TRUE(fairdeck::from_hex("00017F80ABff", back));
  EXPECT_TRUE(std::equal(back.begin(), back.end(), bytes.begin()));
}

TEST(Hex, RejectsWrongLengthAndNonHex) {
  std::array<std::uint8_t, 2> out{};
  EXPECT_FALSE(fairdeck::from_hex("abc", out));
  EXPECT_FALSE(fairdeck::from_hex("abcdef", out));
  EXPECT_FALSE(fairdeck::from_hex("abcg", out));
  EXPECT_FALSE(fairdeck::from_hex("ab d", out));
  EXPECT_TRUE(fairdeck::from_hex("abcd", out));
  EXPECT_EQ(out[0], 0xab);
  EXPECT_EQ(out[1], 0xcd);
}

}  // namespace
