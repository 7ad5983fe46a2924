// `fairdeck audit --html`: one self-contained page (inline CSS and SVG, no scripts, no
// network). Per audited pair: the verdict in plain words, a position x card heat map
// coloured by observed/expected on a log scale around 1/n (after Mike Bostock's "Will It
// Shuffle?"), first-card/suit/rank bars and the test table.
#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include <fmt/format.h>

#include "fairdeck/report/audit.hpp"
#include "fairdeck/shuffle/mixing.hpp"
#include "fairdeck/stats/machine.hpp"

namespace fairdeck::report {
namespace {

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// Diverging colour for observed/expected: blue below, white at 1, red above; log2 scale
// saturating at half / double.
std::string ratio_colour(double ratio) {
  const double v = std::clamp(std::log2(std::max(ratio, 1e-9)), -1.0, 1.0);
  const auto mix = [](double from, double to, double t) { return static_cast<int>(std::lround(from + (to - from) * t)); };
  const double t = std::abs(v);
  if (v >= 0) return fmt::format("#{:02x}{:02x}{:02x}", mix(255, 178, t), mix(255, 24, t), mix(255, 43, t));
  return fmt::format("#{:02x}{:02x}{:02x}", mix(255, 33, t), mix(255, 102, t), mix(255, 172, t));
}

// Heat map of position (rows, top card first) x card (columns, canonical order). Decks over
// 104 cards are shown in blocks so the page stays small.
std::string heat_map(const stats::audit_result& r) {
  const std::size_t n = r.counts.n;
  const std::size_t block = (n + 103) / 104, cells = (n + block - 1) / block;
  const double side = 416, cell = side / static_cast<double>(cells), margin = 36, top = 30;
  const double expected = static_cast<double>(r.counts.trials) / static_cast<double>(n);
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\" "
      "aria-label=\"position by card heat map\">\n",
      side + margin + 8, side + margin + top + 44);
  svg += fmt::format("<text x=\"{}\" y=\"12\" class=\"axis\">card (canonical order) &#8594;</text>\n", margin);
  svg += fmt::format("<text x=\"10\" y=\"{}\" class=\"axis\" transform=\"rotate(-90 10 {})\">&#8592; position (top = 0)</text>\n",
                     margin + side + top, margin + side + top);
  svg += fmt::format("<g transform=\"translate({},{})\">\n", margin, margin - 14 + top);
  // Tick labels, printed (not only hover titles): cards along the top, positions down the side.
  const std::size_t card_every = cells <= 52 ? 1 : cells / 26;
  for (std::size_t bc = 0; bc < cells; bc += card_every) {
    const double x = (static_cast<double>(bc) + 0.5) * cell;
    svg += fmt::format("<text class=\"tick small\" transform=\"translate({:.2f},-3) rotate(-90)\">{}</text>", x + 2.5,
                       escape(format_card(r.cards[bc * block], r.deck)));
  }
  const std::size_t pos_every = std::max<std::size_t>(1, (cells + 12) / 13);
  for (std::size_t bp = 0; bp < cells; bp += pos_every)
    svg += fmt::format("<text class=\"tick small\" x=\"-3\" y=\"{:.2f}\" text-anchor=\"end\">{}</text>",
                       (static_cast<double>(bp) + 0.5) * cell + 3, bp * block);
  svg += '\n';
  for (std::size_t bp = 0; bp < cells; ++bp)
    for (std::size_t bc = 0; bc < cells; ++bc) {
      double sum = 0, count = 0;
      for (std::size_t p = bp * block; p < std::min(n, (bp + 1) * block); ++p)
        for (std::size_t c = bc * block; c < std::min(n, (bc + 1) * block); ++c) {
          sum += static_cast<double>(r.counts.at(p, c));
          count += 1;
        }
      const double ratio = expected > 0 ? sum / count / expected : 1;
      svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"><title>position {} card {}: "
                         "{:.3f} x expected</title></rect>\n",
                         static_cast<double>(bc) * cell, static_cast<double>(bp) * cell, cell + 0.05, cell + 0.05,
                         ratio_colour(ratio), bp * block, escape(format_card(r.cards[bc * block], r.deck)), ratio);
    }
  svg += fmt::format("<rect x=\"0\" y=\"0\" width=\"{0}\" height=\"{0}\" fill=\"none\" stroke=\"#888\"/>\n</g>\n", side);
  // Legend: 0.5x .. 1x .. 2x.
  const double ly = side + margin + top + 2, lw = 240;
  for (int i = 0; i < 48; ++i) {
    const double v = -1 + 2.0 * (i + 0.5) / 48;
    svg += fmt::format("<rect x=\"{:.1f}\" y=\"{}\" width=\"{:.2f}\" height=\"10\" fill=\"{}\"/>", margin + i * lw / 48, ly,
                       lw / 48 + 0.05, ratio_colour(std::exp2(v)));
  }
  svg += fmt::format("\n<text x=\"{}\" y=\"{}\" class=\"tick\">&#189;&#215; expected</text>"
                     "<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">1/{}</text>"
                     "<text x=\"{}\" y=\"{}\" class=\"tick\" text-anchor=\"end\">2&#215;</text>\n</svg>\n",
                     margin, ly + 24, margin + lw / 2, ly + 24, n, margin + lw, ly + 24);
  return svg;
}

