#include "fairdeck/security/attack.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <optional>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/security/internal/attack_kernel.hpp"
#include "fairdeck/shuffle/shuffle_deck.hpp"
#include "fairdeck/util/parallel.hpp"
#include "fairdeck/security/internal/runtime_kernels.hpp"
#include "fairdeck/security/negative_seeds.hpp"
#include "fairdeck/security/runtime_attack.hpp"
#include "fairdeck/util/printable.hpp"

namespace fairdeck {
namespace {

using detail::scan_plan;
using detail::swap_step;

// Seeds per work unit: small enough for smooth progress and prompt Ctrl-C, large enough
// that the shared counter is touched rarely.
constexpr std::uint64_t chunk_seeds = std::uint64_t{1} << 18;

std::uint64_t seed_space(engine_id engine) noexcept { return info(engine).seed_limit; }  // 0 = 2^64

bool matches_all(const std::vector<card_t>& deck, std::span<const known_card> known) {
  return std::ranges::all_of(known, [&](const known_card& k) { return deck[k.position] == k.card; });
}

// Replays seeds one by one through the reference engine, tracking two cards: for engines
// without a SIMD lane model (their state is larger than a register).
void scan_scalar(const attack_spec& spec, const scan_plan& plan, std::uint64_t first, std::uint64_t count,
                 std::vector<std::uint64_t>& out) {
  if (spec.runtime) {  // no filter for this runtime: replay its shuffle (the caller confirms)
    for (std::uint64_t s = first; s - first < count; ++s) {
      const auto deck = runtime_deck(*spec.runtime, s, spec.deck_size);
      if (deck[plan.target[0]] == plan.start[0] && deck[plan.target[1]] == plan.start[1]) out.push_back(s);
    }
    return;
  }
  engine_spec es;
  es.id = spec.engine;
  for (std::uint64_t s = first; s - first < count; ++s) {
    es.seed = s;
    const bool hit = visit_engine(es, 0, [&](auto& e) {
      if constexpr (batchable_engine<std::remove_reference_t<decltype(e)>>) {
        // fisher_yates rolls several indices per 64-bit word for these engines
        // (random/batched.hpp), so one draw per step would not mirror it: replay it.
        if (spec.algorithm == shuffle_kind::fisher_yates) {
          thread_local std::vector<std::uint32_t> deck;
          deck.resize(spec.deck_size);
          std::iota(deck.begin(), deck.end(), 0u);
          fisher_yates(deck, e);
          return deck[plan.target[0]] == plan.start[0] && deck[plan.target[1]] == plan.start[1];
        }
      }
      std::uint32_t a = plan.start[0], b = plan.start[1];
      for (std::size_t k = 0; k < plan.step_count; ++k) {
        const std::uint32_t i = plan.steps[k].i;
        const auto j = static_cast<std::uint32_t>(draw_below(e, plan.steps[k].bound));
        a = a == i ? j : (a == j ? i : a);
        b = b == i ? j : (b == j ? i : b);
      }
      return a == plan.target[0] && b == plan.target[1];
    });
    if (hit) out.push_back(s);
  }
}

// Keeps the `keep` lowest seeds of a growing list without holding every match.
void trim(std::vector<std::uint64_t>& seeds, std::size_t keep) {
  if (seeds.size() <= keep) return;
  std::ranges::nth_element(seeds, seeds.begin() + static_cast<std::ptrdiff_t>(keep));
  seeds.resize(keep);
}


// The deck a candidate seed gives, by the reference shuffle the user asked about.
std::vector<card_t> candidate_deck(const attack_spec& spec, std::uint64_t seed) {
  return spec.runtime ? runtime_deck(*spec.runtime, seed, spec.deck_size)
                      : deck_for_seed(spec.engine, spec.algorithm, seed, spec.deck_size);
}

detail::seed_scanner pick_filter(const attack_spec& spec, std::size_t step_count) {
  if (!spec.runtime) return detail::lane_scanner(spec.engine, step_count);
  using runtimes::runtime_id;
  switch (*spec.runtime) {
    case runtime_id::php: return detail::php_scanner(step_count);
    case runtime_id::go: return detail::go_scanner(step_count);
    // Collections.shuffle and the C# Fisher–Yates idiom are fairdeck's fisher-yates loop on
    // the java / dotnet engines (same draws, same swaps): their lane models apply.
    case runtime_id::java: return detail::lane_scanner(engine_id::java, step_count);
    case runtime_id::dotnet_framework: return detail::lane_scanner(engine_id::dotnet, step_count);
    default: return nullptr;
  }
}

void validate_engine(const attack_spec& spec) {
  const auto& eng = info(spec.engine);
  if (spec.engine == engine_id::secure || spec.engine == engine_id::chacha20)
    throw std::invalid_argument(fmt::format(
        "engine {} cannot be attacked this way: its ChaCha20 key has 2^256 values, and even at 10^18 keys per second "
        "trying them all takes about 10^51 years (only a weak, seeded generator falls to a seed search)",
        eng.name));
  if (spec.algorithm != shuffle_kind::asf1999 && spec.algorithm != shuffle_kind::naive &&
      spec.algorithm != shuffle_kind::fisher_yates)
    throw std::invalid_argument(
        fmt::format("attack supports the algorithms asf1999, naive and fisher-yates, not {}", info(spec.algorithm).name));
}

void validate_runtime(const attack_spec& spec) {
  const runtime_attack_info& a = attack_info(*spec.runtime);
  const auto name = runtimes::info(*spec.runtime).name;
  if (!a.searchable) throw std::invalid_argument(fmt::format("the {} shuffle cannot be searched: {}", name, a.why));
  try {
    (void)runtime_deck(*spec.runtime, spec.first_seed, 2);  // the reference shuffle exists (workers must not throw)
  } catch (const std::logic_error& e) {
    throw std::invalid_argument(fmt::format("the {} shuffle cannot be searched: {}", name, e.what()));
  }
  if (spec.last_seed > a.last_seed)
    throw std::invalid_argument(fmt::format("{} seeds to search are 0..{} ({}), but the range ends at {}", name,
                                            a.last_seed, a.seeds, spec.last_seed));
}

}  // namespace

void validate(const attack_spec& spec) {
  if (spec.runtime)
    validate_runtime(spec);
  else
    validate_engine(spec);
  if (spec.deck_size < 2 || spec.deck_size > 0xffff)
    throw std::invalid_argument(fmt::format("deck size must be in [2, 65535], got {}", spec.deck_size));
  if (spec.known.empty()) throw std::invalid_argument("the search needs at least one known card");
  for (std::size_t a = 0; a < spec.known.size(); ++a) {
    const auto& k = spec.known[a];
    if (k.position >= spec.deck_size)
      throw std::invalid_argument(
          fmt::format("known position {} is outside the {}-card deck (positions 0..{})", k.position, spec.deck_size,
                      spec.deck_size - 1));
    if (k.card >= spec.deck_size)
      throw std::invalid_argument(fmt::format("known card index {} is not in the {}-card deck", k.card, spec.deck_size));
    for (std::size_t b = 0; b < a; ++b) {
      if (spec.known[b].position == k.position)
        throw std::invalid_argument(fmt::format("deck position {} is given twice", k.position));
      if (spec.known[b].card == k.card)
        throw std::invalid_argument(
            fmt::format("card {} is given twice (positions {} and {}): a deck holds each card once",
                        format_card(k.card, deck_spec{}), spec.known[b].position, k.position));
    }
  }
  if (!spec.runtime && spec.algorithm == shuffle_kind::asf1999) {
    // random(51)+1 never leaves the last card last: it is swapped away at step n-1.
    for (const auto& k : spec.known)
      if (k.position == spec.deck_size - 1 && k.card == spec.deck_size - 1)
        throw std::invalid_argument(fmt::format(
            "the asf1999 shuffle can never leave card {} at the bottom (position {}): no seed can match",
            format_card(k.card, deck_spec{}), k.position));
  }
  if (spec.first_seed > spec.last_seed)
    throw std::invalid_argument(fmt::format("seed range {}..{} is empty", spec.first_seed, spec.last_seed));
  const std::uint64_t limit = spec.runtime ? 0 : seed_space(spec.engine);
  if (limit && spec.last_seed >= limit)
    throw std::invalid_argument(fmt::format("engine {} has seeds 0..{} only (2^{}), but the range ends at {}", info(spec.engine).name,
                                            limit - 1, std::countr_zero(limit), spec.last_seed));
  if (spec.last_seed - spec.first_seed == ~std::uint64_t{0})
    throw std::invalid_argument("a 2^64-seed range cannot be searched");
}

std::vector<card_t> deck_for_seed(engine_id engine, shuffle_kind algorithm, std::uint64_t seed, std::size_t deck_size) {
  std::vector<card_t> deck(deck_size);
  for (std::size_t i = 0; i < deck_size; ++i) deck[i] = static_cast<card_t>(i);
  engine_spec es;
  es.id = engine;
  es.seed = seed;
  shuffle_deck(es, 0, shuffle_spec{algorithm, 0}, deck);
  return deck;
}

double expected_false_matches(const attack_spec& spec) noexcept {
  double p = 1;
  for (std::size_t k = 0; k < spec.known.size() && k < spec.deck_size; ++k)
    p /= static_cast<double>(spec.deck_size - k);
  return (static_cast<double>(spec.last_seed - spec.first_seed) + 1) * p;
}

attack_result run_attack(const attack_spec& spec, const run_control& control) {
  validate(spec);
  const auto start_time = std::chrono::steady_clock::now();
  // Every runtime the attack covers shuffles by Fisher–Yates from the top (one draw per
  // position, i = n-1 .. 1); the rest are replayed whole (scan_scalar).
  const std::vector<swap_step> steps =
      detail::swap_steps(spec.runtime ? shuffle_kind::fisher_yates : spec.algorithm, spec.deck_size);
  const known_card& k0 = spec.known[0];
  const known_card& k1 = spec.known.size() > 1 ? spec.known[1] : spec.known[0];
  scan_plan plan{steps.data(), steps.size(), {k0.card, k1.card},
                 {static_cast<std::uint32_t>(k0.position), static_cast<std::uint32_t>(k1.position)}};
  if (spec.known.size() > 2) {  // followed by the PHP filter
    plan.third_start = spec.known[2].card;
    plan.third_target = static_cast<std::uint32_t>(spec.known[2].position);
  }
  const detail::seed_scanner lanes = pick_filter(spec, steps.size());

  const std::uint64_t total = spec.last_seed - spec.first_seed + 1;
  const std::uint64_t chunks = (total + chunk_seeds - 1) / chunk_seeds;
  const unsigned threads = parallel_workers(chunks, spec.threads);

  std::atomic<std::uint64_t> match_count{0};
  progress_meter progress(control, total);
  struct worker_state {
    std::vector<std::uint64_t> candidates, mine;
  };
  std::vector<worker_state> state(threads);

  parallel_for(chunks, threads, control, [&](std::uint64_t c, unsigned w) {
    auto& [candidates, mine] = state[w];
    const std::uint64_t first = spec.first_seed + c * chunk_seeds;
    const std::uint64_t count = std::min(chunk_seeds, total - c * chunk_seeds);
    candidates.clear();
    if (lanes)
      lanes(first, count, plan, candidates);
    else
      scan_scalar(spec, plan, first, count, candidates);
    std::uint64_t matches = 0;
    for (std::uint64_t s : candidates) {
      // Every candidate is confirmed with the reference shuffle: the filter tracks only two
      // cards, and a lane model may pass a seed it could not follow (Java's rejection loop).
      if (!matches_all(candidate_deck(spec, s), spec.known)) continue;
      ++matches;
      mine.push_back(s);
    }
    if (mine.size() > 2 * spec.max_reported) trim(mine, spec.max_reported);
    match_count.fetch_add(matches, std::memory_order_relaxed);
    progress.add(count);
  });
  std::vector<std::uint64_t> found;
  for (auto& ws : state) {
    trim(ws.mine, spec.max_reported);
    found.insert(found.end(), ws.mine.begin(), ws.mine.end());
  }

  attack_result r;
  std::ranges::sort(found);
  if (found.size() > spec.max_reported) found.resize(spec.max_reported);
  r.seeds = std::move(found);
  r.matches = match_count.load();
  r.seeds_searched = progress.done();
  r.complete = r.seeds_searched == total;
  r.threads = threads;
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  return r;
}

namespace {
seed_range parse_numeric_range(std::string_view text);

// How a runtime reads a negative seed. Java: new Random(long S) keeps (S ^ 0x5DEECE66D) mod
// 2^48, so S counts as its 64-bit two's complement mod 2^48 (-1 is 2^48 - 1). .NET Framework:
// new Random(int S) uses |S| (int.MinValue: int.MaxValue).
enum class negative_seeds { refused, java_mod_2_48, dotnet_abs };

bool has_negative(std::string_view text) { return text.starts_with('-') || text.find("..-") != std::string_view::npos; }

seed_range parse_negative_range(std::string_view text, negative_seeds kind, std::string_view name) {
  auto number = [&](std::string_view s) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
      throw std::invalid_argument(fmt::format("seed range '{}': '{}' is not a whole number in [-2^63, 2^63)",
                                              printable(text), printable(s)));
    return v;
  };
  const auto dots = text.find("..");
  const std::int64_t a = number(dots == std::string_view::npos ? text : text.substr(0, dots));
  const std::int64_t b = dots == std::string_view::npos ? a : number(text.substr(dots + 2));
  if (a > b) throw std::invalid_argument(fmt::format("the seed range '{}' is empty (first > last)", printable(text)));
  if (kind == negative_seeds::java_mod_2_48) {
    constexpr std::uint64_t mask = (std::uint64_t{1} << 48) - 1;
    const auto mod = [](std::int64_t v) { return static_cast<std::uint64_t>(v) & mask; };
    if (a < 0 && b >= 0)
      throw std::invalid_argument(fmt::format(
          "the seed range '{}' crosses 0: {} keeps new Random(S) mod 2^48, so {}..-1 is {}..{}; search it and 0..{} "
          "separately", printable(text), name, a, mod(a), mask, b));
    const std::uint64_t span = static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a);
    if (span >= mask) return {0, mask};  // every seed
    if (mod(a) + span > mask)
      throw std::invalid_argument(fmt::format("the seed range '{}' wraps at a multiple of 2^48 ({} keeps S mod 2^48): "
                                              "split it there", printable(text), name));
    return {mod(a), mod(a) + span};
  }
  // .NET: |S| of an int.
  constexpr std::int64_t lo = INT32_MIN, hi = INT32_MAX;
  if (a < lo || b > hi)
    throw std::invalid_argument(fmt::format("seed range '{}': {} seeds are ints, [-2147483648, 2147483647]",
                                            printable(text), name));
  const auto abs = [](std::int64_t v) { return static_cast<std::uint64_t>(v == INT32_MIN ? INT32_MAX : v < 0 ? -v : v); };
  if (a >= 0) return {static_cast<std::uint64_t>(a), static_cast<std::uint64_t>(b)};
  if (b < 0) return {abs(b), abs(a)};
  return {0, std::max(abs(a), static_cast<std::uint64_t>(b))};
}

