// Canonical text and hashes of docs/log-format.md's records; their JSON. The chain check
// (log_verifier, verify_log) is in log_verifier.cpp.
#include "fairdeck/service/records.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::service {
namespace {

void line(std::string& out, std::string_view key, std::string_view value) {
  out.append(key).push_back('=');
  out.append(value).push_back('\n');
}

// The fields a deal and a hand's deal share, in canonical order (docs/log-format.md).
void deal_fields(std::string& out, const record& r) {
  line(out, "nonce", std::to_string(r.nonce));
  line(out, "commitment", r.commitment);
  for (const auto& s : r.seat_seeds) line(out, "seat_seed", s);
  line(out, "client_seed", r.client_seed);
  line(out, "decks", std::to_string(r.decks));
  line(out, "jokers", std::to_string(r.jokers));
  line(out, "cards", r.cards);
}

// A seat list as one canonical line value: ascending seat numbers separated by single spaces.
std::string seat_list(const std::vector<unsigned>& seats) {
  std::string out;
  for (const unsigned s : seats) {
    if (!out.empty()) out.push_back(' ');
    out += std::to_string(s);
  }
  return out;
}

}  // namespace

std::string_view type_name(record_type t) noexcept {
  switch (t) {
    case record_type::open: return "open";
    case record_type::deal: return "deal";
    case record_type::rotate: return "rotate";
    case record_type::hand_open: return "hand_open";
    case record_type::commit: return "commit";
    case record_type::reveal: return "reveal";
    case record_type::hand_deal: return "hand_deal";
    case record_type::abort: return "abort";
    case record_type::mental_hand: return "mental_hand";
    case record_type::mental_step: return "mental_step";
  }
  return "?";
}

std::string canonical_text(const record& r) {
  std::string out = "fairdeck-log-v1\n";
  line(out, "seq", std::to_string(r.seq));
  line(out, "prev_hash", r.prev_hash);
  line(out, "type", type_name(r.type));
  line(out, "table", r.table);
  line(out, "time", r.time);
  switch (r.type) {
    case record_type::open:
      line(out, "seats", std::to_string(r.seats));
      line(out, "decks", std::to_string(r.decks));
      line(out, "jokers", std::to_string(r.jokers));
      line(out, "commitment", r.commitment);
      break;
    case record_type::deal:
      deal_fields(out, r);
      break;
    case record_type::rotate:
      line(out, "revealed_seed", r.revealed_seed);
      line(out, "commitment", r.commitment);
      line(out, "next_commitment", r.next_commitment);
      break;
    case record_type::hand_open:
      line(out, "hand", std::to_string(r.hand));
      line(out, "nonce", std::to_string(r.nonce));
      line(out, "commitment", r.commitment);
      line(out, "seats", std::to_string(r.seats));
      break;
    case record_type::commit:
      line(out, "hand", std::to_string(r.hand));
      line(out, "seat", std::to_string(r.seat));
      line(out, "seat_commitment", r.seat_commitment);
      break;
    case record_type::reveal:
      line(out, "hand", std::to_string(r.hand));
      line(out, "seat", std::to_string(r.seat));
      line(out, "client_seed", r.client_seed);
      break;
    case record_type::hand_deal:
      line(out, "hand", std::to_string(r.hand));
      deal_fields(out, r);
      break;
    case record_type::abort:
      line(out, "hand", std::to_string(r.hand));
      line(out, "nonce", std::to_string(r.nonce));
      line(out, "uncommitted", seat_list(r.uncommitted));
      line(out, "unrevealed", seat_list(r.unrevealed));
      break;
    case record_type::mental_hand:
      line(out, "hand", std::to_string(r.hand));
      line(out, "mental_id", r.mental_id);
      line(out, "seats", std::to_string(r.seats));
      line(out, "decks", std::to_string(r.decks));
      line(out, "jokers", std::to_string(r.jokers));
      line(out, "players", r.players);
      line(out, "head", r.head);
      break;
    case record_type::mental_step:
      line(out, "hand", std::to_string(r.hand));
      line(out, "step", std::to_string(r.step));
      line(out, "seat", std::to_string(r.seat));
      line(out, "head", r.head);
      line(out, "body", r.body);
      break;
  }
  return out;
}

