// fairdeck random: raw engine outputs or bounded draws, one per line (test-vector hook).
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/random/bounded.hpp"
#include "options.hpp"

namespace fairdeck::cli::cmd_random {
namespace {

struct random_options {
  engine_options engine;
  std::uint64_t count = 10;
  std::uint64_t below = 0;
  CLI::Option* below_opt = nullptr;
  bool json = false;
  bool raw = false;             // --raw: binary engine output for PractRand/TestU01/dieharder
  std::uint64_t bytes = 0;
  CLI::Option* bytes_opt = nullptr;
};

// --raw: the engine's 64-bit words (detail::draw_u64, what fairdeck's algorithms consume),
// little-endian, to stdout until --bytes (default: until the reader closes the pipe).
int run_raw(const random_options& o, const engine_spec& eng) {
  if (o.json || o.below_opt->count()) throw usage_error("--raw writes binary words: no --json or --below");
  std::signal(SIGPIPE, SIG_IGN);  // a reader that has enough (dieharder, PractRand) ends the stream: not an error
  const bool bounded = o.bytes_opt->count();
  if (bounded && o.bytes == 0) throw usage_error("--bytes must be at least 1");
  std::vector<unsigned char> buf(1 << 20);
  std::uint64_t left = o.bytes;
  return visit_engine(eng, 0, [&](auto& e) {
    while (!bounded || left > 0) {
      const std::size_t n = bounded ? static_cast<std::size_t>(std::min<std::uint64_t>(left, buf.size())) : buf.size();
      for (std::size_t i = 0; i < n; i += 8) {
        std::uint64_t v = detail::draw_u64(e);
        for (std::size_t k = 0; k < 8 && i + k < n; ++k, v >>= 8) buf[i + k] = static_cast<unsigned char>(v);
      }
      if (std::fwrite(buf.data(), 1, n, stdout) != n || std::fflush(stdout) != 0) {
        if (errno == EPIPE) {
          // The reader has what it needs. Drop what stdio still buffers (to /dev/null), so
          // main's final check of stdout sees a clean stream and the run ends with 0.
          std::clearerr(stdout);
          if (const int null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
            ::dup2(null, STDOUT_FILENO);
            ::close(null);
          }
          return 0;
        }
        throw std::runtime_error(fmt::format("error writing to stdout: {}", std::strerror(errno)));
      }
      if (bounded) left -= n;
    }
    return 0;
  });
}

int run_random(const random_options& o) {
  if (o.below_opt->count() && o.below == 0) throw usage_error("--below must be at least 1");
  const engine_spec eng = o.engine.resolve();
  if (o.raw) return run_raw(o, eng);
  std::vector<std::uint64_t> values;
  if (o.json) values.reserve(static_cast<std::size_t>(std::min<std::uint64_t>(o.count, 1u << 20)));
  fmt::memory_buffer out;
  visit_engine(eng, 0, [&](auto& e) {
    for (std::uint64_t i = 0; i < o.count; ++i) {
      const std::uint64_t v = o.below ? draw_below(e, o.below) : static_cast<std::uint64_t>(e());
      if (o.json) {
        values.push_back(v);
        continue;
      }
      fmt::format_to(std::back_inserter(out), "{}\n", v);
      if (out.size() > (1u << 16)) {
        std::fwrite(out.data(), 1, out.size(), stdout);
        out.clear();
        if (std::ferror(stdout)) return;  // output lost (disk full, /dev/full): main reports it, no point going on
      }
    }
  });
  if (o.json) {
    nlohmann::json j{{"engine", engine_json(eng)}, {"count", o.count}, {"values", values}};
    if (o.below) j["below"] = o.below;
    print_json(j);
  } else {
    std::fwrite(out.data(), 1, out.size(), stdout);
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<random_options>();
  auto* cmd = app.add_subcommand("random", "Print engine outputs (or bounded draws with --below), one per line");
  add_engine_options(*cmd, o->engine);
  cmd->add_option("--count", o->count, "How many values")->capture_default_str();
  o->below_opt = cmd->add_option("--below", o->below, "Draw uniform integers in [0, B) with the engine's bounded draw");
  cmd->add_flag("--json", o->json, "Machine-readable output (docs/cli.md)");
  cmd->add_flag("--raw", o->raw, "Binary 64-bit little-endian words to stdout (for PractRand, TestU01, dieharder)");
  o->bytes_opt = cmd->add_option("--bytes", o->bytes, "With --raw: stop after N bytes (default: until the pipe closes)");
  cmd->callback([o, &exit_code] { exit_code = run_random(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_random

FAIRDECK_REGISTER_COMMAND(91, fairdeck::cli::cmd_random::setup)
