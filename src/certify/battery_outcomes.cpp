// Tests on the outcomes of any game (fairdeck/certify/outcomes.hpp): frequencies (chi-square
// or exact multinomial), changes between consecutive outcomes, longest runs (exact law) and
// per-seat or per-table frequencies.
#include "fairdeck/certify/outcomes.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <istream>
#include <numeric>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/stats/tests.hpp"

namespace fairdeck::certify {
namespace {

constexpr std::uint64_t min_outcomes = 20;

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

double parse_probability(std::string_view name, std::string_view v) {
  const auto number = [&](std::string_view t) {
    double x = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), x);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || !std::isfinite(x))
      throw std::invalid_argument(fmt::format("category '{}': '{}' is not a probability (a decimal or p/q)", name, v));
    return x;
  };
  const auto slash = v.find('/');
  const double p = slash == std::string_view::npos ? number(v)
                                                   : number(v.substr(0, slash)) / number(v.substr(slash + 1));
  if (!(p > 0 && p < 1))
    throw std::invalid_argument(fmt::format("category '{}': probability {} is not between 0 and 1", name, v));
  return p;
}

// Enumerates every count vector of n into k cells, summing the probabilities no larger than
// the observed one's (with a relative tolerance for rounding).
struct multinomial_sum {
  const std::vector<double>& logp;
  double log_n_fact, cutoff, total = 0;
  std::vector<std::uint64_t> x;
  void run(std::size_t cell, std::uint64_t left, double acc) {
    if (cell + 1 == logp.size()) {
      const double l = acc + static_cast<double>(left) * logp[cell] - std::lgamma(static_cast<double>(left) + 1);
      if (l <= cutoff) total += std::exp(l + log_n_fact);
      return;
    }
    for (std::uint64_t v = 0; v <= left; ++v)
      run(cell + 1, left - v, acc + static_cast<double>(v) * logp[cell] - std::lgamma(static_cast<double>(v) + 1));
  }
};

double binomial_coefficient(std::uint64_t n, std::uint64_t k) {
  return std::exp(std::lgamma(static_cast<double>(n) + 1) - std::lgamma(static_cast<double>(k) + 1) -
                  std::lgamma(static_cast<double>(n - k) + 1));
}

}  // namespace

std::string outcome_spec::describe() const {
  std::string s;
  for (const auto& c : categories) s += fmt::format("{}{} {}", s.empty() ? "" : ", ", c.name, c.given);
  return s;
}

outcome_spec parse_outcome_spec(std::string_view text) {
  outcome_spec spec;
  std::size_t i = 0;
  double sum = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t' || text[i] == ',')) ++i;
    std::size_t j = i;
    while (j < text.size() && !(text[j] == ' ' || text[j] == '\t' || text[j] == ',')) ++j;
    if (j == i) break;
    const std::string_view entry = text.substr(i, j - i);
    const auto eq = entry.find('=');
    if (eq == std::string_view::npos || eq == 0)
      throw std::invalid_argument(fmt::format("'{}' is not name=probability", entry));
    const std::string_view name = entry.substr(0, eq), value = entry.substr(eq + 1);
    for (const auto& c : spec.categories)
      if (c.name == name) throw std::invalid_argument(fmt::format("category '{}' is declared twice", name));
    const double p = parse_probability(name, value);
    sum += p;
    spec.categories.push_back({std::string(name), p, std::string(value)});
    i = j;
  }
  if (spec.categories.size() < 2) throw std::invalid_argument("an outcome law needs at least 2 categories");
  if (std::abs(sum - 1) > 1e-9)
    throw std::invalid_argument(fmt::format("the probabilities sum to {:.12g}, not 1 (within 1e-9)", sum));
  return spec;
}