// Bars of observed/expected at the top position, one per category, around a line at 1.
std::string bars(const stats::audit_result& r, const std::string& title, auto label_of) {
  std::map<std::string, std::pair<double, double>> cat;  // label -> (observed, cards)
  std::vector<std::string> order;
  for (std::size_t c = 0; c < r.counts.n; ++c) {
    const std::string label = label_of(r.cards[c]);
    if (!cat.contains(label)) order.push_back(label);
    auto& [obs, size] = cat[label];
    obs += static_cast<double>(r.counts.at(0, c));
    size += 1;
  }
  const double t = static_cast<double>(r.counts.trials), n = static_cast<double>(r.counts.n);
  std::vector<double> ratio, noise;  // noise: 2 standard errors of the ratio for a fair shuffle
  double dev = 0.02;
  for (const auto& l : order) {
    const auto [obs, size] = cat[l];
    const double p = size / n;
    ratio.push_back(t > 0 ? obs / (t * p) : 1);
    noise.push_back(t > 0 ? 2 * std::sqrt((1 - p) / (t * p)) : 0);
    dev = std::max({dev, std::abs(ratio.back() - 1), noise.back()});
  }
  dev *= 1.1;
  const double w = 376, h = 120, bw = w / static_cast<double>(order.size()), mid = 16 + h / 2, left = 48;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">\n"
      "<text x=\"0\" y=\"11\" class=\"axis\">{2}: observed/expected, &#177;{3:.1f}% (grey: fair &#177;2 SE)</text>\n",
      w + left + 2, h + 40, escape(title), 100 * dev);
  // y axis: ticks at -dev, 0 and +dev (as percent off expected)
  for (const double f : {-1.0, 0.0, 1.0}) {
    const double y = mid - f * (h / 2) / 1.0;
    svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.2f}\" y2=\"{2:.2f}\" stroke=\"#888\"/>"
                       "<text x=\"{3}\" y=\"{4:.2f}\" class=\"tick\" text-anchor=\"end\">{5}</text>\n",
                       left - 4, left, y, left - 6, y + 4, f == 0 ? std::string("1") : fmt::format("{:+.1f}%", 100 * f * dev));
  }
  svg += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"16\" y2=\"{1}\" stroke=\"#888\"/>\n<g transform=\"translate({0},0)\">\n",
                     left, 16 + h);
  for (std::size_t i = 0; i < order.size(); ++i) {
    const double y = (ratio[i] - 1) / dev * (h / 2), band = noise[i] / dev * (h / 2);
    svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"#ddd\"/>",
                       static_cast<double>(i) * bw, mid - band, bw, 2 * band);
    svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"{}\"><title>{}: {:.4f}</title></rect>",
                       static_cast<double>(i) * bw + 0.5, y > 0 ? mid - y : mid, std::max(bw - 1, 0.5), std::abs(y),
                       ratio[i] >= 1 ? "#b2182b" : "#2166ac", escape(order[i]), ratio[i]);
    if (order.size() <= 16 || i % 13 == 0)
      svg += fmt::format("<text x=\"{:.2f}\" y=\"{}\" class=\"tick\" text-anchor=\"{}\">{}</text>",
                         i == 0 && order.size() > 16 ? 0.0 : (static_cast<double>(i) + 0.5) * bw, h + 32,
                         i == 0 && order.size() > 16 ? "start" : "middle", escape(order[i]));
    svg += '\n';
  }
  svg += fmt::format("<line x1=\"0\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n</g></svg>\n", w, mid, mid);
  return svg;
}

