// Seeds taken from a clock, and the window of them an attacker searches when the clock is
// roughly known: the 1999 refinement of the Planet Poker attack (Arkin, Hill, Marks, Schmid,
// McGraw, "How We Learned to Cheat at Online Poker", 1999: with the server's clock synchronised,
// Randomize's milliseconds since midnight leave a few hundred thousand seeds), applied to the
// runtimes whose idiomatic seeding is a clock (runtime_attack.hpp, time_seeds):
//  - Java: new Random(System.currentTimeMillis()), milliseconds since 1970 (Random keeps the
//    seed mod 2^48, far beyond any clock reading);
//  - .NET Framework: new Random() seeds with Environment.TickCount, the milliseconds since boot
//    as an int32 that wraps after 24.9 days, and Random takes its absolute value
//    (|int.MinValue| becomes int.MaxValue; Mono 6.8, referencesource Random.cs).
//
// The guarantee: the window [first, last] holds every seed the runtime can have derived from a
// clock reading within `window_seconds` of the given time (inclusive, whole milliseconds),
// clipped to the runtime's searchable seeds (0..attack_info(id).last_seed) -- or, for a
// time of day, to one day (the window stops at midnight on either side). Reading a time never
// wraps or truncates: text that is not a time is refused.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/security/attack.hpp"

namespace fairdeck {

// Widest window either side of the given time: one day.
inline constexpr double max_clock_window_seconds = 86'400;

enum class clock_window_problem {
  not_clock_seeded,     // the runtime's seeds do not come from a clock (attack_info(id).time_seeds)
  window_out_of_range,  // window_seconds outside [0, max_clock_window_seconds], or NaN
  unreadable_time,      // the text is not a clock reading of this runtime
};

// Thrown by the functions below; what() names the problem in the value's own terms (the
// front end adds where the value came from), problem() lets it word the problem its own way.
class clock_window_error : public std::invalid_argument {
 public:
  clock_window_error(clock_window_problem problem, const std::string& what)
      : std::invalid_argument(what), problem_(problem) {}
  [[nodiscard]] clock_window_problem problem() const noexcept { return problem_; }

 private:
  clock_window_problem problem_;
};

// The seed a clock-seeded runtime derives from a clock reading. Java: milliseconds since 1970
// as digits (at most 2^48 - 1, the seeds Random tells apart), or "YYYY-MM-DDTHH:MM:SS[.mmm]Z"
// (UTC, year 1970..9999). .NET Framework:
// a TickCount in milliseconds as digits, or an uptime "HH:MM:SS[.mmm]"; the seed is
// |int32(TickCount)|. Throws clock_window_error.
[[nodiscard]] std::uint64_t clock_seed(runtimes::runtime_id runtime, std::string_view time);

// The seeds within window_seconds of clock_seed(runtime, time). Throws clock_window_error.
[[nodiscard]] seed_range clock_seed_window(runtimes::runtime_id runtime, std::string_view time, double window_seconds);

// The same for an engine seeded with the milliseconds since midnight (Delphi's Randomize):
// time is "HH:MM:SS[.mmm]" (parse_time_of_day). Throws clock_window_error.
[[nodiscard]] seed_range time_of_day_seed_window(std::string_view time, double window_seconds);

// Clock readings back as text: "HH:MM:SS.mmm" for milliseconds since midnight (below
// ms_per_day; parse_time_of_day reads it back), "YYYY-MM-DDTHH:MM:SS.mmmZ" for milliseconds
// since 1970 (clock_seed(java, utc_time_text(ms)) == ms up to the year 9999).
[[nodiscard]] std::string time_of_day_text(std::uint64_t ms_since_midnight);
[[nodiscard]] std::string utc_time_text(std::uint64_t ms_since_1970);

}  // namespace fairdeck
