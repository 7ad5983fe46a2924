// fairdeck attack: recover a whole deck from a few known cards by replaying every seed of
// a weak generator (default: the 1999 Planet Poker setup; docs/attack.md).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <variant>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/runtimes/algorithm.hpp"
#include "fairdeck/security/attack.hpp"
#include "fairdeck/security/clock_seed.hpp"
#include "fairdeck/security/negative_seeds.hpp"
#include "fairdeck/security/runtime_attack.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_attack {
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

// --around/--window for a clock-seeded runtime (java, dotnet-framework...): the library's
// window (security/clock_seed.hpp), its problems worded with the options.
seed_range runtime_clock_window(const attack_options& o, runtimes::runtime_id id) {
  try {
    return clock_seed_window(id, o.around, o.window);
  } catch (const clock_window_error& e) {
    switch (e.problem()) {
      case clock_window_problem::not_clock_seeded: {
        std::string clocked;
        for (const auto& r : runtimes::runtime_catalog())
          if (attack_info(r.id).time_seeds) clocked += fmt::format("{}{}", clocked.empty() ? "" : ", ", r.name);
        throw usage_error(fmt::format("--around applies to clock-seeded runtimes ({}); {} seeds are {}", clocked,
                                      o.algorithm, attack_info(id).seeds));
      }
      case clock_window_problem::window_out_of_range:
        throw usage_error(fmt::format("--window must be between 0 and {} seconds", max_clock_window_seconds));
      case clock_window_problem::unreadable_time: throw usage_error(fmt::format("--around {}", e.what()));
    }
    throw;
  }
}

// --around/--window for an engine seeded with the milliseconds since midnight (the 1999
// refinement: with the server's clock known, only a window around it needs searching).
seed_range day_clock_window(const attack_options& o) {
  try {
    return time_of_day_seed_window(o.around, o.window);
  } catch (const clock_window_error& e) {
    if (e.problem() == clock_window_problem::window_out_of_range)
      throw usage_error(fmt::format("--window must be between 0 and {} seconds", max_clock_window_seconds));
    throw usage_error(fmt::format("--around: {}", e.what()));
  }
}

int run_attack_cmd(const attack_options& o) {
  attack_spec spec;
  seed_range range{};
  const auto choice = labelled("--algorithm", [&] { return runtimes::resolve_algorithm(o.algorithm); });
  if (const auto* rt = std::get_if<runtimes::runtime_id>(&choice)) {
    spec.runtime = *rt;
    if (o.engine_opt->count())
      throw usage_error(fmt::format("--algorithm {} names a runtime with its own generator: drop --engine", o.algorithm));
    if (!attack_info(*rt).searchable)
      labelled("--algorithm", [&] { validate(spec); });  // says why this runtime cannot be searched
    if (!o.around.empty()) {
      if (o.seeds_opt->count()) throw usage_error("--around replaces --seeds; give one of them");
      range = runtime_clock_window(o, *rt);
    } else if (o.seeds_opt->count()) {
      range = labelled("--seeds", [&] { return parse_seed_range(o.seeds, *rt); });
      if (const auto note = negative_seed_note(o.seeds, *rt)) fmt::print(stderr, "fairdeck: note: {}\n", *note);
    } else {
      try {  // no range given: the whole seed space, when it is small enough
        range = parse_seed_range("all", *rt);
      } catch (const std::invalid_argument& e) {
        throw usage_error(fmt::format("{} (give --seeds A..B or --around)", e.what()));
      }
    }
  } else {
    spec.engine = labelled("--engine", [&] { return parse_engine_name(o.engine); });
    spec.algorithm = labelled("--algorithm", [&] { return parse_attack_algorithm(o.algorithm); });
    if (!o.around.empty()) {
      if (o.seeds_opt->count()) throw usage_error("--around replaces --seeds; give one of them");
      range = day_clock_window(o);
    } else {
      range = labelled("--seeds", [&] { return parse_seed_range(o.seeds, spec.engine); });
    }
  }
  spec.first_seed = range.first;
  spec.last_seed = range.last;
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
    if (day_seeds) return fmt::format(" (Randomize at {})", time_of_day_text(s));
    if (java_clock) return fmt::format(" (new Random at {})", utc_time_text(s));
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
      for (std::uint64_t s : r.seeds) times.push_back(utc_time_text(s));
      j["times_utc"] = times;
    }
    if (day_seeds) {
      nlohmann::json times = nlohmann::json::array();
      for (std::uint64_t s : r.seeds) times.push_back(time_of_day_text(s));
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
}  // namespace fairdeck::cli::cmd_attack

FAIRDECK_REGISTER_COMMAND(70, fairdeck::cli::cmd_attack::setup)
