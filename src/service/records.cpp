// Canonical text, hashes and the chain check of docs/log-format.md.
#include "fairdeck/service/records.hpp"

#include <algorithm>
#include <charconv>
#include <chrono>
#include <ctime>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::service {
namespace {

// The largest seat number the log checker accepts in a hand (fairdeckd has at most 100 seats):
// bounds the state it keeps.
constexpr unsigned max_hand_seats = 1000;

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
  } else {
    throw std::invalid_argument(fmt::format("record: unknown type '{}'", type));
  }
  return r;
}

std::string utc_now() {
  const auto now = std::chrono::system_clock::now();
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  const std::time_t secs = static_cast<std::time_t>(ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
}

bool valid_table_id(std::string_view id) noexcept {
  if (id.empty() || id.size() > 64) return false;
  for (const char c : id) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

namespace {

bool control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; });
}

// Canonical text is one line per field: a newline inside a value would make it ambiguous.
bool has_control(const record& r) {
  for (const auto* s : {&r.table, &r.time, &r.prev_hash, &r.hash, &r.commitment, &r.client_seed, &r.cards,
                        &r.revealed_seed, &r.next_commitment, &r.seat_commitment})
    if (control(*s)) return true;
  return std::any_of(r.seat_seeds.begin(), r.seat_seeds.end(), [](const std::string& s) { return control(s); });
}

}  // namespace

log_verifier::log_verifier(std::optional<std::uint64_t> after) : first_seq_(after ? *after + 1 : 0) {
  if (!after) next_nonce_ = 0;
}

void log_verifier::fail(std::uint64_t seq, std::string why) {
  check_.ok = false;
  check_.failed_seq = seq;
  check_.reason = std::move(why);
  pending_.clear();
}

log_check log_verifier::result() const {
  log_check out = check_;
  if (out.ok) out.deals_unrevealed = pending_.size();
  return out;
}

// Rule 5 for the deals of one seed, once it is revealed.
void log_verifier::check_revealed(const fair::server_seed& seed) {
  for (const pending_deal& d : pending_) {
    const deck_spec spec{d.decks, d.jokers};
    std::string expected;
    try {
      validate(spec);
      expected = format_cards(fair::deal_deck(seed, d.client_seed, d.nonce, spec), spec);
    } catch (const std::exception& e) {
      return fail(d.seq, fmt::format("deal cannot be re-derived: {}", e.what()));
    }
    if (expected != d.cards) return fail(d.seq, "cards differ from the deck the revealed seed deals");
    ++check_.deals_verified;
  }
  pending_.clear();
}

void log_verifier::add(const record& r) {
  if (failed()) return;
  const std::uint64_t i = count_++;
  // 1. sequence, type of record 0, one table
  if (r.seq != first_seq_ + i)
    return fail(r.seq, fmt::format("seq {} where {} was expected (missing, repeated or out of order)", r.seq,
                                   first_seq_ + i));
  if ((r.seq == 0) != (r.type == record_type::open))
    return fail(r.seq, r.seq == 0 ? "record 0 is not an open record" : "an open record after record 0");
  if (has_control(r)) return fail(r.seq, "a field contains a control character");
  if (i == 0) table_ = r.table;
  if (r.table != table_) return fail(r.seq, fmt::format("names table '{}', not '{}'", r.table, table_));
  // 2. hash and chain
  if (compute_hash(r) != r.hash) return fail(r.seq, "hash does not match the record's canonical text");
  if (i == 0 && first_seq_ == 0 && r.prev_hash != zero_hash) return fail(r.seq, "record 0's prev_hash is not 64 zeros");
  if (i > 0 && r.prev_hash != prev_hash_) return fail(r.seq, "prev_hash is not the previous record's hash");
  prev_hash_ = r.hash;
  // 3, 4, 5
  switch (r.type) {
    case record_type::open:
      in_force_ = r.commitment;
      seats_ = r.seats;
      count_seats(std::min(r.seats, max_hand_seats));
      break;
    case record_type::deal: {
      if (hand_) return fail(r.seq, fmt::format("a standing-seed deal while hand {} is in progress", hand_->hand));
      ++check_.deals;
      if (next_nonce_ && r.nonce != *next_nonce_)
        return fail(r.seq, fmt::format("nonce {} where {} was expected", r.nonce, *next_nonce_));
      if (r.nonce == UINT64_MAX) return fail(r.seq, "nonce counter exhausted");
      next_nonce_ = r.nonce + 1;
      if (!in_force_) in_force_ = r.commitment;
      if (r.commitment != *in_force_) return fail(r.seq, "deal names a commitment that is not in force");
      std::string derived;
      try {
        derived = fair::combine_client_seeds(r.seat_seeds);
      } catch (const std::exception& e) {
        return fail(r.seq, fmt::format("seat seeds: {}", e.what()));
      }
      if (derived != r.client_seed) return fail(r.seq, "client_seed is not the derivation of seat_seeds");
      pending_.push_back({r.seq, r.nonce, r.decks, r.jokers, r.client_seed, r.cards});
      break;
    }
    case record_type::rotate: {
      if (hand_)
        return fail(r.seq, fmt::format("a rotation while hand {} is in progress (its server seed must stay sealed "
                                       "until the hand is dealt or aborted)",
                                       hand_->hand));
      if (!in_force_) in_force_ = r.commitment;
      if (r.commitment != *in_force_) return fail(r.seq, "rotation names a commitment that is not in force");
      std::optional<fair::server_seed> seed;
      try {
        seed.emplace(fair::server_seed::from_hex(r.revealed_seed));
      } catch (const std::exception&) {
        return fail(r.seq, "revealed_seed is not 64 hex digits");
      }
      if (fair::commitment(*seed) != *in_force_)
        return fail(r.seq, "revealed seed does not hash to the commitment in force");
      check_revealed(*seed);
      if (failed()) return;
      in_force_ = r.next_commitment;
      break;
    }
    case record_type::hand_open:
    case record_type::commit:
    case record_type::reveal:
    case record_type::hand_deal:
    case record_type::abort: add_hand_record(r); break;
  }
}

