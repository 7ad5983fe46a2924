// fairdeck bench: fairdeck's shuffles against std::shuffle / std::uniform_int_distribution
// with std::mt19937_64, measured in the same run, round-robin (so a noisy machine slows
// baseline and candidates alike), medians of repetitions, printed as ratios. The Google
// Benchmark suites in bench/ cover the library in more depth. Docs: docs/cli-bench.md.
#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <new>
#include <stdexcept>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <time.h>

#include "command.hpp"
#include "fairdeck/shuffle/fisher_yates.hpp"
#include "fairdeck/shuffle/huge.hpp"
#include "fairdeck/shuffle/partial_shuffle.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_bench {
namespace {

struct bench_options {
  bool json = false;
  bool quick = false;
  unsigned repetitions = 0;     // 0: 7 (quick: 3)
  std::uint64_t huge_size = 0;  // 0: 10^8 (quick: 10^7)
  std::string huge_type = "uint32";
  unsigned threads = 2;
  bool no_huge = false;
};

// Keeps the optimiser from dropping work whose result is only in memory.
inline void escape(const void* p) { __asm__ __volatile__("" : : "r"(p) : "memory"); }

using bench_clock = std::chrono::steady_clock;

struct bench_row {
  std::string name;
  std::string engine;
  std::function<void(std::uint64_t)> run;  // performs n operations
  std::optional<double> goal;              // required speed-up over the section baseline
  std::vector<double> samples{};           // ns per operation, one per repetition
  std::uint64_t iters = 1;
  [[nodiscard]] double median() const {
    auto s = samples;
    std::sort(s.begin(), s.end());
    const std::size_t m = s.size() / 2;
    return s.size() % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
  }
};

struct bench_section {
  std::string id, title;
  std::vector<bench_row> rows;  // rows[0] is the baseline
  bool calibrate = true;        // false: one operation per sample (huge shuffles)
};

// The calling thread's CPU time: what a one-thread row costs, without the time it spent
// preempted on a busy machine (a 20 ms sample under load 10 is otherwise mostly waiting).
double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

// One-thread rows (cpu = true) in thread CPU time; the multi-threaded huge rows in wall time.
double time_ns(const std::function<void(std::uint64_t)>& run, std::uint64_t iters, bool cpu = false) {
  if (cpu) {
    const double c0 = thread_cpu_ns();
    run(iters);
    return thread_cpu_ns() - c0;
  }
  const auto t0 = bench_clock::now();
  run(iters);
  return std::chrono::duration<double, std::nano>(bench_clock::now() - t0).count();
}

// Enough operations per sample for `target_ns` of work.
std::uint64_t calibrate(const std::function<void(std::uint64_t)>& run, double target_ns) {
  std::uint64_t iters = 1;
  for (;;) {
    const double t = time_ns(run, iters, true);
    if (t >= target_ns / 8 || iters >= (std::uint64_t{1} << 32))
      return std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(iters) * target_ns / std::max(t, 1.0)));
    iters *= 8;
  }
}

using deck52 = std::array<std::uint16_t, 52>;

std::shared_ptr<deck52> new_deck() {
  auto d = std::make_shared<deck52>();
  std::iota(d->begin(), d->end(), std::uint16_t{0});
  return d;
}

engine_spec bench_spec(engine_id id) {
  engine_spec s;
  s.id = id;
  s.seed = 20240601;
  return s;
}

// Runs f(engine) with a long-lived engine of kind `id` (stream 0).
template <class F>
std::function<void(std::uint64_t)> with_engine(engine_id id, F f) {
  return visit_engine(bench_spec(id), 0, [&](auto& e) -> std::function<void(std::uint64_t)> {
    using E = std::remove_reference_t<decltype(e)>;
    auto owned = std::make_shared<E>(std::move(e));
    return [owned, f](std::uint64_t n) { f(*owned, n); };
  });
}

