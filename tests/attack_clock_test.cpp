// Clock-seeded runtimes (security/clock_seed.hpp): readings to seeds (Java's
// currentTimeMillis, .NET's wrapping TickCount), windows clipped to the seed space, the
// problems typed, and a real attack: a generator seeded from a clock is recovered by searching
// the window around a reading of that clock.
#include <gtest/gtest.h>

#include <cmath>
#include <initializer_list>
#include <limits>
#include <string>
#include <vector>

#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/clock_seed.hpp"
#include "fairdeck/security/runtime_attack.hpp"

namespace fairdeck {
namespace {

using runtimes::runtime_id;

clock_window_problem problem_of(auto&& f) {
  try {
    f();
  } catch (const clock_window_error& e) {
    return e.problem();
  }
  ADD_FAILURE() << "no clock_window_error";
  return clock_window_problem::unreadable_time;
}

TEST(ClockSeed, JavaReadsMillisecondsAndUtcTimes) {
  EXPECT_EQ(clock_seed(runtime_id::java, "1700000000000"), 1'700'000'000'000u);
  EXPECT_EQ(clock_seed(runtime_id::java, "2023-11-14T22:13:20Z"), 1'700'000'000'000u);
  EXPECT_EQ(clock_seed(runtime_id::java, "2023-11-14T22:13:20.123Z"), 1'700'000'000'123u);
  EXPECT_EQ(clock_seed(runtime_id::java, "1970-01-01T00:00:00Z"), 0u);
  EXPECT_EQ(clock_seed(runtime_id::java, "2024-02-29T00:00:00Z"), 1'709'164'800'000u);  // a leap day
  for (const char* bad : {"", "-1", "2023-02-29T00:00:00Z", "1969-12-31T23:59:59Z", "2023-11-14 22:13:20Z",
                          "2023-11-14T22:13:20", "2023-11-14T24:00:00Z", "2023-11-14T22:13:20.1Z", "1e12",
                          "18446744073709551616", "281474976710656" /* 2^48 */})
    EXPECT_EQ(problem_of([&] { (void)clock_seed(runtime_id::java, bad); }), clock_window_problem::unreadable_time) << bad;
}

TEST(ClockSeed, DotnetTakesTheAbsoluteValueOfTheWrappedTickCount) {
  for (runtime_id id : {runtime_id::dotnet_framework, runtime_id::dotnet_framework_orderby}) {
    EXPECT_EQ(clock_seed(id, "5000"), 5000u);
    EXPECT_EQ(clock_seed(id, "01:00:00.250"), 3'600'250u);     // an uptime
    EXPECT_EQ(clock_seed(id, "2147483647"), 0x7fffffffu);      // int.MaxValue
    EXPECT_EQ(clock_seed(id, "2147483648"), 0x7fffffffu);      // int.MinValue: Random uses int.MaxValue
    EXPECT_EQ(clock_seed(id, "4294967295"), 1u);               // TickCount -1
    EXPECT_EQ(clock_seed(id, "4294967296"), 0u);               // wrapped past 2^32
    EXPECT_EQ(problem_of([&] { (void)clock_seed(id, "25:00:00"); }), clock_window_problem::unreadable_time);
    EXPECT_EQ(problem_of([&] { (void)clock_seed(id, "12ms"); }), clock_window_problem::unreadable_time);
  }
}

TEST(ClockSeed, OnlyClockSeededRuntimesHaveAClockWindow) {
  for (const auto& row : runtimes::runtime_catalog()) {
    const bool clocked = row.id == runtime_id::java || row.id == runtime_id::dotnet_framework ||
                         row.id == runtime_id::dotnet_framework_orderby;
    EXPECT_EQ(attack_info(row.id).time_seeds, clocked) << row.name;
    if (!clocked) {  // refused before the window or the text is looked at
      EXPECT_EQ(problem_of([&] { (void)clock_seed_window(row.id, "x", -1); }), clock_window_problem::not_clock_seeded)
          << row.name;
    }
  }
}

TEST(ClockSeed, WindowsAreCheckedAndClipped) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (double w : {-1.0, nan, max_clock_window_seconds + 0.001, std::numeric_limits<double>::infinity()}) {
    EXPECT_EQ(problem_of([&] { (void)clock_seed_window(runtime_id::java, "1000", w); }),
              clock_window_problem::window_out_of_range);
    EXPECT_EQ(problem_of([&] { (void)time_of_day_seed_window("10:00:00", w); }), clock_window_problem::window_out_of_range);
  }
  // The window is checked before the text (the CLI's order of messages).
  EXPECT_EQ(problem_of([&] { (void)clock_seed_window(runtime_id::java, "x", -1); }), clock_window_problem::window_out_of_range);