// A per-deal statistic: observed share of deals (bars, counts[i] for value i + first) against
// its exact law under a uniform shuffle (black ticks), over the values where either is visible.
std::string histogram_chart(const std::vector<std::uint64_t>& counts, std::uint64_t trials, const std::vector<double>& law,
                            std::string_view title, std::string_view symbol, std::size_t first) {
  const std::size_t n = counts.size();
  const double t = static_cast<double>(trials);
  std::size_t lo = n, hi = 0;
  double top = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double obs = static_cast<double>(counts[i]) / t;
    if (obs > 0 || law[i] >= 1e-4) {
      lo = std::min(lo, i);
      hi = std::max(hi, i);
      top = std::max({top, obs, law[i]});
    }
  }
  if (lo > hi || top <= 0) return {};
  const std::size_t bins = hi - lo + 1;
  const double w = 376, h = 120, bw = w / static_cast<double>(bins), base = 16 + h, left = 48;
  std::string svg = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" role=\"img\">\n"
      "<text x=\"0\" y=\"11\" class=\"axis\">{2}: share of deals (bars), uniform law (ticks)</text>\n",
      w + left + 2, h + 40, title);
  for (const double f : {0.0, 0.5, 1.0}) {  // y axis: share of deals
    const double y = base - f * h;
    svg += fmt::format("<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.2f}\" y2=\"{2:.2f}\" stroke=\"#888\"/>"
                       "<text x=\"{3}\" y=\"{4:.2f}\" class=\"tick\" text-anchor=\"end\">{5:.0f}%</text>\n",
                       left - 4, left, y, left - 6, y + 4, 100 * f * top);
  }
  svg += fmt::format("<line x1=\"{0}\" x2=\"{0}\" y1=\"16\" y2=\"{1}\" stroke=\"#888\"/>\n<g transform=\"translate({0},0)\">\n",
                     left, base);
  const std::size_t label_every = std::max<std::size_t>(1, (bins + 9) / 10);
  for (std::size_t b = 0; b < bins; ++b) {
    const std::size_t i = lo + b;
    const double obs = static_cast<double>(counts[i]) / t, x = static_cast<double>(b) * bw;
    const double bar = obs / top * h, tick = base - law[i] / top * h;
    svg += fmt::format("<rect x=\"{:.2f}\" y=\"{:.2f}\" width=\"{:.2f}\" height=\"{:.2f}\" fill=\"#92c5de\">"
                       "<title>{} = {}: {:.4f} of deals (uniform: {:.4f})</title></rect>",
                       x + 0.5, base - bar, std::max(bw - 1, 0.5), bar, symbol, i + first, obs, law[i]);
    svg += fmt::format("<line x1=\"{:.2f}\" x2=\"{:.2f}\" y1=\"{:.2f}\" y2=\"{:.2f}\" stroke=\"#111\" stroke-width=\"2\"/>",
                       x, x + bw, tick, tick);
    if (b % label_every == 0)
      svg += fmt::format("<text x=\"{:.2f}\" y=\"{}\" class=\"tick\" text-anchor=\"middle\">{}</text>", x + bw / 2,
                         base + 16, i + first);
    svg += '\n';
  }
  svg += fmt::format("<line x1=\"0\" x2=\"{}\" y1=\"{}\" y2=\"{}\" stroke=\"#333\"/>\n</g></svg>\n", w, base, base);
  return svg;
}

