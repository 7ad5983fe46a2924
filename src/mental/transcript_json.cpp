// The JSON forms of a hand, a public share and a key file (transcript.hpp; the formats are in
// docs/mental-poker.md §7). Strict: every object has exactly its keys, every value its type;
// the canonical text is nlohmann's dump(1) of the sorted-key object plus a newline.
#include <nlohmann/json.hpp>

#include <fmt/format.h>

#include "fairdeck/mental/transcript.hpp"
#include "fairdeck/util/hex.hpp"

namespace fairdeck::mental {

namespace {

using json = nlohmann::json;

[[noreturn]] void bad(const std::string& where, const std::string& what) { throw format_error(where + ": " + what); }

const json& field(const json& o, const char* key, const std::string& where) {
  const auto it = o.find(key);
  if (it == o.end()) bad(where, fmt::format("no \"{}\"", key));
  return *it;
}

void exact_keys(const json& o, std::initializer_list<const char*> keys, const std::string& where) {
  if (!o.is_object()) bad(where, "not an object");
  if (o.size() != keys.size()) bad(where, fmt::format("has {} keys, expected {}", o.size(), keys.size()));
  for (const char* k : keys) (void)field(o, k, where);
}

std::string text(const json& j, const std::string& where) {
  if (!j.is_string()) bad(where, "not a string");
  return j.get<std::string>();
}

std::uint32_t number(const json& j, const std::string& where, std::uint32_t max) {
  if (!j.is_number_unsigned() || j.get<std::uint64_t>() > max) bad(where, fmt::format("not a whole number 0..{}", max));
  return static_cast<std::uint32_t>(j.get<std::uint64_t>());
}

point point_at(const json& j, const std::string& where) {
  try {
    return parse_point(text(j, where), where);
  } catch (const format_error&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw format_error(e.what());
  }
}

sigma_proof proof_at(const json& j, const std::string& where) {
  try {
    return parse_sigma_proof(text(j, where), where);
  } catch (const format_error&) {
    throw;
  } catch (const std::invalid_argument& e) {
    throw format_error(e.what());
  }
}

const json& array_at(const json& j, const std::string& where) {
  if (!j.is_array()) bad(where, "not an array");
  return j;
}

std::string lower_hex(const point& p) { return fairdeck::to_hex(p); }

json share_json(const public_share& s) {
  return json{{"format", pub_format}, {"proof", to_hex(s.proof)}, {"public", lower_hex(s.pub)}};
}

public_share share_from(const json& j, const std::string& where) {
  exact_keys(j, {"format", "proof", "public"}, where);
  if (text(j["format"], where + ".format") != pub_format) bad(where, fmt::format("not a {} public share", pub_format));
  return {point_at(j["public"], where + ".public"), proof_at(j["proof"], where + ".proof")};
}

json parse_json(std::string_view t, std::string_view what) {
  try {
    return json::parse(t);
  } catch (const json::exception&) {
    throw format_error(fmt::format("the {} is not JSON", what));
  }
}

}  // namespace

std::string to_json(const public_share& s) { return share_json(s).dump() + "\n"; }

public_share parse_public_share(std::string_view t) {
  return share_from(parse_json(t, "public share"), "public share");
}

std::string key_file_text(const key_pair& k) {
  std::string secret = fairdeck::to_hex(k.secret.b);
  std::string out;
  out.reserve(200);
  out += "{\"format\":\"";
  out += key_format;
  out += "\",\"public\":\"" + lower_hex(k.pub) + "\",\"secret\":\"";
  out += secret;
  out += "\"}\n";
  sodium_memzero(secret.data(), secret.size());
  return out;
}

key_pair parse_key_file(std::string_view t) {
  // Parsed by hand from the fixed layout key_file_text writes, so the secret is never copied
  // into a JSON library's strings that are not wiped.
  const std::string head = fmt::format("{{\"format\":\"{}\",\"public\":\"", key_format);
  std::string_view rest = t;
  while (!rest.empty() && (rest.back() == '\n' || rest.back() == '\r')) rest.remove_suffix(1);
  if (!rest.starts_with(head) || rest.size() != head.size() + 64 + 12 + 64 + 2 ||
      rest.substr(head.size() + 64, 12) != "\",\"secret\":\"" || !rest.ends_with("\"}"))
    throw format_error(fmt::format("not a {} key file", key_format));
  key_pair k;
  k.pub = parse_point(rest.substr(head.size(), 64), "the key file's public share");
  k.secret = parse_scalar(rest.substr(head.size() + 76, 64), "the key file's secret share");
  if (k.secret.is_zero() || public_of(k.secret) != k.pub)
    throw format_error("the key file's public share does not match its secret share");
  return k;
}

std::string to_json(const hand& h) {
  json j;
  j["format"] = hand_format;
  j["table"] = h.table;
  j["hand"] = h.id;
  j["decks"] = h.spec.decks;
  j["jokers"] = h.spec.jokers;
  j["players"] = json::array();
  for (const auto& p : h.players) j["players"].push_back(share_json(p));
  j["steps"] = json::array();
  for (const auto& s : h.steps) {
    if (const auto* sh = std::get_if<shuffle_step>(&s)) {
      json d = json::array();
      for (const auto& e : sh->out) d.push_back(lower_hex(e.a) + lower_hex(e.b));
      j["steps"].push_back({{"type", "shuffle"},
                            {"player", sh->player},
                            {"deck", std::move(d)},
                            {"proof", fairdeck::to_hex(serialize(sh->proof))},
                            {"key_proof", to_hex(sh->key_proof)}});
    } else {
      const auto& r = std::get<reveal_step>(s);
      json shares = json::array(), proofs = json::array();
      for (const auto& d : r.shares) {
        shares.push_back(lower_hex(d.share));
        proofs.push_back(to_hex(d.proof));
      }
      j["steps"].push_back({{"type", "reveal"},
                            {"player", r.player},
                            {"to", r.to == to_all ? json("all") : json(r.to)},
                            {"positions", r.positions},
                            {"shares", std::move(shares)},
                            {"proofs", std::move(proofs)}});
    }
  }
  return j.dump(1) + "\n";
}

hand parse_hand(std::string_view t) {
  const json j = parse_json(t, "transcript");
  exact_keys(j, {"decks", "format", "hand", "jokers", "players", "steps", "table"}, "transcript");
  if (text(j["format"], "format") != hand_format) bad("format", fmt::format("not a {} transcript", hand_format));
  hand h;
  h.table = text(j["table"], "table");
  h.id = text(j["hand"], "hand");
  h.spec.decks = number(j["decks"], "decks", max_hand_decks);
  h.spec.jokers = number(j["jokers"], "jokers", max_hand_jokers);
  const auto& players = array_at(j["players"], "players");
  if (players.size() > max_players) bad("players", fmt::format("more than {} players", max_players));
  for (std::size_t i = 0; i < players.size(); ++i)
    h.players.push_back(share_from(players[i], fmt::format("players[{}]", i)));
  const std::size_t n_cards = h.spec.size();
  const auto& steps = array_at(j["steps"], "steps");
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const json& s = steps[k];
    const std::string where = fmt::format("steps[{}]", k);
    if (!s.is_object()) bad(where, "not an object");
    const std::string type = text(field(s, "type", where), where + ".type");
    if (type == "shuffle") {
      exact_keys(s, {"deck", "key_proof", "player", "proof", "type"}, where);
      shuffle_step sh;
      sh.player = number(s["player"], where + ".player", max_players);
      const auto& d = array_at(s["deck"], where + ".deck");
      if (d.size() != n_cards) bad(where + ".deck", fmt::format("has {} cards, not {}", d.size(), n_cards));
      for (std::size_t i = 0; i < d.size(); ++i) {
        const std::string w = fmt::format("{}.deck[{}]", where, i);
        const std::string ab = text(d[i], w);
        if (ab.size() != 128) bad(w, "not 128 hex digits");
        sh.out.push_back({point_at(ab.substr(0, 64), w), point_at(ab.substr(64), w)});
      }
      const std::string proof_hex = text(s["proof"], where + ".proof");
      std::vector<std::uint8_t> proof(shuffle_proof_bytes(n_cards));
      if (!from_hex(proof_hex, proof) || proof_hex.find_first_of("ABCDEF") != std::string::npos)
        bad(where + ".proof", fmt::format("not {} lowercase hex digits", 2 * proof.size()));
      try {
        sh.proof = parse_shuffle_proof(proof, n_cards);
      } catch (const std::invalid_argument& e) {
        bad(where + ".proof", e.what());
      }
      sh.key_proof = proof_at(s["key_proof"], where + ".key_proof");
      h.steps.emplace_back(std::move(sh));
    } else if (type == "reveal") {
      exact_keys(s, {"player", "positions", "proofs", "shares", "to", "type"}, where);
      reveal_step r;
      r.player = number(s["player"], where + ".player", max_players);
      const json& to = s["to"];
      if (to.is_string() && to.get<std::string>() == "all")
        r.to = to_all;
      else if (to.is_number_unsigned() && to.get<std::uint64_t>() >= 1 && to.get<std::uint64_t>() <= max_players)
        r.to = static_cast<std::uint32_t>(to.get<std::uint64_t>());
      else
        bad(where + ".to", "neither a player number nor \"all\"");
      const auto& pos = array_at(s["positions"], where + ".positions");
      const auto& shares = array_at(s["shares"], where + ".shares");
      const auto& proofs = array_at(s["proofs"], where + ".proofs");
      if (pos.size() != shares.size() || pos.size() != proofs.size())
        bad(where, "positions, shares and proofs differ in length");
      for (std::size_t i = 0; i < pos.size(); ++i) {
        r.positions.push_back(number(pos[i], fmt::format("{}.positions[{}]", where, i), 0xfffffffe));
        r.shares.push_back({point_at(shares[i], fmt::format("{}.shares[{}]", where, i)),
                            proof_at(proofs[i], fmt::format("{}.proofs[{}]", where, i))});
      }
      h.steps.emplace_back(std::move(r));
    } else {
      bad(where + ".type", "neither \"shuffle\" nor \"reveal\"");
    }
  }
  return h;
}

text_verification verify_text(std::string_view t) {
  text_verification out;
  hand h;
  try {
    const json j = json::parse(t);
    out.readable = j.is_object() && j.contains("format") && j["format"] == hand_format;
    if (!out.readable) return out;
    h = parse_hand(t);
  } catch (const format_error& e) {
    out.v.problem = e.what();
    return out;
  } catch (const json::exception&) {  // not JSON (or not UTF-8)
    out.readable = false;
    return out;
  }
  std::string canonical;
  try {
    canonical = to_json(h);
  } catch (const json::exception&) {
    out.v.problem = "the transcript holds text that is not UTF-8";
    return out;
  }
  if (canonical != t) {
    out.v.problem = "the file is not the canonical transcript text (edited by hand or by another tool)";
    return out;
  }
  out.v = verify_hand(h);
  return out;
}

}  // namespace fairdeck::mental
