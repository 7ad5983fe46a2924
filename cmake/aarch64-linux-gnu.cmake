# Cross-compiling for 64-bit ARM Linux with Debian's g++-aarch64-linux-gnu, against the
# arm64 multiarch packages (libsodium-dev:arm64, nettle-dev:arm64, libfmt-dev:arm64, libboost-dev:arm64:
# scripts/setup.sh aarch64 installs them). Used by the `aarch64` preset, which keeps
# -Werror but demotes -Wstringop-overflow to a warning: g++ 12 for aarch64 reports a false
# positive on std::next_permutation over a 4-byte array (poker/internal/suit_symmetry.hpp).
# -Wno-psabi: silences notes that GCC 10 changed how aarch64 passes some types (no effect
# here: nothing is passed across a boundary built by an older compiler).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)
# Headers and libraries of the target only; programs (cmake's helpers) from the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu /usr/lib/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config: the arm64 .pc files only (libsodium, nettle).
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")
set(ENV{PKG_CONFIG_SYSROOT_DIR} "")
