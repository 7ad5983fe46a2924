// FAIRDECK_SLOW_BUILD is 1 under AddressSanitizer (gcc or clang): the heaviest tests then run
// on a stated subset so the sanitizer suite stays within the CI time budget.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define FAIRDECK_SLOW_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FAIRDECK_SLOW_BUILD 1
#endif
#endif
#ifndef FAIRDECK_SLOW_BUILD
#define FAIRDECK_SLOW_BUILD 0
#endif
