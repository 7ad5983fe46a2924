#include "fairdeck/report/audit.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>


#include <fmt/format.h>
#include <fmt/ranges.h>

namespace fairdeck::report {
namespace {

std::string percent(double x) { return fmt::format("{:.2f}%", 100 * x); }

nlohmann::json test_json(const stats::test_result& t, double threshold) {
  nlohmann::json j{{"name", t.name},          {"description", t.description}, {"distribution", t.distribution},
                   {"statistic", t.statistic}, {"df", nullptr},                 {"p_value", nullptr},
                   {"skipped", t.skipped()}};
  if (t.df) j["df"] = *t.df;
  if (t.p_value) {
    j["p_value"] = *t.p_value;
    j["passed"] = *t.p_value >= threshold;
  }
  if (!t.note.empty()) j["note"] = t.note;
  return j;
}

// Counts at position 0 grouped by a category function, keyed by its label.
template <class Label>
nlohmann::json first_position_json(const stats::audit_result& r, Label label) {
  nlohmann::json j = nlohmann::json::object();
  for (std::size_t c = 0; c < r.counts.n; ++c) {
    const std::string key = label(r.cards[c]);
    j[key] = j.value(key, std::uint64_t{0}) + r.counts.at(0, c);
  }
  return j;
}

// Greedy word wrap (the words stay whole; a longer word gets its own line).
std::string wrap_words(const std::string& text, std::size_t width) {
  if (width == 0 || text.size() <= width) return text;
  std::string out, line;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(' ', start);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(start, end - start);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + '\n';
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    start = end + 1;
  }
  return out + line;
}

std::string who(const stats::audit_result& r) {
  return r.algorithm == "input" ? fmt::format("the decks from {}", r.engine) : fmt::format("{} with {}", r.algorithm, r.engine);
}

}  // namespace

std::string wrap_text(const std::string& text, std::size_t width) { return wrap_words(text, width); }

std::optional<std::string> expected_verdict(const stats::audit_result& r) {
  if (!r.algorithm_fair) return std::nullopt;
  return *r.algorithm_fair ? "fair" : "biased";
}

std::optional<stats::data_shortfall> too_little_data(const stats::audit_result& r) {
  if (r.algorithm_fair || r.decision.biased) return std::nullopt;
  return stats::data_needed(r);
}

std::string verdict_word(const stats::audit_result& r) {
  return r.decision.biased ? "BIASED" : too_little_data(r) ? "too little data" : "fair";
}

std::string verdict_key(const stats::audit_result& r) {
  return r.decision.biased ? "biased" : too_little_data(r) ? "too-little-data" : "fair";
}

bool as_expected(const stats::audit_result& r) {
  const auto e = expected_verdict(r);
  if (!e) return !r.decision.biased && !too_little_data(r);  // outside input: hoped fair
  return (*e == "biased") == r.decision.biased;
}

bool all_as_expected(const std::vector<stats::audit_result>& results) {
  return std::all_of(results.begin(), results.end(), [](const stats::audit_result& r) { return as_expected(r); });
}

std::string bottom_line(const std::vector<stats::audit_result>& results) {
  if (results.size() == 1 && !results.front().algorithm_fair) {
    const auto& r = results.front();
    const std::string w = who(r);
    if (r.decision.tests_run == 0) return fmt::format("Bottom line: {} could not be tested (too few decks).", w);
    if (const auto s = too_little_data(r)) return fmt::format("Bottom line: {}: {}.", w, stats::describe(*s));
    return r.decision.biased ? fmt::format("Bottom line: {} are BIASED.", w)
                             : fmt::format("Bottom line: {} look fair.", w);
  }
  const std::size_t n = results.size();
  const std::string pairs = fmt::format("{} pair{}", n, n == 1 ? "" : "s");
  std::size_t fair = 0, broken = 0;
  for (const auto& r : results) (r.algorithm_fair && !*r.algorithm_fair ? broken : fair)++;
  if (all_as_expected(results)) {
    if (broken == 0) return fmt::format("{}: every fair shuffle passed.", pairs);
    if (fair == 0) return fmt::format("{}: every broken shuffle was caught.", pairs);
    return fmt::format("{}: every fair shuffle passed, every broken one was caught.", pairs);
  }
  std::vector<std::string> diffs;
  for (const auto& r : results) {
    if (as_expected(r)) continue;
    diffs.push_back(r.decision.biased ? fmt::format("{} was found BIASED (expected fair)", who(r))
                                      : fmt::format("{} was not caught (known to be biased: audit more deals)", who(r)));
  }
  return fmt::format("{}: NOT as expected: {}.", pairs, fmt::join(diffs, "; "));
}

std::vector<std::string> failed_tests(const stats::audit_result& r) {
  std::vector<std::string> out;
  for (const auto& t : r.tests)
    if (!t.skipped() && *t.p_value < r.decision.threshold) out.push_back(t.name);
  return out;
}

