// fairdeck shuffle-file: shuffle the lines, NUL-terminated records or fixed-size records of
// files of any size with fairdeck::shuffle_records (shuffle/external.hpp) — exactly uniform,
// in memory when it fits and through temporary bucket files when not, the same output for a
// seed whatever --memory, --threads and --temp-dir are. Docs: docs/cli-shuffle-file.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include <malloc.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/shuffle/external.hpp"
#include "fairdeck/util/byte_size.hpp"
#include "fairdeck/util/parallel.hpp"
#include "fairdeck/util/record_io.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_shuffle_file {
namespace {

constexpr std::uint64_t min_memory = std::uint64_t{64} << 10;

struct shuffle_file_options {
  std::vector<std::string> inputs;
  std::vector<std::string> paired;
  std::vector<std::string> outputs;
  std::uint64_t record_size = 0;
  bool lines = false;
  bool zero = false;
  std::uint64_t head_count = 0;
  std::uint64_t header = 0;
  std::string memory;
  std::string temp_dir;
  unsigned threads = 0;
  bool json = false;
  engine_options engine;
  CLI::Option* records_opt = nullptr;
  CLI::Option* head_opt = nullptr;
};

// `-o IN` is fine for a regular file (the input is read completely before the temporary
// output is renamed over it, like `shuf -o`); a device or FIFO that is also an input is not.
safe_output open_output(const std::string& path, std::span<const std::string> inputs) {
  if (path != "-") {
    try {
      (void)check_output_path(path, inputs);
    } catch (const output_error& e) {
      if (e.kind() != output_error_kind::same_as_input || check_output_path(path).mode != output_mode::replace) throw;
      return safe_output(path);
    }
  }
  return safe_output(path, inputs);
}

// /dev/null (where two outputs may both go: nothing is kept to interleave).
bool is_dev_null(const output_plan& plan) {
  struct stat st {};
  const int r = plan.fd >= 0 ? ::fstat(plan.fd, &st) : ::stat(plan.target.c_str(), &st);
  return r == 0 && S_ISCHR(st.st_mode) && st.st_rdev == makedev(1, 3);
}

// The peak resident memory of this program: VmHWM, the high-water mark of its own address
// space. getrusage's ru_maxrss is the fallback: Linux carries into it the peak of the process
// it was forked from, before exec (a test runner's or a big shell's pages).
std::uint64_t peak_rss_bytes() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line))
    if (line.starts_with("VmHWM:")) return std::strtoull(line.c_str() + 6, nullptr, 10) * 1024;
  struct rusage ru {};
  ::getrusage(RUSAGE_SELF, &ru);
  return static_cast<std::uint64_t>(ru.ru_maxrss) * 1024;
}

