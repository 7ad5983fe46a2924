// Work sharing for the poker module: forwards to the library's one parallel runner
// (fairdeck/util/parallel.hpp), so results (integer sums) never depend on the number of
// threads or their timing, and poker follows the same thread, stop and exception rules.
#pragma once

#include <cstdint>
#include <utility>

#include "fairdeck/util/parallel.hpp"

namespace fairdeck::poker::internal {

[[nodiscard]] inline unsigned resolve_threads(unsigned requested) { return fairdeck::resolve_threads(requested); }

// Runs work(item, worker) for every item in [0, n) on `threads` workers (worker in
// [0, threads)); the first exception is rethrown after all workers stop.
template <class Work>
void parallel_items(std::uint64_t n, unsigned threads, Work&& work) {
  fairdeck::parallel_for(n, threads ? threads : 1u, run_control{}, std::forward<Work>(work));
}

}  // namespace fairdeck::poker::internal
