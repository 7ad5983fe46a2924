// fairdeck.audit (decks from Python: a 2-D integer array or an iterable of decks) and
// fairdeck.audit_shuffle (simulated deals, as `fairdeck audit --algorithm A --engine E`).
// Input decks go through the library's own reader (stats::audit_stream) as text lines, so
// validation, line numbers and messages are those of `fairdeck audit --input`; the report
// (JSON, HTML, plain words) is fairdeck/report's, the layer the CLI prints.
#include <functional>
#include <istream>
#include <sstream>
#include <streambuf>
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "common.hpp"
#include "fairdeck/report/audit.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/util/safe_output.hpp"

namespace fairdeck::python {
namespace {

// An istream over lines made on demand, so memory stays flat however many decks come.
class line_buffer : public std::streambuf {
 public:
  explicit line_buffer(std::function<bool(std::string&)> next) : next_(std::move(next)) {}

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    line_.clear();
    if (!next_(line_)) return traits_type::eof();
    line_.push_back('\n');
    setg(line_.data(), line_.data(), line_.data() + line_.size());
    return traits_type::to_int_type(*gptr());
  }

 private:
  std::function<bool(std::string&)> next_;
  std::string line_;
};

struct py_audit {
  stats::audit_result result;
  report::audit_run_info run;
  [[nodiscard]] nlohmann::json json() const { return report::audit_json({result}, run); }
};

py::object json_to_python(const nlohmann::json& j) {
  return py::module_::import("json").attr("loads")(j.dump());
}

// Integer element (i, j) of a 2-D array of any integer dtype, by its raw bytes.
long long element(const char* p, char kind, std::size_t size) {
  switch (size) {
    case 1: return kind == 'u' ? *reinterpret_cast<const std::uint8_t*>(p) : *reinterpret_cast<const std::int8_t*>(p);
    case 2: return kind == 'u' ? *reinterpret_cast<const std::uint16_t*>(p) : *reinterpret_cast<const std::int16_t*>(p);
    case 4: return kind == 'u' ? *reinterpret_cast<const std::uint32_t*>(p) : *reinterpret_cast<const std::int32_t*>(p);
    default: {
      if (kind == 'u') {
        const std::uint64_t v = *reinterpret_cast<const std::uint64_t*>(p);
        return v > static_cast<std::uint64_t>(std::numeric_limits<long long>::max()) ? -1 : static_cast<long long>(v);
      }
      return *reinterpret_cast<const std::int64_t*>(p);
    }
  }
}

stats::input_settings input_settings(double alpha, const std::string& format, std::optional<std::size_t> n,
                                     unsigned shoe_decks, unsigned jokers, const std::string& label) {
  stats::input_settings s;
  s.format = stats::parse_deck_format(format);
  s.deck = {shoe_decks, jokers};
  validate(s.deck);
  s.cards = n;
  s.alpha = alpha;
  s.label = label;
  s.machine_tests = true;  // as `fairdeck audit --input`: the bytes must match the CLI
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument(fmt::format("alpha must be between 0 and 1, not {}", alpha));
  return s;
}

py_audit finish(stats::audit_result r, double alpha, std::optional<std::uint64_t> seed, const char* source) {
  py_audit a{std::move(r), {}};
  a.run = report::audit_run_info{seed, alpha, source, 1, !a.result.complete, ""};
  return a;
}

py_audit audit_array(const py::array& a, stats::input_settings s) {
  if (a.ndim() != 2) throw std::invalid_argument("audit: the array must be 2-D (one deck per row)");
  const char kind = a.dtype().kind();
  if (kind != 'i' && kind != 'u')
    throw std::invalid_argument(fmt::format("audit: card indices must be integers, not dtype {}",
                                            py::str(a.dtype()).cast<std::string>()));
  if (s.format == stats::deck_format::text) throw std::invalid_argument("audit: an integer array holds indices, not text");
  s.format = stats::deck_format::indices;
  const auto rows = static_cast<std::size_t>(a.shape(0)), cols = static_cast<std::size_t>(a.shape(1));
  const auto rs = a.strides(0), cs = a.strides(1);
  const auto size = static_cast<std::size_t>(a.itemsize());
  const char* base = static_cast<const char*>(a.data());
  return interruptible([&](const run_control& rc) {
    std::size_t row = 0;
    line_buffer buf([&](std::string& line) {
      if (row == rows) return false;
      const char* p = base + static_cast<std::ptrdiff_t>(row) * rs;
      for (std::size_t j = 0; j < cols; ++j)
        fmt::format_to(std::back_inserter(line), "{}{}", j ? " " : "", element(p + static_cast<std::ptrdiff_t>(j) * cs, kind, size));
      ++row;
      return true;
    });
    std::istream in(&buf);
    return finish(stats::audit_stream(in, s, rc), s.alpha, std::nullopt, "input");
  });
}

// Any iterable of decks: strings ("Ac 7d ..." or "12 3 ..."), sequences of names or of
// integers, numpy rows. Runs with the GIL (the iterator needs it); Ctrl-C is checked per deck.
py_audit audit_iterable(const py::object& decks, const stats::input_settings& s) {
  py::iterator it = py::iter(decks);
  std::atomic<bool> stop{false};
  run_control rc;
  rc.stop = &stop;
  std::optional<py::error_already_set> error;
  std::uint64_t count = 0;
  line_buffer buf([&](std::string& line) {
    if (it == py::iterator::sentinel()) return false;
    try {
      if ((++count & 255) == 0 && PyErr_CheckSignals() != 0) throw py::error_already_set();
      const py::handle item = *it;
      if (py::isinstance<py::str>(item)) {
        line = item.cast<std::string>();
      } else {
        for (const py::handle c : item) {
          if (!line.empty()) line.push_back(' ');
          line += py::isinstance<py::str>(c) ? c.cast<std::string>() : py::str(py::int_(py::reinterpret_borrow<py::object>(c))).cast<std::string>();
        }
      }
      ++it;
      if (line.find('\n') != std::string::npos)
        throw py::value_error(fmt::format("audit: deck {} holds a newline: give one deck per item", count));
      return true;
    } catch (py::error_already_set& e) {
      error.emplace(std::move(e));
      stop = true;
      return false;
    } catch (const py::builtin_exception& e) {
      e.set_error();
      error.emplace();
      stop = true;
      return false;
    }
  });
  std::istream in(&buf);
  std::optional<stats::audit_result> r;
  try {
    r.emplace(stats::audit_stream(in, s, rc));
  } catch (...) {
    if (error) throw std::move(*error);
    throw;
  }
  if (error) throw std::move(*error);
  return finish(std::move(*r), s.alpha, std::nullopt, "input");
}

py_audit audit(const py::object& decks, double alpha, const std::string& format, std::optional<std::size_t> n,
               unsigned shoe_decks, unsigned jokers, const std::string& label) {
  const auto s = input_settings(alpha, format, n, shoe_decks, jokers, label);
  if (py::isinstance<py::array>(decks)) return audit_array(decks.cast<py::array>(), s);
  if (py::isinstance<py::str>(decks))
    throw py::type_error("audit: give an iterable of decks (e.g. text.splitlines()), not one string");
  return audit_iterable(decks, s);
}

py_audit audit_shuffle(const std::string& algorithm, const py::object& engine, std::uint64_t trials, unsigned decks,
                       unsigned jokers, std::optional<std::size_t> n, double alpha, std::optional<long long> threads) {
  if (!(alpha > 0 && alpha < 1)) throw std::invalid_argument(fmt::format("alpha must be between 0 and 1, not {}", alpha));
  if (trials < 1) throw std::invalid_argument("trials must be at least 1");
  stats::audit_settings s;
  s.deck = {decks, jokers};
  validate(s.deck);
  s.cards = n;
  s.trials = trials;
  s.threads = thread_count(threads);
  s.alpha = alpha;
  const std::size_t cards = stats::audited_cards(s).size();
  const std::vector<stats::audit_subject> subjects{{parse_shuffle_spec(algorithm), next_spec(engine)}};
  (void)stats::count_deals(subjects[0], cards, 0, 1);  // fails before any work if the pair cannot run
  const auto& eng = subjects[0].engine;
  const std::optional<std::uint64_t> seed = eng.reproducible() && !eng.key ? std::optional(eng.seed) : std::nullopt;
  return interruptible([&](const run_control& rc) {
    auto results = stats::run_audit(subjects, s, rc);
    return finish(std::move(results.front()), alpha, seed, "simulation");
  });
}

}  // namespace