// Rising sequences per deal against the exact law of a uniform shuffle (A(n, r-1) / n!).
// Riffled decks keep far fewer rising sequences: their bars sit left of the ticks.
std::string rising_chart(const stats::audit_result& r) {
  const std::size_t n = r.counts.n;
  if (r.counts.trials == 0 || r.counts.rising.size() != n || n < 2) return {};
  return histogram_chart(r.counts.rising, r.counts.trials, uniform_rising_sequence_distribution(n),
                         "rising sequences per deal", "r", 1);
}

// Recorded decks: the card guesser's correct guesses per deck against its exact null law (a
// sum of Bernoulli(1/j), stats/machine.hpp); for a shoe against the law simulated on uniform
// shoes (audit_result::guess_null). A shuffling machine's bars sit right of the ticks.
std::string guessing_chart(const stats::audit_result& r) {
  if (r.guess_histogram.size() < 2 || r.counts.trials == 0) return {};
  const auto law = r.guess_null.size() == r.guess_histogram.size() ? r.guess_null
                                                                   : stats::guess_null_pmf(r.guess_histogram.size() - 1);
  return histogram_chart(r.guess_histogram, r.counts.trials, law,
                         r.shoe_copies > 1 ? fmt::format("correct guesses per shoe of {} decks (card guesser on faces; ticks: "
                                                         "simulated uniform shoes)", r.shoe_copies)
                                           : std::string("correct guesses per deck (card guesser, Diaconis-Fulman-Holmes)"),
                         "guesses", 0);
}

std::string test_table(const stats::audit_result& r) {
  std::string s = "<div class=\"scroll\"><table class=\"tests\"><tr><th>test</th><th>what it checks</th><th>statistic</th><th>df</th>"
                  "<th>p-value</th><th>result</th></tr>\n";
  for (const auto& t : r.tests) {
    const char* result = t.skipped() ? "skipped" : *t.p_value < r.decision.threshold ? "FAIL" : "pass";
    s += fmt::format("<tr class=\"{}\"><td>{}</td><td>{}{}</td><td>{:.4g}</td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                     result, escape(t.name), escape(t.description),
                     t.note.empty() ? "" : fmt::format("<br><small>{}</small>", escape(t.note)), t.statistic,
                     t.df ? fmt::format("{:g}", *t.df) : "&#8211;", escape(format_p(t.p_value)), result);
  }
  return s + "</table></div>\n";
}

std::string subject_of(const stats::audit_result& r, const audit_run_info& run) {
  return run.source == "input" ? fmt::format("the decks from {}", r.engine) : fmt::format("{} with {}", r.algorithm, r.engine);
}

