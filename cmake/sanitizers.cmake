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

# fairdeck_cold_tests(TARGET HOT file...), called after TARGET (a GoogleTest binary) is fully
# set up: under FAIRDECK_SANITIZE, TARGET's files not named in HOT compile at -O0, the HOT ones
# at the build's -O1 (an object library, TARGET_hot, linked into TARGET). A cold file's own
# code runs little: its tests call the library (at -O1) or run the CLI. The HOT files are
# those whose tests run loops of their own (statistical checks, exhaustive enumerations,
# templates instantiated in the test file): -O0 made those up to 4.5x slower (huge_shuffle's
# tests 22 -> 92 test-seconds).
# The hot objects come first on the link line (CMake 3.25 lists a linked object library's
# objects before the target's own; build.ninja shows it): a template instantiated in a hot
# file and a cold one is linked once, from the first object the linker meets. With the cold objects first,
# the hot files' tests ran on -O0 copies and took 1.62x as long.
# Measured on a 2-core Zen 3 (asan build, the test binaries rebuilt alone, -j2): 358 s and 655
# CPU-seconds instead of 592 s and 1,101; the suite's test time by group against a cold CI run
# with every file at -O1: hot files 346 s (362), cold files 310 s (336), i.e. no loss measured.
function(fairdeck_cold_tests target)
  cmake_parse_arguments(arg "" "" "HOT" ${ARGN})
  if(NOT FAIRDECK_SANITIZE)
    return()
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set(hot ${arg_HOT})
  list(TRANSFORM hot PREPEND ${dir}/)
  foreach(file IN LISTS hot)
    if(NOT file IN_LIST sources)
      message(FATAL_ERROR "fairdeck_cold_tests(${target}): ${file} is not one of its sources")
    endif()
  endforeach()
  set(cold ${sources})
  list(REMOVE_ITEM cold ${hot})
  add_library(${target}_hot OBJECT ${hot})
  foreach(property INCLUDE_DIRECTORIES COMPILE_DEFINITIONS COMPILE_OPTIONS UNITY_BUILD UNITY_BUILD_BATCH_SIZE)
    get_target_property(value ${target} ${property})
    if(value)
      set_property(TARGET ${target}_hot PROPERTY ${property} "${value}")
    endif()
  endforeach()
  get_target_property(libraries ${target} LINK_LIBRARIES)  # their headers, definitions and flags
  target_link_libraries(${target}_hot PRIVATE ${libraries})
  set_property(TARGET ${target} PROPERTY SOURCES ${cold})
  target_compile_options(${target} PRIVATE -O0)  # after the build type's -O1
  target_link_libraries(${target} PRIVATE ${target}_hot)
endfunction()
