// Shared pieces of the Python bindings (fairdeck._fairdeck): the Engine object, running long
// library calls without the GIL so that Ctrl-C stops them, and card-array conversions.
// The bindings are thin: every number comes from include/fairdeck/.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/util/run_control.hpp"

namespace fairdeck::python {

namespace py = pybind11;

// A Python-side engine: an engine_spec plus a call counter. Library algorithms are driven by
// counter-based streams of a spec, so every call would otherwise repeat the same randomness;
// instead call c (0 first) uses spec_for_call(c): call 0 is the spec itself (the CLI's
// stream for the same --engine/--seed), later calls a seed (or key) derived from (seed, c).
// The secure engine has no state to derive: every call is freshly keyed from the OS.
class engine_handle {
 public:
  explicit engine_handle(engine_spec spec) : spec_(std::move(spec)) {}
  engine_handle(const engine_handle&) = default;
  engine_handle& operator=(const engine_handle&) = default;
  ~engine_handle();

  // The spec for the next call, and counts the call.
  [[nodiscard]] engine_spec next();
  [[nodiscard]] engine_spec spec_for_call(std::uint64_t call) const;
  [[nodiscard]] const engine_spec& spec() const noexcept { return spec_; }
  [[nodiscard]] std::uint64_t calls() const noexcept { return calls_; }
  void set_calls(std::uint64_t c) noexcept { calls_ = c; }

 private:
  engine_spec spec_;
  std::uint64_t calls_ = 0;
};

// The spec for one call with an optional Python engine (None: a fresh secure engine).
[[nodiscard]] engine_spec next_spec(const py::object& engine);

// threads=None -> 0 (one per hardware thread); otherwise 1..256 (the CLI's --threads rule,
// but 0 is spelled None here). Throws std::invalid_argument.
[[nodiscard]] unsigned thread_count(const std::optional<long long>& threads);

// Runs f(control) without the GIL on a worker thread while the calling thread checks for
// signals every 50 ms. On Ctrl-C (or any signal handler raising) the stop flag is raised,
// the worker finishes its current chunk, and the Python exception propagates; a C++
// exception from f propagates as itself. Call with the GIL held.
template <class F>
auto interruptible(F&& f) {
  using R = std::invoke_result_t<F&, const run_control&>;
  std::atomic<bool> stop{false};
  run_control control;
  control.stop = &stop;
  std::conditional_t<std::is_void_v<R>, bool, std::optional<R>> result{};
  std::exception_ptr error;
  bool interrupted = false;
  {
    std::mutex mu;
    std::condition_variable cv;
    bool done = false;
    py::gil_scoped_release nogil;
    std::thread worker([&] {
      try {
        if constexpr (std::is_void_v<R>) {
          f(control);
        } else {
          result.emplace(f(control));
        }
      } catch (...) {
        error = std::current_exception();
      }
      const std::lock_guard lock(mu);
      done = true;
      cv.notify_all();
    });
    for (;;) {
      std::unique_lock lock(mu);
      if (cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; })) break;
      lock.unlock();
      if (interrupted) continue;
      const py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {  // the handler's exception (KeyboardInterrupt) is now set
        interrupted = true;
        stop.store(true);
      }
    }
    worker.join();
  }
  if (interrupted) throw py::error_already_set();
  if (error) std::rethrow_exception(error);
  if constexpr (!std::is_void_v<R>) return std::move(*result);
}

// Card indices from Python: a string of card names ("Ah Kd", "AhKd"), a sequence of names
// or integers, or an integer array. Throws std::invalid_argument naming the bad card.
[[nodiscard]] std::vector<card_t> cards_from_python(const py::handle& obj, const deck_spec& spec = {});

// A 1-D numpy array owning a copy of `v`.
template <class T>
py::array_t<T> to_numpy(const std::vector<T>& v) {
  py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
  std::copy(v.begin(), v.end(), a.mutable_data());
  return a;
}

[[nodiscard]] py::list card_names(std::span<const card_t> cards, const deck_spec& spec, bool unicode = false);

// Hold'em from the top of `deck` as the CLI's JSON spells it: seats, burns, flop, turn, river.
[[nodiscard]] py::dict holdem_names(std::span<const card_t> deck, unsigned players, const deck_spec& spec);

// Registration of each topic's bindings (one file each).
void register_engines(py::module_& m);
void register_shuffle(py::module_& m);
void register_audit(py::module_& m);
void register_poker(py::module_& m);
void register_fair(py::module_& m);

}  // namespace fairdeck::python
