// Shared by the runtime CLI tests: the runtimes whose golden files hold the shared cases of
// tests/runtimes/cases.txt (20+ decks of 52, a 104-card shoe), and GoogleTest-safe names.
#pragma once

#include <string>

#include <gtest/gtest.h>

namespace fairdeck::testing {

inline const auto golden_runtimes =
    ::testing::Values("php", "python", "libstdc++", "libstdc++-default", "libc++", "libc++-default");

// "libstdc++-default" -> "libstdcxx_default"
inline std::string runtime_test_name(const ::testing::TestParamInfo<const char*>& p) {
  std::string s;
  for (const char* c = p.param; *c; ++c) s += *c == '+' ? std::string("x") : *c == '-' ? std::string("_") : std::string(1, *c);
  return s;
}

}  // namespace fairdeck::testing
