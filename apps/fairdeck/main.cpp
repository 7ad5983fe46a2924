// fairdeck: the command-line front end. Each subcommand lives in its own cmd_*.cpp.
#include <algorithm>
#include <cstdio>
#include <exception>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/random/os_entropy.hpp"

namespace fairdeck::cli {

std::vector<command_entry>& commands() {
  static std::vector<command_entry> list;
  return list;
}

bool register_command(int order, setup_fn setup) {
  commands().push_back({order, setup});
  return true;
}

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
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "fairdeck: error: %s (see --help)\n", e.what());
    return 2;
  } catch (const usage_error& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    return 2;
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fairdeck: error: %s\n", e.what());
    return 1;
  }
  return exit_code;
}
