// fairdeck.shuffle, fairdeck.permutation, fairdeck.deal and fairdeck.Deck.
#include <algorithm>
#include <array>
#include <cstring>
#include <memory>
#include <optional>
#include <string>

#include <pybind11/stl.h>

#include "buffer_claim.hpp"
#include "common.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/fairness.hpp"
#include "fairdeck/shuffle/huge.hpp"

namespace fairdeck::python {
namespace {

// Below this many items a call runs on the calling thread (no watcher thread; too short to
// need Ctrl-C); the result never depends on it.
constexpr std::uint64_t interruptible_items = std::uint64_t{1} << 16;

// A Py_buffer released on scope exit.
struct buffer_view {
  Py_buffer view{};
  bool held = false;
  explicit buffer_view(const py::handle& obj) {
    if (PyObject_GetBuffer(obj.ptr(), &view, PyBUF_RECORDS_RO) != 0) {
      PyErr_Clear();
      throw py::type_error("shuffle needs a numpy array or another object with the buffer protocol (got " +
                           py::str(py::type::of(obj).attr("__name__")).cast<std::string>() +
                           "; Python lists are shuffled by fairdeck.shuffle in the package)");
    }
    held = true;
  }
  buffer_view(const buffer_view&) = delete;
  buffer_view& operator=(const buffer_view&) = delete;
  ~buffer_view() {
    if (held) PyBuffer_Release(&view);
  }
};

template <std::size_t K>
struct blob {
  std::array<unsigned char, K> b;
};

template <class T>
bool shuffle_items(void* data, std::uint64_t n, const engine_spec& spec, huge_shuffle_options opt) {
  return huge_shuffle(std::span<T>(static_cast<T*>(data), n), spec, opt);
}

// In place by a uniformly random permutation p (new[i] = old[p[i]]), following its cycles:
// one spare item of memory beyond p. For items of other sizes and strided 1-D views.
template <class Index>
bool shuffle_by_permutation(char* base, std::uint64_t n, std::ptrdiff_t stride, std::size_t item, const engine_spec& spec,
                            const huge_shuffle_options& opt) {
  std::vector<Index> p(n);
  if (!random_permutation(std::span<Index>(p), spec, opt)) return false;
  std::vector<char> spare(item);
  auto at = [&](std::uint64_t i) { return base + static_cast<std::ptrdiff_t>(i) * stride; };
  for (std::uint64_t i = 0; i < n; ++i) {
    if (p[i] == i) continue;
    std::memcpy(spare.data(), at(i), item);
    std::uint64_t j = i;
    for (;;) {
      const std::uint64_t k = p[j];
      p[j] = static_cast<Index>(j);  // done
      if (k == i) {
        std::memcpy(at(j), spare.data(), item);
        break;
      }
      std::memcpy(at(j), at(k), item);
      j = k;
    }
  }
  return true;
}

bool shuffle_buffer(char* base, std::uint64_t n, std::ptrdiff_t stride, std::size_t item, const engine_spec& spec,
                    const huge_shuffle_options& opt) {
  if (stride == static_cast<std::ptrdiff_t>(item)) {
    switch (item) {
      case 1: return shuffle_items<std::uint8_t>(base, n, spec, opt);
      case 2: return shuffle_items<std::uint16_t>(base, n, spec, opt);
      case 4: return shuffle_items<std::uint32_t>(base, n, spec, opt);
      case 8: return shuffle_items<std::uint64_t>(base, n, spec, opt);
      case 16: return shuffle_items<blob<16>>(base, n, spec, opt);
      default: break;
    }
  }
  if (n <= (std::uint64_t{1} << 32)) return shuffle_by_permutation<std::uint32_t>(base, n, stride, item, spec, opt);
  return shuffle_by_permutation<std::uint64_t>(base, n, stride, item, spec, opt);
}

void shuffle(const py::object& array, const py::object& engine, std::optional<long long> threads) {
  huge_shuffle_options opt;
  opt.threads = thread_count(threads);
  const buffer_view buf(array);
  const Py_buffer& v = buf.view;
  if (v.readonly) throw std::invalid_argument("shuffle: the array is read-only (shuffle works in place)");
  if (v.ndim == 0) throw std::invalid_argument("shuffle: a 0-dimensional array has nothing to shuffle");
  const auto n = static_cast<std::uint64_t>(v.shape[0]);
  std::size_t item = static_cast<std::size_t>(v.itemsize);
  std::ptrdiff_t stride = v.strides ? v.strides[0] : v.itemsize;
  if (v.ndim > 1) {  // rows: each row moves as one item
    if (!PyBuffer_IsContiguous(&v, 'C'))
      throw std::invalid_argument("shuffle: a non-contiguous array with more than one dimension; pass "
                                  "numpy.ascontiguousarray(a) or a 1-D view");
    for (int d = 1; d < v.ndim; ++d) item *= static_cast<std::size_t>(v.shape[d]);
    stride = static_cast<std::ptrdiff_t>(item);
  }
  const engine_spec spec = next_spec(engine);
  if (n < 2 || item == 0) return;
  char* base = static_cast<char*>(v.buf);
  if (format_holds_objects(v.format)) {
    // Items hold owned references (an object array, or records with object fields): they are
    // moved with the GIL held, so no Python code (nor another shuffle) sees or changes them
    // mid-move. Not interruptible: Ctrl-C is raised when the call returns.
    shuffle_buffer(base, n, stride, item, spec, opt);
    return;
  }
  // Plain bytes, moved without the GIL: first claim them, so that concurrent fairdeck calls on
  // the same bytes run one after the other (buffer_claim.hpp).
  const auto first = reinterpret_cast<std::uintptr_t>(base);
  const auto last = first + static_cast<std::uintptr_t>(static_cast<std::ptrdiff_t>(n - 1) * stride);
  const buffer_claim claim(std::min(first, last), std::max(first, last) + item);
  if (n < interruptible_items) {
    const py::gil_scoped_release nogil;
    shuffle_buffer(base, n, stride, item, spec, opt);
    return;
  }
  interruptible([&](const run_control& rc) {
    huge_shuffle_options o = opt;
    o.control = rc;
    shuffle_buffer(base, n, stride, item, spec, o);
  });
}

// The claim of fairdeck._fairdeck._claim_buffer(array), a context manager for the tests: a
// shuffle of array's bytes waits while it is held, as for a running shuffle.
struct test_claim {
  std::unique_ptr<buffer_view> buf;
  std::optional<buffer_claim> claim;
};

py::array permutation(std::uint64_t n, const py::object& engine, std::optional<long long> threads,
                      const py::object& dtype_obj) {
  huge_shuffle_options opt;
  opt.threads = thread_count(threads);
  const py::dtype dtype = dtype_obj.is_none() ? (n <= (std::uint64_t{1} << 32) ? py::dtype::of<std::uint32_t>()
                                                                               : py::dtype::of<std::uint64_t>())
                                              : py::dtype::from_args(dtype_obj);
  const bool wide = dtype.is(py::dtype::of<std::uint64_t>()) || dtype.equal(py::dtype::of<std::uint64_t>());
  if (!wide && !dtype.equal(py::dtype::of<std::uint32_t>()))
    throw std::invalid_argument("permutation: dtype must be uint32 or uint64");
  if (!wide && n > (std::uint64_t{1} << 32)) throw std::invalid_argument("permutation: uint32 holds n <= 2^32 only");
  const engine_spec spec = next_spec(engine);
  auto run = [&](auto* out, const run_control& rc) {
    huge_shuffle_options o = opt;
    o.control = rc;
    using T = std::remove_pointer_t<decltype(out)>;
    random_permutation(std::span<T>(out, n), spec, o);
  };
  py::array out(dtype, std::vector<py::ssize_t>{static_cast<py::ssize_t>(n)});
  void* d = out.mutable_data();
  auto go = [&](const run_control& rc) {
    if (wide)
      run(static_cast<std::uint64_t*>(d), rc);
    else
      run(static_cast<std::uint32_t*>(d), rc);
  };
  if (n < interruptible_items) {
    const py::gil_scoped_release nogil;
    go(run_control{});
  } else {
    interruptible(go);
  }
  return out;
}

deck_spec checked_deck(unsigned decks, unsigned jokers) {
  const deck_spec s{decks, jokers};
  validate(s);
  return s;
}

void warn_if_unfair(const shuffle_spec& algo, const engine_spec& eng, std::size_t n) {
  if (const shuffle_fairness f = assess_fairness(algo, eng.id, n); !f.fair)
    if (PyErr_WarnEx(PyExc_UserWarning, f.warning.c_str(), 2) != 0) throw py::error_already_set();
}

// The CLI's `shuffle`/`deal`: the whole shoe through apply_shuffle on engine stream 0.
std::vector<card_t> shuffled_deck(const deck_spec& spec, const shuffle_spec& algo, const engine_spec& eng) {
  auto deck = make_deck(spec);
  visit_engine(eng, 0, [&](auto& e) { apply_shuffle(algo, deck, e); });
  return deck;
}

py::array_t<card_t> deal(unsigned k, const py::object& engine, unsigned decks, unsigned jokers, std::optional<unsigned> hands,
                         const std::string& algorithm) {
  const deck_spec spec = checked_deck(decks, jokers);
  const shuffle_spec algo = parse_shuffle_spec(algorithm);
  const unsigned h = hands.value_or(1);
  if (k == 0 || h == 0) throw std::invalid_argument("deal needs at least one card per hand and one hand");
  if (std::uint64_t{h} * k > spec.size())
    throw std::invalid_argument(std::to_string(h) + " hands of " + std::to_string(k) + " cards need " +
                                std::to_string(std::uint64_t{h} * k) + " cards; the shoe has " + std::to_string(spec.size()));
  const engine_spec eng = next_spec(engine);
  const auto deck = shuffled_deck(spec, algo, eng);
  warn_if_unfair(algo, eng, deck.size());
  if (!hands) return to_numpy(std::vector<card_t>(deck.begin(), deck.begin() + k));
  const auto dealt = deal_hands(deck, h, k);
  py::array_t<card_t> out({static_cast<py::ssize_t>(h), static_cast<py::ssize_t>(k)});
  auto o = out.mutable_unchecked<2>();
  for (unsigned i = 0; i < h; ++i)
    for (unsigned j = 0; j < k; ++j) o(i, j) = dealt[i][j];
  return out;
}

struct py_deck {
  deck_spec spec;
  std::vector<card_t> cards;
};

py::dict holdem_dict(const holdem_deal& d, const deck_spec& spec) {
  py::list seats;
  for (const auto& s : d.hole) seats.append(card_names(s, spec));
  py::dict out;
  out["seats"] = seats;
  out["burns"] = card_names(d.burns, spec);
  out["flop"] = card_names(d.flop, spec);
  out["turn"] = format_card(d.turn, spec);
  out["river"] = format_card(d.river, spec);
  return out;
}

}  // namespace

py::dict holdem_names(std::span<const card_t> deck, unsigned players, const deck_spec& spec) {
  return holdem_dict(deal_holdem(deck, players), spec);
}

void register_shuffle(py::module_& m) {
  m.def("_shuffle_buffer", &shuffle, py::arg("array"), py::arg("engine") = py::none(), py::arg("threads") = py::none());
  py::class_<test_claim>(m, "_BufferClaim")
      .def("__enter__", [](test_claim& c) { c.claim.emplace(reinterpret_cast<std::uintptr_t>(c.buf->view.buf),
                                                            reinterpret_cast<std::uintptr_t>(c.buf->view.buf) +
                                                                static_cast<std::uintptr_t>(c.buf->view.len)); })
      .def("__exit__", [](test_claim& c, const py::args&) { c.claim.reset(); });
  m.def("_claim_buffer", [](const py::object& array) {
    auto c = std::make_unique<test_claim>();
    c->buf = std::make_unique<buffer_view>(array);
    if (c->buf->view.len <= 0) throw std::invalid_argument("_claim_buffer: an empty buffer");
    return c;
  }, "For the tests: `with _claim_buffer(a):` holds a claim on a's bytes (a contiguous buffer)");
  m.def("_buffer_claims", [] { return buffer_claim_counts(); }, "For the tests: (claims held, calls waiting)");
  m.def("permutation", &permutation, py::arg("n"), py::arg("engine") = py::none(), py::arg("threads") = py::none(),
        py::arg("dtype") = py::none(), R"doc(
A uniformly random permutation of 0..n-1 (numpy uint32 while n <= 2^32, else uint64).

Exactly what fairdeck.shuffle makes of numpy.arange(n, dtype=...) with the same engine use,
and the order `fairdeck shuffle-file` applies to n lines (uint32) for the same seed. In place
and multi-threaded (huge_shuffle: Sanders 1998, Penschuck 2023); the result never depends on
`threads`. The GIL is released; Ctrl-C stops it (KeyboardInterrupt).
)doc");
  m.def("deal", &deal, py::arg("k"), py::arg("engine") = py::none(), py::arg("decks") = 1, py::arg("jokers") = 0,
        py::arg("hands") = py::none(), py::arg("algorithm") = "fisher-yates", R"doc(
Shuffles a fresh shoe and deals: the top k cards (1-D uint16 card indices), or with hands=H
a (H, k) array dealt one card at a time round the table. The same cards as
`fairdeck deal --hands H --cards k --engine E --seed S` for the engine's first use.
Card i: suit i // 13 % 4 (c, d, h, s), rank i % 13 (A..K); jokers follow the decks.
)doc");

  py::class_<py_deck>(m, "Deck", R"doc(
A shoe of `decks` 52-card decks plus `jokers` jokers, top card first, in factory order
(0, 1, ..., n-1) until shuffled. Card i: suit i // 13 % 4 (c, d, h, s), rank i % 13 (A..K).
)doc")
      .def(py::init([](unsigned decks, unsigned jokers) {
             const deck_spec s = checked_deck(decks, jokers);
             return py_deck{s, make_deck(s)};
           }),
           py::arg("decks") = 1, py::arg("jokers") = 0)
      .def(
          "shuffle",
          [](py_deck& d, const py::object& engine, const std::string& algorithm) -> py_deck& {
            const shuffle_spec algo = parse_shuffle_spec(algorithm);
            const engine_spec eng = next_spec(engine);
            visit_engine(eng, 0, [&](auto& e) { apply_shuffle(algo, d.cards, e); });
            warn_if_unfair(algo, eng, d.cards.size());
            return d;
          },
          py::arg("engine") = py::none(), py::arg("algorithm") = "fisher-yates", py::return_value_policy::reference,
          "Shuffles in place (exactly uniform with fisher-yates and an exact engine; a UserWarning names the bias "
          "otherwise) and returns the deck. From factory order this equals `fairdeck shuffle --engine E --seed S` "
          "for the engine's first use.")
      .def_property_readonly("decks", [](const py_deck& d) { return d.spec.decks; })
      .def_property_readonly("jokers", [](const py_deck& d) { return d.spec.jokers; })
      .def_property_readonly("cards", [](const py_deck& d) { return to_numpy(d.cards); },
                             "Card indices, top first (a copy, numpy uint16)")
      .def("names", [](const py_deck& d, bool unicode) { return card_names(d.cards, d.spec, unicode); },
           py::arg("unicode") = false, "Card names top first: 'Ac', 'Td', 'X1' (unicode=True: '♣♦♥♠')")
      .def("deal",
           [](const py_deck& d, unsigned hands, unsigned cards) {
             py::list out;
             for (const auto& h : deal_hands(d.cards, hands, cards)) out.append(card_names(h, d.spec));
             return out;
           },
           py::arg("hands"), py::arg("cards"), "H hands of C card names, dealt round the table from the top")
      .def("holdem", [](const py_deck& d, unsigned players) { return holdem_names(d.cards, players, d.spec); },
           py::arg("players"),
           "Hold'em from the top: two hole cards per seat in turn, burn + flop, burn + turn, burn + river")
      .def("__len__", [](const py_deck& d) { return d.cards.size(); })
      .def("__getitem__",
           [](const py_deck& d, long long i) {
             const auto n = static_cast<long long>(d.cards.size());
             if (i < 0) i += n;
             if (i < 0 || i >= n) throw py::index_error("deck index out of range");
             return format_card(d.cards[static_cast<std::size_t>(i)], d.spec);
           })
      .def("__iter__", [](const py_deck& d) { return py::iter(card_names(d.cards, d.spec)); })
      .def("__str__", [](const py_deck& d) { return format_cards(d.cards, d.spec); })
      .def("__repr__", [](const py_deck& d) {
        return "fairdeck.Deck(decks=" + std::to_string(d.spec.decks) + ", jokers=" + std::to_string(d.spec.jokers) +
               ")  # " + std::to_string(d.cards.size()) + " cards";
      });

  m.def("card_name", [](unsigned c, unsigned decks, unsigned jokers, bool unicode) {
    const deck_spec s = checked_deck(decks, jokers);
    if (c >= s.size()) throw std::invalid_argument("card index " + std::to_string(c) + " is outside 0.." + std::to_string(s.size() - 1));
    return format_card(static_cast<card_t>(c), s, {unicode});
  }, py::arg("index"), py::arg("decks") = 1, py::arg("jokers") = 0, py::arg("unicode") = false, "The name of card index i: 0 -> 'Ac'");
  m.def("parse_cards", [](const std::string& text, unsigned decks, unsigned jokers) {
    return to_numpy(parse_cards(text, checked_deck(decks, jokers)));
  }, py::arg("text"), py::arg("decks") = 1, py::arg("jokers") = 0,
        "Card indices (uint16) of 'Ac 10h K♠ X1'; repeated faces take successive copies of the shoe. ValueError names a bad token.");
}

}  // namespace fairdeck::python
