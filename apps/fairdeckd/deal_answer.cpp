#include "deal_answer.hpp"

#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/report/cards.hpp"
#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/tlog/merkle.hpp"

namespace fairdeck::service {

nlohmann::json deal_json(const write_result& r, const game_spec& g) {
  const record& rec = *r.rec;
  nlohmann::json j{{"table", rec.table},           {"seq", rec.seq},
                   {"nonce", rec.nonce},           {"commitment", rec.commitment},
                   {"seat_seeds", rec.seat_seeds}, {"client_seed", rec.client_seed},
                   {"decks", rec.decks},           {"jokers", rec.jokers},
                   {"cards", rec.cards},           {"time", rec.time},
                   {"prev_hash", rec.prev_hash},   {"hash", rec.hash}};
  if (rec.type == record_type::hand_deal) {
    j["hand"] = rec.hand;
    j["mode"] = "hand";
  } else {
    j["mode"] = "standing";
  }
  const deck_spec spec{rec.decks, rec.jokers};
  report::add_game_json(j, game_request{g.holdem, g.holdem ? r.seats : 0, g.hands, g.cards}, r.deck, spec, {});
  j["receipt"] = receipt_json(r);  // the transparency log's receipt (log_tree.hpp), in every deal answer
  return j;
}

namespace {

// Length of the well-formed UTF-8 sequence starting at s[i] (a byte >= 0x80), 0 when it is not
// one (RFC 3629, table 3-7 of Unicode: no overlongs, no surrogates, nothing above U+10FFFF;
// the sequences nlohmann's decoder accepts).
std::size_t utf8_length(std::string_view s, std::size_t i) noexcept {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[k]); };
  const auto cont = [&](std::size_t k, unsigned lo = 0x80, unsigned hi = 0xBF) {
    return k < s.size() && b(k) >= lo && b(k) <= hi;
  };
  const unsigned c = b(i);
  if (c >= 0xC2 && c <= 0xDF) return cont(i + 1) ? 2 : 0;
  if (c == 0xE0) return cont(i + 1, 0xA0) && cont(i + 2) ? 3 : 0;
  if ((c >= 0xE1 && c <= 0xEC) || c == 0xEE || c == 0xEF) return cont(i + 1) && cont(i + 2) ? 3 : 0;
  if (c == 0xED) return cont(i + 1, 0x80, 0x9F) && cont(i + 2) ? 3 : 0;
  if (c == 0xF0) return cont(i + 1, 0x90) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c >= 0xF1 && c <= 0xF3) return cont(i + 1) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  if (c == 0xF4) return cont(i + 1, 0x80, 0x8F) && cont(i + 2) && cont(i + 3) ? 4 : 0;
  return 0;
}

template <class T>
void append_number(std::string& out, T n) {
  fmt::format_to(std::back_inserter(out), "{}", n);
}

// Written through a pointer: a push_back a digit (its capacity check and terminator each time)
// was 80 % of this file's own time in a deal's answer (8 proof hashes, `perf annotate`).
void append_hex(std::string& out, const tlog::hash& h) {
  constexpr char digits[] = "0123456789abcdef";  // public hashes: no constant-time need
  const std::size_t at = out.size();
  out.resize(at + 2 + 2 * h.size());
  char* p = out.data() + at;
  *p++ = '"';
  for (const std::uint8_t byte : h) {
    *p++ = digits[byte >> 4];
    *p++ = digits[byte & 15];
  }
  *p = '"';
}

// Whether any of the 8 bytes in `w` needs a look: below 0x20 (escaped), '"' or '\\' (escaped),
// or 0x80 and up (UTF-8 to check). Word-at-a-time tests of "Bit Twiddling Hacks" (Anderson,
// "Determine if a word has a byte less than n", after Mycroft's haszero): each expression is
// non-zero exactly when some byte qualifies (its borrows may mark more bytes, never fewer).
constexpr bool needs_look(std::uint64_t w) noexcept {
  constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  const auto zero_byte = [](std::uint64_t v) { return (v - ones) & ~v & highs; };
  const std::uint64_t control = (w - ones * 0x20) & ~w & highs;
  return ((w & highs) | control | zero_byte(w ^ (ones * '"')) | zero_byte(w ^ (ones * '\\'))) != 0;
}

void append_card(std::string& out, card_t c, const deck_spec& spec) {
  out.push_back('"');
  out += format_card(c, spec);  // "Ac", "X1": short, no escaping
  out.push_back('"');
}

// [each(x), ...] over a range.
template <class Range, class F>
void append_array(std::string& out, const Range& items, F&& each) {
  out.push_back('[');
  bool first = true;
  for (const auto& x : items) {
    if (!first) out.push_back(',');
    first = false;
    each(x);
  }
  out.push_back(']');
}

template <class Cards>
void append_cards(std::string& out, const Cards& cards, const deck_spec& spec) {
  append_array(out, cards, [&](card_t c) { append_card(out, c, spec); });
}

// "key": (keys are fixed ASCII words)
void key(std::string& out, std::string_view k) {
  out.push_back(',');
  out.push_back('"');
  out += k;
  out += "\":";
}

