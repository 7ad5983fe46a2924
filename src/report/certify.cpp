#include "fairdeck/report/certify.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "fairdeck/report/audit.hpp"
#include "fairdeck/report/engine.hpp"
#include "fairdeck/certify/evidence.hpp"

namespace fairdeck::report {
namespace {

constexpr std::string_view version = FAIRDECK_VERSION;  // the project version, as `fairdeck --version`

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

nlohmann::json test_json(const certify::test_result& t) {
  nlohmann::json j{{"name", t.name},
                   {"family", t.family},
                   {"p_value", opt(t.p_value)},
                   {"result", certify::outcome_name(t.result)},
                   {"description", t.description},
                   {"reference", t.reference},
                   {"distribution", t.distribution},
                   {"statistic", std::isfinite(t.statistic) ? nlohmann::json(t.statistic) : nlohmann::json(nullptr)},
                   {"df", opt(t.df)},
                   {"sample", t.sample},
                   {"min_sample", t.min_sample},
                   {"unit", t.unit},
                   {"note", t.note}};
  if (t.detectable_effect)
    j["detectable_effect"] = {{"value", *t.detectable_effect}, {"measure", t.effect_unit}, {"text", t.effect_text}};
  return j;
}

std::string cell_p(const nlohmann::json& p) {
  if (p.is_null()) return "&#8212;";
  const double v = p.get<double>();
  return v < 1e-300 ? "&lt; 1e-300" : fmt::format("{:.4g}", v);
}

// Strip chart: each valid test as a dot at -log10(p), with the Holm/Bonferroni threshold.
std::string p_chart(const nlohmann::json& r) {
  const auto& tests = r["tests"];
  const double thr = r["decision_rule"]["bonferroni_threshold"].get<double>();
  constexpr int width = 640, row = 16, left = 190;
  const double max_x = std::max(6.0, -std::log10(thr) + 2);
  std::string svg = fmt::format("<svg width=\"{}\" height=\"{}\" role=\"img\" aria-label=\"p-values\">\n", width,
                                row * (tests.size() + 2));
  auto xpos = [&](double p) {
    const double v = std::min(max_x, -std::log10(std::max(p, 1e-300)));
    return left + (width - left - 10) * v / max_x;
  };
  svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"0\" y2=\"{1}\" stroke=\"#b2182b\" stroke-dasharray=\"4 3\"/>"
                     "<text x=\"{0:.1f}\" y=\"{2}\" class=\"tick\">fail below p = {3:.2g}</text>\n",
                     xpos(thr), row * (tests.size() + 1), row * (tests.size() + 2) - 3, thr);
  for (std::size_t i = 0; i < tests.size(); ++i) {
    const auto& t = tests[i];
    const double y = row * (static_cast<double>(i) + 0.8);
    svg += fmt::format("<text x=\"0\" y=\"{:.1f}\" class=\"tick\">{} ({})</text>", y + 4, html_escape(t["name"].get<std::string>()),
                       html_escape(t["family"].get<std::string>()));
    if (t["p_value"].is_null()) {
      svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" class=\"tick\">invalid: too little data</text>\n", left, y + 4);
      continue;
    }
    const bool failed = t["result"] == "fail";
    svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4\" fill=\"{}\"/>\n", xpos(t["p_value"].get<double>()), y,
                       failed ? "#b2182b" : "#1a7f37");
  }
  svg += fmt::format("<text x=\"{}\" y=\"{}\" class=\"axis\">&#8722;log10 p (right = more surprising)</text></svg>\n",
                     left, row * (tests.size() + 2) - 3);
  return svg;
}

std::string verdict_class(const std::string& v) { return v == "pass" ? "fair" : "biased"; }

}  // namespace

nlohmann::json certify_power_json(const certify::power_plan& p) {
  nlohmann::json rows = nlohmann::json::array();
  for (const auto& r : p.rows) {
    nlohmann::json row{{"family", r.family},
                       {"test", r.test},
                       {"measure", certify::effect_measure_name(r.measure)},
                       {"effect", r.effect},
                       {"detectable", std::isfinite(r.detectable) ? nlohmann::json(r.detectable) : nlohmann::json(nullptr)},
                       {"data", r.data},
                       {"unit", r.unit}};
    if (r.target) row["target"] = *r.target;
    if (r.needed) row["needed"] = *r.needed;
    rows.push_back(std::move(row));
  }
  return {{"statement", certify::power_statement(p)}, {"alpha", p.alpha}, {"power", p.power}, {"tests", p.tests},
          {"threshold", p.threshold}, {"rows", rows}};
}

