// FAIRDECK_POKER_SANITIZED is 1 under AddressSanitizer (gcc or clang): the heaviest
// exhaustive poker tests then run on a stated subset to stay within the CI time budget.
#pragma once

#include "sanitizer_build.hpp"

#define FAIRDECK_POKER_SANITIZED FAIRDECK_SLOW_BUILD
