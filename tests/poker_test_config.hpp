// FAIRDECK_POKER_SANITIZED is 1 under AddressSanitizer (gcc or clang): the heaviest
// exhaustive poker tests then run on a stated subset to stay within the CI time budget.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define FAIRDECK_POKER_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAIRDECK_POKER_SANITIZED 1
#endif
#endif
#ifndef FAIRDECK_POKER_SANITIZED
#define FAIRDECK_POKER_SANITIZED 0
#endif
