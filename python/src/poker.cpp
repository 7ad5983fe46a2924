// fairdeck.evaluate (vectorised), fairdeck.equity and fairdeck.odds.
#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <thread>
#include <type_traits>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "common.hpp"
#include "fairdeck/poker/enumerate.hpp"
#include "fairdeck/poker/equity_plan.hpp"
#include "fairdeck/poker/hand_eval.hpp"
#include "fairdeck/poker/odds.hpp"
#include "fairdeck/poker/omaha.hpp"

namespace fairdeck::python {
namespace {

namespace fp = fairdeck::poker;

// ---- evaluate ----

// n card indices of type T into bytes; false if any is outside [0, 52) (a negative index
// becomes a huge unsigned one of T's width). Element-wise at T's width, so the compiler
// vectorises it for every T.
template <class T>
bool checked_bytes(const T* in, std::size_t n, std::uint8_t* c) {
  using U = std::make_unsigned_t<T>;
  U bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto v = static_cast<U>(in[i]);
    bad |= static_cast<U>(v > 51);
    c[i] = static_cast<std::uint8_t>(v);
  }
  return bad == 0;
}

// Whether the N cards of a row (each < 52) are distinct: a repeated card finds its bit set.
template <std::size_t N>
bool distinct(const std::uint8_t* c) {
  std::uint64_t mask = 0, seen = 0;
  for (std::size_t i = 0; i < N; ++i) {
    seen |= mask >> c[i];
    mask |= std::uint64_t{1} << c[i];
  }
  return (seen & 1) == 0;
}

// Hands of N cards of type T, rows [begin, end): strengths, or the first bad row. Rows are
// checked a block at a time into bytes; seven-card blocks go through eval7_batch (its vector
// kernels; bytes are its fastest input).
template <std::size_t N, class T>
std::optional<std::size_t> eval_rows(const T* in, std::uint16_t* out, std::size_t begin, std::size_t end) {
  const auto& ev = fp::hand_evaluator::instance();
  constexpr std::size_t block = 1024;
  std::array<std::uint8_t, N * block> bytes;
  for (std::size_t r = begin; r < end; r += block) {
    const std::size_t m = std::min(block, end - r);
    bool ok = checked_bytes(in + r * N, N * m, bytes.data());
    for (std::size_t j = 0; j < m; ++j) ok &= distinct<N>(bytes.data() + N * j);
    if (!ok) {  // the first bad row
      for (std::size_t j = 0; j < m; ++j) {
        const std::uint8_t* row = bytes.data() + N * j;
        if (!checked_bytes(in + (r + j) * N, N, bytes.data() + N * j) || !distinct<N>(row)) return r + j;
      }
    }
    if constexpr (N == 7) {
      ev.eval7_batch(bytes.data(), m, out + r);
    } else {
      for (std::size_t j = 0; j < m; ++j) out[r + j] = ev.eval<N>(bytes.data() + N * j);
    }
  }
  return std::nullopt;
}

template <class T>
std::optional<std::size_t> eval_all(const T* in, std::uint16_t* out, std::size_t rows, std::size_t k, unsigned threads) {
  auto run = [&](std::size_t b, std::size_t e) -> std::optional<std::size_t> {
    switch (k) {
      case 5: return eval_rows<5>(in, out, b, e);
      case 6: return eval_rows<6>(in, out, b, e);
      default: return eval_rows<7>(in, out, b, e);
    }
  };
  (void)fp::hand_evaluator::instance();  // build the tables once, before the threads start
  if (threads <= 1 || rows < (std::size_t{1} << 16)) return run(0, rows);
  std::vector<std::optional<std::size_t>> bad(threads);
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&, t] { bad[t] = run(rows * t / threads, rows * (t + 1) / threads); });
  }
  for (const auto& b : bad)
    if (b) return b;
  return std::nullopt;
}

// The library's own message for a bad hand (negative indices are not card_t values).
[[noreturn]] void bad_hand(const py::array& a, std::size_t row, std::size_t k, std::size_t rows) {
  std::vector<card_t> cards;
  const py::array flat = a.attr("reshape")(py::make_tuple(static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(k)));
  for (std::size_t i = 0; i < k; ++i) {
    const long long v = flat.attr("__getitem__")(py::make_tuple(row, i)).cast<long long>();
    if (v < 0 || v > 0xffff) throw std::invalid_argument(fmt::format("hand {}: evaluate: card index {} is not in a 52-card deck", row, v));
    cards.push_back(static_cast<card_t>(v));
  }
  try {
    (void)fp::evaluate(cards);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("hand {}: {}", row, e.what()));
  }
  throw std::logic_error("evaluate: a hand was rejected but the library accepts it");
}

