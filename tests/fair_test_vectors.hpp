// The fair protocol's first test vector (docs/fair.md), shared by the tests that use it:
// the server seed of bytes 00..1f and its commitment, SHA-256 of those bytes.
#pragma once

namespace fairdeck::testing {

inline constexpr const char* seed1_hex = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
inline constexpr const char* commitment1 = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";

}  // namespace fairdeck::testing