bench_section shuffle52_section() {
  bench_section s{"shuffle52", "52-card shuffle (Fisher-Yates)", {}};
  auto deck = new_deck();
  auto mt = std::make_shared<std::mt19937_64>(20240601);
  s.rows.push_back({"std::shuffle + std::mt19937_64", "std::mt19937_64", [deck, mt](std::uint64_t n) {
                      for (std::uint64_t i = 0; i < n; ++i) {
                        std::shuffle(deck->begin(), deck->end(), *mt);
                        escape(deck->data());
                      }
                    }, std::nullopt});
  for (engine_id id : {engine_id::xoshiro256pp, engine_id::pcg64, engine_id::secure, engine_id::chacha20, engine_id::mt19937_64}) {
    const bool fast = id == engine_id::xoshiro256pp || id == engine_id::pcg64;
    std::optional<double> goal;
    if (fast) goal = 1.5;
    if (id == engine_id::secure) goal = 1.0;
    s.rows.push_back({"fairdeck::fisher_yates", std::string(info(id).name), with_engine(id, [deck](auto& e, std::uint64_t n) {
                        for (std::uint64_t i = 0; i < n; ++i) {
                          fisher_yates(*deck, e);
                          escape(deck->data());
                        }
                      }), goal});
  }
  return s;
}

bench_section deal7_section() {
  bench_section s{"deal7of52", "deal 7 of 52 (partial shuffle)", {}};
  auto deck = new_deck();
  auto mt = std::make_shared<std::mt19937_64>(20240601);
  s.rows.push_back({"7 x std::uniform_int_distribution + std::mt19937_64", "std::mt19937_64", [deck, mt](std::uint64_t n) {
                      for (std::uint64_t k = 0; k < n; ++k) {
                        for (std::size_t i = 0; i < 7; ++i) {
                          std::uniform_int_distribution<std::size_t> d(i, deck->size() - 1);
                          std::swap((*deck)[i], (*deck)[d(*mt)]);
                        }
                        escape(deck->data());
                      }
                    }, std::nullopt});
  for (engine_id id : {engine_id::xoshiro256pp, engine_id::pcg64, engine_id::secure}) {
    std::optional<double> goal;
    if (id != engine_id::secure) goal = 3.5;
    s.rows.push_back({"fairdeck::partial_shuffle", std::string(info(id).name), with_engine(id, [deck](auto& e, std::uint64_t n) {
                        for (std::uint64_t i = 0; i < n; ++i) {
                          partial_shuffle(*deck, 7, e);
                          escape(deck->data());
                        }
                      }), goal});
  }
  return s;
}

template <class T>
bench_section huge_section(std::uint64_t n, unsigned threads, std::string_view type_name) {
  bench_section s{"huge", fmt::format("huge array: {} x {}", n, type_name), {}, false};
  std::shared_ptr<std::vector<T>> data;
  try {
    data = std::make_shared<std::vector<T>>(n);
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format("cannot allocate {} bytes for the huge array", n * sizeof(T)));
  }
  std::iota(data->begin(), data->end(), T{0});
  auto mt = std::make_shared<std::mt19937_64>(20240601);
  s.rows.push_back({"std::shuffle + std::mt19937_64", "std::mt19937_64", [data, mt](std::uint64_t) {
                      std::shuffle(data->begin(), data->end(), *mt);
                      escape(data->data());
                    }, std::nullopt});
  auto seed = std::make_shared<std::uint64_t>(0);
  // One whole shuffle of the array per operation; seeded engines get a new seed each time.
  auto row = [&](std::string name, engine_id id, unsigned t, bool permutation, std::optional<double> goal) {
    s.rows.push_back({fmt::format("{}, {} thread{}", name, t, t == 1 ? "" : "s"), std::string(info(id).name),
                      [data, seed, id, t, permutation](std::uint64_t) {
                        huge_shuffle_options opt;
                        opt.threads = t;
                        engine_spec spec = bench_spec(id);
                        if (spec.reproducible()) spec.seed = ++*seed;
                        if (permutation)
                          random_permutation(std::span(*data), spec, opt);
                        else
                          huge_shuffle(std::span(*data), spec, opt);
                        escape(data->data());
                      }, goal});
  };
  row("fairdeck::huge_shuffle", engine_id::xoshiro256pp, 1, false, 4.0);
  if (threads > 1) row("fairdeck::huge_shuffle", engine_id::xoshiro256pp, threads, false, 6.0);
  row("fairdeck::random_permutation (fill 0..n-1 + shuffle)", engine_id::xoshiro256pp, threads, true, std::nullopt);
  row("fairdeck::huge_shuffle", engine_id::secure, threads, false, std::nullopt);
  return s;
}

