// Runtimes whose emulation is not written yet. Each factory here moves to its own
// src/runtimes/<runtime>.cpp when it is implemented; this file goes away when it is empty.
#include <stdexcept>
#include <string>

#include "fairdeck/runtimes/internal/factories.hpp"

namespace fairdeck::runtimes::internal {
namespace {
[[noreturn]] void pending(const char* name) {
  throw std::logic_error(std::string("runtime shuffle not implemented yet: ") + name);
}
}  // namespace

impl_ptr make_php(std::uint64_t) { pending("php"); }
impl_ptr make_python(std::uint64_t) { pending("python"); }
impl_ptr make_libstdcxx(std::uint64_t, bool) { pending("libstdc++"); }
impl_ptr make_libcxx(std::uint64_t, bool) { pending("libc++"); }
}  // namespace fairdeck::runtimes::internal
