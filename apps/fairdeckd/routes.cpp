// fairdeckd's routing (api.hpp): one table of {method, pattern, needs_auth, handler}, exact
// matching, listener roles, the operator token and the failure limiter.
//
// To add an endpoint: one row in routes() and one route_* member (declared in api.hpp).
#include <cctype>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/tlog/note.hpp"
#include "api.hpp"
#include "deal_answer.hpp"
#include "http_util.hpp"
#include "requests.hpp"
#include "routes.hpp"

namespace fairdeck::service {

using namespace http_util;
using routing::bearer_token;

namespace {

using clock_type = std::chrono::steady_clock;

// The receipt of a deal answered again for its Idempotency-Key: it was appended in an earlier
// batch, so the proof is against the table's latest stored checkpoint (read once, on a retry only).
json stored_receipt(store& s, const record& rec) try {
  const auto note = checkpoint_with_cosignatures(s, rec.table);
  if (!note) return nullptr;
  const auto size = tlog::parse_checkpoint(tlog::parse_note(*note).text).size;
  const auto proof = inclusion_proof(s, rec.table, rec.seq, size);
  if (!proof) return nullptr;
  json inclusion = json::array();
  for (const auto& h : *proof) inclusion.push_back(tlog::to_hex(h));
  return json{{"seq", rec.seq}, {"hash", rec.hash}, {"checkpoint", *note}, {"inclusion", inclusion}};
} catch (const std::exception&) {  // the deal stands; its receipt can be fetched later (proof routes)
  return nullptr;
}

// The hand {h} of a route: 404 unless a canonical integer 1..2^63-1.
std::optional<std::uint64_t> hand_number(std::string_view h) {
  const auto v = parse_u64(h, max_url_integer);
  if (!v || *v < 1) return std::nullopt;
  return v;
}

// 404 for a {h} or {s} that names no hand or seat.
std::optional<http_response> hand_seat_problem(std::string_view h, std::string_view s) {
  if (!hand_number(h)) return error(404, "no such hand (hands are numbered from 1)");
  const auto seat = parse_u64(s, max_seats);
  if (!seat || *seat < 1) return error(404, fmt::format("no such seat (seats are numbered 1..{})", max_seats));
  return std::nullopt;
}

http_response store_unavailable_answer(std::string_view detail) {
  log_error("store unavailable", detail);
  auto r = error(503, "the store is unavailable; retry later");
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

}  // namespace

namespace routing {

std::optional<std::vector<std::string_view>> split_exact(std::string_view path) {
  if (path.size() < 2 || path[0] != '/') return std::nullopt;
  std::vector<std::string_view> parts;
  std::size_t i = 1;
  while (true) {
    const auto j = path.find('/', i);
    const auto part = path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i);
    if (part.empty()) return std::nullopt;
    parts.push_back(part);
    if (j == std::string_view::npos) return parts;
    i = j + 1;
  }
}

bool matches(std::string_view pattern, const std::vector<std::string_view>& parts, captures& out) {
  const auto want = split_exact(pattern);
  if (!want || want->size() != parts.size()) return false;
  captures c;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if ((*want)[i] == "{t}") c.table = parts[i];
    else if ((*want)[i] == "{s}") c.seat = parts[i];
    else if ((*want)[i] == "{h}") c.hand = parts[i];
    else if ((*want)[i] != parts[i]) return false;
  }
  out = c;
  return true;
}

bool visible(bool needs_auth, bool both, http_request::listener_role role) noexcept {
  using r = http_request::listener_role;
  return both || role == r::all || (needs_auth ? role == r::operator_only : role == r::public_only);
}

std::optional<std::string_view> bearer_token(std::string_view header) {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!header.empty() && blank(header.front())) header.remove_prefix(1);
  while (!header.empty() && blank(header.back())) header.remove_suffix(1);
  constexpr std::string_view scheme = "bearer";
  if (header.size() <= scheme.size() || !blank(header[scheme.size()])) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(header[i])) != scheme[i]) return std::nullopt;
  header.remove_prefix(scheme.size());
  while (!header.empty() && blank(header.front())) header.remove_prefix(1);
  if (header.empty()) return std::nullopt;
  return header;
}

}  // namespace routing

