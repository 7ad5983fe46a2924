// Temporary directories for the service tests: the one of tests/test_support.hpp.
#pragma once

#include "../test_support.hpp"

namespace fairdeck::service {

using test_dir = fairdeck::testing::temp_dir;

}  // namespace fairdeck::service
