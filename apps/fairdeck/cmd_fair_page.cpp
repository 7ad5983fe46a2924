// fairdeck fair page: writes the player's browser verifier (docs/verify-page.md), the exact
// bytes of web/verify.html that fairdeckd serves at GET /verify, to a file or stdout.
#include "cmd_fair_page.hpp"

#include <memory>
#include <string>

#include "fairdeck/security/verify_page.hpp"
#include "fairdeck/util/safe_output.hpp"

namespace fairdeck::cli {

void add_fair_page_command(CLI::App& fair, int& exit_code) {
  auto out = std::make_shared<std::string>("-");
  auto* page = fair.add_subcommand(
      "page", "Write the player's offline browser verifier (verify.html; docs/verify-page.md), as fairdeckd serves it");
  page->add_option("-o,--out", *out, "File to write (default: standard output)");
  // One safe writer for every file the CLI writes (util/safe_output.hpp): a regular file is
  // replaced whole (temporary file, fsync, rename); devices, FIFOs and symlinks are written
  // through; an empty path is a usage error.
  page->callback([out, &exit_code] {
    write_output_file(*out, fair::verify_page());
    exit_code = 0;
  });
}

}  // namespace fairdeck::cli
