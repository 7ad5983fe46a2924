// fairdeck monitor: watch decks (or shoes) from a live table as they arrive and raise an
// alarm as soon as the machine tests have the evidence, with the probability of any false
// alarm over the whole, unbounded stream at most --alpha (stats/monitor.hpp).
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "fairdeck/stats/deck_reader.hpp"
#include "fairdeck/stats/monitor.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_monitor {
namespace {

struct monitor_options {
  deck_options deck;
  std::string input, before, format = "auto";
  double alpha = 1e-3;
  bool json = false;
};

// Files of at least this many bytes show progress (on a terminal): about 1,000 decks.
constexpr std::uintmax_t progress_bytes = 150'000;

std::ifstream open_input(const std::string& path, const char* what) {
  errno = 0;
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error(fmt::format("cannot open {} '{}': {}", what, path, std::strerror(errno)));
  if (std::error_code ec; std::filesystem::is_directory(path, ec))
    throw std::runtime_error(fmt::format("cannot read {} '{}': {}", what, path, std::strerror(EISDIR)));
  return f;
}

void print_line(const std::string& s) {
  std::fwrite(s.data(), 1, s.size(), stdout);
  std::fputc('\n', stdout);
  std::fflush(stdout);  // each line as soon as it is known: the output may feed a pager or an alerting pipe
}

int run_monitor(const monitor_options& o) {
  if (!(o.alpha > 0 && o.alpha < 1)) throw usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o.alpha));
  const auto format = labelled("--format", [&] { return stats::parse_deck_format(o.format); });
  const deck_spec spec = o.deck.spec();
  const bool shoe = spec.decks > 1;
  if (shoe && spec.jokers > 0) throw usage_error("--decks reads shoes without jokers: drop --jokers");
  std::ifstream file, before_file;
  if (o.input != "-") file = open_input(o.input, "input file");
  if (!o.before.empty()) before_file = open_input(o.before, "--before file");
  std::istream& in = o.input == "-" ? std::cin : file;
  if (o.input == "-" && ::isatty(STDIN_FILENO) == 1)
    fmt::print(stderr,
               "fairdeck: watching decks typed on the terminal, one per line; end with Ctrl-D (or pipe them in: "
               "table-camera | fairdeck monitor --input -)\n");
  std::uintmax_t size = 0;
  if (o.input != "-") {
    std::error_code ec;
    if (std::filesystem::is_regular_file(o.input, ec)) size = std::filesystem::file_size(o.input, ec);
  }
  std::optional<progress_bar> bar;
  if (size >= progress_bytes) bar.emplace("watching decks");
  run_control control;
  if (bar) {
    control = bar->control();
  } else {
    install_interrupt_handler();
    control.stop = &interrupted();
  }

  stats::deck_reader reader(format, spec, std::nullopt, shoe);
  std::optional<stats::deck_reader> before_reader;
  if (!o.before.empty()) before_reader.emplace(format, spec, std::nullopt, shoe);
  std::optional<stats::machine_monitor> monitor;
  std::vector<card_t> order, before;
  std::string line, before_line;
  std::uint64_t bytes = 0;
  try {
    while (!control.stopped() && reader.read_line(in, line)) {
      bytes += line.size() + 1;
      if (!reader.parse_line(line, order)) continue;
      if (before_reader) {
        bool got = false;
        try {
          while (!got && before_reader->read_line(before_file, before_line))
            got = before_reader->parse_line(before_line, before);
        } catch (const stats::deck_input_error& e) {
          throw std::runtime_error(fmt::format("--before file, {}", e.what()));
        }
        if (!got) throw stats::deck_input_error(reader.line_number(), "the --before file ends before this deck");
        if (!std::ranges::equal(before_reader->cards(), reader.cards()))
          throw stats::deck_input_error(reader.line_number(), "the before order holds other cards than this deck");
      }
      if (!monitor) monitor.emplace(reader.cards(), reader.spec(), reader.copies(), o.alpha);
      const auto alarm = monitor->add(order, before);
      if (bar && (monitor->decks() & 255) == 0) control.progress(bytes, size);
      if (!alarm) continue;
      bar.reset();
      if (o.json) {
        nlohmann::json j{{"alarm", true},       {"deck", alarm->deck},         {"line", reader.line_number()},
                         {"test", alarm->test}, {"evidence", alarm->evidence}, {"threshold", 1 / o.alpha},
                         {"alpha", o.alpha}};
        for (std::size_t t = 0; t < alarm->tests.size(); ++t)
          j["tests"][stats::machine_monitor::test_names[t]] = alarm->tests[t];
        print_line(j.dump());
      } else {
        print_line(
            fmt::format("ALARM at deck {} (line {}): {} evidence {:.4g} >= {:g} (false-alarm probability over the "
                        "whole stream <= {:g})",
                        alarm->deck, reader.line_number(), alarm->test, alarm->evidence, 1 / o.alpha, o.alpha));
      }
      return 3;
    }
  } catch (const stats::deck_input_error& e) {
    throw std::runtime_error(e.what());  // bad data: exit 1
  }
  if (in.bad()) throw std::runtime_error("read error on the input");
  bar.reset();
  const std::uint64_t decks = monitor ? monitor->decks() : 0;
  const double evidence = monitor ? monitor->evidence() : 1.0;
  if (o.json) {
    print_line(nlohmann::json{{"alarm", false},
                              {"decks", decks},
                              {"evidence", evidence},
                              {"threshold", 1 / o.alpha},
                              {"alpha", o.alpha},
                              {"interrupted", control.stopped()}}
                   .dump());
  } else {
    print_line(fmt::format("no alarm after {} decks{}: evidence {:.4g} < {:g}", decks,
                           control.stopped() ? " (interrupted)" : "", evidence, 1 / o.alpha));
  }
  return control.stopped() ? 130 : 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<monitor_options>();
  auto* cmd = app.add_subcommand("monitor",
                                 "Watch a live table's decks for a shuffling machine, anytime-valid (docs/machines.md)");
  add_deck_options(*cmd, o->deck);
  cmd->add_option("--input", o->input,
                  "Decks (or shoes with --decks) from FILE ('-': stdin, e.g. a pipe), one per line")
      ->required();
  cmd->add_option("--alpha", o->alpha, "Probability of any false alarm over the whole stream")->capture_default_str();
  cmd->add_option("--before", o->before, "The order each deck went in, one per line (default: new-deck order)");
  cmd->add_option("--format", o->format, "Input format: auto, text (card names) or indices")->capture_default_str();
  cmd->add_flag("--json", o->json, "One JSON line per alarm (and one at the end without an alarm)");
  cmd->callback([o, &exit_code] { exit_code = run_monitor(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_monitor

FAIRDECK_REGISTER_COMMAND(42, fairdeck::cli::cmd_monitor::setup)
