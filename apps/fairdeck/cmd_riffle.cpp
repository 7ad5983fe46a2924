// fairdeck riffle: how many riffle shuffles mix a deck? The exact Bayer–Diaconis distances
// (total variation, separation) from uniform after K = 1..M Gilbert–Shannon–Reeds riffles,
// the first K under a threshold, and an SVG of the cut-off curve. docs/cli-riffle.md.
#include <cmath>
#include <cstdio>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/stats/power.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_riffle {
namespace {

using stats::riffle_detectability;
using stats::riffle_detectability_max_cards;
using stats::riffle_detectability_table;

struct riffle_options {
  deck_options deck;
  std::uint64_t n = 0;
  std::uint64_t max_shuffles = 20;
  double threshold = 0.5;
  bool json = false;
  std::string svg;
  std::uint64_t trials = 0;  // 0: no detectability columns
  double alpha = 1e-6;
  CLI::Option* n_opt = nullptr;
};

// First K whose distance is below the threshold, if any.
template <class Get>
std::optional<std::uint64_t> first_below(const std::vector<riffle_distance>& rows, double threshold, Get get) {
  for (const auto& r : rows)
    if (get(r) < threshold) return r.shuffles;
  return std::nullopt;
}

// A self-contained SVG: both distances against K, the threshold, and where TV crosses it.
std::string cutoff_svg(std::uint64_t n, const std::vector<riffle_distance>& rows, double threshold,
                       std::optional<std::uint64_t> tv_cut) {
  constexpr double width = 720, height = 440, left = 70, right = 150, top = 50, bottom = 60;
  const double plot_w = width - left - right, plot_h = height - top - bottom;
  const double kmax = static_cast<double>(rows.size());
  const auto x = [&](double k) { return left + (rows.size() > 1 ? (k - 1) / (kmax - 1) : 0.5) * plot_w; };
  const auto y = [&](double d) { return top + (1 - d) * plot_h; };
  const std::string title = fmt::format("Distance from uniform after K riffle shuffles of {} cards (exact)", n);
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<title>{2}</title>\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{3}\" y=\"28\" font-size=\"15\" font-weight=\"bold\">{2}</text>\n",
      width, height, title, left);
  for (int i = 0; i <= 10; ++i) {  // horizontal grid + y labels
    const double d = i / 10.0;
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#ddd\"/>"
                     "<text x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5:.1f}</text>\n",
                     left, left + plot_w, y(d), left - 8, y(d) + 4, d);
  }
  const std::uint64_t step = rows.size() > 25 ? (rows.size() + 19) / 20 : 1;
  for (std::uint64_t k = 1; k <= rows.size(); k += step) {  // vertical grid + K labels
    const double kx = x(static_cast<double>(k));
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#eee\"/>"
                     "<text x=\"{0:.1f}\" y=\"{3}\" text-anchor=\"middle\">{4}</text>\n",
                     kx, top, top + plot_h, top + plot_h + 18, k);
  }
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#333\"/>\n", left, top,
                   plot_w, plot_h);
  s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">riffle shuffles K</text>\n", left + plot_w / 2,
                   height - 15);
  s += fmt::format("<text x=\"20\" y=\"{0:.1f}\" text-anchor=\"middle\" transform=\"rotate(-90 20 {0:.1f})\">"
                   "distance from uniform</text>\n",
                   top + plot_h / 2);
  s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#888\" stroke-dasharray=\"6 4\"/>"
                   "<text x=\"{3}\" y=\"{4:.1f}\" fill=\"#555\">threshold {5}</text>\n",
                   left, left + plot_w, y(threshold), left + plot_w + 8, y(threshold) + 4, threshold);
  if (tv_cut) {
    const double cx = x(static_cast<double>(*tv_cut));
    s += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#1f77b4\" "
                     "stroke-dasharray=\"2 3\"/><text x=\"{3:.1f}\" y=\"{4}\" fill=\"#1f77b4\">TV &lt; {5} at K = {6}</text>\n",
                     cx, top, top + plot_h, cx + 4, top + plot_h - 8, threshold, *tv_cut);
  }
  const auto curve = [&](double (*get)(const riffle_distance&), const char* colour, const char* label, double legend_y) {
    std::string pts;
    for (const auto& r : rows) pts += fmt::format("{:.1f},{:.1f} ", x(static_cast<double>(r.shuffles)), y(get(r)));
    s += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"2\"/>\n", pts, colour);
    for (const auto& r : rows)
      s += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"><title>K = {}: {} {:.6f}</title></circle>\n",
                       x(static_cast<double>(r.shuffles)), y(get(r)), colour, r.shuffles, label, get(r));
    s += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2}\" y2=\"{2}\" stroke=\"{3}\" stroke-width=\"2\"/>"
                     "<text x=\"{4}\" y=\"{5}\">{6}</text>\n",
                     left + plot_w + 8, left + plot_w + 30, legend_y, colour, left + plot_w + 36, legend_y + 4, label);
  };
  curve([](const riffle_distance& r) { return r.total_variation; }, "#1f77b4", "total variation", top + 20);
  curve([](const riffle_distance& r) { return r.separation; }, "#ff7f0e", "separation", top + 40);
  s += "</svg>\n";
  return s;
}