double longest_run_at_least(std::uint64_t m, double p, std::uint64_t len) {
  if (len == 0) return 1;
  if (m < len) return 0;
  // r_t = P(a run of len within t trials): r_t = r_{t-1} + (1-p) p^len (1 - r_{t-len-1}),
  // r_len = p^len (a sum of positive terms: accurate in the far tail).
  const double pl = std::pow(p, static_cast<double>(len));
  std::vector<double> r(m + 1, 0.0);
  r[len] = pl;
  for (std::uint64_t t = len + 1; t <= m; ++t) r[t] = r[t - 1] + (1 - p) * pl * (1 - r[t - len - 1]);
  return std::min(1.0, r[m]);
}

std::optional<double> exact_multinomial_p(const std::vector<std::uint64_t>& counts, const std::vector<double>& p,
                                          std::uint64_t max_vectors) {
  const std::uint64_t n = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  const std::size_t k = counts.size();
  if (binomial_coefficient(n + k - 1, k - 1) > static_cast<double>(max_vectors)) return std::nullopt;
  std::vector<double> logp(k);
  double observed = 0;
  for (std::size_t c = 0; c < k; ++c) {
    logp[c] = std::log(p[c]);
    observed += static_cast<double>(counts[c]) * logp[c] - std::lgamma(static_cast<double>(counts[c]) + 1);
  }
  multinomial_sum s{logp, std::lgamma(static_cast<double>(n) + 1), observed + 1e-9, 0, {}};
  s.run(0, n, 0);
  return std::min(1.0, s.total);
}

outcome_tally::outcome_tally(outcome_spec spec)
    : spec_(std::move(spec)),
      count_(spec_.categories.size()),
      longest_(spec_.categories.size()),
      run_(spec_.categories.size()) {}

void outcome_tally::add(std::size_t category, std::string_view group) {
  if (n_ && category != last_) ++changes_;
  run_[category] = (n_ && category == last_) ? run_[category] + 1 : 1;
  longest_[category] = std::max(longest_[category], run_[category]);
  last_ = category;
  ++n_;
  ++count_[category];
  if (!group.empty()) {
    auto it = groups_.find(group);
    if (it == groups_.end()) it = groups_.emplace(std::string(group), std::vector<std::uint64_t>(count_.size())).first;
    ++it->second[category];
  }
}