std::string format_p(std::optional<double> p) {
  if (!p) return "skipped";
  if (*p == 0) return "<1e-300";
  if (*p >= 0.001) return fmt::format("{:.3f}", *p);
  return fmt::format("{:.2g}", *p);
}

std::string suit_label(card_t c, const deck_spec& deck) {
  return is_joker(c, deck) ? std::string("joker") : std::string(1, "cdhs"[suit_of(c)]);
}

std::string rank_label(card_t c, const deck_spec& deck) {
  return is_joker(c, deck) ? std::string("joker") : std::string(1, "A23456789TJQK"[rank_of(c)]);
}

std::string p_phrase(std::optional<double> p) {
  const std::string f = format_p(p);
  return f.front() == '<' ? fmt::format("p < {}", f.substr(1)) : fmt::format("p = {}", f);
}

std::string effect_cell(const stats::audit_result& r) {
  return fmt::format("{} at position {}", format_card(r.cards[r.effect.card], r.deck), r.effect.position);  // 0 = top
}

std::string plain_verdict(const stats::audit_result& r) {
  const auto& d = r.decision;
  const std::string who = report::who(r);
  const bool plural = r.algorithm == "input";  // "the decks from stdin are"
  std::string s;
  if (d.tests_run == 0)
    return fmt::format("{}: no test could run on {} deals; audit more deals.", who, r.counts.trials);
  if (const auto shortfall = too_little_data(r))
    return fmt::format("{}: {}; no verdict ({} of {} tests could run).", who, stats::describe(*shortfall), d.tests_run,
                       r.tests.size());
  if (d.biased) {
    const auto& e = r.effect;
    s = fmt::format("{} {} BIASED: the {} test gives {} (threshold {:.2g}).", who, plural ? "are" : "is", d.worst_test,
                    p_phrase(d.worst_p),
                    d.threshold);
    if (const auto failed = failed_tests(r); failed.size() > 1)
      s += fmt::format(" {} of {} tests catch it: {}.", failed.size(), d.tests_run, fmt::join(failed, ", "));
    if (e.lower > 0)
      s += fmt::format(" The worst cell: {} turns up {} {} than it should (at least {} with 95% confidence).",
                       effect_cell(r), percent(std::abs(e.ratio - 1)), e.ratio > 1 ? "more often" : "less often",
                       percent(e.lower));
    else
      s += " No single card/position is off by itself: the bias is spread out or sequential.";
  } else {
    s = fmt::format("{} {} fair: none of {} tests fell below {:.2g} (smallest: {} in {}); no card lands at any "
                    "position more than {} away from 1/{} of the time (95% bound).",
                    who, plural ? "look" : "looks", d.tests_run, d.threshold, p_phrase(d.worst_p), d.worst_test, percent(r.effect.upper), r.counts.n);
  }
  if (r.algorithm_fair && *r.algorithm_fair == d.biased)
    s += *r.algorithm_fair ? " The algorithm is exact, so suspect the engine."
                           : " The algorithm is known to be biased; audit more deals to expose it.";
  if (!r.complete) s += " (Interrupted: partial counts.)";
  return s;
}

std::string audit_table(const std::vector<stats::audit_result>& results, const audit_run_info& run, std::size_t width) {
  std::string out;
  auto it = std::back_inserter(out);
  if (!results.empty()) {
    const auto& r0 = results.front();
    fmt::format_to(it, "fairdeck audit: {} cards, {}alpha {:g} per pair (Bonferroni over its tests)\n", r0.counts.n,
               run.seed ? fmt::format("seed {}, ", *run.seed) : std::string(), run.alpha);
  }
  // Columns as wide as their longest entry, so long names never push a row out of line.
  std::size_t wa = 9, we = 6, wt = 6;
  for (const auto& r : results) {
    wa = std::max(wa, r.algorithm.size());
    we = std::max(we, r.engine.size());
    wt = std::max(wt, r.decision.worst_test.size());
  }
  const bool catalogued = std::any_of(results.begin(), results.end(), [](const auto& r) { return r.algorithm_fair.has_value(); });
  fmt::format_to(it, "{:<{}} {:<{}} {:<7} {}{:>9}  {:<{}} {:>26}  {:>12}\n", "algorithm", wa, "engine", we, "verdict",
             catalogued ? "expected " : "", "worst p", "(test)", wt, "effect (95% bounds)", "deals");
  for (const auto& r : results) {
    const auto& d = r.decision;
    const std::string effect = fmt::format("{} [{}, {}]", percent(r.effect.max_deviation), percent(r.effect.lower),
                                           percent(r.effect.upper));
    const std::string expected = catalogued ? fmt::format("{:<8} ", expected_verdict(r).value_or("-")) : "";
    fmt::format_to(it, "{:<{}} {:<{}} {:<7} {}{:>9}  {:<{}} {:>26}  {:>12}{}\n", r.algorithm, wa, r.engine, we,
               d.tests_run == 0 ? "n/a" : d.biased ? "BIASED" : too_little_data(r) ? "too few" : "fair", expected, format_p(d.worst_p), d.worst_test, wt,
               effect, r.counts.trials, r.complete ? "" : " (partial)");
  }
  fmt::format_to(it, "\n");
  for (const auto& r : results) fmt::format_to(it, "{}\n", wrap_words(plain_verdict(r), width));
  if (run.interrupted)
    fmt::format_to(it, "\nInterrupted: {} of {} audits shown, the last with partial counts.\n", results.size(),
               run.pairs_planned);
  fmt::format_to(it, "\n{}\n", wrap_words(bottom_line(results), width));
  return out;
}