std::uint64_t deck_size(const riffle_options& o, CLI::App& cmd) {
  const bool deck_given = cmd.get_option("--decks")->count() || cmd.get_option("--jokers")->count();
  if (o.n_opt->count()) {
    if (deck_given) throw usage_error("--n and --decks/--jokers both give the deck size; use one");
    if (o.n < 1 || o.n > riffle_mixing_max_cards)
      throw usage_error(fmt::format("--n {} is outside 1..{}", o.n, riffle_mixing_max_cards));
    return o.n;
  }
  const std::uint64_t n = o.deck.spec().size();
  if (n < 1 || n > riffle_mixing_max_cards)
    throw usage_error(fmt::format("--decks/--jokers give {} cards; the exact computation supports 1..{} ({} decks)", n,
                                  riffle_mixing_max_cards, riffle_mixing_max_cards / cards_per_deck));
  return n;
}

int run_riffle(const riffle_options& o, CLI::App& cmd) {
  const std::uint64_t n = deck_size(o, cmd);
  if (o.max_shuffles < 1 || o.max_shuffles > riffle_mixing_max_shuffles)
    throw usage_error(fmt::format("--max-shuffles {} is outside 1..{}", o.max_shuffles, riffle_mixing_max_shuffles));
  if (!(o.threshold > 0 && o.threshold < 1)) throw usage_error(fmt::format("--threshold {} is outside (0, 1)", o.threshold));
  if (!(o.alpha > 0 && o.alpha < 1)) throw usage_error(fmt::format("--alpha {} is outside (0, 1)", o.alpha));
  if (cmd.get_option("--trials")->count() && o.trials < 1) throw usage_error("--trials must be at least 1");
  if (o.trials && n > riffle_detectability_max_cards)
    throw usage_error(fmt::format("--trials needs at most {} cards (n = {})", riffle_detectability_max_cards, n));

  // --svg FILE is checked (temporary file created) before the computation.
  std::optional<safe_output> svg;
  if (cmd.get_option("--svg")->count()) svg.emplace(o.svg);
  std::vector<riffle_distance> rows;
  std::vector<riffle_detectability> seen;
  bool stopped = false;
  {
    progress_bar bar("exact riffle distances");
    const auto control = bar.control();
    rows = riffle_mixing(n, o.max_shuffles, control);
    if (o.trials && !control.stopped()) seen = riffle_detectability_table(n, o.max_shuffles, o.trials, o.alpha, control);
    stopped = control.stopped();
  }
  if (stopped) fmt::print(stderr, "fairdeck: interrupted: showing K = 1..{} of {}\n", rows.size(), o.max_shuffles);
  const auto tv_cut = first_below(rows, o.threshold, [](const riffle_distance& r) { return r.total_variation; });
  const auto sep_cut = first_below(rows, o.threshold, [](const riffle_distance& r) { return r.separation; });

  if (svg) {
    svg->write(cutoff_svg(n, rows, o.threshold, tv_cut));
    svg->commit();
  }

  if (o.json) {
    nlohmann::json tv = nlohmann::json::array(), sep = nlohmann::json::array();
    nlohmann::json tv_exact = nlohmann::json::array(), sep_exact = nlohmann::json::array();
    for (const auto& r : rows) {
      tv.push_back(r.total_variation);
      sep.push_back(r.separation);
      tv_exact.push_back(r.total_variation_digits);
      sep_exact.push_back(r.separation_digits);
    }
    const auto k_or_null = [](std::optional<std::uint64_t> k) { return k ? nlohmann::json(*k) : nlohmann::json(nullptr); };
    nlohmann::json out({{"n", n},
                {"model", "gilbert-shannon-reeds"},
                {"max_shuffles", o.max_shuffles},
                {"complete", !stopped},
                {"threshold", o.threshold},
                {"tv", tv},
                {"separation", sep},
                {"tv_exact", tv_exact},
                {"separation_exact", sep_exact},
                {"tv_below_threshold_at", k_or_null(tv_cut)},
                {"separation_below_threshold_at", k_or_null(sep_cut)}});
    if (!seen.empty()) {
      nlohmann::json bound = nlohmann::json::array(), power = nlohmann::json::array();
      for (const auto& d : seen) {
        bound.push_back(d.any_test_power_bound);
        power.push_back(d.rising_sequence_test_power);
      }
      out["trials"] = o.trials;
      out["alpha"] = o.alpha;
      out["any_test_power_bound"] = bound;
      out["rising_sequence_test_power"] = power;
    }
    print_json(out);
  } else {
    fmt::print("Exact distance from uniform after K Gilbert-Shannon-Reeds riffles of {} cards\n", n);
    fmt::print("(Bayer-Diaconis rising-sequence formula in exact integer arithmetic)\n\n");
    if (seen.empty()) {
      fmt::print("{:>4}  {:>15}  {:>12}\n", "K", "total variation", "separation");
      for (const auto& r : rows) {
        const auto bar = static_cast<std::size_t>(std::lround(r.total_variation * 30));
        fmt::print("{:>4}  {:>15.6f}  {:>12.6f}  {}\n", r.shuffles, r.total_variation, r.separation,
                   std::string(bar, '#'));
      }
    } else {
      fmt::print("Audit of {} shuffles at level {}: power of any test is at most the bound; the\n", o.trials, o.alpha);
      fmt::print("rising-sequence chi-squared test reaches the power shown (non-central chi-squared approximation)\n\n");
      fmt::print("{:>4}  {:>15}  {:>12}  {:>15}  {:>16}\n", "K", "total variation", "separation", "any test <=",
                 "rising-seq power");
      for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& r = rows[i];
        if (i < seen.size())
          fmt::print("{:>4}  {:>15.6f}  {:>12.6f}  {:>15.6f}  {:>16.6f}\n", r.shuffles, r.total_variation, r.separation,
                     seen[i].any_test_power_bound, seen[i].rising_sequence_test_power);
      }
    }
    fmt::print("\n");
    const auto say = [&](const char* what, std::optional<std::uint64_t> k) {
      if (k)
        fmt::print("{} first below {} after {} riffle{}\n", what, o.threshold, *k, *k == 1 ? "" : "s");
      else
        fmt::print("{} not below {} within {} riffles (raise --max-shuffles)\n", what, o.threshold, rows.size());
    };
    say("total variation", tv_cut);
    say("separation     ", sep_cut);
  }
  return stopped ? 130 : 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<riffle_options>();
  auto* cmd = app.add_subcommand("riffle", "Exact distance from uniform after K riffle shuffles: how many mix a deck?");
  add_deck_options(*cmd, o->deck);
  o->n_opt = cmd->add_option("--n", o->n, fmt::format("Number of cards, 1..{} (instead of --decks)", riffle_mixing_max_cards));
  cmd->add_option("--max-shuffles", o->max_shuffles, fmt::format("Largest K to compute, 1..{}", riffle_mixing_max_shuffles))
      ->capture_default_str();
  cmd->add_option("--threshold", o->threshold, "Report the first K whose distance is below this, in (0, 1)")
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli-riffle.md)");
  cmd->add_option("--trials", o->trials,
                  fmt::format("Also show what an audit of this many shuffles can detect (n <= {})",
                              riffle_detectability_max_cards));
  cmd->add_option("--alpha", o->alpha, "Significance level for --trials")->capture_default_str();
  cmd->add_option("--svg", o->svg, "Also write the cut-off curve (both distances against K) as an SVG file");
  cmd->callback([o, cmd, &exit_code] { exit_code = run_riffle(*o, *cmd); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_riffle

FAIRDECK_REGISTER_COMMAND(65, fairdeck::cli::cmd_riffle::setup)
