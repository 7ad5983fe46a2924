// The extension module fairdeck._fairdeck; the package fairdeck (python/fairdeck/) re-exports it.
#include "common.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/stats/deck_reader.hpp"
#include "fairdeck/util/safe_output.hpp"

PYBIND11_MODULE(_fairdeck, m) {
  namespace fp = fairdeck::python;
  m.doc() = "fairdeck: provably fair, unpredictable, fast and auditable card shuffling (C++ core)";
  // Library errors keep their messages: std::invalid_argument (and its card, range, deck-input
  // and provably-fair subclasses) is ValueError, std::out_of_range IndexError, bad_alloc
  // MemoryError (pybind11's defaults); entropy and output failures are OSError.
  pybind11::register_exception<fairdeck::entropy_error>(m, "EntropyError", PyExc_OSError);
  pybind11::register_exception<fairdeck::output_error>(m, "OutputError", PyExc_OSError);
  fp::register_engines(m);
  fp::register_shuffle(m);
  fp::register_audit(m);
  fp::register_poker(m);
  fp::register_fair(m);
}
