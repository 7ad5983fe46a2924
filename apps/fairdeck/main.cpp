// fairdeck: the command-line front end. Each subcommand lives in its own cmd_*.cpp.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

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

// Every subcommand's results go to stdout (and a few to stderr) through stdio; a write that
// failed there (disk full, closed pipe end, /dev/full) would otherwise be lost silently at
// exit. One check for all commands: flush, then look at the stream's error flag. Returns
// the exit code to use.
int check_standard_streams(int exit_code) {
  try {
    flush_standard_output();
  } catch (const fairdeck::output_error& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    return exit_code == 0 ? 1 : exit_code;
  }
  if (std::ferror(stderr)) return exit_code == 0 ? 1 : exit_code;  // nowhere left to say it
  return exit_code;
}

// Output problems found before or after the work: empty path and same-file-as-input are
// usage errors (2), the rest (disk full, permission denied, missing folder) exit 1.
int output_error_exit(const fairdeck::output_error& e) {
  std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
  using k = fairdeck::output_error_kind;
  return e.kind() == k::empty_path || e.kind() == k::same_as_input ? 2 : 1;
}

}  // namespace

}  // namespace fairdeck::cli

int main(int argc, char** argv) {
  using namespace fairdeck::cli;
  CLI::App app{"fairdeck: provably fair, unpredictable, fast and auditable card shuffling", "fairdeck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "fairdeck 0.1.0");
  int exit_code = 0;
  auto& list = commands();
  std::ranges::sort(list, {}, &command_entry::order);
  for (const auto& c : list) c.setup(app, exit_code);
  add_strict_unsigned_checks(app);
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
    std::fprintf(stderr, "fairdeck: error: %s (see --help)\n", e.what());
    return 2;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    exit_code = 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    exit_code = 2;
  } catch (const fairdeck::output_error& e) {
    exit_code = output_error_exit(e);
    if (e.path() == "-") return exit_code;  // standard output's failure, already reported
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    exit_code = 1;
  }
  return check_standard_streams(exit_code);
}