void outcome_tally::results(std::vector<test_result>& out) const {
  const std::size_t k = count_.size();
  std::vector<double> p(k);
  double pmin = 1;
  for (std::size_t c = 0; c < k; ++c) pmin = std::min(pmin, p[c] = spec_.categories[c].p);
  const double n = static_cast<double>(n_);
  const std::string law = "the declared probabilities (" + spec_.describe() + ")";
  std::string seen;
  for (std::size_t c = 0; c < k; ++c)
    seen += fmt::format("{}{} {} ({:.1f})", seen.empty() ? "" : ", ", spec_.categories[c].name, count_[c], n * p[c]);
  {
    test_result r{.name = "outcome-frequencies",
                  .family = "outcomes",
                  .description = "how often each outcome occurs, against its declared probability",
                  .reference = "Pearson chi-square against " + law +
                               "; exact multinomial test (Read & Cressie 1988) when a category expects < 5",
                  .distribution = "chi2",
                  .sample = n_,
                  .min_sample = min_outcomes,
                  .unit = "outcomes"};
    if (n_ < min_outcomes) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} outcomes, has {}", min_outcomes, n_)));
    } else if (n * pmin >= 5) {
      chi2_against(r, std::vector<double>(count_.begin(), count_.end()), p);
      r.note = "seen (expected): " + seen;
      out.push_back(std::move(r));
    } else if (const auto exact = exact_multinomial_p(count_, p)) {
      r.distribution = "multinomial";
      r.p_value = *exact;
      r.statistic = *exact;
      r.note = "exact multinomial test (a category expects < 5); seen (expected): " + seen;
      out.push_back(std::move(r));
    } else {
      chi2_against(r, std::vector<double>(count_.begin(), count_.end()), p);
      r.note = "rare categories pooled to >= 5 expected; seen (expected): " + seen;
      out.push_back(std::move(r));
    }
  }
  {
    // Changes: indicators I_t = [x_t != x_{t-1}], t = 2..n, 1-dependent with
    // P(I) = q = 1 - sum p^2 and P(I_t I_{t+1}) = sum p (1 - p)^2.
    double s2 = 0, s3 = 0;
    for (double x : p) s2 += x * x, s3 += x * (1 - x) * (1 - x);
    const double q = 1 - s2, m = n > 0 ? n - 1 : 0;
    const double mean = m * q;
    const double var = m * q * (1 - q) + 2 * std::max(0.0, m - 1) * (s3 - q * q);
    const auto min_runs = static_cast<std::uint64_t>(std::ceil(20 / std::min(q, 1 - q))) + 1;
    test_result r{.name = "outcome-runs",
                  .family = "outcomes",
                  .description = "changes between consecutive outcomes: streaks or alternation",
                  .reference =
                      "runs of i.i.d. outcomes with the declared probabilities: exact mean and variance "
                      "(1-dependent indicators; Wald & Wolfowitz 1940 for known probabilities), normal",
                  .distribution = "normal",
                  .sample = n_,
                  .min_sample = min_runs,
                  .unit = "outcomes"};
    if (n_ < min_runs) {
      out.push_back(invalid(std::move(r),
                            fmt::format("needs {} outcomes (20 expected changes and repeats), has {}", min_runs, n_)));
    } else {
      const double z = (static_cast<double>(changes_) - mean) / std::sqrt(var);
      r.statistic = z;
      r.p_value = two_sided_normal(z);
      r.expected = mean;
      r.note = fmt::format("{} changes in {} outcomes, {:.1f} expected (z = {:.2f})", changes_, n_, mean, z);
      r.effect = effect_kind::normal;
      r.effect_n = m;
      r.effect_scale = std::sqrt(var / m) / q;
      r.effect_unit = "relative change in the change rate";
      out.push_back(std::move(r));
    }
  }
  {
    test_result r{.name = "outcome-longest-run",
                  .family = "outcomes",
                  .description = "the longest run of each outcome: too long (streaks) or too short",
                  .reference =
                      "exact law of the longest success run (Feller vol. 1, XIII.7), two-sided, "
                      "Bonferroni over the categories",
                  .distribution = "exact",
                  .sample = n_,
                  .min_sample = min_outcomes,
                  .unit = "outcomes"};
    if (n_ < min_outcomes) {
      out.push_back(invalid(std::move(r), fmt::format("needs {} outcomes, has {}", min_outcomes, n_)));
    } else {
      double best = 2;
      std::size_t at = 0;
      for (std::size_t c = 0; c < k; ++c) {
        const double ge = longest_run_at_least(n_, p[c], longest_[c]);
        const double le = 1 - longest_run_at_least(n_, p[c], longest_[c] + 1);
        const double pc = std::min(1.0, 2 * std::min(ge, le));
        if (pc < best) best = pc, at = c;
      }
      r.statistic = static_cast<double>(longest_[at]);
      r.p_value = std::min(1.0, best * static_cast<double>(k));
      r.note = fmt::format("most extreme: longest run of {} is {} (exact two-sided p {:.3g}, x {} categories)",
                           spec_.categories[at].name, longest_[at], best, k);
      out.push_back(std::move(r));
    }
  }
  if (groups_.empty()) return;
  const std::string key = group_key_.empty() ? "group" : group_key_;
  test_result r{.name = "outcome-by-" + key,
                .family = "outcomes",
                .description = fmt::format("each {}'s outcome frequencies against the declared law: one {} "
                                           "favoured",
                                           key, key),
                .reference = "Pearson chi-square per " + key + " against " + law + ", Bonferroni over the " + key +
                             "s with >= 5 expected in every category",
                .distribution = "chi2",
                .sample = 0,
                .min_sample = 0,
                .unit = key + "s"};
  const auto need = static_cast<std::uint64_t>(std::ceil(5 / pmin));
  r.min_sample = 1;
  double best = 2;
  std::string at, skipped;
  std::uint64_t used = 0;
  for (const auto& [g, c] : groups_) {
    const std::uint64_t ng = std::accumulate(c.begin(), c.end(), std::uint64_t{0});
    if (ng < need) {
      skipped += fmt::format("{}{}", skipped.empty() ? "" : ", ", g);
      continue;
    }
    test_result one;
    chi2_against(one, std::vector<double>(c.begin(), c.end()), p);
    ++used;
    if (one.valid() && *one.p_value < best) best = *one.p_value, at = g;
  }
  r.sample = used;
  if (used == 0) {
    out.push_back(invalid(std::move(r), fmt::format("needs {} outcomes at a {} ({} expected in every category), "
                                                    "has none",
                                                    need, key, 5)));
    return;
  }
  r.statistic = best;
  r.p_value = std::min(1.0, best * static_cast<double>(used));
  r.note = fmt::format("most extreme: {} {} (chi-square p {:.3g}, x {} {}s)", key, at, best, used, key);
  if (!skipped.empty()) r.note += fmt::format("; {}s with fewer than {} outcomes not tested: {}", key, need, skipped);
  out.push_back(std::move(r));
}

