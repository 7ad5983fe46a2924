// Machinery: one factory per runtime, each defined in its own src/runtimes/<runtime>.cpp.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "fairdeck/runtimes/runtime.hpp"

namespace fairdeck::runtimes {

struct runtime_shuffler::impl {
  virtual ~impl() = default;
  virtual void shuffle(std::span<std::uint32_t> list) = 0;
};

namespace internal {
using impl_ptr = std::unique_ptr<runtime_shuffler::impl>;
impl_ptr make_php(std::uint64_t seed);
impl_ptr make_python(std::uint64_t seed);
impl_ptr make_libstdcxx(std::uint64_t seed, bool default_engine);
impl_ptr make_libcxx(std::uint64_t seed, bool default_engine);
impl_ptr make_java(std::uint64_t seed);
impl_ptr make_dotnet_framework(std::uint64_t seed, bool orderby);
impl_ptr make_go(std::uint64_t seed);
impl_ptr make_node(std::uint64_t seed, bool sort_idiom);
}  // namespace internal

}  // namespace fairdeck::runtimes