constexpr std::string_view style = R"(<style>
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1040px;color:#222;padding:0 16px}
h1{font-size:26px;margin-bottom:4px}h2{font-size:20px;margin-top:36px;border-top:1px solid #ddd;padding-top:16px}
table{border-collapse:collapse;margin:10px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f3f3f3}.fair{color:#1a7f37;font-weight:600}.biased{color:#b2182b;font-weight:700}
tr.FAIL td{background:#fde8e8}tr.skipped td{color:#888}.verdict{font-size:16px;background:#f8f8f8;padding:8px 12px;border-left:4px solid #888}
.grid{display:flex;flex-wrap:wrap;gap:18px;align-items:flex-start}figure{margin:0}
td.num,.num{white-space:nowrap}.small{font-size:7px}nav ol{columns:2}details>summary{cursor:pointer}
details{border-top:1px solid #ddd;margin-top:22px;padding-top:10px}
details>summary h2{display:inline;border:0;margin:0;padding:0}figure.charts svg{display:block;margin-bottom:6px}
.grid{flex-wrap:nowrap}@media (max-width:900px){.grid{flex-wrap:wrap}}@media print{details{display:block}}.axis{font-size:12px;fill:#444}.tick{font-size:11px;fill:#444}
small{color:#666}
.scroll{overflow-x:auto;max-width:100%}svg{max-width:100%;height:auto}figure{min-width:0;max-width:100%}
@media (max-width:600px){body{margin:12px auto;padding:0 10px}h1{font-size:22px}nav ol{columns:1}
table{font-size:13px}td,th{padding:2px 5px}table.tests td:nth-child(2){min-width:11em}}
</style>)";

}  // namespace

void write_audit_html(std::ostream& out, const std::vector<stats::audit_result>& results, const audit_run_info& run) {
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>fairdeck audit</title>\n"
      << style
      << "</head><body>\n<h1>fairdeck audit</h1>\n";
  out << fmt::format("<p>{} &#183; &#945; = {:g} per audited pair, Bonferroni over its tests{}{}</p>\n",
                     run.source == "input" ? "decks read from input" : "simulated deals from the canonical order",
                     run.alpha, run.seed ? fmt::format(" &#183; seed {}", *run.seed) : std::string(),
                     run.interrupted ? " &#183; <b>interrupted: partial counts</b>" : "");
  const bool catalogued =
      std::any_of(results.begin(), results.end(), [](const auto& r) { return r.algorithm_fair.has_value(); });
  out << fmt::format("<p class=\"verdict\"><b>{}</b></p>\n", escape(bottom_line(results)));
  out << "<div class=\"scroll\"><table><tr><th>algorithm</th><th>engine</th><th>verdict</th>" << (catalogued ? "<th>expected</th>" : "")
      << "<th>worst p</th><th>largest deviation (95% bounds)</th><th>deals</th></tr>\n";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    out << fmt::format("<tr><td><a href=\"#pair-{}\">{}</a></td><td>{}</td><td class=\"{}\">{}</td>{}<td class=\"num\">{} ({})</td>"
                       "<td class=\"num\">{:.2f}% [{:.2f}%, {:.2f}%]</td><td class=\"num\">{}</td></tr>\n",
                       i, escape(r.algorithm), escape(r.engine), r.decision.biased ? "biased" : "fair",
                       verdict_word(r),
                       catalogued ? fmt::format("<td>{}</td>", expected_verdict(r).value_or("&#8211;")) : std::string(),
                       escape(format_p(r.decision.worst_p)), escape(r.decision.worst_test), 100 * r.effect.max_deviation,
                       100 * r.effect.lower, 100 * r.effect.upper, r.counts.trials);
  }
  out << "</table></div>\n";
  if (results.size() > 1) {  // a short table of contents: the surprises first
    out << "<nav><b>Contents</b> (fair pairs that behaved as expected are folded; click to open)<ol>\n";
    for (std::size_t i = 0; i < results.size(); ++i)
      out << fmt::format("<li><a href=\"#pair-{}\">{}</a>: {}{}</li>\n", i, escape(subject_of(results[i], run)),
                         verdict_word(results[i]), as_expected(results[i]) ? "" : " (not as expected)");
    out << "</ol></nav>\n";
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    const bool open = r.decision.biased || !as_expected(r) || results.size() == 1;
    out << fmt::format("<details id=\"pair-{}\"{}><summary><h2>{}: <span class=\"{}\">{}</span></h2></summary>\n"
                       "<p class=\"verdict\">{}</p>\n",
                       i, open ? " open" : "", escape(subject_of(r, run)), r.decision.biased ? "biased" : "fair",
                       verdict_word(r), escape(plain_verdict(r)));
    out << audit_charts_html(r) << test_table(r) << "</details>\n";
  }
  out << "<p><small>Heat map: row = position from the top (0 = top card), column = card in factory order; white = exactly 1/n of "
         "deals, red = more often, blue = less often (log scale, saturating at half and double). Methods: "
         "docs/audit.md.</small></p>\n</body></html>\n";
}

// Shared with other HTML reports (fairdeck certify): the same escaping, look and charts.
std::string html_escape(std::string_view s) { return escape(s); }
std::string audit_charts_html(const stats::audit_result& r) {
  std::string out = "<div class=\"grid\"><figure>" + heat_map(r) + "</figure><figure class=\"charts\">";
  out += bars(r, "first card", [&](card_t c) { return format_card(c, r.deck); });
  out += bars(r, "first suit", [&](card_t c) { return suit_label(c, r.deck); });
  out += bars(r, "first rank", [&](card_t c) { return rank_label(c, r.deck); });
  out += rising_chart(r);
  out += guessing_chart(r);
  out += "</figure></div>\n";
  return out;
}
std::string_view html_style() noexcept { return style; }

}  // namespace fairdeck::report