namespace {

std::uint64_t parse_number(std::string_view key, std::string_view v) {
  std::uint64_t out = 0;
  const auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), out);
  if (v.empty() || ec != std::errc() || p != v.data() + v.size())
    throw std::invalid_argument(fmt::format("record: '{}' is not a number", key));
  return out;
}

std::vector<unsigned> parse_seat_list(std::string_view key, std::string_view v) {
  std::vector<unsigned> out;
  while (!v.empty()) {
    const auto sp = v.find(' ');
    const auto item = v.substr(0, sp);
    const auto n = parse_number(key, item);
    if (n > 1'000'000) throw std::invalid_argument(fmt::format("record: '{}' is out of range", key));
    out.push_back(static_cast<unsigned>(n));
    if (sp == std::string_view::npos) break;
    v.remove_prefix(sp + 1);
    if (v.empty()) throw std::invalid_argument(fmt::format("record: '{}' ends with a space", key));
  }
  return out;
}

}  // namespace

record record_from_canonical(std::string_view text, std::string_view hash) {
  constexpr std::string_view magic = "fairdeck-log-v1\n";
  if (!text.starts_with(magic)) throw std::invalid_argument("record: not fairdeck-log-v1 text");
  text.remove_prefix(magic.size());
  record r;
  r.hash = std::string(hash);
  while (!text.empty()) {
    const auto nl = text.find('\n');
    if (nl == std::string_view::npos) throw std::invalid_argument("record: last line has no newline");
    const auto line = text.substr(0, nl);
    text.remove_prefix(nl + 1);
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) throw std::invalid_argument("record: line without '='");
    const auto key = line.substr(0, eq);
    const auto v = line.substr(eq + 1);
    if (key == "seq") r.seq = parse_number(key, v);
    else if (key == "prev_hash") r.prev_hash = std::string(v);
    else if (key == "type") {
      if (v == "open") r.type = record_type::open;
      else if (v == "deal") r.type = record_type::deal;
      else if (v == "rotate") r.type = record_type::rotate;
      else if (v == "hand_open") r.type = record_type::hand_open;
      else if (v == "commit") r.type = record_type::commit;
      else if (v == "reveal") r.type = record_type::reveal;
      else if (v == "hand_deal") r.type = record_type::hand_deal;
      else if (v == "abort") r.type = record_type::abort;
      else if (v == "mental_hand") r.type = record_type::mental_hand;
      else if (v == "mental_step") r.type = record_type::mental_step;
      else throw std::invalid_argument("record: unknown type");
    } else if (key == "table") r.table = std::string(v);
    else if (key == "time") r.time = std::string(v);
    else if (key == "seats") r.seats = static_cast<unsigned>(parse_number(key, v));
    else if (key == "decks") r.decks = static_cast<unsigned>(parse_number(key, v));
    else if (key == "jokers") r.jokers = static_cast<unsigned>(parse_number(key, v));
    else if (key == "commitment") r.commitment = std::string(v);
    else if (key == "nonce") r.nonce = parse_number(key, v);
    else if (key == "seat_seed") r.seat_seeds.emplace_back(v);
    else if (key == "client_seed") r.client_seed = std::string(v);
    else if (key == "cards") r.cards = std::string(v);
    else if (key == "revealed_seed") r.revealed_seed = std::string(v);
    else if (key == "next_commitment") r.next_commitment = std::string(v);
    else if (key == "hand") r.hand = parse_number(key, v);
    else if (key == "seat") r.seat = static_cast<unsigned>(parse_number(key, v));
    else if (key == "seat_commitment") r.seat_commitment = std::string(v);
    else if (key == "uncommitted") r.uncommitted = parse_seat_list(key, v);
    else if (key == "unrevealed") r.unrevealed = parse_seat_list(key, v);
    else if (key == "mental_id") r.mental_id = std::string(v);
    else if (key == "players") r.players = std::string(v);
    else if (key == "head") r.head = std::string(v);
    else if (key == "step") r.step = parse_number(key, v);
    else if (key == "body") r.body = std::string(v);
    else throw std::invalid_argument(fmt::format("record: unknown field '{}'", key));
  }
  return r;
}

std::string compute_hash(const record& r) { return sha256_hex(canonical_text(r)); }

void seal(record& r, std::string_view prev) {
  r.prev_hash = std::string(prev);
  r.hash = compute_hash(r);
}

