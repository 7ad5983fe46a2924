// Helpers shared by the certify tests: a battery's result by test name.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "fairdeck/certify/result.hpp"

namespace fairdeck::testing {

// The result named `name`; throws when the battery ran no such test.
inline const certify::test_result& find_test(const std::vector<certify::test_result>& r, const std::string& name) {
  for (const auto& t : r)
    if (t.name == name) return t;
  throw std::runtime_error("no test " + name);
}

}  // namespace fairdeck::testing
