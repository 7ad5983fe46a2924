#include "fairdeck/security/attack.hpp"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <thread>

#include <fmt/format.h>

#include "fairdeck/security/internal/attack_kernel.hpp"

namespace fairdeck {
namespace {

using attack_detail::scan_plan;
using attack_detail::swap_step;

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

}  // namespace

void validate(const attack_spec& spec) {
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
  if (spec.deck_size < 2 || spec.deck_size > 0xffff)
    throw std::invalid_argument(fmt::format("deck size must be in [2, 65535], got {}", spec.deck_size));
  if (spec.known.empty()) throw std::invalid_argument("give at least one known card (--known POS=CARD or --hole)");
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
  if (spec.algorithm == shuffle_kind::asf1999) {
    // random(51)+1 never leaves the last card last: it is swapped away at step n-1.
    for (const auto& k : spec.known)
      if (k.position == spec.deck_size - 1 && k.card == spec.deck_size - 1)
        throw std::invalid_argument(fmt::format(
            "the asf1999 shuffle can never leave card {} at the bottom (position {}): no seed can match",
            format_card(k.card, deck_spec{}), k.position));
  }
  if (spec.first_seed > spec.last_seed)
    throw std::invalid_argument(fmt::format("seed range {}..{} is empty", spec.first_seed, spec.last_seed));
  const std::uint64_t limit = seed_space(spec.engine);
  if (limit && spec.last_seed >= limit)
    throw std::invalid_argument(fmt::format("engine {} has seeds 0..{} only (2^{}), but the range ends at {}", eng.name,
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
  visit_engine(es, 0, [&](auto& e) { apply_shuffle(shuffle_spec{algorithm, 0}, deck, e); });
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
  const std::vector<swap_step> steps = attack_detail::swap_steps(spec.algorithm, spec.deck_size);
  const known_card& k0 = spec.known[0];
  const known_card& k1 = spec.known.size() > 1 ? spec.known[1] : spec.known[0];
  const scan_plan plan{steps.data(), steps.size(), {k0.card, k1.card},
                       {static_cast<std::uint32_t>(k0.position), static_cast<std::uint32_t>(k1.position)}};
  const attack_detail::seed_scanner lanes = attack_detail::lane_scanner(spec.engine, steps.size());

  const std::uint64_t total = spec.last_seed - spec.first_seed + 1;
  const std::uint64_t chunks = (total + chunk_seeds - 1) / chunk_seeds;
  unsigned threads = spec.threads ? spec.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::uint64_t>(threads, chunks));

  std::atomic<std::uint64_t> next_chunk{0}, done{0}, match_count{0};
  std::mutex mu;  // guards `found` and serialises progress reports
  std::vector<std::uint64_t> found;

  auto worker = [&] {
    std::vector<std::uint64_t> candidates, mine;
    std::uint64_t my_matches = 0;
    for (;;) {
      if (control.stopped()) break;
      const std::uint64_t c = next_chunk.fetch_add(1, std::memory_order_relaxed);
      if (c >= chunks) break;
      const std::uint64_t first = spec.first_seed + c * chunk_seeds;
      const std::uint64_t count = std::min(chunk_seeds, total - c * chunk_seeds);
      candidates.clear();
      if (lanes)
        lanes(first, count, plan, candidates);
      else
        scan_scalar(spec, plan, first, count, candidates);
      for (std::uint64_t s : candidates) {
        // Every candidate is confirmed with the reference shuffle: the filter tracks only two
        // cards, and a lane model may pass a seed it could not follow (Java's rejection loop).
        if (!matches_all(deck_for_seed(spec.engine, spec.algorithm, s, spec.deck_size), spec.known)) continue;
        ++my_matches;
        mine.push_back(s);
      }
      if (mine.size() > 2 * spec.max_reported) trim(mine, spec.max_reported);
      const std::uint64_t d = done.fetch_add(count, std::memory_order_relaxed) + count;
      if (control.on_progress) {
        std::lock_guard lock(mu);
        control.progress(d, total);
      }
    }
    trim(mine, spec.max_reported);
    match_count.fetch_add(my_matches, std::memory_order_relaxed);
    std::lock_guard lock(mu);
    found.insert(found.end(), mine.begin(), mine.end());
  };

  if (threads <= 1) {
    worker();
  } else {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  }

  attack_result r;
  std::ranges::sort(found);
  if (found.size() > spec.max_reported) found.resize(spec.max_reported);
  r.seeds = std::move(found);
  r.matches = match_count.load();
  r.seeds_searched = done.load();
  r.complete = r.seeds_searched == total;
  r.threads = std::max(1u, threads);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_time).count();
  return r;
}

seed_range parse_seed_range(std::string_view text, engine_id engine) {
  const std::uint64_t limit = seed_space(engine);
  const auto name = info(engine).name;
  if (text == "day") return {0, ms_per_day - 1};
  if (text == "all32") return {0, (std::uint64_t{1} << 32) - 1};
  if (text == "all") {
    if (limit == 0 || limit > (std::uint64_t{1} << 32))
      throw std::invalid_argument(fmt::format(
          "engine {} has {} seeds: too many to search all; give a range --seeds A..B", name,
          limit ? fmt::format("2^{}", std::countr_zero(limit)) : std::string(info(engine).seed_bits == 48 ? "2^48" : "2^64")));
    return {0, limit - 1};
  }
  auto number = [&](std::string_view s) {
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc{} || p != s.data() + s.size())
      throw std::invalid_argument(
          fmt::format("--seeds '{}': '{}' is not a whole number (use A..B, day, all32 or all)", text, s));
    return v;
  };
  const auto dots = text.find("..");
  if (dots == std::string_view::npos) {
    const std::uint64_t v = number(text);
    return {v, v};
  }
  const seed_range r{number(text.substr(0, dots)), number(text.substr(dots + 2))};
  if (r.first > r.last) throw std::invalid_argument(fmt::format("--seeds '{}': the range is empty (A > B)", text));
  return r;
}

}  // namespace fairdeck