nlohmann::json to_json(const record& r) {
  nlohmann::json j = {{"seq", r.seq}, {"type", type_name(r.type)}, {"table", r.table}, {"time", r.time}};
  switch (r.type) {
    case record_type::open:
      j["seats"] = r.seats;
      j["decks"] = r.decks;
      j["jokers"] = r.jokers;
      j["commitment"] = r.commitment;
      break;
    case record_type::deal:
      j["nonce"] = r.nonce;
      j["commitment"] = r.commitment;
      j["seat_seeds"] = r.seat_seeds;
      j["client_seed"] = r.client_seed;
      j["decks"] = r.decks;
      j["jokers"] = r.jokers;
      j["cards"] = r.cards;
      break;
    case record_type::rotate:
      j["revealed_seed"] = r.revealed_seed;
      j["commitment"] = r.commitment;
      j["next_commitment"] = r.next_commitment;
      break;
    case record_type::hand_open:
      j["hand"] = r.hand;
      j["nonce"] = r.nonce;
      j["commitment"] = r.commitment;
      j["seats"] = r.seats;
      break;
    case record_type::commit:
      j["hand"] = r.hand;
      j["seat"] = r.seat;
      j["seat_commitment"] = r.seat_commitment;
      break;
    case record_type::reveal:
      j["hand"] = r.hand;
      j["seat"] = r.seat;
      j["client_seed"] = r.client_seed;
      break;
    case record_type::hand_deal:
      j["hand"] = r.hand;
      j["nonce"] = r.nonce;
      j["commitment"] = r.commitment;
      j["seat_seeds"] = r.seat_seeds;
      j["client_seed"] = r.client_seed;
      j["decks"] = r.decks;
      j["jokers"] = r.jokers;
      j["cards"] = r.cards;
      break;
    case record_type::abort:
      j["hand"] = r.hand;
      j["nonce"] = r.nonce;
      j["uncommitted"] = r.uncommitted;
      j["unrevealed"] = r.unrevealed;
      break;
    case record_type::mental_hand:
      j["hand"] = r.hand;
      j["mental_id"] = r.mental_id;
      j["seats"] = r.seats;
      j["decks"] = r.decks;
      j["jokers"] = r.jokers;
      j["players"] = r.players;
      j["head"] = r.head;
      break;
    case record_type::mental_step:
      j["hand"] = r.hand;
      j["step"] = r.step;
      j["seat"] = r.seat;
      j["head"] = r.head;
      j["body"] = r.body;
      break;
  }
  j["prev_hash"] = r.prev_hash;
  j["hash"] = r.hash;
  return j;
}

namespace {

const nlohmann::json& field(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end()) throw std::invalid_argument(fmt::format("record: missing field '{}'", key));
  return *it;
}
std::string str(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_string()) throw std::invalid_argument(fmt::format("record: '{}' must be a string", key));
  return v.get<std::string>();
}
std::uint64_t num(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  if (!v.is_number_unsigned()) throw std::invalid_argument(fmt::format("record: '{}' must be a non-negative integer", key));
  return v.get<std::uint64_t>();
}
unsigned small(const nlohmann::json& j, const char* key) {
  const auto v = num(j, key);
  if (v > 1'000'000) throw std::invalid_argument(fmt::format("record: '{}' is out of range", key));
  return static_cast<unsigned>(v);
}
std::vector<std::string> strings(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  const auto bad = fmt::format("record: '{}' must be an array of strings", key);
  if (!v.is_array()) throw std::invalid_argument(bad);
  std::vector<std::string> out;
  for (const auto& s : v) {
    if (!s.is_string()) throw std::invalid_argument(bad);
    out.push_back(s.get<std::string>());
  }
  return out;
}
std::vector<unsigned> seats(const nlohmann::json& j, const char* key) {
  const auto& v = field(j, key);
  const auto bad = fmt::format("record: '{}' must be an array of seat numbers", key);
  if (!v.is_array()) throw std::invalid_argument(bad);
  std::vector<unsigned> out;
  for (const auto& s : v) {
    if (!s.is_number_unsigned() || s.get<std::uint64_t>() > 1'000'000) throw std::invalid_argument(bad);
    out.push_back(static_cast<unsigned>(s.get<std::uint64_t>()));
  }
  return out;
}

}  // namespace