negative_seeds negative_rule(runtimes::runtime_id r) {
  switch (r) {
    case runtimes::runtime_id::java: return negative_seeds::java_mod_2_48;
    case runtimes::runtime_id::dotnet_framework:
    case runtimes::runtime_id::dotnet_framework_orderby: return negative_seeds::dotnet_abs;
    default: return negative_seeds::refused;
  }
}
}  // namespace

std::optional<std::string> negative_seed_note(std::string_view text, runtimes::runtime_id runtime) {
  if (!has_negative(text) || negative_rule(runtime) == negative_seeds::refused) return std::nullopt;
  const auto r = parse_seed_range(text, runtime);
  const bool java = negative_rule(runtime) == negative_seeds::java_mod_2_48;
  return fmt::format("{} {}: seeds {}..{}", java ? "new Random(S) keeps S mod 2^48 (Java's signed long)"
                                                 : "new Random(S) uses |S| (.NET's signed int)",
                     printable(text), r.first, r.last);
}

seed_range parse_seed_range(std::string_view text, engine_id engine) {
  const std::uint64_t limit = seed_space(engine);
  const auto name = info(engine).name;
  if (engine == engine_id::java && has_negative(text))
    return parse_negative_range(text, negative_seeds::java_mod_2_48, "Java");
  if (text == "day") return {0, ms_per_day - 1};
  if (text == "all32") return {0, (std::uint64_t{1} << 32) - 1};
  if (text == "all") {
    if (limit == 0 || limit > (std::uint64_t{1} << 32))
      throw std::invalid_argument(fmt::format(
          "engine {} has {} seeds: too many to search them all; the search needs a seed range A..B", name,
          limit ? fmt::format("2^{}", std::countr_zero(limit)) : std::string(info(engine).seed_bits == 48 ? "2^48" : "2^64")));
    return {0, limit - 1};
  }
  return parse_numeric_range(text);
}

