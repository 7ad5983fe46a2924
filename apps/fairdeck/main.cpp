// fairdeck: the command-line front end. Each subcommand lives in its own cmd_*.cpp.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "progress.hpp"
#include "std_streams.hpp"

namespace fairdeck::cli {

std::vector<command_entry>& commands() {
  static std::vector<command_entry> list;
  return list;
}

bool register_command(int order, setup_fn setup) {
  commands().push_back({order, setup});
  return true;
}

namespace {

// CLI11 reads unsigned options with strtoull(base 0): "-1" wraps to 2^64-1, overflow
// clamps, "010" is octal. fairdeck wants plain decimal or a clear error, for every
// unsigned option of every subcommand (present and future), so the check is added here.
std::string strict_decimal(std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
    return "'" + text + "' is not a non-negative decimal integer";
  const std::string max = "18446744073709551615";
  const auto digits = text.find_first_not_of('0') == std::string::npos ? std::string("0") : text.substr(text.find_first_not_of('0'));
  if (digits.size() > max.size() || (digits.size() == max.size() && digits > max))
    return "'" + text + "' is larger than 2^64-1";
  text = digits;  // no octal surprises for leading zeros
  return {};
}

void add_strict_unsigned_checks(CLI::App& app) {
  for (CLI::Option* opt : app.get_options())
    if (opt->get_type_name() == "UINT") opt->transform(CLI::Validator(strict_decimal, "", "decimal"));
  for (CLI::App* sub : app.get_subcommands({})) add_strict_unsigned_checks(*sub);
}

// With --json anywhere on the command line, errors are JSON too ({"error": "..."} on
// stderr), so scripts need not parse text; otherwise one line "fairdeck: error: ...".
bool g_json_errors = false;

void report_error(const std::string& message) {
  if (g_json_errors)
    std::fprintf(stderr, "%s\n", nlohmann::json{{"error", message}}.dump().c_str());
  else
    std::fprintf(stderr, "fairdeck: error: %s\n", message.c_str());
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// "shufle" -> "unknown command 'shufle'; did you mean 'shuffle'?" (empty when argv[1] is an
// option or a known command).
std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  if (argc < 2 || argv[1][0] == '-') return {};
  const std::string word = argv[1];
  std::string best;
  std::size_t best_d = 3;  // suggest only close words
  for (const CLI::App* sub : app.get_subcommands({})) {
    if (sub->get_name() == word) return {};
    const std::size_t d = edit_distance(word, sub->get_name());
    if (d < best_d || (sub->get_name().starts_with(word) && best.empty())) {
      best_d = std::min(d, best_d);
      best = sub->get_name();
    }
  }
  return best.empty() ? fmt::format("unknown command '{}' (see --help)", word)
                      : fmt::format("unknown command '{}'; did you mean '{}'? (see --help)", word, best);
}

// --version and --quiet on every subcommand too (`fairdeck audit --version`).
void add_common_flags(CLI::App& app, const std::string& version) {
  for (CLI::App* sub : app.get_subcommands({})) {
    sub->set_version_flag("--version", version);
    if (!sub->get_option_no_throw("--quiet"))
      sub->add_flag_callback("--quiet", [] { set_quiet(true); }, "No progress display on stderr");
    add_common_flags(*sub, version);
  }
}

// --help: an option's name column and its description never run together ("--seed UINT
// Excludes: --key 64-bit seed"): two trailing spaces make a name that fills the column move
// the description to the next line.
class spaced_formatter : public CLI::Formatter {
 public:
  std::string make_option_opts(const CLI::Option* opt) const override { return CLI::Formatter::make_option_opts(opt) + "  "; }
};

// Every subcommand's results go to stdout (and a few to stderr) through stdio; a write that
// failed there (disk full, closed pipe end, /dev/full) would otherwise be lost silently at
// exit. One check for all commands: flush, then look at the stream's error flag. Returns
// the exit code to use.
int check_standard_streams(int exit_code) {
  try {
    flush_standard_output();
  } catch (const fairdeck::output_error& e) {
    report_error(e.what());
    return exit_code == 0 ? 1 : exit_code;
  }
  if (std::ferror(stderr)) return exit_code == 0 ? 1 : exit_code;  // nowhere left to say it
  return exit_code;
}

// Output problems found before or after the work: empty path and same-file-as-input are
// usage errors (2), the rest (disk full, permission denied, missing folder) exit 1.
int output_error_exit(const fairdeck::output_error& e) {
  report_error(e.what());
  using k = fairdeck::output_error_kind;
  return e.kind() == k::empty_path || e.kind() == k::same_as_input ? 2 : 1;
}

}  // namespace

}  // namespace fairdeck::cli

int main(int argc, char** argv) {
  using namespace fairdeck::cli;
  CLI::App app{"fairdeck: provably fair, unpredictable, fast and auditable card shuffling", "fairdeck"};
  app.require_subcommand(1);
  app.formatter(std::make_shared<spaced_formatter>());
#ifndef FAIRDECK_VERSION
#define FAIRDECK_VERSION "0.1.0"
#endif
#ifndef FAIRDECK_GIT_COMMIT
#define FAIRDECK_GIT_COMMIT "unknown"
#endif
  const std::string version = fmt::format("fairdeck {} (git {})", FAIRDECK_VERSION, FAIRDECK_GIT_COMMIT);
  app.set_version_flag("--version", version);
  app.add_flag_callback("--quiet", [] { set_quiet(true); }, "No progress display on stderr");
  int exit_code = 0;
  auto& list = commands();
  std::ranges::sort(list, {}, &command_entry::order);
  for (const auto& c : list) c.setup(app, exit_code);
  add_strict_unsigned_checks(app);
  add_common_flags(app, version);
  for (int i = 1; i < argc; ++i) g_json_errors = g_json_errors || std::string_view(argv[i]) == "--json";
  install_fatal_signal_cleanup();
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return check_standard_streams(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return check_standard_streams(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return check_standard_streams(app.exit(e));
  } catch (const CLI::ParseError& e) {
    const std::string unknown = unknown_command(app, argc, argv);
    report_error(unknown.empty() ? fmt::format("{} (see --help)", e.what()) : unknown);
    return 2;
  } catch (const usage_error& e) {
    report_error(e.what());
    exit_code = 2;
  } catch (const std::invalid_argument& e) {
    report_error(e.what());
    exit_code = 2;
  } catch (const fairdeck::output_error& e) {
    exit_code = output_error_exit(e);
    if (e.path() == "-") return exit_code;  // standard output's failure, already reported
  } catch (const std::exception& e) {
    report_error(e.what());
    exit_code = 1;
  }
  return check_standard_streams(exit_code);
}