const std::vector<api::route>& api::routes() {
  static const std::vector<route> table{
      {"GET", "/healthz", false, &api::route_healthz, true},
      {"GET", "/metrics", false, &api::route_metrics, true},
      {"GET", "/v1/tables/{t}", false, &api::route_table},
      {"GET", "/v1/tables/{t}/log", false, &api::route_log},
      {"GET", "/v1/tables/{t}/audit", false, &api::route_audit},
      {"POST", "/v1/tables", true, &api::route_open},
      {"PUT", "/v1/tables/{t}/seats/{s}/client-seed", true, &api::route_seed},
      {"POST", "/v1/tables/{t}/deals", true, &api::route_deal},
      {"POST", "/v1/tables/{t}/rotate", true, &api::route_rotate},
      {"GET", "/v1/log-key", false, &api::route_log_key},
      {"GET", "/v1/tables/{t}/checkpoint", false, &api::route_checkpoint},
      {"GET", "/v1/tables/{t}/checkpoint/cosigned", false, &api::route_cosigned},
      {"POST", "/v1/tables/{t}/checkpoint/cosignatures", false, &api::route_cosign},
      {"GET", "/v1/tables/{t}/proof/inclusion", false, &api::route_inclusion},
      {"GET", "/v1/tables/{t}/proof/consistency", false, &api::route_consistency},
      // hands with seat commitments (issue #30): the game server relays for the players
      {"POST", "/v1/tables/{t}/hands", true, &api::route_hand_open},
      {"PUT", "/v1/tables/{t}/hands/{h}/seats/{s}/commit", true, &api::route_hand_commit},
      {"PUT", "/v1/tables/{t}/hands/{h}/seats/{s}/reveal", true, &api::route_hand_reveal},
      {"POST", "/v1/tables/{t}/hands/{h}/deal", true, &api::route_hand_deal},
      {"POST", "/v1/tables/{t}/hands/{h}/abort", true, &api::route_hand_abort},
      // mental-poker tables (issue #32): the players deal; the server checks, orders and logs
      {"POST", "/v1/tables/{t}/mental/hands", true, &api::route_mental_open},
      {"POST", "/v1/tables/{t}/mental/hands/{h}/steps", true, &api::route_mental_step},
      {"GET", "/v1/tables/{t}/mental/hands/{h}", false, &api::route_mental_hand},
      {"GET", "/v1/tables/{t}/mental/hands/{h}/transcript", false, &api::route_mental_transcript},
  };
  return table;
}

void api::handle(const http_request& req, respond_fn respond) {
  try {
    dispatch(req, respond);
  } catch (const bad_body& e) {
    count(400);
    respond(error(400, e.what()));
  } catch (const nlohmann::json::exception& e) {  // any JSON problem a parser missed: still the client's
    count(400);
    respond(error(400, fmt::format("malformed JSON body (error {})", e.id)));
  } catch (const store_unavailable& e) {
    count(503);
    respond(store_unavailable_answer(e.what()));
  } catch (const std::exception& e) {
    log_error("internal error", e.what());
    count(500);
    respond(error(500, "internal error"));
  }
}

// Throws what handle() turns into 400/503/500; `respond` is still ours whenever it throws
// (handlers parse everything before they hand it to a write).
void api::dispatch(const http_request& req, respond_fn& respond) {
  const auto answer = [&](http_response r) {
    count(r.status);
    respond(std::move(r));
  };
  if (req.body.size() > options_.max_body) return answer(error(413, "request body too large"));
  const auto qpos = req.target.find('?');
  const std::string_view path = req.target.substr(0, qpos);
  const std::string_view query = qpos == std::string_view::npos ? std::string_view() : req.target.substr(qpos + 1);
  // Fixed pages (GET, public).
  if (const auto page = pages_.find(path); page != pages_.end() && routing::visible(false, false, req.role)) {
    if (req.method != "GET") {
      auto r = error(405, fmt::format("{} takes GET", path));
      r.headers.emplace_back("Allow", "GET");
      return answer(std::move(r));
    }
    http_response r;
    r.content_type = page->second.first;
    r.body = std::string(page->second.second);
    return answer(std::move(r));
  }
  const auto& table = routes();
  const auto found = routing::find_route(table, req.method, path, req.role);
  if (!found.index && found.allow.empty()) return answer(error(404, "no such endpoint"));
  if (!found.index) {
    auto r = error(405, fmt::format("{} takes {}", path, found.allow));
    r.headers.emplace_back("Allow", found.allow);
    return answer(std::move(r));
  }
  const route& chosen = table[*found.index];
  const auto& caps = found.caps;
  if (!caps.table.empty() && !valid_table_id(caps.table)) return answer(error(404, "no such table"));
  if (chosen.needs_auth && !authorized(req)) {
    // The token is checked first: only failures are limited, a valid token never is.
    if (auth_failures_.limited(req.client)) {
      auto r = error(429, "too many failed authentications; retry in a minute");
      r.headers.emplace_back("Retry-After", "60");
      return answer(std::move(r));
    }
    auth_failures_.note_failure(req.client);
    auto r = error(401, "missing or wrong operator token (Authorization: Bearer <token>)");
    r.headers.emplace_back("WWW-Authenticate", "Bearer");
    return answer(std::move(r));
  }
  if (auto r = (this->*(chosen.handler))(route_args{req, caps.table, caps.seat, caps.hand, query}, respond)) answer(std::move(*r));
}