void register_audit(py::module_& m) {
  py::class_<py_audit>(m, "AuditResult", R"doc(
The outcome of one audit: the CLI's verdict, tests and report (docs/cli-audit.md).
verdict is "fair" or "biased": biased when some test's p-value falls below
alpha / tests_run (Bonferroni), so a fair shuffle is called biased with probability at
most alpha; decks read from input that are too few for some test give "too-little-data". p_values maps each test's name to its p-value (None when the test was skipped).
)doc")
      .def_property_readonly("verdict", [](const py_audit& a) { return report::verdict_key(a.result); })
      .def_property_readonly("biased", [](const py_audit& a) { return a.result.decision.biased; })
      .def_property_readonly("conclusive", [](const py_audit& a) { return a.result.decision.tests_run > 0; })
      .def_property_readonly("complete", [](const py_audit& a) { return a.result.complete; })
      .def_property_readonly("alpha", [](const py_audit& a) { return a.result.decision.alpha; })
      .def_property_readonly("threshold", [](const py_audit& a) { return a.result.decision.threshold; })
      .def_property_readonly("trials", [](const py_audit& a) { return a.result.counts.trials; }, "Decks counted")
      .def_property_readonly("n", [](const py_audit& a) { return a.result.counts.n; }, "Cards per deck")
      .def_property_readonly("worst_test", [](const py_audit& a) { return a.result.decision.worst_test; })
      .def_property_readonly("worst_p_value", [](const py_audit& a) { return a.result.decision.worst_p; })
      .def_property_readonly("p_values",
                             [](const py_audit& a) {
                               py::dict d;
                               for (const auto& t : a.result.tests) d[py::str(t.name)] = py::cast(t.p_value);
                               return d;
                             })
      .def_property_readonly("tests", [](const py_audit& a) { return json_to_python(a.json()["audits"][0]["tests"]); },
                             "Every test as in --json: name, description, distribution, statistic, df, p_value, passed")
      .def_property_readonly("failed_tests", [](const py_audit& a) { return report::failed_tests(a.result); })
      .def_property_readonly("summary", [](const py_audit& a) { return report::plain_verdict(a.result); },
                             "One or two sentences a non-statistician can act on")
      .def_property_readonly("position_card",
                             [](const py_audit& a) {
                               const std::size_t n = a.result.counts.n;
                               py::array_t<std::uint64_t> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(n)});
                               auto o = out.mutable_unchecked<2>();
                               for (std::size_t p = 0; p < n; ++p)
                                 for (std::size_t c = 0; c < n; ++c) o(p, c) = a.result.counts.at(p, c);
                               return out;
                             },
                             "How often card c (canonical order) landed at position p (0 = top): counts[p, c]")
      .def("as_dict", [](const py_audit& a) { return json_to_python(a.json()); },
           "The `fairdeck audit --json` document as Python objects")
      .def("to_json", [](const py_audit& a, int indent) { return a.json().dump(indent); }, py::arg("indent") = 2,
           "The `fairdeck audit --json` document (same keys and values)")
      .def("html",
           [](const py_audit& a, const std::string& path) {
             std::ostringstream page;
             report::audit_run_info run = a.run;
             run.html_path = path;
             report::write_audit_html(page, {a.result}, run);
             safe_output out(path);  // temp file + rename for regular files; nothing partial
             out.write(page.view());
             out.commit();
           },
           py::arg("path"), "Writes the self-contained HTML report of `fairdeck audit --html` to path")
      .def("__repr__", [](const py_audit& a) {
        return fmt::format("<fairdeck.AuditResult {} ({} decks of {} cards; worst p {} in {})>",
                           a.result.decision.biased ? "biased" : "fair", a.result.counts.trials, a.result.counts.n,
                           report::format_p(a.result.decision.worst_p), a.result.decision.worst_test);
      });

  m.def("audit", &audit, py::arg("decks"), py::kw_only(), py::arg("alpha") = 1e-4, py::arg("format") = "auto",
        py::arg("n") = py::none(), py::arg("shoe_decks") = 1, py::arg("jokers") = 0, py::arg("label") = "input",
        R"doc(
Audits decks produced by any shuffler, as `fairdeck audit --input FILE` does.

decks: a 2-D integer array (one deck per row, each row a permutation of 0..n-1) or an
iterable of decks, each a string ("Ac 7d Th ..." or "12 3 51 ..."), a sequence of card names
or of integers. Consecutive decks form the serial test's chain. Bad input raises ValueError
naming the line (deck) number, as the CLI does. Memory does not grow with the number of decks.
An array is audited without the GIL; Ctrl-C stops either kind (KeyboardInterrupt).
)doc");
  m.def("audit_shuffle", &audit_shuffle, py::arg("algorithm") = "fisher-yates", py::arg("engine") = py::none(),
        py::arg("trials") = 1'000'000, py::arg("decks") = 1, py::arg("jokers") = 0, py::arg("n") = py::none(),
        py::arg("alpha") = 1e-4, py::arg("threads") = py::none(), R"doc(
Audits a catalogued shuffle algorithm on fresh canonical decks, as
`fairdeck audit --algorithm A --engine E --seed S --trials T`: the same counts, p-values and
verdict for the engine's first use (never dependent on threads). GIL released; Ctrl-C stops it.
)doc");
}

}  // namespace fairdeck::python
