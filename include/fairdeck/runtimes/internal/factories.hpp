// Machinery: the interface every runtime emulation implements. Each src/runtimes/<runtime>.cpp
// defines a factory `impl_ptr make_<runtime>(std::uint64_t seed, ...)`, declared and wired to
// its row in src/runtimes/catalog.cpp.
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
}  // namespace internal

}  // namespace fairdeck::runtimes
