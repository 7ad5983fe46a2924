// fairdeck.Engine, fairdeck.SecureEngine, fairdeck.engines(); the helpers every topic shares.
#include <cstring>
#include <limits>
#include <string>

#include <pybind11/stl.h>

#include "common.hpp"
#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/splitmix64.hpp"

namespace fairdeck::python {

engine_handle::~engine_handle() {
  if (spec_.key) detail::secure_wipe(spec_.key->data(), spec_.key->size());
}

engine_spec engine_handle::next() { return spec_for_call(calls_++); }

engine_spec engine_handle::spec_for_call(std::uint64_t call) const {
  if (call == 0 || spec_.id == engine_id::secure) return spec_;
  engine_spec s = spec_;
  if (s.key) {
    // A keyed ChaCha20: call c's key is 32 bytes of the keystream on stream ~c, a stream id
    // no library algorithm uses (theirs stay below 2^63), so the derived keys are as secret
    // as the user's key and independent of every stream the calls themselves read.
    chacha20_engine e(*s.key, ~call);
    for (std::size_t i = 0; i < s.key->size(); i += 8) {
      const std::uint64_t w = e();
      std::memcpy(s.key->data() + i, &w, 8);
    }
    return s;
  }
  // A seed for call c, hashed with a constant of its own so that (seed, call c) never meets
  // (seed, stream k) of stream_seed(): call 1 is not call 0's stream 1.
  const std::uint64_t h = splitmix64::mix(spec_.seed ^ splitmix64::mix(call * 0xd1b54a32d192ed03ULL + 0x66616972ULL));
  const std::uint64_t limit = info(s.id).seed_limit;
  s.seed = limit ? h % limit : h;
  return s;
}

engine_spec next_spec(const py::object& engine) {
  if (engine.is_none()) return make_engine_spec(std::nullopt, std::nullopt, std::nullopt);  // secure
  if (!py::isinstance<engine_handle>(engine))
    throw py::type_error("engine must be a fairdeck.Engine (or None for a fresh secure engine)");
  return engine.cast<engine_handle&>().next();
}

unsigned thread_count(const std::optional<long long>& threads) {
  if (!threads) return 0;
  if (*threads < 1 || *threads > 256)
    throw std::invalid_argument("threads must be 1..256 (None: one per hardware thread), not " + std::to_string(*threads));
  return static_cast<unsigned>(*threads);
}

std::vector<card_t> cards_from_python(const py::handle& obj, const deck_spec& spec) {
  if (py::isinstance<py::str>(obj)) return parse_cards(obj.cast<std::string>(), spec);
  std::vector<card_t> out;
  for (const py::handle item : obj) {
    if (py::isinstance<py::str>(item)) {
      out.push_back(parse_card(item.cast<std::string>(), spec));
      continue;
    }
    const long long v = py::int_(py::reinterpret_borrow<py::object>(item)).cast<long long>();
    if (v < 0 || static_cast<unsigned long long>(v) >= spec.size())
      throw std::invalid_argument("card index " + std::to_string(v) + " is outside 0.." + std::to_string(spec.size() - 1));
    out.push_back(static_cast<card_t>(v));
  }
  return out;
}

py::list card_names(std::span<const card_t> cards, const deck_spec& spec, bool unicode) {
  py::list out;
  for (card_t c : cards) out.append(format_card(c, spec, {unicode}));
  return out;
}

namespace {

std::optional<std::uint64_t> seed_from_python(const py::object& seed) {
  if (seed.is_none()) return std::nullopt;
  if (!py::isinstance<py::int_>(seed) || py::isinstance<py::bool_>(seed)) throw py::type_error("seed must be an int");
  const py::int_ v(seed);
  if (v < py::int_(0) || v > py::int_(std::numeric_limits<std::uint64_t>::max()))
    throw std::invalid_argument("seed must be 0..2^64-1, got " + py::str(seed).cast<std::string>());
  return v.cast<std::uint64_t>();
}

engine_handle make_engine(const std::string& name, const py::object& seed, const std::optional<std::string>& key) {
  std::optional<std::string_view> key_view;
  if (key) key_view = *key;
  return engine_handle(make_engine_spec(name, seed_from_python(seed), key_view));
}

py::array_t<std::uint64_t> draw(engine_handle& h, std::uint64_t count, const py::object& below_obj) {
  std::uint64_t below = 0;
  if (!below_obj.is_none()) {
    below = below_obj.cast<std::uint64_t>();
    if (below == 0) throw std::invalid_argument("below must be at least 1");
  }
  const engine_spec spec = h.next();
  py::array_t<std::uint64_t> out(static_cast<py::ssize_t>(count));
  std::uint64_t* d = out.mutable_data();
  const py::gil_scoped_release nogil;
  visit_engine(spec, 0, [&](auto& e) {  // `fairdeck random`: stream 0, one value per draw
    for (std::uint64_t i = 0; i < count; ++i) d[i] = below ? draw_below(e, below) : static_cast<std::uint64_t>(e());
  });
  return out;
}

std::string engine_repr(const engine_handle& h) {
  const auto& s = h.spec();
  const std::string name(info(s.id).name);
  if (s.id == engine_id::secure) return "fairdeck.SecureEngine()";
  if (s.key) return "fairdeck.Engine('" + name + "', key=<secret>)";
  return "fairdeck.Engine('" + name + "', seed=" + std::to_string(s.seed) + ")";
}

}  // namespace

void register_engines(py::module_& m) {
  py::class_<engine_handle>(m, "Engine", R"doc(
A random engine by name, as the CLI's --engine/--seed/--key.

Engine("xoshiro256pp", seed=42) gives, on its first use, exactly the stream of
`fairdeck ... --engine xoshiro256pp --seed 42`. The engine counts its uses: use c (0 first)
runs the library with a seed derived from (seed, c), so repeated calls (deal, shuffle, ...)
draw fresh randomness, and the whole sequence is reproducible from the seed. A seeded
engine is reproducible and therefore NOT secure (2^64 seeds can be searched); legacy
engines (glibc-rand, java, ...) are historical generators, never secure. Without a seed a
seeded engine takes a fresh one from OS entropy (see .seed). "chacha20" with key=<64 hex
digits> is secure while the key stays secret. Engine("secure") equals SecureEngine().
)doc")
      .def(py::init(&make_engine), py::arg("name"), py::arg("seed") = py::none(), py::arg("key") = py::none())
      .def_property_readonly("name", [](const engine_handle& h) { return std::string(info(h.spec().id).name); })
      .def_property_readonly("seed",
                             [](const engine_handle& h) -> py::object {
                               if (!h.spec().reproducible() || h.spec().key) return py::none();
                               return py::int_(h.spec().seed);
                             },
                             "The 64-bit seed (None for the secure engine and for keyed ChaCha20)")
      .def_property_readonly("secure", [](const engine_handle& h) { return h.spec().secure(); },
                             "Unpredictable to whoever lacks the secret (OS-keyed, or ChaCha20 with a secret key)")
      .def_property_readonly("reproducible", [](const engine_handle& h) { return h.spec().reproducible(); })
      .def_property_readonly("legacy", [](const engine_handle& h) { return info(h.spec().id).legacy; })
      .def_property("calls", &engine_handle::calls, &engine_handle::set_calls,
                    "Uses so far; setting it (e.g. to 0) replays the sequence from that use")
      .def("random", &draw, py::arg("count") = 10, py::arg("below") = py::none(),
           "`count` raw 64-bit outputs, or uniform integers in [0, below) (exact: Lemire's bounded draw), as "
           "`fairdeck random --count N [--below B]` prints them. Counts as one use.")
      .def("__repr__", &engine_repr);

  // SecureEngine() returns an Engine (isinstance(SecureEngine(), Engine) holds); engine=None
  // everywhere means a fresh secure engine.
  m.attr("SecureEngine") = py::cpp_function(
      [] { return engine_handle(make_engine_spec("secure", std::nullopt, std::nullopt)); },
      py::name("SecureEngine"),
      "ChaCha20 keyed from OS entropy (fast key erasure, fork-safe): the default engine. Never reproducible; "
      "raises fairdeck.EntropyError (an OSError) when the OS has no entropy.");

  m.def("engines", [] {
    py::list out;
    for (const auto& e : engine_catalog()) {
      py::dict d;
      d["name"] = std::string(e.name);
      d["secure"] = e.secure;
      d["legacy"] = e.legacy;
      d["seed_bits"] = e.seed_bits;
      d["state_bits"] = e.state_bits;
      d["description"] = std::string(e.description);
      d["seed_limit"] = e.seed_limit ? py::object(py::int_(e.seed_limit)) : py::object(py::none());
      out.append(d);
    }
    return out;
  }, "The engine catalogue (as `fairdeck --help` lists it): name, secure, legacy, seed_bits, state_bits, description.");
}

}  // namespace fairdeck::python