seed_range parse_seed_range(std::string_view text, runtimes::runtime_id runtime) {
  const runtime_attack_info& a = attack_info(runtime);
  const auto name = runtimes::info(runtime).name;
  if (has_negative(text) && negative_rule(runtime) != negative_seeds::refused)
    return parse_negative_range(text, negative_rule(runtime), name);
  if (text == "day") return {0, ms_per_day - 1};
  if (text == "all32") return {0, (std::uint64_t{1} << 32) - 1};
  if (text == "all") {
    if (!a.searchable) throw std::invalid_argument(fmt::format("the {} shuffle cannot be searched: {}", name, a.why));
    if (a.last_seed > 0xffffffffu)
      throw std::invalid_argument(fmt::format("{} has {} seeds ({}): too many to search them all; the search needs a seed range or a clock window",
                                              name, fmt::format("2^{:.0f}", std::log2(static_cast<double>(a.last_seed) + 1)), a.seeds));
    return {0, a.last_seed};
  }
  return parse_numeric_range(text);
}

namespace {
seed_range parse_numeric_range(std::string_view text) {
  auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
      throw std::invalid_argument(
          fmt::format("seed range '{}': '{}' is not a whole number (use A..B, day, all32 or all)", printable(text), printable(s)));
    return v;
  };
  const auto dots = text.find("..");
  if (dots == std::string_view::npos) {
    const std::uint64_t v = number(text);
    return {v, v};
  }
  const seed_range r{number(text.substr(0, dots)), number(text.substr(dots + 2))};
  if (r.first > r.last) throw std::invalid_argument(fmt::format("the seed range '{}' is empty (first > last)", printable(text)));
  return r;
}
}  // namespace

