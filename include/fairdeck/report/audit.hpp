// Presentation of audit results: terminal table, plain-words verdicts, --json and --html.
// The numbers all come from fairdeck/stats; nothing here computes statistics.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "fairdeck/stats/audit.hpp"
#include "fairdeck/stats/data_needed.hpp"

namespace fairdeck::report {

struct audit_run_info {
  std::optional<std::uint64_t> seed;  // simulated audits with seeded engines
  double alpha = 1e-4;
  std::string source = "simulation";  // or "input"
  std::size_t pairs_planned = 0;
  bool interrupted = false;
  std::string html_path;  // --html FILE, if any (the text report says where the picture is)
};

// Outside input (no expected verdict) not found biased, with some test skipped for want of
// decks: no verdict, "too little data: N decks, need at least M for TEST" (stats/data_needed.hpp).
// A bias found in few decks stands.
[[nodiscard]] std::optional<stats::data_shortfall> too_little_data(const stats::audit_result& r);
// "BIASED", "fair" or "too little data", and the JSON spelling "biased", "fair", "too-little-data".
[[nodiscard]] std::string verdict_word(const stats::audit_result& r);
[[nodiscard]] std::string verdict_key(const stats::audit_result& r);
// "fair"/"biased" for catalogued algorithms, nullopt for outside input.
[[nodiscard]] std::optional<std::string> expected_verdict(const stats::audit_result& r);
// The verdict is the expected one (outside input: expected fair, and too little data is not).
[[nodiscard]] bool as_expected(const stats::audit_result& r);
[[nodiscard]] bool all_as_expected(const std::vector<stats::audit_result>& results);
// One sentence: "11 pairs: every fair shuffle passed, every broken one was caught." or what differed.
[[nodiscard]] std::string bottom_line(const std::vector<stats::audit_result>& results);

[[nodiscard]] std::string format_p(std::optional<double> p);
// Category labels for the first-suit/first-rank tallies: "c".."s", "A".."K", or "joker".
[[nodiscard]] std::string suit_label(card_t c, const deck_spec& deck);
[[nodiscard]] std::string rank_label(card_t c, const deck_spec& deck);
// "p = 0.031" or "p < 1e-300".
[[nodiscard]] std::string p_phrase(std::optional<double> p);
// "card 7c at position 3" style description of the effect-size cell; positions count from
// 0 (the top card), as in `fair verify` and `attack --known`.
[[nodiscard]] std::string effect_cell(const stats::audit_result& r);
// Names of the tests whose p-value is below the verdict's Bonferroni threshold, in run order.
[[nodiscard]] std::vector<std::string> failed_tests(const stats::audit_result& r);
// One or two sentences a non-statistician can act on.
[[nodiscard]] std::string plain_verdict(const stats::audit_result& r);

// Greedy word wrap at `width` columns (0: none); words stay whole.
[[nodiscard]] std::string wrap_text(const std::string& text, std::size_t width);
// The terminal table, plain-words verdicts and bottom line; sentences wrapped at `width`
// columns (0: no wrapping). The CLI passes its terminal's width.
[[nodiscard]] std::string audit_table(const std::vector<stats::audit_result>& results, const audit_run_info& run,
                                      std::size_t width);
[[nodiscard]] nlohmann::json audit_json(const std::vector<stats::audit_result>& results, const audit_run_info& run);
// One self-contained HTML page (inline SVG and CSS, no scripts, no network).
void write_audit_html(std::ostream& out, const std::vector<stats::audit_result>& results, const audit_run_info& run);

// The audit page's HTML escaping and <style> block, for other reports in the same look.
[[nodiscard]] std::string html_escape(std::string_view s);
// The audit's figures for one result: position x card heat map, first card/suit/rank bars and
// the rising-sequence chart (used by the audit and certify pages).
[[nodiscard]] std::string audit_charts_html(const stats::audit_result& r);
[[nodiscard]] std::string_view html_style() noexcept;

}  // namespace fairdeck::report