  auto window = [](runtime_id id, const char* t, double w) {
    const seed_range r = clock_seed_window(id, t, w);
    return std::pair<unsigned long long, unsigned long long>{r.first, r.last};
  };
  EXPECT_EQ(window(runtime_id::java, "1700000000000", 60), std::pair(1'699'999'940'000ull, 1'700'000'060'000ull));
  EXPECT_EQ(window(runtime_id::java, "1700000000000", 0), std::pair(1'700'000'000'000ull, 1'700'000'000'000ull));
  EXPECT_EQ(window(runtime_id::java, "500", 1), std::pair(0ull, 1500ull));                       // stops at 0
  const std::uint64_t java_last = attack_info(runtime_id::java).last_seed;                      // 2^48 - 1
  using range = std::pair<unsigned long long, unsigned long long>;
  EXPECT_EQ(window(runtime_id::java, std::to_string(java_last).c_str(), 1), range(java_last - 1000, java_last));
  EXPECT_EQ(window(runtime_id::java, "1700000000000", 0.0015), std::pair(1'699'999'999'999ull, 1'700'000'000'001ull));
  EXPECT_EQ(window(runtime_id::dotnet_framework, "2147483000", 1), std::pair(2'147'482'000ull, 2'147'483'647ull));
  EXPECT_EQ(window(runtime_id::dotnet_framework, "4294967295", 2), std::pair(0ull, 2001ull));  // |-1| = 1

  const seed_range day = time_of_day_seed_window("23:59:59.500", 1);
  EXPECT_EQ(day.first, ms_per_day - 1500);
  EXPECT_EQ(day.last, ms_per_day - 1);  // stops at midnight
  const seed_range morning = time_of_day_seed_window("00:00:00.200", 1);
  EXPECT_EQ(morning.first, 0u);
  EXPECT_EQ(morning.last, 1200u);
  EXPECT_EQ(problem_of([&] { (void)time_of_day_seed_window("10:00", 1); }), clock_window_problem::unreadable_time);
}

TEST(ClockSeed, TextRoundTrips) {
  for (std::uint64_t ms : std::initializer_list<std::uint64_t>{0, 1, 999, 1'700'000'000'123, 253'402'300'799'999 /* 9999-12-31T23:59:59.999 */})
    EXPECT_EQ(clock_seed(runtime_id::java, utc_time_text(ms)), ms) << utc_time_text(ms);
  EXPECT_EQ(utc_time_text(1'700'000'000'123ull), "2023-11-14T22:13:20.123Z");
  for (std::uint64_t ms : std::initializer_list<std::uint64_t>{0, 1, 45'296'789, ms_per_day - 1})
    EXPECT_EQ(parse_time_of_day(time_of_day_text(ms)), ms) << time_of_day_text(ms);
  EXPECT_EQ(time_of_day_text(45'296'789), "12:34:56.789");
}

// The attack: a game creates new Random(System.currentTimeMillis()) (Java) or new Random()
// (.NET, TickCount) and deals; the attacker knows the clock to within a second and sees five
// cards. The window around the reading holds the seed, and the search finds exactly it.
void expect_recovered_from_clock(runtime_id id, std::uint64_t seed, const std::string& reading, double window_seconds) {
  const seed_range range = clock_seed_window(id, reading, window_seconds);
  ASSERT_LE(range.first, seed);
  ASSERT_GE(range.last, seed);
  attack_spec spec;
  spec.runtime = id;
  spec.first_seed = range.first;
  spec.last_seed = range.last;
  const auto deck = runtime_deck(id, seed, 52);
  for (std::size_t p = 0; p < 5; ++p) spec.known.push_back({p, deck[p]});
  spec.threads = 2;
  const attack_result r = run_attack(spec);
  EXPECT_TRUE(r.complete);
  EXPECT_EQ(r.seeds, std::vector<std::uint64_t>{seed});
  EXPECT_TRUE(judge(spec, r).confident) << judge(spec, r).advice;
}

TEST(ClockSeed, ARuntimeSeededFromTheClockIsRecoveredFromTheWindow) {
  // Seeded at 22:13:20.734 UTC; the attacker's reading is 22:13:20 (0.734 s off).
  expect_recovered_from_clock(runtime_id::java, 1'700'000'000'734ull, "2023-11-14T22:13:20Z", 1);
  // .NET 30 days after boot: TickCount wrapped to a negative int32; Random took |TickCount|.
  const std::uint64_t ticks = 30ull * ms_per_day;  // 2'592'000'000 > int.MaxValue
  const auto seed = static_cast<std::uint64_t>(-static_cast<std::int64_t>(static_cast<std::int32_t>(static_cast<std::uint32_t>(ticks))));
  expect_recovered_from_clock(runtime_id::dotnet_framework, seed, std::to_string(ticks + 400), 1);
  expect_recovered_from_clock(runtime_id::dotnet_framework_orderby, 3'600'250, "01:00:00", 1);
}

}  // namespace
}  // namespace fairdeck
