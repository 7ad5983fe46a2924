// fairdeck audit: is a shuffle fair? Shuffles fresh decks with each algorithm x engine
// (or reads decks from another system with --input), runs the calibrated tests of
// fairdeck/stats and reports a verdict per pair: table, --json, --html.
#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <variant>

#include <unistd.h>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/runtimes/algorithm.hpp"
#include "fairdeck/runtimes/audit.hpp"
#include "fairdeck/runtimes/seed_range.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_audit {
namespace {

// Default deals per pair: about a minute for the default set on 2 cores, and thousands of
// times the 2,000 deals that already expose naive and asf1999.
constexpr std::uint64_t default_trials = 4'000'000;
constexpr std::uint64_t max_trials = 1'000'000'000'000ULL;

struct audit_options {
  deck_options deck;
  std::vector<std::string> algorithms, engines;
  std::uint64_t seed = 0;
  std::size_t cards = 0;
  std::uint64_t trials = default_trials;
  unsigned threads = 0;
  double alpha = 1e-4;
  bool json = false;
  std::string html, input, format = "auto", before;
  CLI::Option *seed_opt = nullptr, *cards_opt = nullptr, *format_opt = nullptr, *html_opt = nullptr;
};

// --html FILE, checked (and its temporary file created) before the long audit starts.
std::optional<safe_output> open_html(const audit_options& o) {
  if (!o.html_opt->count()) return std::nullopt;
  std::vector<std::string> inputs;
  if (!o.input.empty()) inputs.push_back(o.input);
  return std::optional<safe_output>(std::in_place, o.html, inputs);
}

// A fresh audit seed that every named engine accepts: a legacy engine's seeds stop at its
// seed_limit (2^32 for srand, 2^31 for .NET), so the draw is uniform below the smallest limit.
// `limit` (0: none) bounds it further, e.g. for runtime shuffles (runtime_info::max_seed + 1).
std::uint64_t fresh_audit_seed(const std::vector<std::string>& engines, std::uint64_t limit = 0) {
  for (const auto& name : engines)
    for (const auto& e : engine_catalog())
      if (e.name == name && e.seed_limit && (limit == 0 || e.seed_limit < limit)) limit = e.seed_limit;
  for (;;) {  // rejection: uniform below limit
    std::uint64_t seed = 0;
    os_entropy(std::as_writable_bytes(std::span(&seed, 1)));
    if (limit == 0) return seed;
    if (seed < std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % limit)
      return seed % limit;
  }
}

// What to audit: the named (catalogued) algorithms x named engines; with neither, every
// catalogued algorithm on chacha20 plus fisher-yates on every other seeded engine.
std::vector<stats::audit_subject> subjects(std::vector<shuffle_spec> algos, const audit_options& o, std::uint64_t seed) {
  auto engine = [&](std::string_view name) {
    if (name == "secure")
      fmt::print(stderr, "fairdeck: note: engine secure is keyed from OS entropy: its counts cannot be reproduced\n");
    return labelled("--engine", [&] {
      return make_engine_spec(name, name == "secure" ? std::nullopt : std::optional(seed), std::nullopt);
    });
  };
  std::vector<stats::audit_subject> out;
  if (algos.empty() && o.engines.empty()) {
    for (const auto& a : default_audit_algorithms()) out.push_back({a, engine("chacha20")});
    const shuffle_spec fisher_yates_spec{};  // default-constructed spec is fisher-yates
    for (const auto& e : engine_catalog())
      if (e.id != engine_id::secure && e.id != engine_id::chacha20 && !e.legacy)  // legacy: ask with --engine
        out.push_back({fisher_yates_spec, engine(e.name)});
    return out;
  }
  if (algos.empty()) algos.emplace_back();  // fisher-yates
  std::vector<std::string> engines = o.engines;
  if (engines.empty()) engines.emplace_back("chacha20");
  for (const auto& a : algos)
    for (const auto& e : engines) out.push_back({a, engine(e)});
  return out;
}

// --algorithm names of runtime shuffles (php, python, ...: fairdeck/runtimes) bring their own
// generator: they are audited apart from the catalogue's algorithm x engine pairs.
struct runtime_audits {
  std::vector<runtimes::runtime_id> ids;
  std::vector<shuffle_spec> others;  // the remaining --algorithm values
  [[nodiscard]] std::uint64_t min_seed() const {  // node: 1 (--random_seed=0 is unseeded)
    std::uint64_t m = 0;
    for (auto id : ids) m = std::max(m, runtimes::min_seed(id));
    return m;
  }
  [[nodiscard]] std::uint64_t seed_limit() const {  // 0: every 64-bit seed
    std::uint64_t limit = 0;
    for (auto id : ids) {
      const std::uint64_t l = runtimes::info(id).max_seed + 1;  // wraps to 0 for 2^64-1
      if (l != 0 && (limit == 0 || l < limit)) limit = l;
    }
    return limit;
  }
};

runtime_audits split_runtimes(const audit_options& o) {
  runtime_audits r;
  for (const auto& a : o.algorithms) {
    auto choice = labelled("--algorithm", [&] { return runtimes::resolve_algorithm(a); });
    if (const auto* id = std::get_if<runtimes::runtime_id>(&choice))
      r.ids.push_back(*id);
    else
      r.others.push_back(std::move(std::get<shuffle_spec>(choice)));
  }
  if (!r.ids.empty() && !o.engines.empty())
    throw usage_error(fmt::format("--engine does not apply to --algorithm {}: a runtime shuffle brings its own generator",
                                  runtimes::info(r.ids.front()).name));
  return r;
}

// Appends one audit per runtime; stops after one cut short by Ctrl-C.
void audit_runtimes(const runtime_audits& rts, std::uint64_t seed, const stats::audit_settings& s,
                    std::vector<stats::audit_result>& results) {
  for (auto id : rts.ids) {
    const auto& inf = runtimes::info(id);
    fmt::print(stderr, "fairdeck: note: --algorithm {} deals every deck in turn from one generator, as {} runs `{}` "
                       "with S = {}: reproducible and not secure\n", inf.name, inf.runtime, inf.code, seed);
    progress_bar bar(fmt::format("auditing {}", inf.name));
    results.push_back(runtimes::audit_runtime(id, seed, s, bar.control()));
    if (!results.back().complete) return;
  }
}

void emit(const std::vector<stats::audit_result>& results, const audit_run_info& run, const audit_options& o,
          std::optional<safe_output>& html) {
  if (html) {
    std::ostringstream page;
    write_audit_html(page, results, run);
    html->write(page.view());
    html->commit();
  }
  if (o.json)
    print_json(audit_json(results, run));
  else
    print_audit_table(results, run);
}

// Exit status: 0 exactly when every verdict is the expected one (JSON as_expected), 3 when
// one differs (a fair catalogue algorithm or external input found biased, or a broken
// reference shuffle not caught), 4 when the input is too small for a verdict (some test
// needs more decks: "too little data", as certify's `invalid`), 130 interrupted (partial
// report printed).
int run_input_audit(const audit_options& o) {
  stats::input_settings s;
  s.format = labelled("--format", [&] { return stats::parse_deck_format(o.format); });
  s.deck = o.deck.spec();
  if (o.cards_opt->count()) s.cards = o.cards;
  s.alpha = o.alpha;
  s.label = o.input == "-" ? "stdin" : o.input;
  s.machine_tests = true;  // guessing, turning points, colour changes (stats/machine.hpp)
  s.shoe = s.deck.decks > 1;  // a recorded shoe: copies of a card are indistinguishable
  if (s.shoe && s.deck.jokers > 0) throw usage_error("--decks with --input reads shoes without jokers: drop --jokers");
  if (s.shoe && o.cards_opt->count()) throw usage_error("--n does not apply to a shoe (--decks with --input): a shoe is audited whole");
  std::ifstream file;
  if (o.input != "-") {
    errno = 0;
    file.open(o.input, std::ios::binary);
    if (!file) throw usage_error(fmt::format("cannot open input file '{}': {}", o.input, std::strerror(errno)));
    if (std::error_code ec; std::filesystem::is_directory(o.input, ec))
      throw usage_error(fmt::format("cannot read input file '{}': {}", o.input, std::strerror(EISDIR)));
  }
  std::istream& in = o.input == "-" ? std::cin : file;
  std::ifstream before;  // --before FILE: the order each deck went in (stats/machine.hpp)
  if (!o.before.empty()) {
    errno = 0;
    before.open(o.before, std::ios::binary);
    if (!before || std::filesystem::is_directory(o.before))
      throw usage_error(fmt::format("cannot open --before file '{}': {}", o.before, std::strerror(errno ? errno : EISDIR)));
    s.before = &before;
  }
  if (o.input == "-" && ::isatty(STDIN_FILENO) == 1)
    fmt::print(stderr, "fairdeck: reading decks from the terminal, one per line; end with Ctrl-D (or pipe them in: "
                       "some-shuffler | fairdeck audit --input -)\n");
  auto html = open_html(o);
  std::vector<stats::audit_result> results;
  {
    progress_bar bar("reading decks");
    try {
      results.push_back(stats::audit_stream(in, s, bar.control()));
    } catch (const stats::deck_input_error& e) {
      throw std::runtime_error(e.what());  // bad data, not bad usage: exit 1
    }
  }
  const audit_run_info run{std::nullopt, o.alpha, "input", 1, !results.front().complete, o.html};
  emit(results, run, o, html);
  if (run.interrupted) return 130;
  if (too_little_data(results.front())) return 4;
  return all_as_expected(results) ? 0 : 3;
}

int run_audit(const audit_options& o) {
  if (!(o.alpha > 0 && o.alpha < 1)) throw usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o.alpha));
  if (!o.input.empty()) return run_input_audit(o);
  if (o.format_opt->count()) throw usage_error("--format applies only to --input");
  if (o.trials < 1 || o.trials > max_trials) throw usage_error(fmt::format("--trials must be 1..{}", max_trials));

  stats::audit_settings s;
  s.deck = o.deck.spec();
  if (o.cards_opt->count()) s.cards = o.cards;
  s.trials = o.trials;
  s.threads = o.threads;
  s.alpha = o.alpha;
  const std::size_t n = labelled("--n", [&] { return stats::audited_cards(s).size(); });
  const runtime_audits rts = split_runtimes(o);
  std::uint64_t seed = o.seed;
  const bool seeded = o.engines.empty() || std::any_of(o.engines.begin(), o.engines.end(),
                                                       [](const std::string& e) { return e != "secure"; });
  if (!o.seed_opt->count() && seeded) {  // fresh, and printed so the run can be repeated
    do seed = fresh_audit_seed(o.engines, rts.seed_limit());
    while (seed < rts.min_seed());
    fmt::print(stderr, "fairdeck: note: audit seed {} (repeat with --seed {})\n", seed, seed);
  }
  for (auto id : rts.ids)  // fail before any work when a runtime refuses the seed
    (void)labelled("--seed", [&] { return runtimes::runtime_shuffler(id, seed); });
  const auto subj = rts.ids.empty() || !rts.others.empty() ? subjects(rts.others, o, seed) : std::vector<stats::audit_subject>{};
  for (const auto& sub : subj) {  // fail before any work when a pair cannot run
    try {
      (void)stats::count_deals(sub, n, 0, 1);
    } catch (const std::invalid_argument& e) {
      throw usage_error(fmt::format("{}: {}", sub.algorithm.name(), e.what()));
    }
  }
  auto html = open_html(o);
  std::vector<stats::audit_result> results;
  if (!subj.empty()) {
    progress_bar bar(fmt::format("auditing {} pairs", subj.size()));
    results = stats::run_audit(subj, s, bar.control());
  }
  const std::size_t planned = subj.size() + rts.ids.size();
  if (results.size() == subj.size() && (results.empty() || results.back().complete)) audit_runtimes(rts, seed, s, results);
  const bool interrupted = results.size() < planned || (!results.empty() && !results.back().complete);
  const audit_run_info run{seeded ? std::optional(seed) : std::nullopt, o.alpha, "simulation", planned, interrupted,
                           o.html};
  emit(results, run, o, html);
  if (interrupted) return 130;
  return all_as_expected(results) ? 0 : 3;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<audit_options>();
  auto* cmd = app.add_subcommand("audit", "Statistical fairness audit of shuffles and engines (docs/audit.md)");
  add_deck_options(*cmd, o->deck);
  std::string algos, engines;
  for (const auto& a : shuffle_catalog())
    algos += fmt::format("{}{}{}", algos.empty() ? "" : ", ", a.name, a.takes_param ? "[:K]" : "");
  for (const auto& e : engine_catalog()) engines += fmt::format("{}{}", engines.empty() ? "" : ", ", e.name);
  std::string runtime_names;
  for (const auto& r : runtimes::runtime_catalog()) runtime_names += fmt::format("{}{}", runtime_names.empty() ? "" : ", ", r.name);
  cmd->add_option("--algorithm", o->algorithms,
                  fmt::format("Algorithm(s) to audit, repeatable: {} (default: all); or the shuffle a runtime ships, "
                              "dealing from its own generator seeded with --seed: {}", algos, runtime_names));
  cmd->add_option("--engine", o->engines, fmt::format("Engine(s), repeatable: {} (default chacha20)", engines));
  o->seed_opt = cmd->add_option("--seed", o->seed, "64-bit seed for every seeded engine (default: fresh, printed)");
  o->cards_opt = cmd->add_option("--n", o->cards, "Audit only the first N cards of the deck (N <= 8 also counts all N! orders)");
  cmd->add_option("--trials", o->trials, "Deals per algorithm x engine pair")->capture_default_str();
  add_threads_option(*cmd, o->threads, "Worker threads (0: one per core); never changes the result");
  cmd->add_option("--alpha", o->alpha, "False 'biased' rate per pair; Bonferroni over its tests")->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-audit.md)");
  o->html_opt = cmd->add_option("--html", o->html, "Also write a self-contained HTML report to FILE");
  auto* input = cmd->add_option("--input", o->input,
                                "Audit decks read from FILE ('-': stdin), one deck per line; with --decks D >= 2, shoes of "
                                "52 D cards whose copies are indistinguishable (each card D times)");
  o->format_opt = cmd->add_option("--format", o->format, "Input format: auto, text (card names) or indices (0..n-1)")
                      ->capture_default_str();
  for (const char* name : {"--algorithm", "--engine", "--seed", "--trials", "--threads"}) input->excludes(name);
  cmd->add_option("--before", o->before,
                  "With --input: the order each deck went in, one per line in the input's format (default: new-deck order)")
      ->needs(input);
  cmd->callback([o, &exit_code] { exit_code = run_audit(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_audit

FAIRDECK_REGISTER_COMMAND(40, fairdeck::cli::cmd_audit::setup)
