// Clock-seeded runtimes: readings, seeds and windows (clock_seed.hpp).
#include "fairdeck/security/clock_seed.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <limits>

#include <fmt/format.h>

#include "fairdeck/security/runtime_attack.hpp"
#include "fairdeck/util/printable.hpp"

namespace fairdeck {
namespace {

using runtimes::runtime_id;

[[noreturn]] void unreadable(std::string message) {
  throw clock_window_error(clock_window_problem::unreadable_time, message);
}

// "YYYY-MM-DDTHH:MM:SS[.mmm]Z" -> milliseconds since 1970.
std::uint64_t parse_utc(std::string_view text) {
  const auto bad = [&] {
    unreadable(fmt::format("'{}' is not milliseconds since 1970 or YYYY-MM-DDTHH:MM:SS[.mmm]Z (UTC)", printable(text)));
  };
  if ((text.size() != 20 && text.size() != 24) || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text.back() != 'Z')
    bad();
  const auto num = [&](std::size_t at, std::size_t n) {
    unsigned x = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') bad();
      x = x * 10 + static_cast<unsigned>(text[i] - '0');
    }
    return x;
  };
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(num(0, 4))), std::chrono::month(num(5, 2)),
                                        std::chrono::day(num(8, 2))};
  if (!ymd.ok() || ymd.year() < std::chrono::year(1970)) bad();
  std::uint64_t ms = 0;
  try {
    ms = parse_time_of_day(text.substr(11, text.size() - 12));
  } catch (const std::invalid_argument&) {
    bad();
  }
  const auto days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return static_cast<std::uint64_t>(days) * ms_per_day + ms;
}

// new Random() in .NET Framework: Environment.TickCount is an int32 that wraps; Random uses
// its absolute value, and int.MinValue as int.MaxValue.
std::uint64_t tick_count_seed(std::uint64_t ticks) {
  const auto tick = static_cast<std::int32_t>(static_cast<std::uint32_t>(ticks));
  if (tick >= 0) return static_cast<std::uint64_t>(tick);
  return tick == std::numeric_limits<std::int32_t>::min() ? 0x7fffffffu
                                                          : static_cast<std::uint64_t>(-static_cast<std::int64_t>(tick));
}

std::uint64_t window_ms(double window_seconds) {
  if (!(window_seconds >= 0) || window_seconds > max_clock_window_seconds)
    throw clock_window_error(clock_window_problem::window_out_of_range,
                             fmt::format("a clock window must be between 0 and {} seconds, not {}",
                                         max_clock_window_seconds, window_seconds));
  return static_cast<std::uint64_t>(window_seconds * 1000);
}

const runtime_attack_info& clock_seeded(runtime_id runtime) {
  const runtime_attack_info& a = attack_info(runtime);
  if (!a.time_seeds)
    throw clock_window_error(clock_window_problem::not_clock_seeded,
                             fmt::format("{} seeds do not come from a clock: they are {}", runtimes::info(runtime).name, a.seeds));
  return a;
}

seed_range around(std::uint64_t t, std::uint64_t w, std::uint64_t last) {
  return {t > w ? t - w : 0, std::min(t + w, last)};
}

}  // namespace

std::uint64_t clock_seed(runtime_id runtime, std::string_view time) {
  (void)clock_seeded(runtime);
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(time.data(), time.data() + time.size(), v);
  const bool digits = !time.empty() && ec == std::errc{} && p == time.data() + time.size();
  if (runtime == runtime_id::java) {
    if (!digits) return parse_utc(time);
    if (v > attack_info(runtime).last_seed)  // the year 10889: Random would keep only 48 bits of it
      unreadable(fmt::format("'{}' is past 2^48 - 1 milliseconds since 1970, the last clock reading java's seeds tell apart",
                             printable(time)));
    return v;
  }
  if (!digits) {
    try {
      v = parse_time_of_day(time);
    } catch (const std::invalid_argument&) {
      unreadable(fmt::format("'{}' is not a tick count in milliseconds or an uptime HH:MM:SS[.mmm]", printable(time)));
    }
  }
  return tick_count_seed(v);
}

seed_range clock_seed_window(runtime_id runtime, std::string_view time, double window_seconds) {
  const runtime_attack_info& a = clock_seeded(runtime);
  const std::uint64_t w = window_ms(window_seconds);
  return around(clock_seed(runtime, time), w, a.last_seed);
}

seed_range time_of_day_seed_window(std::string_view time, double window_seconds) {
  const std::uint64_t w = window_ms(window_seconds);
  std::uint64_t t = 0;
  try {
    t = parse_time_of_day(time);
  } catch (const std::invalid_argument& e) {
    unreadable(e.what());
  }
  return around(t, w, ms_per_day - 1);
}

std::string time_of_day_text(std::uint64_t ms) {
  return fmt::format("{:02}:{:02}:{:02}.{:03}", ms / 3'600'000, ms / 60'000 % 60, ms / 1000 % 60, ms % 1000);
}

std::string utc_time_text(std::uint64_t ms) {
  const std::chrono::sys_days day{std::chrono::days(static_cast<long>(ms / ms_per_day))};
  const std::chrono::year_month_day ymd{day};
  const std::uint64_t t = ms % ms_per_day;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), t / 3'600'000,
                     t / 60'000 % 60, t / 1000 % 60, t % 1000);
}

}  // namespace fairdeck