bool api::authorized(const http_request& req) {
  const auto token = bearer_token(req.authorization);
  if (!token) return false;
  const std::string hash = token_hash(*token);
  std::lock_guard lock(token_mutex_);
  // The cache is at most a second old, on a hit as on a miss: a token added by `fairdeckd
  // token` works, and one removed by `fairdeckd token --revoke` is refused, within a second.
  if (clock_type::now() - tokens_loaded_ >= std::chrono::seconds(1)) {
    tokens_loaded_ = clock_type::now();  // also when the store fails: retry in a second, not per request
    try {
      token_hashes_ = store_.token_hashes();
    } catch (const store_unavailable&) {  // keep the cached tokens while the store is away
    }
  }
  bool found = false;
  for (const auto& h : token_hashes_) found = equal_constant_time(h, hash) || found;  // no early exit
  return found;
}

// ---- public ----

std::optional<http_response> api::route_healthz(const route_args&, respond_fn&) {
  try {
    store_.ping();
  } catch (const std::exception& e) {  // the detail (host, port, path) goes to stderr only
    return store_unavailable_answer(e.what());
  }
  return json_response(200, json{{"status", "ok"}, {"store", store_.kind()}});
}

std::optional<http_response> api::route_metrics(const route_args&, respond_fn&) {
  http_response r;
  r.content_type = "text/plain; version=0.0.4";
  r.body = metrics();
  return r;
}

std::optional<http_response> api::route_table(const route_args& a, respond_fn&) { return get_table(a.table); }

std::optional<http_response> api::route_log(const route_args& a, respond_fn&) {
  // The stores compare `after` as a signed 64-bit number: 2^63 and above would read as
  // negative and return the whole log, so they are refused here.
  if (const auto after = query_param(a.query, "after"); after && !parse_u64(*after))
    return error(400, fmt::format("after must be an integer 0..{} without sign or leading zeros", max_url_integer));
  return get_log(a.table, a.query);
}

// Answered from the audit pool, never on the I/O thread (or at once: 400, or 503 when it is full).
std::optional<http_response> api::route_audit(const route_args& a, respond_fn& respond) {
  get_audit(a.table, a.query, std::move(respond));
  return std::nullopt;
}

// ---- operator ----

std::optional<http_response> api::route_open(const route_args& a, respond_fn& respond) {
  auto w = parse_open(a.req.body);  // may throw bad_body: parse before `respond` is moved
  write(std::move(w), a.req, std::move(respond), [this](write_result& r) {
    tables_.fetch_add(1, std::memory_order_relaxed);
    const record& rec = *r.rec;
    return json_response(201, json{{"table", r.table}, {"commitment", r.commitment}, {"seats", rec.seats},
                                   {"decks", rec.decks}, {"jokers", rec.jokers}, {"seq", 0}, {"hash", rec.hash}});
  });
  return std::nullopt;
}

std::optional<http_response> api::route_seed(const route_args& a, respond_fn& respond) {
  const auto seat = parse_u64(a.seat, max_seats);
  if (!seat || *seat < 1) return error(404, fmt::format("no such seat (seats are numbered 1..{})", max_seats));
  auto w = parse_seed(a.req.body, std::string(a.table), static_cast<unsigned>(*seat));
  write(std::move(w), a.req, std::move(respond), [this, seat = *seat](write_result& r) {
    seeds_set_.fetch_add(1, std::memory_order_relaxed);
    return json_response(200, json{{"table", r.table}, {"seat", seat}, {"commitment", r.commitment}});
  });
  return std::nullopt;
}

std::optional<http_response> api::route_deal(const route_args& a, respond_fn& respond) {
  auto d = parse_deal(a.req.body, std::string(a.table));
  // Idempotency-Key: a retry after a lost answer (timeout, failover) gets the same deal.
  if (a.req.idempotency_key_repeated) return error(400, "send one Idempotency-Key header");
  if (!a.req.idempotency_key.empty() || a.req.idempotency_key.data() != nullptr) {
    if (!valid_idempotency_key(a.req.idempotency_key))
      return error(400, fmt::format("Idempotency-Key must be 1..{} printable ASCII characters without spaces",
                                    max_idempotency_key));
    d.idempotency_key = std::string(a.req.idempotency_key);
  }
  const game_spec g = d.game;
  write(std::move(d), a.req, std::move(respond), [this, g](write_result& r) {
    if (!r.replayed) return http_response{200, "application/json", deal_answer_text(r, g), {}};
    json j = deal_json(r, g);  // a retry: its receipt is read from the store
    j["receipt"] = stored_receipt(store_, *r.rec);
    return json_response(200, j);
  });
  return std::nullopt;
}

