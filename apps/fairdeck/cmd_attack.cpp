// fairdeck attack: recover a whole deck from a few known cards by replaying every seed of
// a weak generator (default: the 1999 Planet Poker setup; docs/attack.md).
#include <charconv>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/negative_seeds.hpp"
#include "fairdeck/security/runtime_attack.hpp"
#include "fairdeck/util/printable.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli {
namespace {

struct attack_options {
  std::string engine = "delphi";
  CLI::Option* engine_opt = nullptr;
  std::string algorithm = "asf1999";
  std::string seeds = "day";
  std::string around;
  double window = 60;
  CLI::Option* seeds_opt = nullptr;
  std::string known;
  unsigned players = 0;
  unsigned seat = 0;
  std::string hole, flop, turn, river;
  unsigned threads = 0;
  std::size_t limit = 100;
  bool json = false;
  bool unicode = false;
  CLI::Option* players_opt = nullptr;
  CLI::Option* seat_opt = nullptr;
};

std::vector<card_t> parse_list(const std::string& text, const char* what, std::size_t want) {
  const std::vector<card_t> cards = labelled(what, [&] { return parse_cards(text); });
  if (cards.size() != want) throw usage_error(fmt::format("{} needs {} card(s), got {}", what, want, cards.size()));
  return cards;
}

std::vector<known_card> collect_known(const attack_options& o) {
  std::vector<known_card> known = labelled("--known", [&] { return parse_known_cards(o.known); });
  if (o.players_opt->count() && (o.players < holdem_min_players || o.players > holdem_max_players))
    throw usage_error(fmt::format("--players must be in [{}, {}], got {}", holdem_min_players, holdem_max_players, o.players));
  const bool holdem = !o.hole.empty() || !o.flop.empty() || !o.turn.empty() || !o.river.empty();
  if (holdem) {
    if (!o.players_opt->count()) throw usage_error("--hole/--flop/--turn/--river need --players P");
    const holdem_layout at{o.players};
    if (!o.hole.empty()) {
      const auto h = parse_list(o.hole, "--hole", 2);
      if (!o.seat_opt->count()) throw usage_error("--hole needs --seat S (1..P, as 'deal holdem' numbers seats)");
      if (o.seat < 1 || o.seat > o.players)
        throw usage_error(fmt::format("--seat {} does not exist at a {}-player table (seats 1..{})", o.seat, o.players,
                                      o.players));
      known.push_back({at.hole(o.seat - 1, 0), h[0]});
      known.push_back({at.hole(o.seat - 1, 1), h[1]});
    }
    if (!o.flop.empty()) {
      const auto f = parse_list(o.flop, "--flop", 3);
      for (unsigned i = 0; i < 3; ++i) known.push_back({at.flop(i), f[i]});
    }
    if (!o.turn.empty()) known.push_back({at.turn(), parse_list(o.turn, "--turn", 1)[0]});
    if (!o.river.empty()) known.push_back({at.river(), parse_list(o.river, "--river", 1)[0]});
  } else if (o.seat_opt->count()) {
    throw usage_error("--seat needs --hole");
  }
  if (known.empty()) throw usage_error("give at least one known card (--known POS=CARD or --hole)");
  return known;
}

std::string time_of_day(std::uint64_t ms) {
  return fmt::format("{:02}:{:02}:{:02}.{:03}", ms / 3'600'000, ms / 60'000 % 60, ms / 1000 % 60, ms % 1000);
}

// A clock reading for a time-seeded runtime: Java's System.currentTimeMillis() (milliseconds
// since 1970, or YYYY-MM-DDTHH:MM:SS[.mmm]Z) or .NET's Environment.TickCount (milliseconds since
// boot, or an uptime HH:MM:SS[.mmm]).
std::uint64_t parse_runtime_clock(std::string_view text, runtimes::runtime_id id) {
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (!text.empty() && ec == std::errc{} && p == text.data() + text.size()) return v;
  if (id == runtimes::runtime_id::java) {
    // YYYY-MM-DDTHH:MM:SS[.mmm]Z
    const auto bad = [&] {
      return usage_error(fmt::format("--around '{}' is not milliseconds since 1970 or YYYY-MM-DDTHH:MM:SS[.mmm]Z (UTC)",
                                     printable(text)));
    };
    if ((text.size() != 20 && text.size() != 24) || text[4] != '-' || text[7] != '-' || text[10] != 'T' ||
        text.back() != 'Z')
      throw bad();
    const auto num = [&](std::size_t at, std::size_t n) {
      unsigned x = 0;
      for (std::size_t i = at; i < at + n; ++i) {
        if (text[i] < '0' || text[i] > '9') throw bad();
        x = x * 10 + static_cast<unsigned>(text[i] - '0');
      }
      return x;
    };
    const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(num(0, 4))), std::chrono::month(num(5, 2)),
                                          std::chrono::day(num(8, 2))};
    if (!ymd.ok() || ymd.year() < std::chrono::year(1970)) throw bad();
    std::uint64_t ms = 0;
    try {
      ms = parse_time_of_day(text.substr(11, text.size() - 12));
    } catch (const std::invalid_argument&) {
      throw bad();
    }
    const auto days = std::chrono::sys_days(ymd).time_since_epoch().count();
    return static_cast<std::uint64_t>(days) * ms_per_day + ms;
  }
  try {
    return parse_time_of_day(text);
  } catch (const std::invalid_argument&) {
    throw usage_error(fmt::format("--around '{}' is not a tick count in milliseconds or an uptime HH:MM:SS[.mmm]",
                                  printable(text)));
  }
}

