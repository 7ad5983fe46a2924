// Fuzzes the clock-to-seed rules of the clock-seeded runtimes (security/clock_seed.hpp): a
// clock reading (Java milliseconds or UTC time, .NET tick count or uptime, a time of day) and a
// window. Each call either returns a window within its contract -- the reading's seed inside
// it, inside the runtime's seed space (or one day), no wider than twice the window -- or
// throws clock_window_error with a message free of raw control bytes. Readings round-trip
// through the text the CLI prints. Never crashes.
//
// Input: byte 0 picks the runtime (java, dotnet-framework, a time of day, a runtime that is not
// clock-seeded), byte 1 the window (byte / 2 seconds; 255: NaN; 254: -1; 253: one day + 1 ms);
// the rest is the reading.
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string_view>

#include "fairdeck/security/clock_seed.hpp"
#include "fairdeck/security/runtime_attack.hpp"

namespace {

void check_message(const std::exception& e) {
  for (const char* p = e.what(); *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7f) std::abort();  // errors are printed on terminals: no raw controls
  }
}

void check_window(fairdeck::seed_range r, std::uint64_t centre, std::uint64_t last, double seconds) {
  const auto w = static_cast<std::uint64_t>(seconds * 1000);
  if (r.first > r.last || r.last > last) std::abort();
  if (centre < r.first || centre > r.last) std::abort();
  if (r.last - r.first > 2 * w) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  using runtimes::runtime_id;
  if (size < 2) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 2), size - 2);
  double seconds = data[1] / 2.0;
  if (data[1] == 255) seconds = std::numeric_limits<double>::quiet_NaN();
  if (data[1] == 254) seconds = -1;
  if (data[1] == 253) seconds = max_clock_window_seconds + 0.001;
  const bool valid_window = seconds >= 0 && seconds <= max_clock_window_seconds;
  try {
    switch (data[0] % 4) {
      case 0:
      case 1: {
        const runtime_id id = data[0] % 4 == 0 ? runtime_id::java : runtime_id::dotnet_framework;
        const seed_range r = clock_seed_window(id, text, seconds);
        if (!valid_window) std::abort();
        const std::uint64_t seed = clock_seed(id, text);
        check_window(r, seed, attack_info(id).last_seed, seconds);
        if (id == runtime_id::java && seed <= 253'402'300'799'999ull && clock_seed(id, utc_time_text(seed)) != seed)
          std::abort();  // up to 9999-12-31T23:59:59.999Z the printed time reads back
        if (id == runtime_id::dotnet_framework && seed > 0x7fffffffu) std::abort();  // |int32|
        break;
      }
      case 2: {
        const seed_range r = time_of_day_seed_window(text, seconds);
        if (!valid_window) std::abort();
        const std::uint64_t ms = parse_time_of_day(text);
        check_window(r, ms, ms_per_day - 1, seconds);
        if (parse_time_of_day(time_of_day_text(ms)) != ms) std::abort();
        break;
      }
      default:
        (void)clock_seed_window(runtime_id::php, text, seconds);
        std::abort();  // PHP's seeds do not come from a clock
    }
  } catch (const clock_window_error& e) {
    check_message(e);
    if (!valid_window && e.problem() != clock_window_problem::window_out_of_range &&
        e.problem() != clock_window_problem::not_clock_seeded)
      std::abort();  // the window is checked before the reading
  }
  return 0;
}