bench_section engines_section() {
  bench_section s{"engines", "raw engine output (64-bit words)", {}};
  auto sink = std::make_shared<std::uint64_t>(0);
  auto mt = std::make_shared<std::mt19937_64>(20240601);
  s.rows.push_back({"std::mt19937_64", "std::mt19937_64", [mt, sink](std::uint64_t n) {
                      std::uint64_t acc = 0;
                      for (std::uint64_t i = 0; i < n; ++i) acc += (*mt)();
                      *sink += acc;
                      escape(sink.get());
                    }, std::nullopt});
  for (const auto& inf : engine_catalog())
    s.rows.push_back({std::string(inf.name), std::string(inf.name), with_engine(inf.id, [sink](auto& e, std::uint64_t n) {
                        std::uint64_t acc = 0;
                        for (std::uint64_t i = 0; i < n; ++i) acc += e();
                        *sink += acc;
                        escape(sink.get());
                      }), std::nullopt});
  return s;
}

std::string compiler_name() {
#if defined(__clang__)
  return fmt::format("clang++ {}.{}.{}", __clang_major__, __clang_minor__, __clang_patchlevel__);
#elif defined(__GNUC__)
  return fmt::format("g++ {}.{}.{}", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#else
  return "unknown";
#endif
}

int run_bench(const bench_options& o) {
  const unsigned reps = o.repetitions ? o.repetitions : (o.quick ? 3 : 7);
  const std::uint64_t huge_n = o.huge_size ? o.huge_size : (o.quick ? 10'000'000 : 100'000'000);
  const double target_ns = o.quick ? 3e6 : 2e7;  // per sample of the small cases
  if (o.huge_size && o.no_huge) throw usage_error("--huge-size and --no-huge contradict each other");
  const unsigned threads = resolve_threads(o.threads);

  std::vector<bench_section> sections;
  sections.push_back(shuffle52_section());
  sections.push_back(deal7_section());
  sections.push_back(engines_section());
  if (!o.no_huge)
    sections.push_back(o.huge_type == "uint64" ? huge_section<std::uint64_t>(huge_n, threads, o.huge_type)
                                               : huge_section<std::uint32_t>(huge_n, threads, o.huge_type));

  progress_bar bar("benchmarking");
  const run_control rc = bar.control();
  std::uint64_t total = 0, done = 0;
  for (const auto& s : sections) total += s.rows.size() * reps;
  for (auto& s : sections) {
    if (s.calibrate)
      for (auto& r : s.rows) r.iters = calibrate(r.run, target_ns);
    else
      for (auto& r : s.rows) r.run(1);  // warm-up: page faults, caches
    for (unsigned rep = 0; rep < reps; ++rep)
      for (auto& r : s.rows) {  // round-robin: noise hits baseline and candidates alike
        if (rc.stopped()) {  // like every interrupted command: 130 (docs/cli-bench.md)
          fmt::print(stderr, "fairdeck: interrupted; no results\n");
          return 130;
        }
        r.samples.push_back(time_ns(r.run, r.iters, s.calibrate) / static_cast<double>(r.iters));
        rc.progress(++done, total);
      }
  }

  bool all_met = true;
  nlohmann::json jsections = nlohmann::json::array();
  for (const auto& s : sections) {
    const double base = s.rows[0].median();
    nlohmann::json jrows = nlohmann::json::array();
    for (std::size_t i = 0; i < s.rows.size(); ++i) {
      const auto& r = s.rows[i];
      const double med = r.median();
      const double ratio = base / med;
      // Round k timed the baseline and this row back to back: its ratio is one sample of the
      // speed-up, and the spread over rounds is the run's noise.
      std::vector<double> rounds(r.samples.size());
      for (std::size_t k = 0; k < rounds.size(); ++k) rounds[k] = s.rows[0].samples[k] / r.samples[k];
      const auto [lo, hi] = std::minmax_element(rounds.begin(), rounds.end());
      nlohmann::json jr = {{"name", r.name},      {"engine", r.engine}, {"baseline", i == 0},  {"ns_per_op", med},
                           {"ratio", ratio},      {"ratio_min", *lo},   {"ratio_max", *hi},    {"round_ratios", rounds},
                           {"samples_ns", r.samples}};
      if (s.id == "engines") jr["gb_per_s"] = 8.0 / med;
      if (r.goal) {
        // Met only when every round clears the goal, not met only when none does; a spread
        // that straddles the goal is noise, not a verdict.
        const std::string_view verdict = *lo >= *r.goal ? "met" : *hi < *r.goal ? "NOT MET" : "unclear";
        jr["goal"] = *r.goal;
        jr["goal_verdict"] = verdict;
        jr["meets_goal"] = verdict == "met";
        all_met = all_met && verdict == "met";
      }
      jrows.push_back(jr);
    }
    jsections.push_back({{"id", s.id},
                         {"title", s.title},
                         {"baseline", s.rows[0].name},
                         {"clock", s.calibrate ? "thread_cpu" : "wall"},
                         {"rows", jrows}});
  }

  if (o.json) {
    print_json({{"compiler", compiler_name()},
                {"threads_available", std::thread::hardware_concurrency()},
                {"quick", o.quick},
                {"repetitions", reps},
                {"huge_size", o.no_huge ? nlohmann::json(nullptr) : nlohmann::json(huge_n)},
                {"huge_type", o.huge_type},
                {"statistic", "median"},
                {"sections", jsections},
                {"all_goals_met", all_met}});
    return 0;
  }
  fmt::print(
      "fairdeck bench: {}, {} hardware threads, medians of {} repetitions (ratio = baseline time / row time; "
      "in brackets the lowest and highest ratio of one round)\n"
      "clock: thread CPU time for the one-thread sections, wall time for the huge-array section\n",
      compiler_name(), std::thread::hardware_concurrency(), reps);
  if (!o.no_huge)
    fmt::print("memory: the huge array takes {} MB, most of this run's peak (--huge-size or --no-huge for less)\n",
               huge_n * (o.huge_type == "uint64" ? 8 : 4) / 1'000'000);
  for (const auto& js : jsections) {
    fmt::print("\n{}\n", js["title"].get<std::string>());
    for (const auto& r : js["rows"]) {
      const std::string label = r["baseline"].get<bool>() ? r["name"].get<std::string>() + " (baseline)"
                                                         : fmt::format("{} [{}]", r["name"].get<std::string>(), r["engine"].get<std::string>());
      const double ns = r["ns_per_op"].get<double>();
      std::string value = ns >= 1e6 ? fmt::format("{:10.1f} ms", ns / 1e6) : fmt::format("{:10.2f} ns", ns);
      std::string extra;
      if (js["id"] == "engines") extra = fmt::format("  {:6.2f} GB/s", r["gb_per_s"].get<double>());
      if (r.contains("goal"))
        extra += fmt::format("  goal >= {:.1f}x: {}", r["goal"].get<double>(), r["goal_verdict"].get<std::string>());
      const std::string spread = r["baseline"].get<bool>() ? std::string(15, ' ')
                                                           : fmt::format(" ({:5.2f}-{:5.2f})", r["ratio_min"].get<double>(),
                                                                         r["ratio_max"].get<double>());
      fmt::print("  {:<72} {}  {:6.2f}x{}{}\n", label, value, r["ratio"].get<double>(), spread, extra);
    }
  }
  fmt::print("\n{}\n", all_met ? "all goals met in every round"
                               : "some goals not met in every round ('unclear': the rounds' ratios straddle the goal; "
                                 "a busy machine slows everything: rerun when it is quiet)");
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<bench_options>();
  auto* cmd = app.add_subcommand("bench", "Measure fairdeck against std::shuffle + std::mt19937_64 (ratios, medians)");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-bench.md)");
  cmd->add_flag("--quick", o->quick, "A few seconds: fewer repetitions, 10^7-element huge array");
  cmd->add_option("--repetitions", o->repetitions, "Samples per row (default 7, --quick 3)")->check(CLI::Range(1u, 1000u));
  cmd->add_option("--huge-size", o->huge_size, "Elements in the huge-array rows (default 10^8, --quick 10^7)")
      ->check(CLI::Range(std::uint64_t{2}, std::uint64_t{4'000'000'000}));
  cmd->add_option("--huge-type", o->huge_type, "Element type of the huge array: uint32 (default) or uint64")
      ->check(CLI::IsMember({"uint32", "uint64"}));
  add_threads_option(*cmd, o->threads, "Threads for the multi-threaded huge rows (0: one per hardware thread)");
  cmd->add_flag("--no-huge", o->no_huge, "Skip the huge-array rows");
  cmd->callback([o, &exit_code] { exit_code = run_bench(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_bench

FAIRDECK_REGISTER_COMMAND(95, fairdeck::cli::cmd_bench::setup)
