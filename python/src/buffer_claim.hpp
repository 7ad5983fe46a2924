// Claims on the bytes of Python buffers that fairdeck writes without the GIL.
//
// Guarantee: while a buffer_claim on the address range [lo, hi) exists, no other
// buffer_claim on an overlapping range exists in this process. fairdeck.shuffle claims the
// bytes it moves before it releases the GIL, so concurrent shuffles of one buffer (or of
// views that share bytes) run one after the other and each ends with a permutation of what
// the one before left, while shuffles of disjoint buffers run in parallel. Ranges are virtual
// addresses (two mappings of one file are two ranges), and writers other than fairdeck are
// not excluded: a thread that writes an array while fairdeck (or numpy) works on it without
// the GIL races with it, as for any GIL-releasing numpy operation on plain data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

namespace fairdeck::python {

class buffer_claim {
 public:
  // Claims [lo, hi) (lo < hi). Call with the GIL held. When the range is free it is claimed
  // at once; otherwise the GIL is released while waiting, and signals are checked every
  // 50 ms: a raising handler (Ctrl-C) ends the wait with py::error_already_set.
  buffer_claim(std::uintptr_t lo, std::uintptr_t hi);
  buffer_claim(const buffer_claim&) = delete;
  buffer_claim& operator=(const buffer_claim&) = delete;
  ~buffer_claim();

 private:
  std::uintptr_t lo_, hi_;
};

// (claims held, calls waiting for one): for the tests (fairdeck._fairdeck._buffer_claims()).
[[nodiscard]] std::pair<std::size_t, std::size_t> buffer_claim_counts();

// Whether items of a PEP 3118 format hold Python object references ('O', also as a field of
// a record or in a sub-array), which must only be moved with the GIL held. Field names
// (":name:") are skipped; a format it cannot read counts as holding objects.
[[nodiscard]] bool format_holds_objects(const char* format) noexcept;

}  // namespace fairdeck::python
