// fairdeck shuffle-file: shuffle the lines or fixed-size records of a file (e.g. a dataset)
// with fairdeck::huge_shuffle — exactly uniform, multi-threaded, same output for a seed
// whatever --threads is. Docs: docs/cli-shuffle-file.md.
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/shuffle/huge.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli {
namespace {

struct shuffle_file_options {
  std::string input;
  std::string output;
  std::uint64_t record_size = 0;
  bool lines = false;
  unsigned threads = 0;
  bool json = false;
  engine_options engine;
  CLI::Option* records_opt = nullptr;
  CLI::Option* output_opt = nullptr;
};

class interrupted_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The input, mapped when it is a regular file, read otherwise (pipes, "-").
class input_file {
 public:
  explicit input_file(const std::string& path) {
    const bool is_stdin = path == "-";
    const int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw usage_error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw usage_error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
    if (S_ISDIR(st.st_mode)) throw usage_error(fmt::format("'{}' is a directory, not a file", path));
    if (S_ISREG(st.st_mode) && st.st_size > 0) {
      size_ = static_cast<std::size_t>(st.st_size);
      void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p != MAP_FAILED) {
        map_ = static_cast<const char*>(p);
        ::madvise(p, size_, MADV_WILLNEED);
        if (!is_stdin) ::close(fd);
        return;
      }
    }
    size_ = 0;
    std::vector<char> chunk(1 << 20);
    for (;;) {
      const ssize_t got = ::read(fd, chunk.data(), chunk.size());
      if (got < 0 && errno == EINTR) {
        if (interrupted()) throw interrupted_error("interrupted while reading the input");
        continue;
      }
      if (got < 0) throw usage_error(fmt::format("cannot read '{}': {}", path, std::strerror(errno)));
      if (got == 0) break;
      owned_.insert(owned_.end(), chunk.data(), chunk.data() + got);
    }
    if (!is_stdin) ::close(fd);
  }
  ~input_file() {
    if (map_) ::munmap(const_cast<char*>(map_), size_);
  }
  input_file(const input_file&) = delete;
  input_file& operator=(const input_file&) = delete;
  [[nodiscard]] const char* data() const noexcept { return map_ ? map_ : owned_.data(); }
  [[nodiscard]] std::size_t size() const noexcept { return map_ ? size_ : owned_.size(); }

 private:
  const char* map_ = nullptr;
  std::size_t size_ = 0;
  std::vector<char> owned_;
};

// Shuffled order of m items: a uniformly random permutation of 0..m-1 (32-bit while it
// fits), shuffled in place by random_permutation.
template <class Index>
std::unique_ptr<Index[]> shuffled_order(std::uint64_t m, const engine_spec& spec, unsigned threads, huge_shuffle_stats& stats) {
  auto order = std::make_unique_for_overwrite<Index[]>(m);
  progress_bar bar("shuffling");
  huge_shuffle_options opt;
  opt.threads = threads;
  opt.control = bar.control();
  opt.stats = &stats;
  if (!random_permutation(std::span<Index>(order.get(), m), spec, opt)) throw interrupted_error("interrupted; nothing written");
  return order;
}

// Writes item order[k] for k = 0..m-1; item(i) -> (pointer, length, append a newline).
template <class Index, class Item>
void write_in_order(std::span<const Index> order, safe_output& out, Item item) {
  progress_bar bar("writing");
  const run_control rc = bar.control();
  const std::uint64_t m = order.size();
  for (std::uint64_t k = 0; k < m; ++k) {
    const auto [p, n, add_newline] = item(order[k]);
    out.write(p, n);
    if (add_newline) out.write("\n", 1);
    if ((k & 0xFFFF) == 0) {
      if (rc.stopped()) throw interrupted_error("interrupted while writing; output incomplete");
      rc.progress(k, m);
    }
  }
}

int run_shuffle_file(const shuffle_file_options& o) {
  if (o.records_opt->count() && o.record_size == 0) throw usage_error("--records needs a record size of at least 1 byte");
  if (o.json && (!o.output_opt->count() || o.output == "-"))
    throw usage_error("--json prints a summary on standard output, so it needs -o OUT for the shuffled data");
  const engine_spec spec = o.engine.resolve();
  install_interrupt_handler();
  const auto start = std::chrono::steady_clock::now();
  // Checked (and, for a file, its temporary created) before the input is read: a typo in -o
  // costs nothing, and OUT may not be IN. Without -o: standard output.
  const std::string inputs[] = {o.input};
  safe_output out(o.output_opt->count() ? o.output : "-", inputs);
  const input_file in(o.input);
  const std::uint64_t size = in.size();

  if (o.record_size && size % o.record_size)
    throw usage_error(fmt::format("'{}' has {} bytes, not a whole number of {}-byte records ({} left over)", o.input, size,
                                  o.record_size, size % o.record_size));
  std::uint64_t items = 0;
  huge_shuffle_stats stats;
  if (o.record_size) {
    items = size / o.record_size;
    const std::uint64_t rs = o.record_size;
    auto run = [&](auto index_tag) {
      using Index = decltype(index_tag);
      const auto order = shuffled_order<Index>(items, spec, o.threads, stats);
      write_in_order(std::span<const Index>(order.get(), items), out,
                     [&](Index i) { return std::tuple{in.data() + i * rs, rs, false}; });
    };
    if (items <= 0xFFFFFFFFu) run(std::uint32_t{}); else run(std::uint64_t{});
  } else {
    // Line starts; a last line without '\n' gets one in the output.
    std::vector<std::uint64_t> starts;
    {
      progress_bar bar("indexing lines");
      const run_control rc = bar.control();
      const char* p = in.data();
      std::uint64_t pos = 0;
      while (pos < size) {
        starts.push_back(pos);
        const void* nl = std::memchr(p + pos, '\n', size - pos);
        pos = nl ? static_cast<std::uint64_t>(static_cast<const char*>(nl) - p) + 1 : size;
        if ((starts.size() & 0xFFFFF) == 0) {
          if (rc.stopped()) throw interrupted_error("interrupted; nothing written");
          rc.progress(pos, size);
        }
      }
    }
    items = starts.size();
    starts.push_back(size);
    const bool unterminated = size > 0 && in.data()[size - 1] != '\n';
    auto run = [&](auto index_tag) {
      using Index = decltype(index_tag);
      const auto order = shuffled_order<Index>(items, spec, o.threads, stats);
      write_in_order(std::span<const Index>(order.get(), items), out, [&](Index i) {
        return std::tuple{in.data() + starts[i], starts[i + 1] - starts[i], unterminated && i + 1 == items};
      });
    };
    if (items <= 0xFFFFFFFFu) run(std::uint32_t{}); else run(std::uint64_t{});
  }
  out.commit();
  if (o.json) {
    const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    print_json({{"input", o.input},
                {"output", o.output},
                {"mode", o.record_size ? "records" : "lines"},
                {"record_size", o.record_size ? nlohmann::json(o.record_size) : nlohmann::json(nullptr)},
                {"items", items},
                {"bytes", size},
                {"threads", resolve_threads(o.threads)},
                {"buckets", stats.buckets},
                {"scratch_bytes", stats.buffer_bytes},
                {"engine", engine_json(spec)},
                {"seconds", secs}});
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<shuffle_file_options>();
  auto* cmd = app.add_subcommand("shuffle-file", "Shuffle the lines or fixed-size records of a file (uniform, multi-threaded)");
  cmd->add_option("IN", o->input, "Input file ('-' for standard input)")->required();
  o->output_opt = cmd->add_option("-o,--output", o->output, "Output file (default: standard output); written only when complete");
  o->records_opt = cmd->add_option("--records", o->record_size, "Shuffle fixed-size records of SIZE bytes");
  auto* lines = cmd->add_flag("--lines", o->lines, "Shuffle lines (the default)");
  lines->excludes(o->records_opt);
  add_threads_option(*cmd, o->threads, "Worker threads (0: all cores); the output does not depend on it");
  add_engine_options(*cmd, o->engine);
  cmd->add_flag("--json", o->json, "Print a JSON summary (needs -o; docs/cli-shuffle-file.md)");
  cmd->callback([o, &exit_code] {
    try {
      exit_code = run_shuffle_file(*o);
    } catch (const interrupted_error& e) {
      std::fprintf(stderr, "fairdeck: %s\n", e.what());
      exit_code = 130;
    }
  });
}

}  // namespace
}  // namespace fairdeck::cli

FAIRDECK_REGISTER_COMMAND(70, fairdeck::cli::setup)