nlohmann::json audit_json(const std::vector<stats::audit_result>& results, const audit_run_info& run) {
  nlohmann::json audits = nlohmann::json::array();
  bool any_biased = false, any_short = false;
  for (const auto& r : results) {
    const auto& d = r.decision;
    any_biased = any_biased || d.biased;
    const auto shortfall = too_little_data(r);
    any_short = any_short || shortfall;
    nlohmann::json tests = nlohmann::json::array();
    for (const auto& t : r.tests) tests.push_back(test_json(t, d.threshold));
    nlohmann::json cards = nlohmann::json::array();
    for (card_t c : r.cards) cards.push_back(format_card(c, r.deck));
    nlohmann::json matrix = nlohmann::json::array();
    for (std::size_t p = 0; p < r.counts.n; ++p) {
      auto row = nlohmann::json::array();
      for (std::size_t c = 0; c < r.counts.n; ++c) row.push_back(r.counts.at(p, c));
      matrix.push_back(std::move(row));
    }
    nlohmann::json a{
        {"algorithm", r.algorithm},
        {"engine", r.engine},
        {"n", r.counts.n},
        {"trials", r.counts.trials},
        {"requested_trials", r.requested_trials},
        {"complete", r.complete},
        {"verdict", verdict_key(r)},
        {"expected_verdict", expected_verdict(r) ? nlohmann::json(*expected_verdict(r)) : nlohmann::json(nullptr)},
        {"as_expected", as_expected(r)},
        {"alpha", d.alpha},
        {"threshold", d.threshold},
        {"tests_run", d.tests_run},
        {"conclusive", d.tests_run > 0},  // false: nothing could be tested (e.g. interrupted at once)
        {"worst_p_value", d.worst_p ? nlohmann::json(*d.worst_p) : nlohmann::json(nullptr)},
        {"worst_test", d.worst_test},
        {"failed_tests", failed_tests(r)},
        {"effect_size",
         {{"max_deviation", r.effect.max_deviation},
          {"lower", r.effect.lower},
          {"upper", r.effect.upper},
          {"confidence", 0.95},
          {"position", r.effect.position},
          {"card", format_card(r.cards[r.effect.card], r.deck)},
          {"ratio", r.effect.ratio}}},
        {"summary", plain_verdict(r)},
        {"tests", std::move(tests)},
        {"cards", std::move(cards)},
        {"first_card", first_position_json(r, [&](card_t c) { return format_card(c, r.deck); })},
        {"first_suit", first_position_json(r, [&](card_t c) { return suit_label(c, r.deck); })},
        {"first_rank", first_position_json(r, [&](card_t c) { return rank_label(c, r.deck); })},
        {"successions", r.counts.successions},
        {"rising_sequences", r.counts.rising},
        {"position_card", std::move(matrix)},
    };
    if (r.algorithm_fair) a["algorithm_fair"] = *r.algorithm_fair;
    if (shortfall) a["data_needed"] = {{"decks", shortfall->needed}, {"test", shortfall->test}};
    if (!r.guess_histogram.empty()) a["guessing_scores"] = r.guess_histogram;  // recorded decks: decks per score 0..n
    if (!r.counts.orders.empty()) {
      nlohmann::json orders = nlohmann::json::object();
      std::vector<card_t> named(r.counts.n);
      for (std::uint32_t k = 0; k < r.counts.orders.size(); ++k) {
        const auto order = stats::order_unrank(k, r.counts.n);
        for (std::size_t i = 0; i < order.size(); ++i) named[i] = r.cards[order[i]];
        orders[format_cards(named, r.deck)] = r.counts.orders[k];
      }
      a["permutations"] = std::move(orders);
    }
    audits.push_back(std::move(a));
  }
  nlohmann::json j{{"source", run.source},
                   {"alpha", run.alpha},
                   {"complete", !run.interrupted},
                   {"verdict", any_biased ? "biased" : any_short ? "too-little-data" : "fair"},
                   {"as_expected", all_as_expected(results)},
                   {"bottom_line", bottom_line(results)},
                   {"audits", std::move(audits)}};
  if (run.seed) j["seed"] = *run.seed;
  return j;
}

}  // namespace fairdeck::report