void append_receipt(std::string& out, const write_result& r) {
  if (!r.log || !r.rec) {
    out += "null";
    return;
  }
  out += "{\"checkpoint\":";
  append_json_string(out, r.log->checkpoint);
  out += ",\"hash\":";
  append_json_string(out, r.rec->hash);
  out += ",\"inclusion\":";
  append_array(out, r.log->inclusion(r.rec->seq), [&](const tlog::hash& h) { append_hex(out, h); });
  out += ",\"seq\":";
  append_number(out, r.rec->seq);
  out.push_back('}');
}

}  // namespace

void append_json_string(std::string& out, std::string_view s) {
  const std::size_t start = out.size();
  out.push_back('"');
  std::size_t plain = 0;  // start of the run of bytes copied as they are
  for (std::size_t i = 0; i < s.size();) {
    for (std::uint64_t w = 0; i + 8 <= s.size(); i += 8) {  // 8 plain bytes at a time
      std::memcpy(&w, s.data() + i, 8);
      if (needs_look(w)) break;
    }
    if (i == s.size()) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x80) {
      const std::size_t n = utf8_length(s, i);
      if (n == 0) {  // invalid UTF-8: nlohmann's replacement rules, whole string
        out.resize(start);
        out += nlohmann::json(std::string(s)).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
        return;
      }
      i += n;
      continue;
    }
    if (c >= 0x20 && c != '"' && c != '\\') {
      ++i;
      continue;
    }
    out.append(s.data() + plain, i - plain);
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\b': out += "\\b"; break;
      case '\t': out += "\\t"; break;
      case '\n': out += "\\n"; break;
      case '\f': out += "\\f"; break;
      case '\r': out += "\\r"; break;
      default: fmt::format_to(std::back_inserter(out), "\\u{:04x}", static_cast<unsigned>(c)); break;
    }
    plain = ++i;
  }
  out.append(s.data() + plain, s.size() - plain);
  out.push_back('"');
}

std::string deal_answer_text(const write_result& r, const game_spec& g) {
  const record& rec = *r.rec;
  const deck_spec spec{rec.decks, rec.jokers};
  const bool hand = rec.type == record_type::hand_deal;
  std::string out;
  out.reserve(2048 + rec.cards.size() + 96 * rec.seat_seeds.size() + rec.client_seed.size() +
              (r.log ? r.log->checkpoint.size() * 2 : 0));
  // The keys in nlohmann's order (std::map: bytewise sorted); each present when deal_json has it.
  std::optional<holdem_deal> hd;
  std::vector<std::vector<card_t>> hands;
  if (g.holdem)
    hd = deal_holdem(r.deck, r.seats);
  else if (g.hands)
    hands = deal_hands(r.deck, g.hands, g.cards);
  out.push_back('{');
  if (hd) {
    out += "\"burns\":";
    append_cards(out, hd->burns, spec);
    out += ",\"cards\":";
  } else {
    out += "\"cards\":";
  }
  append_json_string(out, rec.cards);
  if (!hd && g.hands) {
    key(out, "cards_per_hand");
    append_number(out, g.cards);
  }
  key(out, "client_seed");
  append_json_string(out, rec.client_seed);
  key(out, "commitment");
  append_json_string(out, rec.commitment);
  key(out, "decks");
  append_number(out, rec.decks);
  if (hd) {
    key(out, "flop");
    append_cards(out, hd->flop, spec);
    out += ",\"game\":\"holdem\"";
  }
  if (hand) {
    key(out, "hand");
    append_number(out, rec.hand);
  }
  if (!hd && g.hands) {
    key(out, "hands");
    append_array(out, hands, [&](const std::vector<card_t>& h) { append_cards(out, h, spec); });
  }
  key(out, "hash");
  append_json_string(out, rec.hash);
  key(out, "jokers");
  append_number(out, rec.jokers);
  out += hand ? ",\"mode\":\"hand\"" : ",\"mode\":\"standing\"";
  key(out, "nonce");
  append_number(out, rec.nonce);
  if (hd) {
    key(out, "players");
    append_number(out, r.seats);
  }
  key(out, "prev_hash");
  append_json_string(out, rec.prev_hash);
  key(out, "receipt");
  append_receipt(out, r);
  if (hd) {
    key(out, "river");
    append_card(out, hd->river, spec);
  }
  key(out, "seat_seeds");
  append_array(out, rec.seat_seeds, [&](const std::string& seed) { append_json_string(out, seed); });
  if (hd) {
    key(out, "seats");
    append_array(out, hd->hole, [&](const std::array<card_t, 2>& h) { append_cards(out, h, spec); });
  }
  key(out, "seq");
  append_number(out, rec.seq);
  key(out, "table");
  append_json_string(out, rec.table);
  key(out, "time");
  append_json_string(out, rec.time);
  if (hd) {
    key(out, "turn");
    append_card(out, hd->turn, spec);
  }
  out += "}\n";
  return out;
}

}  // namespace fairdeck::service