record record_from_json(const nlohmann::json& j) {
  if (!j.is_object()) throw std::invalid_argument("record: not a JSON object");
  record r;
  r.seq = num(j, "seq");
  const std::string type = str(j, "type");
  r.table = str(j, "table");
  r.time = str(j, "time");
  r.prev_hash = str(j, "prev_hash");
  r.hash = str(j, "hash");
  if (type == "open") {
    r.type = record_type::open;
    r.seats = small(j, "seats");
    r.decks = small(j, "decks");
    r.jokers = small(j, "jokers");
    r.commitment = str(j, "commitment");
  } else if (type == "deal") {
    r.type = record_type::deal;
    r.nonce = num(j, "nonce");
    r.commitment = str(j, "commitment");
    r.seat_seeds = strings(j, "seat_seeds");
    r.client_seed = str(j, "client_seed");
    r.decks = small(j, "decks");
    r.jokers = small(j, "jokers");
    r.cards = str(j, "cards");
  } else if (type == "rotate") {
    r.type = record_type::rotate;
    r.revealed_seed = str(j, "revealed_seed");
    r.commitment = str(j, "commitment");
    r.next_commitment = str(j, "next_commitment");
  } else if (type == "hand_open") {
    r.type = record_type::hand_open;
    r.hand = num(j, "hand");
    r.nonce = num(j, "nonce");
    r.commitment = str(j, "commitment");
    r.seats = small(j, "seats");
  } else if (type == "commit" || type == "reveal") {
    r.type = type == "commit" ? record_type::commit : record_type::reveal;
    r.hand = num(j, "hand");
    r.seat = small(j, "seat");
    if (r.type == record_type::commit) r.seat_commitment = str(j, "seat_commitment");
    else r.client_seed = str(j, "client_seed");
  } else if (type == "hand_deal") {
    r.type = record_type::hand_deal;
    r.hand = num(j, "hand");
    r.nonce = num(j, "nonce");
    r.commitment = str(j, "commitment");
    r.seat_seeds = strings(j, "seat_seeds");
    r.client_seed = str(j, "client_seed");
    r.decks = small(j, "decks");
    r.jokers = small(j, "jokers");
    r.cards = str(j, "cards");
  } else if (type == "abort") {
    r.type = record_type::abort;
    r.hand = num(j, "hand");
    r.nonce = num(j, "nonce");
    r.uncommitted = seats(j, "uncommitted");
    r.unrevealed = seats(j, "unrevealed");
  } else if (type == "mental_hand") {
    r.type = record_type::mental_hand;
    r.hand = num(j, "hand");
    r.mental_id = str(j, "mental_id");
    r.seats = small(j, "seats");
    r.decks = small(j, "decks");
    r.jokers = small(j, "jokers");
    r.players = str(j, "players");
    r.head = str(j, "head");
  } else if (type == "mental_step") {
    r.type = record_type::mental_step;
    r.hand = num(j, "hand");
    r.step = num(j, "step");
    r.seat = small(j, "seat");
    r.head = str(j, "head");
    r.body = str(j, "body");
  } else {
    throw std::invalid_argument(fmt::format("record: unknown type '{}'", type));
  }
  return r;
}

std::string utc_time(std::int64_t ms) {
  int millis = static_cast<int>(ms % 1000);  // floored, with no overflow at either end
  std::int64_t whole = ms / 1000;
  if (millis < 0) {
    millis += 1000;
    whole -= 1;
  }
  const std::time_t secs = static_cast<std::time_t>(whole);
  std::tm tm{};
  if (!gmtime_r(&secs, &tm)) throw std::invalid_argument("a time outside the calendar");
  const int year = tm.tm_year + 1900;
  if (year < 0 || year > 9999)
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", year, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                       tm.tm_min, tm.tm_sec, millis);
  // Every deal's record has one: its digits are written in place (fmt::format's seven padded
  // fields were 1 % of a durable deal's CPU).
  char text[] = "0000-00-00T00:00:00.000Z";
  const auto put = [&text](std::size_t at, int value, int width) {
    for (int i = width - 1; i >= 0; --i, value /= 10)
      text[at + static_cast<std::size_t>(i)] = static_cast<char>('0' + value % 10);
  };
  put(0, year, 4);
  put(5, tm.tm_mon + 1, 2);
  put(8, tm.tm_mday, 2);
  put(11, tm.tm_hour, 2);
  put(14, tm.tm_min, 2);
  put(17, tm.tm_sec, 2);
  put(20, millis, 3);
  return std::string(text, sizeof text - 1);
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  return utc_time(std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
}

bool valid_table_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > 64) return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace fairdeck::service
