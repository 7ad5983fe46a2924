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

impl_ptr make_java(std::uint64_t) { pending("java"); }
impl_ptr make_dotnet_framework(std::uint64_t, bool) { pending("dotnet-framework"); }
impl_ptr make_go(std::uint64_t) { pending("go"); }
impl_ptr make_node(std::uint64_t, bool) { pending("node"); }
}  // namespace fairdeck::runtimes::internal