outcome_tally read_outcomes(std::istream& in, std::optional<outcome_spec> declared, const run_control& rc) {
  std::optional<outcome_tally> t;
  if (declared) t.emplace(std::move(*declared));
  std::string line, key;
  std::uint64_t line_no = 0;
  while (!rc.stopped() && std::getline(in, line)) {
    ++line_no;
    std::string_view s = trim(line);
    if (s.empty()) continue;
    if (s.front() == '#') {
      std::string_view body = trim(s.substr(1));
      constexpr std::string_view tag = "categories:";
      if (!body.starts_with(tag)) continue;
      if (t) throw std::runtime_error(fmt::format("outcomes line {}: the categories are declared twice", line_no));
      try {
        t.emplace(parse_outcome_spec(body.substr(tag.size())));
      } catch (const std::invalid_argument& e) {
        throw std::runtime_error(fmt::format("outcomes line {}: {}", line_no, e.what()));
      }
      continue;
    }
    if (!t)
      throw std::runtime_error(
          fmt::format("outcomes line {}: an outcome before the '# categories: name=p ...' "
                      "declaration",
                      line_no));
    const auto space = s.find_first_of(" \t");
    const std::string_view name = s.substr(0, space);
    std::string_view group;
    if (space != std::string_view::npos) {
      const std::string_view label = trim(s.substr(space));
      const auto eq = label.find('=');
      const std::string_view k = eq == std::string_view::npos ? std::string_view{} : label.substr(0, eq);
      if ((k != "seat" && k != "table") || eq + 1 == label.size() ||
          label.find_first_of(" \t") != std::string_view::npos)
        throw std::runtime_error(
            fmt::format("outcomes line {}: '{}' is not a seat=X or table=X label", line_no, label.substr(0, 40)));
      if (!key.empty() && k != key)
        throw std::runtime_error(fmt::format("outcomes line {}: a {} label in a file of {} labels", line_no, k, key));
      key = std::string(k);
      group = label.substr(eq + 1);
    }
    const auto& cats = t->spec().categories;
    const auto it = std::find_if(cats.begin(), cats.end(), [&](const auto& c) { return c.name == name; });
    if (it == cats.end()) {
      std::string names;
      for (const auto& c : cats) names += fmt::format("{}{}", names.empty() ? "" : ", ", c.name);
      throw std::runtime_error(
          fmt::format("outcomes line {}: '{}' is not a declared category ({})", line_no, name.substr(0, 40), names));
    }
    t->add(static_cast<std::size_t>(it - cats.begin()), group);
    if ((line_no & 0xfffff) == 0) rc.progress(line_no, 0);
  }
  if (in.bad()) throw std::runtime_error("read error on the outcomes input");
  if (!t) throw std::runtime_error("the outcomes input declares no categories ('# categories: name=p name=p ...')");
  t->set_group_key(key);
  return std::move(*t);
}

}  // namespace fairdeck::certify