std::optional<http_response> api::route_rotate(const route_args& a, respond_fn& respond) {
  parse_rotate(a.req.body);
  write(rotate{std::string(a.table)}, a.req, std::move(respond), [this](write_result& r) {
    rotations_.fetch_add(1, std::memory_order_relaxed);
    const record& rec = *r.rec;
    return json_response(200, json{{"table", r.table},
                                   {"revealed_seed", rec.revealed_seed},
                                   {"previous_commitment", rec.commitment},
                                   {"commitment", rec.next_commitment},
                                   {"seq", rec.seq},
                                   {"hash", rec.hash}});
  });
  return std::nullopt;
}

// ---- hands with seat commitments (operator: the game server relays for its players) ----

std::optional<http_response> api::route_hand_open(const route_args& a, respond_fn& respond) {
  parse_no_fields(a.req.body);
  write(open_hand{std::string(a.table)}, a.req, std::move(respond), [this](write_result& r) {
    hands_opened_.fetch_add(1, std::memory_order_relaxed);
    const record& rec = *r.rec;
    return json_response(201, json{{"table", r.table}, {"hand", r.hand}, {"nonce", rec.nonce}, {"commitment", rec.commitment},
                                   {"seats", rec.seats}, {"seq", rec.seq}, {"hash", rec.hash}});
  });
  return std::nullopt;
}

std::optional<http_response> api::route_hand_commit(const route_args& a, respond_fn& respond) {
  if (auto bad = hand_seat_problem(a.hand, a.seat)) return bad;
  const unsigned seat = static_cast<unsigned>(*parse_u64(a.seat, max_seats));
  auto w = parse_commit(a.req.body, std::string(a.table), *hand_number(a.hand), seat);
  write(std::move(w), a.req, std::move(respond), [seat](write_result& r) {
    json j{{"table", r.table}, {"hand", r.hand}, {"seat", seat}, {"repeated", r.repeated}};
    if (r.rec) j.update({{"commitment", r.rec->seat_commitment}, {"seq", r.rec->seq}, {"hash", r.rec->hash}});
    return json_response(200, j);
  });
  return std::nullopt;
}

std::optional<http_response> api::route_hand_reveal(const route_args& a, respond_fn& respond) {
  if (auto bad = hand_seat_problem(a.hand, a.seat)) return bad;
  const unsigned seat = static_cast<unsigned>(*parse_u64(a.seat, max_seats));
  auto w = parse_reveal(a.req.body, std::string(a.table), *hand_number(a.hand), seat);
  write(std::move(w), a.req, std::move(respond), [seat](write_result& r) {
    json j{{"table", r.table}, {"hand", r.hand}, {"seat", seat}, {"repeated", r.repeated}};
    if (r.rec) j.update({{"seq", r.rec->seq}, {"hash", r.rec->hash}});
    return json_response(200, j);
  });
  return std::nullopt;
}

std::optional<http_response> api::route_hand_deal(const route_args& a, respond_fn& respond) {
  const auto hand = hand_number(a.hand);
  if (!hand) return error(404, "no such hand (hands are numbered from 1)");
  const deal d = parse_deal(a.req.body, std::string(a.table));
  write(deal_hand{d.table, *hand, d.game}, a.req, std::move(respond),
        [g = d.game](write_result& r) { return http_response{200, "application/json", deal_answer_text(r, g), {}}; });
  return std::nullopt;
}

std::optional<http_response> api::route_hand_abort(const route_args& a, respond_fn& respond) {
  const auto hand = hand_number(a.hand);
  if (!hand) return error(404, "no such hand (hands are numbered from 1)");
  parse_no_fields(a.req.body);
  write(abort_hand{std::string(a.table), *hand}, a.req, std::move(respond), [this](write_result& r) {
    hands_aborted_.fetch_add(1, std::memory_order_relaxed);
    const record& rec = *r.rec;
    return json_response(200, json{{"table", r.table}, {"hand", r.hand}, {"nonce", rec.nonce},
                                   {"uncommitted", rec.uncommitted}, {"unrevealed", rec.unrevealed},
                                   {"seq", rec.seq}, {"hash", rec.hash}});
  });
  return std::nullopt;
}

}  // namespace fairdeck::service