std::string certify_power_table(const certify::power_plan& p) {
  std::string out;
  auto it = std::back_inserter(out);
  fmt::format_to(it, "level alpha/K = {:g}/{} = {:.3g} (Holm's first step), power {:g}%\n\n", p.alpha, p.tests,
                 p.threshold, 100 * p.power);
  fmt::format_to(it, "{:<7} {:<19} {:<7} {:>16} {:>12}  {}\n", "family", "test", "effect", "data", "detects >=",
                 "target: data needed");
  for (const auto& r : p.rows) {
    const std::string detects = std::isfinite(r.detectable) ? fmt::format("{:.3g}", r.detectable) : "-";
    const std::string target =
        r.target ? fmt::format("{}:{:g} needs {} {}{}", certify::effect_measure_name(r.measure), *r.target, *r.needed, r.unit,
                               r.data ? (*r.needed <= r.data ? " (detected with this data)" : " (more than given)") : "")
                 : "";
    std::string line = fmt::format("{:<7} {:<19} {:<7} {:>16} {:>12}  {}", r.family, r.test,
                                   certify::effect_measure_name(r.measure), fmt::format("{} {}", r.data, r.unit), detects,
                                   target);
    line.erase(line.find_last_not_of(' ') + 1);
    fmt::format_to(it, "{}\n", line);
  }
  fmt::format_to(it, "\n{}\n", certify::power_statement(p));
  return out;
}

nlohmann::json certify_json(const certify::certification& c, const certify_context& ctx) {
  nlohmann::json j;
  j["schema"] = "fairdeck-certify/1";
  j["verdict"] = certify::outcome_name(c.verdict.verdict);
  j["complete"] = c.complete;
  j["fairdeck_version"] = version;
  j["date"] = ctx.date;
  j["executable"] = {{"path", ctx.executable_path}, {"sha256", ctx.executable_sha256}};
  j["decision_rule"] = {{"method", "holm"},
                        {"alpha", c.verdict.alpha},
                        {"confidence", 1 - c.verdict.alpha},
                        {"valid_tests", c.verdict.valid_tests},
                        {"invalid_tests", c.verdict.invalid_tests},
                        {"failed_tests", c.verdict.failed_tests},
                        {"bonferroni_threshold", c.verdict.bonferroni_threshold},
                        {"rule", c.verdict.rule}};
  j["power"] = certify_power_json(c.power);
  if (ctx.engine) {
    auto e = engine_json(*ctx.engine);
    e["seeding"] = certify::seeding_description(*ctx.engine);
    j["engine"] = e;
  }
  j["inputs"] = nlohmann::json::array();
  std::vector<std::string> families;
  for (const auto& in : c.inputs) {
    nlohmann::json r{{"family", in.family}, {"source", in.source},   {"name", in.name},
                     {"description", in.description}, {"volume", in.volume}, {"unit", in.unit},
                     {"sha256", in.sha256 ? nlohmann::json(*in.sha256) : nlohmann::json(nullptr)}};
    if (in.bytes) r["bytes"] = in.bytes;
    j["inputs"].push_back(r);
  }
  j["tests"] = nlohmann::json::array();
  for (const auto& t : c.tests) {
    j["tests"].push_back(test_json(t));
    if (std::find(families.begin(), families.end(), t.family) == families.end()) families.push_back(t.family);
  }
  j["families"] = nlohmann::json::array();
  for (const auto& f : families) {
    std::size_t n = 0;
    for (const auto& t : c.tests) n += t.family == f;
    j["families"].push_back({{"name", f}, {"verdict", certify::outcome_name(certify::family_verdict(c.tests, f))},
                             {"tests", n}});
  }
  return j;
}

std::string signed_bytes(nlohmann::json report) {
  report.erase("signature");
  return report.dump();
}