// Under an address-space limit (ulimit -v, prlimit --as), glibc gives each new thread its own
// malloc arena, reserving 64 MiB of address space; whether that succeeds depends on where
// the kernel places the mapping (it must be 64 MiB aligned), so the same run under the same
// limit failed about one time in 40. With a limit set, all threads share one arena: the
// shuffle allocates few, large blocks, so sharing costs nothing measurable.
void share_one_malloc_arena_under_an_address_space_limit() {
  for (const int resource : {RLIMIT_AS, RLIMIT_DATA}) {
    struct rlimit rl {};
    if (::getrlimit(resource, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
      (void)::mallopt(M_ARENA_MAX, 1);
      return;
    }
  }
}

int run_shuffle_file(const shuffle_file_options& o) {
  share_one_malloc_arena_under_an_address_space_limit();
  const bool paired = !o.paired.empty();
  if (o.records_opt->count() && o.record_size == 0) throw usage_error("--records needs a record size of at least 1 byte");
  if (paired && !o.inputs.empty()) throw usage_error("--paired A B takes the inputs itself; give no other IN");
  if (paired && o.outputs.size() != 2) throw usage_error("--paired A B needs two outputs: -o A_OUT -o B_OUT");
  if (paired && o.record_size) throw usage_error("--paired works on lines (or -z records), not --records");
  if (!paired && o.inputs.empty()) throw usage_error("IN is required: a file, several files, or - for standard input");
  if (!paired && o.outputs.size() > 1) throw usage_error("-o is given once (twice only with --paired)");
  if (o.json && (o.outputs.empty() || std::any_of(o.outputs.begin(), o.outputs.end(), [&](const std::string& p) {
                   return same_output_target(check_output_path(p), check_output_path("-"));
                 })))
    throw usage_error("--json prints a summary on standard output, so it needs -o OUT for the shuffled data");
  // Two outputs that are one file (also "-" and /dev/stdout) would interleave the pairs.
  if (paired && same_output_target(check_output_path(o.outputs[0]), check_output_path(o.outputs[1])) &&
      !is_dev_null(check_output_path(o.outputs[0])))
    throw usage_error(fmt::format("--paired needs two different outputs: '{}' and '{}' are the same file", o.outputs[0], o.outputs[1]));
  std::uint64_t memory = 0;
  if (!o.memory.empty()) {
    memory = parse_byte_size(o.memory);
    if (memory < min_memory) throw usage_error(fmt::format("--memory {} is too small: at least 64K", o.memory));
  } else {
    memory = default_memory_budget();
  }
  if (!o.temp_dir.empty()) {
    struct stat st {};
    if (::stat(o.temp_dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
      throw usage_error(fmt::format("--temp-dir '{}' is not a folder", o.temp_dir));
  }
  const engine_spec spec = o.engine.resolve();
  install_interrupt_handler();
  const auto start = std::chrono::steady_clock::now();
  const std::vector<std::string> inputs = paired ? o.paired : o.inputs;
  // Outputs are checked (their temporary files created) before any input is read.
  std::vector<safe_output> outs;
  const std::vector<std::string> out_paths = o.outputs.empty() ? std::vector<std::string>{"-"} : o.outputs;
  for (const auto& p : out_paths) outs.push_back(open_output(p, inputs));

  record_format format;
  format.delimiter = o.zero ? '\0' : '\n';
  format.record_size = o.record_size;
  const std::uint64_t max_record = max_record_bytes(memory);
  progress_bar bar("shuffling");
  external_shuffle_options opt;
  opt.memory_bytes = memory;
  opt.temp_dir = o.temp_dir;
  opt.threads = o.threads;
  opt.header = o.header;
  if (o.head_opt->count()) opt.sample = o.head_count;
  opt.control = bar.control();

  std::vector<std::unique_ptr<record_reader>> readers;
  std::vector<std::unique_ptr<record_writer>> writers;
  external_shuffle_stats stats;
  std::uint64_t bytes = 0;
  try {
    if (paired) {
      for (int k = 0; k < 2; ++k) {
        readers.push_back(std::make_unique<record_reader>(std::vector<std::string>{o.paired[k]}, format, max_record, &interrupted()));
        writers.push_back(std::make_unique<record_writer>(outs[k], format, is_gzip_path(out_paths[k])));
      }
      paired_source src(*readers[0], *readers[1], o.paired[0], o.paired[1], format.delimiter);
      paired_sink sink(*writers[0], *writers[1], format.delimiter);
      stats = shuffle_records(src, sink, spec, opt);
    } else {
      readers.push_back(std::make_unique<record_reader>(o.inputs, format, max_record, &interrupted()));
      writers.push_back(std::make_unique<record_writer>(outs[0], format, is_gzip_path(out_paths[0])));
      stats = shuffle_records(*readers[0], *writers[0], spec, opt);
    }
  } catch (const input_error& e) {
    throw usage_error(e.what());
  } catch (const temp_space_error& e) {
    throw std::runtime_error(fmt::format("{}; choose another --temp-dir", e.what()));  // exit 1: the disk, not the usage
  } catch (const record_too_long& e) {
    throw std::runtime_error(fmt::format("{} (--memory {} allows records of up to {}); raise --memory", e.what(),
                                         format_byte_size(memory), format_byte_size(max_record_bytes(memory))));
  } catch (const memory_error& e) {
    throw std::runtime_error(fmt::format("{} within --memory {}; {}", e.what(), format_byte_size(memory),
                                         opt.sample ? "raise --memory or take a smaller -n" : "try a smaller --memory"));
  } catch (const std::bad_alloc&) {
    throw std::runtime_error(fmt::format("out of memory with --memory {}; try a smaller --memory", format_byte_size(memory)));
  }
  for (std::size_t k = 0; k < writers.size(); ++k) {
    bytes += readers[k]->bytes_read();
    writers[k]->finish(readers[k]->ended_with_delimiter());
  }
  for (auto& out : outs) out.commit();
  if (o.json) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    nlohmann::json in_json = inputs;
    print_json({{"input", inputs.size() == 1 ? nlohmann::json(inputs[0]) : in_json},
                {"inputs", in_json},
                {"output", out_paths.size() == 1 ? nlohmann::json(out_paths[0]) : nlohmann::json(out_paths)},
                {"mode", o.record_size ? "records" : o.zero ? "zero-terminated" : "lines"},
                {"record_size", o.record_size ? nlohmann::json(o.record_size) : nlohmann::json(nullptr)},
                {"items", stats.header_records + stats.records},
                {"lines", stats.header_records + stats.records},
                {"header", stats.header_records},
                {"output_items", stats.output_records},
                {"bytes", bytes},
                {"passes", stats.passes},
                {"buckets", stats.buckets},
                {"temp_bytes", stats.temp_bytes},
                {"memory_limit_bytes", memory},
                {"peak_memory_bytes", peak_rss_bytes()},
                {"reserved_bytes", stats.peak_reserved_bytes},
                {"threads", resolve_threads(o.threads)},
                {"engine", engine_json(spec)},
                {"seconds", secs}});
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<shuffle_file_options>();
  auto* cmd = app.add_subcommand("shuffle-file", "Shuffle the lines or records of files of any size (uniform, multi-threaded)");
  cmd->add_option("IN", o->inputs, "Input files, read one after the other ('-': standard input; *.gz: gzip)");
  cmd->add_option("-o,--output", o->outputs,
                  "Output file (default: standard output; *.gz: gzip); written only when complete. Twice with --paired")
      ->allow_extra_args(false);
  o->records_opt = cmd->add_option("--records", o->record_size, "Shuffle fixed-size records of SIZE bytes");
  auto* lines = cmd->add_flag("--lines", o->lines, "Shuffle lines (the default)");
  lines->excludes(o->records_opt);
  cmd->add_flag("-z,--zero-terminated", o->zero, "Records end with NUL, not newline")->excludes(o->records_opt)->excludes(lines);
  o->head_opt = cmd->add_option("-n,--head-count", o->head_count, "Output only K records: a uniform sample, in random order (O(K) memory)");
  cmd->add_option("--header", o->header, "Keep the first N lines in place (of the first input; with --paired, of both)");
  cmd->add_option("--paired", o->paired, "Shuffle two line-aligned files A B with one permutation (needs -o A_OUT -o B_OUT)")
      ->expected(2);
  cmd->add_option("--memory", o->memory, "Memory to use, e.g. 600M, 2G (default: half of the available memory); never changes the output");
  cmd->add_option("--temp-dir", o->temp_dir, "Folder for temporary files (default: $TMPDIR or /tmp); never changes the output");
  add_threads_option(*cmd, o->threads, "Worker threads (0: all cores); the output does not depend on it");
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--json", o->json, "Print a JSON summary (needs -o; docs/cli-shuffle-file.md)");
  cmd->callback([o, &exit_code] {
    try {
      exit_code = run_shuffle_file(*o);
    } catch (const ::fairdeck::interrupted& e) {
      std::fprintf(stderr, "fairdeck: %s\n", e.what());
      exit_code = 130;
    }
  });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_shuffle_file

FAIRDECK_REGISTER_COMMAND(72, fairdeck::cli::cmd_shuffle_file::setup)