template <class T>
py::object evaluate_typed(const py::array& arr, unsigned threads) {
  const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(arr);
  if (!a) throw py::error_already_set();
  const std::size_t k = static_cast<std::size_t>(a.shape(a.ndim() - 1));
  const std::size_t rows = k ? static_cast<std::size_t>(a.size()) / k : 0;
  std::vector<py::ssize_t> shape(a.shape(), a.shape() + a.ndim() - 1);
  py::array_t<std::uint16_t> out(shape);
  const T* in = a.data();
  std::uint16_t* o = out.mutable_data();
  std::optional<std::size_t> bad;
  {
    const py::gil_scoped_release nogil;
    bad = eval_all(in, o, rows, k, threads);
  }
  if (bad) bad_hand(a, *bad, k, rows);
  if (out.ndim() == 0) return py::int_(o[0]);
  return out;
}

py::object evaluate(const py::object& cards, std::optional<long long> threads_opt) {
  if (py::isinstance<py::str>(cards)) return py::int_(fp::evaluate(fp::parse_card_run(cards.cast<std::string>())));
  unsigned threads = thread_count(threads_opt);
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  py::array a = py::array::ensure(cards);
  if (!a) throw py::type_error("evaluate needs card indices (an integer array of shape (..., 5..7)) or a string of cards");
  if (a.dtype().kind() == 'U' || a.dtype().kind() == 'O') {  // names: ["Ah", "Kh", ...] or rows of them
    if (a.ndim() == 1) return py::int_(fp::evaluate(cards_from_python(cards)));
    throw py::type_error("evaluate: give card indices as integers for arrays of hands (fairdeck.parse_cards converts names)");
  }
  if (a.dtype().kind() != 'i' && a.dtype().kind() != 'u')
    throw py::type_error(fmt::format("evaluate: card indices must be integers, not dtype {}", py::str(a.dtype()).cast<std::string>()));
  if (a.ndim() == 0) throw std::invalid_argument("evaluate: give 5 to 7 cards per hand (the last axis)");
  const auto k = a.shape(a.ndim() - 1);
  if (k < 5 || k > 7) throw std::invalid_argument(fmt::format("evaluate: a poker hand has 5 to 7 cards, got {}", k));
  switch (a.itemsize()) {
    case 1: return a.dtype().kind() == 'u' ? evaluate_typed<std::uint8_t>(a, threads) : evaluate_typed<std::int8_t>(a, threads);
    case 2: return a.dtype().kind() == 'u' ? evaluate_typed<std::uint16_t>(a, threads) : evaluate_typed<std::int16_t>(a, threads);
    case 4: return a.dtype().kind() == 'u' ? evaluate_typed<std::uint32_t>(a, threads) : evaluate_typed<std::int32_t>(a, threads);
    default: return a.dtype().kind() == 'u' ? evaluate_typed<std::uint64_t>(a, threads) : evaluate_typed<std::int64_t>(a, threads);
  }
}

// ---- equity (the library's plan, poker/equity_plan.hpp, as `fairdeck equity` runs it) ----

py::dict engine_dict(const engine_spec& spec) {
  py::dict d;
  d["name"] = std::string(info(spec.id).name);
  d["secure"] = spec.secure();
  d["reproducible"] = spec.reproducible();
  if (spec.reproducible() && !spec.key) d["seed"] = spec.seed;
  return d;
}

std::vector<card_t> known_cards(const py::object& obj, const char* what) {
  try {
    if (obj.is_none()) return {};
    if (py::isinstance<py::str>(obj)) return fp::parse_card_run(obj.cast<std::string>());
    return cards_from_python(obj);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(fmt::format("{}: {}", what, e.what()));
  }
}

