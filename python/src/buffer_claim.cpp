// buffer_claim: one process-wide table of claimed address ranges.
#include "buffer_claim.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <vector>

#include "common.hpp"

namespace fairdeck::python {
namespace {

struct claim_table {
  std::mutex mu;
  std::condition_variable freed;
  std::vector<std::pair<std::uintptr_t, std::uintptr_t>> held;  // few: one per running call
  std::size_t waiting = 0;

  [[nodiscard]] bool free(std::uintptr_t lo, std::uintptr_t hi) const {
    return std::none_of(held.begin(), held.end(), [&](const auto& r) { return r.first < hi && lo < r.second; });
  }
};

claim_table& table() {
  static claim_table* t = new claim_table;  // never destroyed: claims may end during interpreter exit
  return *t;
}

}  // namespace

buffer_claim::buffer_claim(std::uintptr_t lo, std::uintptr_t hi) : lo_(lo), hi_(hi) {
  claim_table& t = table();
  {
    const std::lock_guard lock(t.mu);
    if (t.free(lo, hi)) {
      t.held.emplace_back(lo, hi);
      return;
    }
    ++t.waiting;
  }
  bool claimed = false;
  {
    const py::gil_scoped_release nogil;  // the holder may need the GIL to finish
    for (;;) {
      {
        std::unique_lock lock(t.mu);
        if (t.freed.wait_for(lock, std::chrono::milliseconds(50), [&] { return t.free(lo, hi); })) {
          t.held.emplace_back(lo, hi);
          --t.waiting;
          claimed = true;
          break;
        }
      }
      const py::gil_scoped_acquire gil;
      if (PyErr_CheckSignals() != 0) {
        const std::lock_guard lock(t.mu);
        --t.waiting;
        break;
      }
    }
  }
  if (!claimed) throw py::error_already_set();  // with the GIL: the handler's exception
}

buffer_claim::~buffer_claim() {
  claim_table& t = table();
  {
    const std::lock_guard lock(t.mu);
    const auto it = std::find(t.held.begin(), t.held.end(), std::pair{lo_, hi_});
    if (it != t.held.end()) t.held.erase(it);
  }
  t.freed.notify_all();
}

std::pair<std::size_t, std::size_t> buffer_claim_counts() {
  claim_table& t = table();
  const std::lock_guard lock(t.mu);
  return {t.held.size(), t.waiting};
}

bool format_holds_objects(const char* format) noexcept {
  if (format == nullptr) return false;  // "B"
  for (const char* p = format; *p != '\0'; ++p) {
    if (*p == 'O') return true;
    if (*p == ':') {  // a field name, up to the next ':'
      while (*++p != ':')
        if (*p == '\0') return true;  // unreadable: assume the worst
    }
  }
  return false;
}

}  // namespace fairdeck::python