std::string utc_time(std::uint64_t ms) {
  const std::chrono::sys_days day{std::chrono::days(static_cast<long>(ms / ms_per_day))};
  const std::chrono::year_month_day ymd{day};
  const std::uint64_t t = ms % ms_per_day;
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", static_cast<int>(ymd.year()),
                     static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()), t / 3'600'000,
                     t / 60'000 % 60, t / 1000 % 60, t % 1000);
}

int run_attack_cmd(const attack_options& o) {
  attack_spec spec;
  spec.runtime = runtimes::find_runtime(o.algorithm);
  seed_range range{};
  if (spec.runtime) {
    if (o.engine_opt->count())
      throw usage_error(fmt::format("--algorithm {} names a runtime with its own generator: drop --engine", o.algorithm));
    if (!attack_info(*spec.runtime).searchable)
      labelled("--algorithm", [&] { validate(spec); });  // says why this runtime cannot be searched
    if (o.seeds_opt->count() || !o.around.empty()) {
      range = labelled("--seeds", [&] { return parse_seed_range(o.seeds, *spec.runtime); });
      if (const auto note = o.seeds_opt->count() ? negative_seed_note(o.seeds, *spec.runtime) : std::nullopt)
        fmt::print(stderr, "fairdeck: note: {}\n", *note);
    } else {
      try {  // no range given: the whole seed space, when it is small enough
        range = parse_seed_range("all", *spec.runtime);
      } catch (const std::invalid_argument& e) {
        throw usage_error(fmt::format("{} (give --seeds A..B or --around)", e.what()));
      }
    }
  } else {
    spec.engine = labelled("--engine", [&] { return parse_engine_name(o.engine); });
    spec.algorithm = labelled("--algorithm", [&] { return parse_attack_algorithm(o.algorithm); });
    range = labelled("--seeds", [&] { return parse_seed_range(o.seeds, spec.engine); });
  }
  spec.first_seed = range.first;
  spec.last_seed = range.last;
  if (!o.around.empty() && spec.runtime) {
    // Time-seeded runtimes: a window of clock readings around a known time.
    const runtime_attack_info& a = attack_info(*spec.runtime);
    if (!a.time_seeds)
      throw usage_error(fmt::format("--around applies to clock-seeded runtimes (java, dotnet-framework, "
                                    "dotnet-framework-orderby); {} seeds are {}",
                                    o.algorithm, a.seeds));
    if (o.seeds_opt->count()) throw usage_error("--around replaces --seeds; give one of them");
    if (!(o.window >= 0) || o.window > 86'400) throw usage_error("--window must be between 0 and 86400 seconds");
    std::uint64_t t = parse_runtime_clock(o.around, *spec.runtime);
    if (*spec.runtime != runtimes::runtime_id::java) {
      // TickCount is an int32 that wraps after 24.9 days; Random uses its absolute value.
      const auto tick = static_cast<std::int32_t>(static_cast<std::uint32_t>(t));
      t = tick < 0 ? (tick == INT32_MIN ? 0x7fffffffu : static_cast<std::uint64_t>(-static_cast<std::int64_t>(tick)))
                   : static_cast<std::uint64_t>(tick);
    }
    const auto w = static_cast<std::uint64_t>(o.window * 1000);
    spec.first_seed = t > w ? t - w : 0;
    spec.last_seed = std::min(t + w, a.last_seed);
  } else if (!o.around.empty()) {
    // The 1999 refinement: with the server's clock known, only a window of milliseconds
    // around it needs searching (the window stops at midnight on either side).
    if (o.seeds_opt->count()) throw usage_error("--around replaces --seeds; give one of them");
    if (!(o.window >= 0) || o.window > 86'400) throw usage_error("--window must be between 0 and 86400 seconds");
    const std::uint64_t t = labelled("--around", [&] { return parse_time_of_day(o.around); });
    const std::uint64_t w = static_cast<std::uint64_t>(o.window * 1000);
    spec.first_seed = t > w ? t - w : 0;
    spec.last_seed = std::min(t + w, ms_per_day - 1);
  }
  spec.known = collect_known(o);
  spec.threads = o.threads;
  spec.max_reported = o.limit;
  validate(spec);  // what is left (known cards off the deck, a seed past the engine's space): main reports it
  if (o.limit == 0) throw usage_error("--limit must be at least 1");

  attack_result r;
  {
    progress_bar bar("attack");
    r = run_attack(spec, bar.control());
  }
  const format_options fo{o.unicode};
  const bool day_seeds = !spec.runtime && spec.engine == engine_id::delphi && spec.last_seed < ms_per_day;
  const bool java_clock = spec.runtime == runtimes::runtime_id::java && !o.around.empty();
  const auto deck_of = [&](std::uint64_t s) {
    return spec.runtime ? runtime_deck(*spec.runtime, s, cards_per_deck) : deck_for_seed(spec.engine, spec.algorithm, s);
  };
  const std::string engine_name(spec.runtime ? runtimes::info(*spec.runtime).name : info(spec.engine).name);
  const std::string algorithm_name(spec.runtime ? runtimes::info(*spec.runtime).name : info(spec.algorithm).name);
  const double seed_bits = spec.runtime ? runtimes::info(*spec.runtime).explicit_seed_bits : info(spec.engine).seed_bits;
  const auto seed_note = [&](std::uint64_t s) -> std::string {
    if (day_seeds) return fmt::format(" (Randomize at {})", time_of_day(s));
    if (java_clock) return fmt::format(" (new Random at {})", utc_time(s));
    return "";
  };
  const attack_verdict verdict = judge(spec, r);
  const double expected = verdict.expected_by_chance;
  const unsigned players = o.players_opt->count() ? o.players : 0;

  if (o.json) {
    nlohmann::json known = nlohmann::json::array();
    for (const auto& k : spec.known) known.push_back({{"position", k.position}, {"card", format_card(k.card, {}, fo)}});
    nlohmann::json decks = nlohmann::json::array(), hands = nlohmann::json::array(), candidates = nlohmann::json::array();
    for (std::uint64_t s : r.seeds) {
      const auto deck = deck_of(s);
      decks.push_back(cards_json(deck, {}, fo));
      candidates.push_back({{"seed", s}, {"likely_coincidence", verdict.likely_coincidence}, {"deck", decks.back()}});
      if (players) hands.push_back(holdem_json(deal_holdem(deck, players), {}, fo));
    }
    nlohmann::json j{{"engine", {{"name", engine_name}, {"secure", false}, {"seed_bits", seed_bits}}},
                     {"algorithm", algorithm_name},
                     {"seed_range", {{"first", spec.first_seed}, {"last", spec.last_seed}}},
                     {"known", known},
                     {"seeds_searched", r.seeds_searched},
                     {"complete", r.complete},
                     {"matches", r.matches},
                     {"expected_false_matches", expected},
                     {"expected_by_chance", expected},
                     {"likely_coincidence", verdict.likely_coincidence},
                     {"confident", verdict.confident},
                     {"verdict", verdict.advice},
                     {"candidates", candidates},
                     {"seconds", r.seconds},
                     {"seeds_per_second", r.seeds_per_second()},
                     {"threads", r.threads},
                     {"seeds", r.seeds},
                     {"decks", decks}};
    if (players) {
      j["players"] = players;
      j["hands"] = hands;
    }
    if (spec.runtime) {
      const auto& ri = runtimes::info(*spec.runtime);
      j["runtime"] = {{"name", ri.name}, {"runtime", ri.runtime}, {"code", ri.code}, {"seeds", attack_info(*spec.runtime).seeds}};
    }
    if (java_clock) {
      nlohmann::json times = nlohmann::json::array();
      for (std::uint64_t s : r.seeds) times.push_back(utc_time(s));
      j["times_utc"] = times;
    }
    if (day_seeds) {
      nlohmann::json times = nlohmann::json::array();
      for (std::uint64_t s : r.seeds) times.push_back(time_of_day(s));
      j["times_of_day"] = times;
    }
    print_json(j);
  } else {
    std::string known;
    for (const auto& k : spec.known) known += fmt::format("{}{}={}", known.empty() ? "" : ", ", k.position, format_card(k.card, {}, fo));
    if (spec.runtime)
      fmt::print("runtime {} ({}: {}), seeds {}..{}; known {}\n", engine_name, runtimes::info(*spec.runtime).runtime,
                 runtimes::info(*spec.runtime).code, spec.first_seed, spec.last_seed, known);
    else
      fmt::print("engine {}, algorithm {}, seeds {}..{}; known {}\n", engine_name, algorithm_name, spec.first_seed,
                 spec.last_seed, known);
    fmt::print("searched {} seeds in {:.2f} s ({:.1f} M seeds/s, {} thread{}){}\n", r.seeds_searched, r.seconds,
               r.seeds_per_second() / 1e6, r.threads, r.threads == 1 ? "" : "s",
               r.complete ? "" : " -- INTERRUPTED, partial result");
    fmt::print("{} matching seed{} (expected by chance: {:.3g}){}\n", r.matches, r.matches == 1 ? "" : "s", expected,
               r.matches > r.seeds.size() ? fmt::format("; showing the lowest {}", r.seeds.size()) : "");
    fmt::print("{}{}\n", verdict.confident ? "" : "NOT RECOVERED: ", verdict.advice);
    for (std::uint64_t s : r.seeds) {
      const auto deck = deck_of(s);
      fmt::print("\nseed {}{}{}\n  deck: {}\n", s, seed_note(s),
                 verdict.likely_coincidence ? " -- likely a coincidence" : "", format_cards(deck, {}, fo));
      if (players) print_holdem(deal_holdem(deck, players), {}, fo, 2);
    }
  }
  // 0 only for a confident recovery; 4: no match, several, or matches chance explains.
  if (!r.complete) return 130;
  return verdict.confident ? 0 : 4;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<attack_options>();
  auto* cmd = app.add_subcommand(
      "attack", "Recover a deck from a few known cards by searching a weak generator's seeds (the 1999 attack)");
  o->engine_opt = cmd->add_option("--engine", o->engine, "Seeded engine to attack (legacy engines; secure/chacha20 are refused)")
      ->capture_default_str();
  cmd->add_option("--algorithm", o->algorithm,
                  "Shuffle loop (asf1999, naive, fisher-yates) or a runtime's shuffle (php, java, dotnet-framework, go, "
                  "...; fairdeck entropy lists them)")
      ->capture_default_str();
  o->seeds_opt = cmd->add_option("--seeds", o->seeds,
                  "Seeds to try: day (every ms since midnight, 0..86399999), all32, all (engine's seed space), A..B")
      ->capture_default_str();
  cmd->add_option("--around", o->around,
                  "Search only milliseconds near this server time, HH:MM:SS[.mmm] (with --window; Delphi Randomize); "
                  "java: ms since 1970 or YYYY-MM-DDTHH:MM:SS[.mmm]Z; dotnet-framework: TickCount ms or uptime");
  cmd->add_option("--window", o->window, "Seconds either side of --around")->capture_default_str();
  cmd->add_option("--known", o->known, "Known cards by deck position: 0=Ah,1=Kd,20=7c (0 = top card)");
  o->players_opt = cmd->add_option("--players", o->players, "Hold'em players at the table (2..22); also prints every hand");
  o->seat_opt = cmd->add_option("--seat", o->seat, "Your seat (1 = first to receive a card, as 'deal holdem' prints)");
  cmd->add_option("--hole", o->hole, "Your two hole cards, e.g. \"Ah Kd\"");
  cmd->add_option("--flop", o->flop, "The three flop cards");
  cmd->add_option("--turn", o->turn, "The turn card");
  cmd->add_option("--river", o->river, "The river card");
  add_threads_option(*cmd, o->threads, "Worker threads (0 = one per hardware thread)");
  cmd->add_option("--limit", o->limit, "Print at most this many matching seeds (the lowest); all are counted")
      ->capture_default_str();
  cmd->add_flag("--unicode", o->unicode, "Print suits as \u2663\u2666\u2665\u2660");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-attack.md)");
  cmd->callback([o, &exit_code] { exit_code = run_attack_cmd(*o); });
}

}  // namespace
}  // namespace fairdeck::cli

FAIRDECK_REGISTER_COMMAND(70, fairdeck::cli::setup)