void log_verifier::count_seats(unsigned seats) {
  if (check_.aborts.size() < seats) check_.aborts.resize(seats, 0);
  if (check_.missed_commits.size() < seats) check_.missed_commits.resize(seats, 0);
}

namespace {

bool lower_hex64(std::string_view s) {
  return s.size() == 64 && std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The seats of `seeds` (per seat, "" while not given) that are still empty, from 1.
std::vector<unsigned> empty_seats(const std::vector<std::string>& seeds) {
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < seeds.size(); ++i)
    if (seeds[i].empty()) out.push_back(static_cast<unsigned>(i + 1));
  return out;
}

}  // namespace

// Hands with seat commitments: docs/log-format.md "Checking a log", rule 6.
void log_verifier::add_hand_record(const record& r) {
  const std::uint64_t seq = r.seq;
  const auto nonce_rule = [&]() -> bool {  // rule 3: hand_open consumes the next nonce
    if (next_nonce_ && r.nonce != *next_nonce_) {
      fail(seq, fmt::format("nonce {} where {} was expected", r.nonce, *next_nonce_));
      return false;
    }
    if (r.nonce == UINT64_MAX) {
      fail(seq, "nonce counter exhausted");
      return false;
    }
    next_nonce_ = r.nonce + 1;
    return true;
  };
  const auto in_force_rule = [&](std::string_view what) -> bool {
    if (!in_force_) in_force_ = r.commitment;
    if (r.commitment != *in_force_) {
      fail(seq, fmt::format("{} names a commitment that is not in force", what));
      return false;
    }
    return true;
  };
  if (r.type == record_type::hand_open) {
    if (hand_) return fail(seq, fmt::format("hand {} opened while hand {} is in progress", r.hand, hand_->hand));
    if (last_hand_ && r.hand != *last_hand_ + 1)
      return fail(seq, fmt::format("hand {} where hand {} was expected", r.hand, *last_hand_ + 1));
    if (!last_hand_ && first_seq_ == 0 && r.hand != 1) return fail(seq, "the first hand is not hand 1");
    if (r.seats < 1 || r.seats > max_hand_seats || (seats_ && r.seats != *seats_))
      return fail(seq, fmt::format("a hand of {} seats at a table of {}", r.seats, seats_.value_or(0)));
    if (!nonce_rule() || !in_force_rule("hand_open")) return;
    ++check_.hands;
    last_hand_ = r.hand;
    hand_ = hand_progress{r.hand, r.nonce, true, std::vector<std::string>(r.seats), std::vector<std::string>(r.seats), 0, 0};
    check_.hand_in_progress = r.hand;
    count_seats(r.seats);
    return;
  }
  if (!hand_) {
    if (first_seq_ == 0 || last_hand_)
      return fail(seq, fmt::format("{} for hand {}, which is not in progress", type_name(r.type), r.hand));
    // A partial log that starts inside this hand: what came before is taken on trust.
    hand_ = hand_progress{r.hand, 0, false, {}, {}, 0, 0};
    if (seats_) hand_->commitments.resize(*seats_), hand_->seeds.resize(*seats_);
    last_hand_ = r.hand;
  }
  hand_progress& h = *hand_;
  if (r.hand != h.hand)
    return fail(seq, fmt::format("{} for hand {} while hand {} is in progress", type_name(r.type), r.hand, h.hand));
  if (r.type == record_type::commit || r.type == record_type::reveal) {
    const bool fixed = h.known || seats_;
    if (r.seat < 1 || (fixed && r.seat > h.seeds.size()) || r.seat > max_hand_seats)
      return fail(seq, fmt::format("seat {} is not a seat of hand {}", r.seat, h.hand));
    if (!fixed && r.seat > h.seeds.size()) h.commitments.resize(r.seat), h.seeds.resize(r.seat);
  }
  const std::size_t s = r.seat - 1;
  switch (r.type) {
    case record_type::commit:
      if (!h.commitments[s].empty()) return fail(seq, fmt::format("seat {} committed twice in hand {}", r.seat, h.hand));
      if (h.revealed > 0) return fail(seq, fmt::format("seat {} committed after a seed of hand {} was revealed", r.seat, h.hand));
      if (!lower_hex64(r.seat_commitment)) return fail(seq, "seat_commitment is not 64 lowercase hex digits");
      h.commitments[s] = r.seat_commitment;
      ++h.committed;
      return;
    case record_type::reveal:
      if (h.known && h.committed != h.commitments.size())
        return fail(seq, fmt::format("seat {} revealed before every seat of hand {} committed", r.seat, h.hand));
      if (!h.seeds[s].empty()) return fail(seq, fmt::format("seat {} revealed twice in hand {}", r.seat, h.hand));
      try {
        fair::validate_client_seed(r.client_seed);
      } catch (const std::exception& e) {
        return fail(seq, fmt::format("seat {}'s seed: {}", r.seat, e.what()));
      }
      if (h.commitments[s].empty() && h.known)
        return fail(seq, fmt::format("seat {} revealed without a commitment", r.seat));
      if (!h.commitments[s].empty() && !fair::seed_matches_commitment(r.client_seed, h.commitments[s]))
        return fail(seq, fmt::format("seat {}'s revealed seed does not hash to its commitment", r.seat));
      h.seeds[s] = r.client_seed;
      ++h.revealed;
      return;
    case record_type::hand_deal: {
      if (h.known && r.nonce != h.nonce)
        return fail(seq, fmt::format("hand {} dealt with nonce {}, not its nonce {}", h.hand, r.nonce, h.nonce));
      if (!h.known && !next_nonce_) next_nonce_ = r.nonce + 1;
      if (!in_force_rule("hand_deal")) return;
      if (h.known && h.revealed != h.seeds.size())
        return fail(seq, fmt::format("hand {} dealt before every seat revealed", h.hand));
      bool same = !h.known || r.seat_seeds.size() == h.seeds.size();
      for (std::size_t i = 0; same && i < h.seeds.size(); ++i)
        same = h.seeds[i].empty() ? !h.known : (i < r.seat_seeds.size() && r.seat_seeds[i] == h.seeds[i]);
      if (!same) return fail(seq, fmt::format("hand {}'s seat_seeds are not the seeds its seats revealed", h.hand));
      std::string derived;
      try {
        derived = fair::combine_client_seeds(r.seat_seeds);
      } catch (const std::exception& e) {
        return fail(seq, fmt::format("seat seeds: {}", e.what()));
      }
      if (derived != r.client_seed) return fail(seq, "client_seed is not the derivation of seat_seeds");
      ++check_.deals;
      ++check_.hands_dealt;
      pending_.push_back({r.seq, r.nonce, r.decks, r.jokers, r.client_seed, r.cards});
      break;
    }
    case record_type::abort: {
      if (h.known && r.nonce != h.nonce)
        return fail(seq, fmt::format("hand {} aborted with nonce {}, not its nonce {}", h.hand, r.nonce, h.nonce));
      if (!h.known && !next_nonce_) next_nonce_ = r.nonce + 1;
      if (h.known && (r.uncommitted != empty_seats(h.commitments) || r.unrevealed != empty_seats(h.seeds)))
        return fail(seq, fmt::format("hand {}'s abort does not name exactly the seats that did not commit / reveal", h.hand));
      for (const auto* list : {&r.uncommitted, &r.unrevealed})
        for (std::size_t i = 0; i < list->size(); ++i)
          if ((*list)[i] < 1 || (*list)[i] > max_hand_seats || (i > 0 && (*list)[i] <= (*list)[i - 1]))
            return fail(seq, "an abort's seat list is not ascending seat numbers");
      const auto& blamed = r.uncommitted.empty() ? r.unrevealed : r.uncommitted;
      count_seats(blamed.empty() ? 0 : blamed.back());
      for (const unsigned seat : blamed) ++(r.uncommitted.empty() ? check_.aborts : check_.missed_commits)[seat - 1];
      ++check_.hands_aborted;
      break;
    }
    default: break;
  }
  hand_.reset();
  check_.hand_in_progress.reset();
}

bool log_contains(const std::vector<record>& log, std::uint64_t seq, std::string_view hash) noexcept {
  return std::any_of(log.begin(), log.end(), [&](const record& r) { return r.seq == seq && r.hash == hash; });
}

log_check verify_log(const std::vector<record>& records, std::optional<std::uint64_t> after) {
  log_verifier v(after);
  for (const record& r : records) {
    v.add(r);
    if (v.failed()) break;
  }
  return v.result();
}

}  // namespace fairdeck::service