nlohmann::json parse_report_strict(std::string_view text) {
  // Open containers, outermost first: the name they go by (an array's elements go by the
  // array's key) and, for objects, the keys seen so far.
  struct open_container {
    std::string name;
    bool array = false;
    std::set<std::string> keys{};
  };
  std::vector<open_container> open;
  std::string last_key;
  std::optional<std::string> duplicate;
  const auto name_of_next = [&] { return open.empty() ? std::string() : open.back().array ? open.back().name : last_key; };
  const nlohmann::json::parser_callback_t check = [&](int, nlohmann::json::parse_event_t ev, nlohmann::json& v) {
    using ev_t = nlohmann::json::parse_event_t;
    switch (ev) {
      case ev_t::object_start: open.push_back({name_of_next(), false, {}}); break;
      case ev_t::array_start: open.push_back({name_of_next(), true, {}}); break;
      case ev_t::object_end:
      case ev_t::array_end:
        if (!open.empty()) open.pop_back();
        break;
      case ev_t::key:
        last_key = v.get<std::string>();
        if (!open.empty() && !open.back().keys.insert(last_key).second && !duplicate) {
          std::string where;
          for (std::size_t i = 1; i < open.size(); ++i)
            if (!open[i].array) where += (where.empty() ? "" : ".") + open[i].name;
          duplicate = fmt::format("\"{}\" in {}", last_key, where.empty() ? "the top-level object" : where);
        }
        break;
      default: break;
    }
    return true;
  };
  nlohmann::json r;
  try {
    r = nlohmann::json::parse(text.begin(), text.end(), check);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(fmt::format("not a JSON report: {}", e.what()));
  }
  if (duplicate)
    throw std::runtime_error(fmt::format("the report names the key {} twice: refusing it (a signed report never "
                                         "repeats a key; one reader would take the first, another the second)",
                                         *duplicate));
  return r;
}

void sign_report(nlohmann::json& report, const std::string& key_file) {
  const auto sig = certify::sign_message(signed_bytes(report), key_file);
  report["signature"] = {{"algorithm", "Ed25519"},
                         {"public_key", sig.public_key_hex},
                         {"value", sig.signature_hex},
                         {"covers", "this report without \"signature\", serialised compactly with sorted keys "
                                    "(nlohmann::json dump(), UTF-8)"}};
}

