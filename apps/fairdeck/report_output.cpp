#include "report_output.hpp"

#include <cstdlib>

#include <sys/ioctl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"

namespace fairdeck::cli {

std::size_t text_width() {
  if (::isatty(STDOUT_FILENO) == 1) {
    struct winsize ws {};
    if (::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 40) return ws.ws_col;
  }
  if (const char* c = std::getenv("COLUMNS")) {
    const long w = std::strtol(c, nullptr, 10);
    if (w >= 40 && w <= 1000) return static_cast<std::size_t>(w);
  }
  return 0;
}

void print_audit_table(const std::vector<stats::audit_result>& results, const audit_run_info& run) {
  const std::size_t width = text_width();
  fmt::print("{}", report::audit_table(results, run, width));
  fmt::print("{}\n", report::wrap_text(run.html_path.empty()
                                          ? "The picture (heat maps, charts, every test): add --html report.html"
                                          : fmt::format("The picture (heat maps, charts, every test): {}", run.html_path),
                                      width));
}

void print_holdem(const holdem_deal& d, const deck_spec& spec, format_options fo, int indent) {
  fmt::print("{}", report::holdem_text(d, spec, fo, indent));
}

void print_game(const game_request& g, std::span<const card_t> deck, const deck_spec& spec, format_options fo) {
  fmt::print("{}", report::game_text(g, deck, spec, fo));
}

void print_certify_table(const nlohmann::json& report) { fmt::print("{}", report::certify_table(report)); }

void check_game(const game_request& g, const deck_spec& spec) {
  const auto problem = validate_game(g, spec);
  if (!problem) return;
  switch (*problem) {
    case game_problem::holdem_with_hands: throw usage_error("hold'em takes --players, not --hands/--cards");
    case game_problem::holdem_without_players: throw usage_error("hold'em needs --players P (2..22)");
    case game_problem::players_out_of_range:
      throw usage_error(
          fmt::format("--players must be {}..{}, got {}", holdem_min_players, holdem_max_players, g.players));
    case game_problem::hands_without_cards: throw usage_error("--hands H and --cards C go together (both at least 1)");
    case game_problem::deck_too_small: break;
  }
  throw usage_error(fmt::format("this deal needs {} cards but the deck has {}", cards_needed(g), spec.size()));
}

}  // namespace fairdeck::cli