attack_verdict judge(const attack_spec& spec, const attack_result& result) {
  attack_verdict v;
  v.expected_by_chance = expected_false_matches(spec);
  v.likely_coincidence = v.expected_by_chance >= coincidence_threshold;
  v.confident = result.complete && result.matches == 1 && !v.likely_coincidence;
  if (!result.complete)
    v.advice = "search interrupted: the result is partial";
  else if (v.likely_coincidence && result.matches > 0)
    v.advice = fmt::format("{} expected by chance with {} known card{}: the match{} may be a coincidence; add a known card",
                           fmt::format("{:.3g} match{}", v.expected_by_chance, v.expected_by_chance == 1 ? "" : "es"),
                           spec.known.size(), spec.known.size() == 1 ? "" : "s", result.matches == 1 ? "" : "es");
  else if (v.likely_coincidence)
    v.advice = fmt::format("no seed fits, but {:.3g} chance matches were expected: too few known cards to rule "
                           "this generator out; add a known card",
                           v.expected_by_chance);
  else if (result.matches == 0)
    v.advice = "no seed in the range fits: the deck was not shuffled by this engine and algorithm with a seed in "
               "this range";
  else if (result.matches > 1)
    v.advice = fmt::format("{} seeds fit: add a known card to tell them apart", result.matches);
  else
    v.advice = fmt::format("one seed fits and {:.3g} chance matches were expected: deck recovered",
                           v.expected_by_chance);
  return v;
}

