# Sanitizer builds (clang 14; CMakePresets.json presets `asan` and `tsan`, run by .ci/run).
# The flags go on fairdeck_warnings, so they reach our own targets only (Debian's libraries
# are not instrumented; tests/tsan.supp explains each report they cause).
option(FAIRDECK_SANITIZE "Build with ASan+UBSan" OFF)
option(FAIRDECK_TSAN "Build with ThreadSanitizer" OFF)
if(FAIRDECK_SANITIZE AND FAIRDECK_TSAN)
  message(FATAL_ERROR "FAIRDECK_SANITIZE (ASan) and FAIRDECK_TSAN cannot be combined")
endif()
if(FAIRDECK_SANITIZE)
  # Without UBSan's vptr check (a member call through an object of the wrong dynamic type):
  # it instruments every polymorphic call: ~7% of a CLI batch's compile (CLI11's classes are
  # virtual; a test batch: no measurable change). The code has few class hierarchies and no
  # static_cast downcasts (the two dynamic_casts are checked).
  target_compile_options(fairdeck_warnings INTERFACE -fsanitize=address,undefined -fno-sanitize=vptr -fno-omit-frame-pointer
                         -fno-sanitize-recover=all)
  target_link_options(fairdeck_warnings INTERFACE -fsanitize=address,undefined)
endif()
if(FAIRDECK_TSAN)
  target_compile_options(fairdeck_warnings INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(fairdeck_warnings INTERFACE -fsanitize=thread)
endif()
