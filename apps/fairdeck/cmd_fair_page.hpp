// `fairdeck fair page`: the hook cmd_fair.cpp calls to add it under `fair`.
#pragma once

#include <CLI/CLI.hpp>

namespace fairdeck::cli {

// Adds `page [-o FILE]` to the `fair` subcommand; its callback stores the exit code.
void add_fair_page_command(CLI::App& fair, int& exit_code);

}  // namespace fairdeck::cli
