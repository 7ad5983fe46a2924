# Sanitizer builds (clang 14; CMakePresets.json presets `asan` and `tsan`, run by .ci/run).
# The flags go on fairdeck_warnings, so they reach our own targets only (Debian's libraries
# are not instrumented; tests/tsan.supp explains each report they cause).
option(FAIRDECK_SANITIZE "Build with ASan+UBSan" OFF)
option(FAIRDECK_TSAN "Build with ThreadSanitizer" OFF)
if(FAIRDECK_SANITIZE AND FAIRDECK_TSAN)
  message(FATAL_ERROR "FAIRDECK_SANITIZE (ASan) and FAIRDECK_TSAN cannot be combined")
endif()
if(FAIRDECK_SANITIZE)
  target_compile_options(fairdeck_warnings INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(fairdeck_warnings INTERFACE -fsanitize=address,undefined)
endif()
if(FAIRDECK_TSAN)
  target_compile_options(fairdeck_warnings INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(fairdeck_warnings INTERFACE -fsanitize=thread)
endif()
