// FAIRDECK_SLOW_BUILD is 1 under AddressSanitizer or ThreadSanitizer (gcc or clang): the
// heaviest tests then run on a stated subset so the sanitizer suites stay within the CI time
// budget.
#pragma once

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define FAIRDECK_SLOW_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define FAIRDECK_SLOW_BUILD 1
#endif
#endif
#ifndef FAIRDECK_SLOW_BUILD
#define FAIRDECK_SLOW_BUILD 0
#endif