// The plan's problems in the keyword arguments' terms.
[[noreturn]] void refuse(fp::equity_problem problem, std::size_t players, double work) {
  switch (problem) {
    case fp::equity_problem::player_count:
      throw std::invalid_argument(fmt::format("equity needs {} to {} hands or ranges, got {}", fp::equity_min_players,
                                              fp::equity_max_players, players));
    case fp::equity_problem::exact_and_trials: throw std::invalid_argument("exact=True and trials exclude each other");
    case fp::equity_problem::zero_trials: throw std::invalid_argument("trials must be at least 1");
    case fp::equity_problem::exact_too_costly:
      throw std::invalid_argument(fmt::format("exact enumeration would need about {:.2g} hand evaluations (limit {:.0g}); "
                                              "use exact=None or False for Monte Carlo",
                                              work, fp::max_exact_work));
  }
  throw std::logic_error("equity: unknown problem");
}

py::dict equity(const std::vector<std::string>& hands, const py::object& board, const py::object& dead,
                std::optional<bool> exact_opt, std::optional<std::uint64_t> trials_opt, const py::object& engine,
                std::optional<long long> threads_opt, const std::string& game) {
  const unsigned threads = thread_count(threads_opt);
  fp::equity_request rq;
  rq.hands = hands;
  rq.exact = !exact_opt ? fp::exact_mode::automatic : *exact_opt ? fp::exact_mode::always : fp::exact_mode::never;
  rq.trials = trials_opt;
  if (const auto problem = fp::equity_request_problem(rq)) refuse(*problem, hands.size(), 0);
  const auto g = fp::find_equity_game(game);
  if (!g) {
    std::string names;
    for (const auto n : fp::equity_game_names()) names += fmt::format("{}{}", names.empty() ? "" : ", ", n);
    throw std::invalid_argument(fmt::format("unknown game '{}' ({})", game, names));
  }
  rq.game = *g;
  rq.board = known_cards(board, "board");
  rq.dead = known_cards(dead, "dead");
  const fp::equity_plan pl = fp::plan_equity(rq);
  if (pl.problem) refuse(*pl.problem, hands.size(), pl.work);
  const bool exact = pl.exact;
  const bool omaha = pl.is_omaha();
  const auto& in = pl.holdem;
  std::optional<engine_spec> eng;
  if (!exact) eng = next_spec(engine);
  const fp::equity_result r = interruptible([&](const run_control& rc) { return fp::run_equity(pl, eng, threads, rc); });
  const bool weighted = pl.weighted();
  py::list players;
  for (std::size_t p = 0; p < hands.size(); ++p) {
    const auto& t = r.players[p];
    py::dict pj;
    pj["hand"] = hands[p];
    pj["combos"] = pl.combos(p);
    pj["wins"] = t.wins;
    pj["ties"] = t.ties;
    pj["win"] = fp::win_fraction(r, p);
    pj["tie"] = fp::tie_fraction(r, p);
    pj["equity"] = fp::equity_share(r, p);
    if (weighted) pj["weights"] = pl.combo_weight(p);
    if (!exact) {
      pj["stderr"] = fp::equity_stderr(r, p);
      const auto wi = fp::clopper_pearson(t.wins, r.outcomes);
      pj["win_ci_low"] = wi.low;
      pj["win_ci_high"] = wi.high;
      const auto ei = fp::equity_interval(r, p);
      pj["equity_ci_low"] = ei.low;
      pj["equity_ci_high"] = ei.high;
    }
    players.append(pj);
  }
  py::dict j;
  j["method"] = exact ? "exact" : "monte_carlo";
  j["board"] = card_names(in.board, {});
  j["dead"] = card_names(in.dead, {});
  j["outcomes"] = r.outcomes;
  j["complete"] = r.complete;
  j["players"] = players;
  if (weighted) j["weights"] = true;
  if (omaha) j["game"] = game;
  if (exact) {
    j["assignments"] = r.assignments;
  } else {
    j["trials"] = r.outcomes;
    j["engine"] = engine_dict(*eng);
  }
  return j;
}

// ---- odds (cmd_odds.cpp) ----

