// Presentation of a certification: the JSON report (docs/certify.md "JSON report"), its
// Ed25519 signature, the HTML page (the audit's look) and the terminal summary. The numbers
// all come from fairdeck/certify.
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include <nlohmann/json.hpp>

#include "fairdeck/certify/certify.hpp"

namespace fairdeck::report {

struct certify_context {
  std::optional<engine_spec> engine;  // engine under test, when any
  std::string executable_sha256;
  std::string executable_path;
  std::string date;                   // ISO 8601 UTC
};

[[nodiscard]] nlohmann::json certify_json(const certify::certification& c, const certify_context& ctx);
// The report's "power" member, and `certify plan --json`: {statement, alpha, power, tests,
// threshold, rows: [{family, test, measure, effect, detectable, data, unit, target?, needed?}]}.
[[nodiscard]] nlohmann::json certify_power_json(const certify::power_plan& plan);
// `certify plan` for people: the statement, then one line per family's test.
[[nodiscard]] std::string certify_power_table(const certify::power_plan& plan);
// The bytes a signature covers: the report without its "signature" member, compact, keys sorted.
[[nodiscard]] std::string signed_bytes(nlohmann::json report);
// Adds "signature" (Ed25519 over signed_bytes) with the key in `key_file`.
void sign_report(nlohmann::json& report, const std::string& key_file);
// Parses a report for verification. Refuses (std::runtime_error naming the key and its
// object's path) any object that names a key twice: readers disagree on which of the two
// counts, so a signed "verdict": "fail" with an unsigned "verdict": "pass" in front of it
// must never verify. Malformed JSON is a std::runtime_error too.
[[nodiscard]] nlohmann::json parse_report_strict(std::string_view text);

// `decks`: the deck family's audit, when decks were certified: its heat map and charts.
void write_certify_html(std::ostream& out, const nlohmann::json& report,
                        const stats::audit_result* decks = nullptr);
// The terminal summary: one line per test, then the verdict.
[[nodiscard]] std::string certify_table(const nlohmann::json& report);

}  // namespace fairdeck::report