void write_certify_html(std::ostream& out, const nlohmann::json& r, const stats::audit_result* decks) {
  const std::string verdict = r["verdict"].get<std::string>();
  out << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>fairdeck certify</title>\n"
      << html_style() << "</head><body>\n<h1>fairdeck certify: <span class=\"" << verdict_class(verdict) << "\">"
      << (verdict == "pass" ? "PASS" : verdict == "fail" ? "FAIL" : "INVALID") << "</span></h1>\n";
  if (r.contains("power")) out << "<p class=\"power\">" << html_escape(r["power"]["statement"].get<std::string>()) << "</p>\n";
  out << "<p class=\"verdict\">" << html_escape(r["decision_rule"]["rule"].get<std::string>())
      << (r["complete"].get<bool>() ? "" : ". <b>Interrupted: partial data.</b>") << "</p>\n";
  out << fmt::format("<div class=\"scroll\"><table><tr><th>fairdeck</th><td>{}</td></tr><tr><th>date</th><td>{}</td></tr>"
                     "<tr><th>executable SHA-256</th><td><code>{}</code></td></tr>",
                     html_escape(r["fairdeck_version"].get<std::string>()), html_escape(r["date"].get<std::string>()),
                     html_escape(r["executable"]["sha256"].get<std::string>()));
  if (r.contains("engine"))
    out << fmt::format("<tr><th>engine</th><td>{}: {}</td></tr>", html_escape(r["engine"]["name"].get<std::string>()),
                       html_escape(r["engine"]["seeding"].get<std::string>()));
  if (r.contains("signature"))
    out << fmt::format("<tr><th>Ed25519 public key</th><td><code>{}</code></td></tr>",
                       html_escape(r["signature"]["public_key"].get<std::string>()));
  out << "</table></div>\n<h2>Inputs and data volumes</h2>\n<div class=\"scroll\"><table><tr><th>family</th><th>source</th><th>what</th>"
         "<th>volume</th><th>SHA-256</th></tr>\n";
  for (const auto& in : r["inputs"])
    out << fmt::format("<tr><td>{}</td><td>{} {}</td><td>{}</td><td>{} {}</td><td><code>{}</code></td></tr>\n",
                       html_escape(in["family"].get<std::string>()), html_escape(in["source"].get<std::string>()),
                       html_escape(in["name"].get<std::string>()), html_escape(in["description"].get<std::string>()),
                       in["volume"].get<std::uint64_t>(), html_escape(in["unit"].get<std::string>()),
                       in["sha256"].is_null() ? "&#8212;" : html_escape(in["sha256"].get<std::string>()));
  out << "</table></div>\n<h2>Families</h2>\n<div class=\"scroll\"><table><tr><th>family</th><th>verdict</th><th>tests</th></tr>\n";
  for (const auto& f : r["families"]) {
    const std::string v = f["verdict"].get<std::string>();
    out << fmt::format("<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>\n", html_escape(f["name"].get<std::string>()),
                       verdict_class(v), v, f["tests"].get<std::size_t>());
  }
  out << "</table></div>\n<h2>p-values</h2>\n<figure>" << p_chart(r) << "</figure>\n";
  if (decks && decks->counts.trials > 0)
    out << "<h2>Decks: where each card landed</h2>\n" << audit_charts_html(*decks)
        << "<p><small>Heat map: row = position from the top (0 = top card), column = card in factory order; white = "
           "exactly 1/n of deals, red = more often, blue = less often (log scale, saturating at half and double)."
           "</small></p>\n";
  out << "<h2>Tests</h2>\n";
  out << "<div class=\"scroll\"><table class=\"tests\"><tr><th>test</th><th>family</th><th>what it checks</th><th>p-value</th><th>result</th>"
         "<th>data (minimum)</th><th>detects</th><th>null law</th></tr>\n";
  for (const auto& t : r["tests"]) {
    const std::string res = t["result"].get<std::string>();
    out << fmt::format(
        "<tr class=\"{}\"><td>{}</td><td>{}</td><td>{}<br><small>{}</small></td><td>{}</td><td class=\"{}\">{}</td>"
        "<td>{} {} ({})</td><td><small>{}</small></td><td><small>{}</small></td></tr>\n",
        res == "fail" ? "FAIL" : res == "invalid" ? "skipped" : "", html_escape(t["name"].get<std::string>()),
        html_escape(t["family"].get<std::string>()), html_escape(t["description"].get<std::string>()),
        html_escape(t["note"].get<std::string>()), cell_p(t["p_value"]), verdict_class(res), res,
        t["sample"].get<std::uint64_t>(), html_escape(t["unit"].get<std::string>()), t["min_sample"].get<std::uint64_t>(),
        t.contains("detectable_effect") ? html_escape(t["detectable_effect"]["text"].get<std::string>()) : "",
        html_escape(t["reference"].get<std::string>()));
  }
  out << "</table></div>\n<p><small>Methods, power table and how to prepare a lab submission: docs/certify.md. Verify a "
         "signed JSON report with <code>fairdeck certify verify REPORT</code>.</small></p>\n</body></html>\n";
}

std::string certify_table(const nlohmann::json& r) {
  std::string out;
  auto it = std::back_inserter(out);
  if (r.contains("power")) fmt::format_to(it, "{}\n\n", r["power"]["statement"].get<std::string>());
  fmt::format_to(it, "{:<24} {:<7} {:>12} {:<8} {}\n", "test", "family", "p-value", "result", "data");
  for (const auto& t : r["tests"]) {
    const std::string p = t["p_value"].is_null() ? "-" : fmt::format("{:.4g}", t["p_value"].get<double>());
    fmt::format_to(it, "{:<24} {:<7} {:>12} {:<8} {} {}{}\n", t["name"].get<std::string>(), t["family"].get<std::string>(), p,
               t["result"].get<std::string>(), t["sample"].get<std::uint64_t>(), t["unit"].get<std::string>(),
               t["result"] == "invalid" ? fmt::format(" ({})", t["note"].get<std::string>()) : "");
  }
  fmt::format_to(it, "\nverdict: {} ({})\n", r["verdict"].get<std::string>(), r["decision_rule"]["rule"].get<std::string>());
  return out;
}

}  // namespace fairdeck::report