py::dict odds(unsigned cards, bool exact, std::optional<std::uint64_t> trials_opt, const py::object& engine,
              std::optional<long long> threads_opt) {
  const unsigned threads = thread_count(threads_opt);
  if (cards < 5 || cards > 7) throw std::invalid_argument(fmt::format("cards must be 5, 6 or 7, got {}", cards));
  if (exact && (trials_opt || !engine.is_none()))
    throw std::invalid_argument("exact=True enumerates every hand; trials and engine do not apply");
  const std::uint64_t trials = trials_opt.value_or(10'000'000);
  if (!exact && trials == 0) throw std::invalid_argument("trials must be at least 1");
  std::optional<engine_spec> eng;
  if (!exact) eng = next_spec(engine);
  const auto [counts, truth] = interruptible([&](const run_control& rc) {
    const fp::category_counts c = exact ? fp::exact_category_counts(cards, threads, rc)
                                        : fp::sample_category_counts(cards, trials, *eng, threads, rc);
    return std::pair{c, exact ? c : fp::exact_category_counts(cards, threads, rc)};
  });
  const double all = static_cast<double>(fp::choose(52, cards));
  const double n = static_cast<double>(counts.hands);
  py::dict cats;  // best first, as the CLI prints them
  for (unsigned i = 0; i < fp::category_count; ++i) {
    const auto c = static_cast<fp::hand_category>(fp::category_count - 1 - i);
    const auto k = counts.count[static_cast<unsigned>(c)];
    const double p = n > 0 ? static_cast<double>(k) / n : 0.0;
    const auto ci = exact ? fp::proportion_interval{p, p} : fp::clopper_pearson(k, counts.hands);
    py::dict d;
    d["count"] = k;
    d["probability"] = p;
    d["ci_low"] = ci.low;
    d["ci_high"] = ci.high;
    d["exact_probability"] = static_cast<double>(truth.count[static_cast<unsigned>(c)]) / all;
    cats[py::str(std::string(fp::category_key(c)))] = d;
  }
  py::dict j;
  j["cards"] = cards;
  j["trials"] = counts.hands;
  j["method"] = exact ? "exact" : "monte_carlo";
  j["complete"] = counts.complete;
  j["categories"] = cats;
  if (eng) j["engine"] = engine_dict(*eng);
  return j;
}

}  // namespace

void register_poker(py::module_& m) {
  m.def("evaluate", &evaluate, py::arg("cards"), py::arg("threads") = py::none(), R"doc(
Poker hand strength of 5, 6 or 7 cards (best five count): higher wins, equal splits.

cards: an integer array of shape (..., k), 5 <= k <= 7, of card indices (any integer dtype;
returns a uint16 array of shape (...)), or one hand as a string "AhKhQhJhTh" / a list of names
(returns an int). strength >> 12 is the category (fairdeck.CATEGORIES: 0 high card ..
8 straight flush); 7462 distinct values, as many as distinct 5-card hands. Every hand is
checked (distinct cards in 0..51; ValueError names the first bad hand). Large arrays are
evaluated on all cores without the GIL (OMPEval-style perfect-hash tables).
)doc");
  m.def("equity", &equity, py::arg("hands"), py::arg("board") = py::none(), py::arg("dead") = py::none(),
        py::arg("exact") = py::none(), py::arg("trials") = py::none(), py::arg("engine") = py::none(),
        py::arg("threads") = py::none(), py::arg("game") = "holdem", R"doc(
Hold'em (or Omaha) equity of 2..10 hands or ranges, as `fairdeck equity --json`.

hands: "AhKh", "QQ+", "AKs", "A5s-A2s", "random", weighted "AA@50", "15%"... board, dead:
card text or lists. exact=None enumerates when it is cheap (as the CLI does), True always
(ValueError beyond 1e12 evaluations), False uses Monte Carlo with `trials` deals (default
1e6) on `engine` (the same numbers as the CLI for the engine's first use). Returns a dict
with the CLI's JSON keys: method, board, dead, outcomes, complete, players (hand, combos,
wins, ties, win, tie, equity; Monte Carlo adds stderr, win_ci_low/high and the 95%
equity interval equity_ci_low/high). Never dependent on
`threads`. GIL released; Ctrl-C stops it.
)doc");
  m.def("odds", &odds, py::arg("cards") = 7, py::arg("exact") = false, py::arg("trials") = py::none(),
        py::arg("engine") = py::none(), py::arg("threads") = py::none(), R"doc(
How often each poker category appears among random k-card hands (k = 5, 6, 7), as
`fairdeck odds --json`: exact=True counts all C(52, k) hands; otherwise Monte Carlo over
`trials` hands (default 1e7) with Clopper-Pearson 95% intervals beside the exact value.
GIL released; Ctrl-C stops it.
)doc");
  py::list cats;
  for (unsigned i = 0; i < fp::category_count; ++i) cats.append(std::string(fp::category_key(static_cast<fp::hand_category>(i))));
  m.attr("CATEGORIES") = py::tuple(cats);
}

}  // namespace fairdeck::python
