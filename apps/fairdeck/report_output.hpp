// The CLI's side of the `report` layer: the report module's names in the CLI's namespace, the
// terminal (width, stdout) and the game rules worded as flags. Everything that renders lives
// in fairdeck/report; this file only prints it.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "fairdeck/report/audit.hpp"
#include "fairdeck/report/cards.hpp"
#include "fairdeck/report/certify.hpp"

namespace fairdeck::cli {

using report::add_game_json;
using report::all_as_expected;
using report::as_expected;
using report::audit_charts_html;
using report::audit_json;
using report::audit_run_info;
using report::bottom_line;
using report::cards_json;
using report::certify_context;
using report::certify_json;
using report::effect_cell;
using report::expected_verdict;
using report::failed_tests;
using report::format_p;
using report::holdem_json;
using report::html_escape;
using report::html_style;
using report::p_phrase;
using report::parse_report_strict;
using report::plain_verdict;
using report::rank_label;
using report::sign_report;
using report::signed_bytes;
using report::suit_label;
using report::too_little_data;
using report::verdict_key;
using report::verdict_word;
using report::write_audit_html;
using report::write_certify_html;

// Width to wrap sentences at: the terminal's, or $COLUMNS; 0 (no wrapping) for pipes/files.
[[nodiscard]] std::size_t text_width();

void print_audit_table(const std::vector<stats::audit_result>& results, const audit_run_info& run);
void print_holdem(const holdem_deal& d, const deck_spec& spec = {}, format_options fo = {}, int indent = 0);
void print_game(const game_request& g, std::span<const card_t> deck, const deck_spec& spec, format_options fo);
void print_certify_table(const nlohmann::json& report);

// fairdeck::validate_game worded as the CLI's flags; throws usage_error (exit 2).
void check_game(const game_request& g, const deck_spec& spec);

}  // namespace fairdeck::cli
