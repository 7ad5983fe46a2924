// fairdeck.fair: provably fair commit-reveal dealing (docs/provably-fair.md), as `fairdeck fair`.
#include <string>

#include <fmt/format.h>
#include <pybind11/stl.h>

#include "common.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/security/provably_fair.hpp"

namespace fairdeck::python {

namespace {

// 64 hex digits or 32 bytes. The copy made here is wiped with the server_seed object.
fair::server_seed server_seed_from_python(const py::object& obj) {
  if (py::isinstance<py::bytes>(obj) || py::isinstance<py::bytearray>(obj)) {
    const std::string b = obj.cast<std::string>();
    if (b.size() != fair::seed_bytes)
      throw fair::fair_input_error(fmt::format("server seed: expected {} bytes, got {}", fair::seed_bytes, b.size()));
    std::array<std::uint8_t, fair::seed_bytes> a{};
    std::copy(b.begin(), b.end(), a.begin());
    fair::server_seed s(a);
    detail::secure_wipe(a.data(), a.size());
    return s;
  }
  if (!py::isinstance<py::str>(obj)) throw py::type_error("server_seed must be 64 hex digits (str) or 32 bytes");
  return fair::server_seed::from_hex(obj.cast<std::string>());
}

std::vector<std::string> seat_seeds(const py::object& obj) {
  if (py::isinstance<py::str>(obj)) return {obj.cast<std::string>()};
  return obj.cast<std::vector<std::string>>();
}

// `fair deal`'s rule: one seed is checked with the single-seed messages, several are combined.
std::string hand_client_seed(const std::vector<std::string>& seats) {
  if (seats.size() == 1) fair::validate_client_seed(seats.front());
  return fair::combine_client_seeds(seats);
}

std::uint64_t nonce_from_python(const py::object& obj) {
  if (py::isinstance<py::str>(obj)) return fair::parse_nonce(obj.cast<std::string>());
  if (!py::isinstance<py::int_>(obj) || py::isinstance<py::bool_>(obj)) throw py::type_error("nonce must be an int or its decimal text");
  return fair::parse_nonce(py::str(obj).cast<std::string>());
}

py::dict fair_deal(const py::object& server_seed, const py::object& client_seed, const py::object& nonce_obj, unsigned decks,
              unsigned jokers, std::optional<unsigned> players, std::optional<unsigned> hands, std::optional<unsigned> cards) {
  const deck_spec spec{decks, jokers};
  validate(spec);
  if (players && (hands || cards)) throw std::invalid_argument("players (hold'em) and hands/cards exclude each other");
  if (hands.has_value() != cards.has_value()) throw std::invalid_argument("hands and cards go together");
  const std::uint64_t nonce = nonce_from_python(nonce_obj);
  const auto seats = seat_seeds(client_seed);
  const std::string combined = hand_client_seed(seats);
  const auto seed = server_seed_from_python(server_seed);
  const auto deck = fair::deal_deck(seed, combined, nonce, spec);
  py::dict j;
  j["commitment"] = fair::commitment(seed);
  j["client_seed"] = combined;
  j["seat_seeds"] = seats;
  j["nonce"] = std::to_string(nonce);  // the exact text hashed, as `fair deal --json` writes it
  j["decks"] = spec.decks;
  j["jokers"] = spec.jokers;
  j["n"] = deck.size();
  j["cards"] = card_names(deck, spec);
  j["indices"] = to_numpy(deck);
  if (players) {
    j["game"] = "holdem";
    j["players"] = *players;
    for (const auto& [k, v] : holdem_names(deck, *players, spec)) j[k] = v;
  } else if (hands) {
    py::list hs;
    for (const auto& h : deal_hands(deck, *hands, *cards)) hs.append(card_names(h, spec));
    j["hands"] = hs;
    j["cards_per_hand"] = *cards;
  }
  return j;
}

py::dict verify(const py::object& server_seed, const std::string& commitment, const py::object& client_seed,
                const py::object& nonce_obj, const py::object& deck, unsigned decks, unsigned jokers) {
  const deck_spec spec{decks, jokers};
  validate(spec);
  const auto seed = server_seed_from_python(server_seed);
  (void)fair::parse_hex32(commitment, "commitment");
  const std::uint64_t nonce = nonce_from_python(nonce_obj);
  const std::string combined = hand_client_seed(seat_seeds(client_seed));
  std::vector<card_t> claimed;
  if (py::isinstance<py::str>(deck)) {
    claimed = fair::parse_faces(deck.cast<std::string>(), spec);
  } else {
    for (const py::handle c : deck) {  // names (faces) or card indices
      if (py::isinstance<py::str>(c)) {
        const auto f = fair::parse_faces(c.cast<std::string>(), spec);
        if (f.size() != 1) throw fair::fair_input_error(fmt::format("deck: '{}' is not one card", c.cast<std::string>()));
        claimed.push_back(f.front());
      } else {
        const auto one = cards_from_python(py::make_tuple(c), spec);
        claimed.push_back(fair::face_of(one.front(), spec));
      }
    }
  }
  const auto v = fair::verify(seed, commitment, combined, nonce, claimed, spec);
  py::dict j;
  j["verified"] = v.ok();
  j["commitment_matches"] = v.commitment_matches;
  j["expected_commitment"] = v.expected_commitment;
  j["deck_size"] = v.claimed_size;
  j["expected_deck_size"] = v.expected_size;
  if (v.first_difference) {
    py::dict d;
    d["position"] = *v.first_difference;
    d["expected"] = format_card(v.expected_card, spec);
    d["got"] = format_card(v.claimed_card, spec);
    j["first_difference"] = d;
  } else {
    j["first_difference"] = py::none();
  }
  j["problems"] = v.ok() ? std::vector<std::string>{} : v.describe(spec);
  return j;
}

// A deal answer's cards: text "Ah Kd ..." or a list of names.
std::vector<card_t> faces_from_python(const py::handle& obj, const deck_spec& spec) {
  if (py::isinstance<py::str>(obj)) return fair::parse_faces(obj.cast<std::string>(), spec);
  std::string text;
  for (const py::handle c : obj) text += c.cast<std::string>() + " ";
  return fair::parse_faces(text, spec);
}

py::dict check_hand(const py::dict& answer, unsigned seat, const std::string& my_seed, const py::object& server_seed,
                    const std::string& my_commitment) {
  for (const char* key : {"seat_seeds", "client_seed", "nonce", "commitment", "cards"})
    if (!answer.contains(key)) throw fair::fair_input_error(fmt::format("the deal answer has no \"{}\"", key));
  const deck_spec spec{answer.contains("decks") ? answer["decks"].cast<unsigned>() : 1u,
                       answer.contains("jokers") ? answer["jokers"].cast<unsigned>() : 0u};
  validate(spec);
  fair::dealt_hand hand;
  hand.seat_seeds = answer["seat_seeds"].cast<std::vector<std::string>>();
  hand.client_seed = answer["client_seed"].cast<std::string>();
  hand.nonce = nonce_from_python(answer["nonce"]);
  hand.server_commitment = answer["commitment"].cast<std::string>();
  hand.cards = faces_from_python(answer["cards"], spec);
  const auto seed = server_seed_from_python(server_seed);
  const auto c = fair::check_hand(hand, seat, my_seed, my_commitment, seed, spec);
  py::dict j;
  j["verified"] = c.ok();
  j["my_seed_at_my_seat"] = c.my_seed_at_my_seat;
  j["my_commitment_matches"] = c.my_commitment_matches;
  j["client_seed_matches"] = c.client_seed_matches;
  j["commitment_matches"] = c.deck.commitment_matches;
  j["problems"] = c.ok() ? std::vector<std::string>{} : c.describe(spec);
  return j;
}

}  // namespace

void register_fair(py::module_& m) {
  auto f = m.def_submodule("fair", R"doc(
Provably fair dealing (docs/provably-fair.md): commit to a secret server seed (publish
commitment(seed)), deal from HMAC-SHA256(seed, "<client seed>:<nonce>:<k>"), reveal the
seed afterwards; anyone re-derives the deal with verify(). The same decks as `fairdeck fair`.
)doc");
  f.def("new_seed", [] { return fair::server_seed::generate().hex(); },
        "A fresh secret server seed from OS entropy, as 64 hex digits. Keep it secret until its deals are over.");
  f.def("commitment", [](const py::object& seed) { return fair::commitment(server_seed_from_python(seed)); }, py::arg("server_seed"),
        "hex(SHA-256(server seed)): publish this before dealing");
  f.def("deal", &fair_deal, py::arg("server_seed"), py::arg("client_seed"), py::arg("nonce"), py::kw_only(),
        py::arg("decks") = 1, py::arg("jokers") = 0, py::arg("players") = py::none(), py::arg("hands") = py::none(),
        py::arg("cards") = py::none(), R"doc(
The deck for (server seed, client seed, nonce), exactly as `fairdeck fair deal --json`:
a dict with commitment, client_seed, seat_seeds, nonce (text), decks, jokers, n, cards
(names, dealt first first) and indices (numpy uint16); players=P adds the hold'em deal
(seats, burns, flop, turn, river), hands=H with cards=C adds "hands". server_seed: 64 hex
digits or 32 bytes; client_seed: a string or a list of the seats' seeds (combined as the
spec says); nonce: an int or its canonical decimal text. Bad input raises ValueError with
the CLI's message.
)doc");
  f.def("verify", &verify, py::arg("server_seed"), py::arg("commitment"), py::arg("client_seed"), py::arg("nonce"),
        py::arg("deck"), py::kw_only(), py::arg("decks") = 1, py::arg("jokers") = 0, R"doc(
Checks a published deal, as `fairdeck fair verify --json`: the revealed seed must match the
commitment and re-derive the claimed deck (text "Ah Kd ..." or a list of names or indices;
faces are compared, so copies in a shoe need not match). Returns a dict: verified,
commitment_matches, expected_commitment, deck_size, expected_deck_size, first_difference
(position, expected, got) or None, problems (one line each).
)doc");
  // The player's side of a fairdeckd hand with seat commitments (provably-fair.md, "Hands no
  // one can grind").
  f.def("fresh_seat_seed", &fair::fresh_seat_seed,
        "A fresh seat seed for a hand: 64 hex digits from OS entropy. Keep it secret until every seat has committed.");
  f.def("seat_commitment", &fair::seat_commitment, py::arg("client_seed"),
        "hex(SHA-256(client seed)): what a seat commits before any seed of the hand is revealed");
  f.def("seed_matches_commitment", &fair::seed_matches_commitment, py::arg("client_seed"), py::arg("commitment"),
        "Does the seed hash to the commitment (64 hex digits, either case)? False for anything invalid.");
  f.def("check_hand", &check_hand, py::arg("answer"), py::arg("seat"), py::arg("my_seed"), py::arg("server_seed"),
        py::kw_only(), py::arg("my_commitment") = "", R"doc(
Checks a fairdeckd hand from one seat once its server seed is revealed (as `fairdeck fair
verify --hand`): `answer` is the deal answer of POST /v1/tables/{t}/hands/{h}/deal (a dict
with seat_seeds, client_seed, nonce, commitment, cards, and decks, jokers). Returns a dict:
verified, my_seed_at_my_seat, my_commitment_matches (True when my_commitment is not given),
client_seed_matches, commitment_matches, problems (one line each).
)doc");
}

}  // namespace fairdeck::python