std::vector<known_card> parse_known_cards(std::string_view text) {
  std::vector<known_card> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string_view::npos)
      throw std::invalid_argument(fmt::format("known card '{}' is not POSITION=CARD (e.g. 0=Ah)", printable(item)));
    const std::string_view pos_text = item.substr(0, eq);
    std::size_t pos = 0;
    const auto [p, ec] = std::from_chars(pos_text.data(), pos_text.data() + pos_text.size(), pos);
    if (pos_text.empty() || ec != std::errc{} || p != pos_text.data() + pos_text.size())
      throw std::invalid_argument(fmt::format("known card '{}': position '{}' is not a whole number",
                                              printable(item), printable(pos_text)));
    out.push_back({pos, parse_card(item.substr(eq + 1))});  // card_parse_error names the card
  }
  return out;
}

std::uint64_t parse_time_of_day(std::string_view text) {
  // HH:MM:SS[.mmm], exactly two digits per field and three for milliseconds.
  const auto bad = [&] {
    return std::invalid_argument(fmt::format("'{}' is not a time of day HH:MM:SS[.mmm]", printable(text)));
  };
  if (text.size() != 8 && text.size() != 12) throw bad();
  const auto digits = [&](std::size_t at, std::size_t n) {
    unsigned v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (text[i] < '0' || text[i] > '9') throw bad();
      v = v * 10 + static_cast<unsigned>(text[i] - '0');
    }
    return v;
  };
  if (text[2] != ':' || text[5] != ':' || (text.size() == 12 && text[8] != '.')) throw bad();
  const unsigned h = digits(0, 2), m = digits(3, 2), sec = digits(6, 2), ms = text.size() == 12 ? digits(9, 3) : 0;
  if (h > 23 || m > 59 || sec > 59) throw bad();
  return ((std::uint64_t{h} * 60 + m) * 60 + sec) * 1000 + ms;
}

shuffle_kind parse_attack_algorithm(std::string_view text) {
  const shuffle_spec spec = parse_shuffle_spec(text);
  if (!spec.then.empty())
    throw std::invalid_argument(fmt::format(
        "attack replays one shuffle loop (asf1999, naive or fisher-yates), not the composition '{}'", printable(text)));
  if (spec.kind != shuffle_kind::asf1999 && spec.kind != shuffle_kind::naive && spec.kind != shuffle_kind::fisher_yates)
    throw std::invalid_argument(
        fmt::format("attack supports the algorithms asf1999, naive and fisher-yates, not {}", spec.name()));
  return spec.kind;
}

}  // namespace fairdeck
