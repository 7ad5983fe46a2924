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
  #
  # Without UBSan's object-size check: with it, clang 14 leaves std::array's and std::vector's
  # operator[] out of line even at -O2 (354 out-of-line copies in the ASan library; one certify
  # calibration test spent 42% of its time in one of them). It checks an access against the
  # size of the whole object, which ASan's redzones check too, and _GLIBCXX_ASSERTIONS checks
  # the indices.
  #
  # Without use-after-return instrumentation: clang 14's runtime leaves
  # detect_stack_use_after_return off unless ASAN_OPTIONS turns it on, which nothing here does:
  # the fake-stack code compiled into every function never ran.
  #
  # The two together, measured on CI's 2-core Zen 3 (cold builds, no ccache): the asan build
  # 855 s instead of 1,070 (the library 329 job-seconds instead of 463), its suite 466 s
  # instead of 590 (CertifyBattery.PValuesAreUniformUnderTheNull 22 s instead of 72). A later
  # cold .ci/run with the same flags took 1,002 s and 567 s: this VM's neighbours move every
  # figure by ~20 %, so compare builds only in the same minutes.
  target_compile_options(fairdeck_warnings INTERFACE -fsanitize=address,undefined -fno-sanitize=vptr,object-size
                         -fsanitize-address-use-after-return=never -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(fairdeck_warnings INTERFACE -fsanitize=address,undefined)
endif()
if(FAIRDECK_TSAN)
  target_compile_options(fairdeck_warnings INTERFACE -fsanitize=thread -fno-omit-frame-pointer)
  target_link_options(fairdeck_warnings INTERFACE -fsanitize=thread)
endif()
