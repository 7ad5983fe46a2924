// Routing, JSON bodies, authentication, rate limiting and metrics of fairdeckd.
#include "api.hpp"
#include "requests.hpp"

#include <charconv>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "../fairdeck/audit_report.hpp"
#include "../fairdeck/card_output.hpp"
#include "fairdeck/stats/audit.hpp"

namespace fairdeck::service {
namespace {

using json = nlohmann::json;
using clock_type = std::chrono::steady_clock;

http_response json_response(unsigned status, const json& j) {
  http_response r;
  r.status = status;
  // Request text echoed in an error may be invalid UTF-8: replaced (U+FFFD), never a throw.
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  r.body.push_back('\n');
  return r;
}

http_response error(unsigned status, std::string_view message) {
  return json_response(status, json{{"error", message}, {"status", status}});
}

unsigned status_of(outcome o) {
  switch (o) {
    case outcome::ok: return 200;
    case outcome::bad_request: return 400;
    case outcome::not_found: return 404;
    case outcome::conflict: return 409;
    case outcome::unavailable: return 503;
    case outcome::overloaded: return 429;
  }
  return 500;
}

// "/a/b/c?x" -> {"a","b","c"}; query separately.
std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  std::size_t i = 0;
  while (i < path.size()) {
    if (path[i] == '/') {
      ++i;
      continue;
    }
    const auto j = path.find('/', i);
    parts.push_back(path.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i));
    if (j == std::string_view::npos) break;
    i = j;
  }
  return parts;
}

// Value of `key` in "a=1&b=2"; nullopt when absent.
std::optional<std::string_view> query_param(std::string_view query, std::string_view key) {
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto item = query.substr(0, amp);
    const auto eq = item.find('=');
    if (item.substr(0, eq) == key) return eq == std::string_view::npos ? std::string_view() : item.substr(eq + 1);
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return std::nullopt;
}

std::optional<std::uint64_t> parse_u64(std::string_view s) {
  std::uint64_t v = 0;
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

json deal_json(const write_result& r) {
  const record& rec = *r.rec;
  json j{{"table", rec.table},           {"seq", rec.seq},       {"nonce", rec.nonce},
         {"commitment", rec.commitment}, {"seat_seeds", rec.seat_seeds}, {"client_seed", rec.client_seed},
         {"decks", rec.decks},           {"jokers", rec.jokers}, {"cards", rec.cards},
         {"time", rec.time},             {"prev_hash", rec.prev_hash},   {"hash", rec.hash}};
  return j;
}

std::string escape_label(std::string_view s) {
  std::string out;
  for (const char c : s) {
    if (c == '"' || c == '\\') out.push_back('\\');
    if (c == '\n') out += "\\n";
    else out.push_back(c);
  }
  return out;
}

}  // namespace

// ---- metrics ----

void latency_histogram::observe(double seconds) noexcept {
  std::size_t i = 0;
  while (i < bounds.size() && seconds > bounds[i]) ++i;
  counts_[i].fetch_add(1, std::memory_order_relaxed);
  sum_us_.fetch_add(static_cast<std::uint64_t>(seconds * 1e6), std::memory_order_relaxed);
}

void latency_histogram::write(std::string& out, std::string_view name) const {
  std::uint64_t cumulative = 0;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    cumulative += counts_[i].load(std::memory_order_relaxed);
    out += fmt::format("{}_bucket{{le=\"{}\"}} {}\n", name, bounds[i], cumulative);
  }
  cumulative += counts_[bounds.size()].load(std::memory_order_relaxed);
  out += fmt::format("{}_bucket{{le=\"+Inf\"}} {}\n{}_sum {}\n{}_count {}\n", name, cumulative, name,
                     static_cast<double>(sum_us_.load(std::memory_order_relaxed)) / 1e6, name, cumulative);
}

// ---- api ----

api::api(store& s, api_options o)
    : store_(s), options_(o), audits_(o.audit_cache_bytes), audit_pool_(o.audit_threads, o.audit_queue) {}

void api::add_page(std::string path, std::string content_type, std::string_view body) {
  pages_[std::move(path)] = {std::move(content_type), body};
}

void api::count(unsigned status) noexcept {
  const std::size_t k = status < 300 ? 0 : status == 401 ? 2 : status == 429 ? 3 : status == 413 ? 5 : status >= 500 ? 4 : 1;
  by_class_[k].fetch_add(1, std::memory_order_relaxed);
}

bool api::rate_limited(std::string_view client) {
  std::lock_guard lock(limit_mutex_);
  auto it = auth_failures_.find(std::string(client));
  if (it == auth_failures_.end()) return false;
  if (clock_type::now() - it->second.first > std::chrono::minutes(1)) {
    auth_failures_.erase(it);
    return false;
  }
  return it->second.second >= options_.auth_failures_per_minute;
}

void api::note_auth_failure(std::string_view client) {
  std::lock_guard lock(limit_mutex_);
  if (auth_failures_.size() > 100000) auth_failures_.clear();  // bounded memory under a flood
  auto [it, fresh] = auth_failures_.try_emplace(std::string(client), clock_type::now(), 0u);
  if (!fresh && clock_type::now() - it->second.first > std::chrono::minutes(1)) it->second = {clock_type::now(), 0u};
  ++it->second.second;
}

bool api::authorized(const http_request& req) {
  constexpr std::string_view scheme = "Bearer ";
  if (!req.authorization.starts_with(scheme)) return false;
  const std::string hash = token_hash(req.authorization.substr(scheme.size()));
  std::lock_guard lock(token_mutex_);
  const auto match = [&] {
    bool found = false;
    for (const auto& h : token_hashes_) found = equal_constant_time(h, hash) || found;  // no early exit
    return found;
  };
  if (match()) return true;
  if (clock_type::now() - tokens_loaded_ < std::chrono::seconds(1)) return false;
  token_hashes_ = store_.token_hashes();  // a token added by `fairdeckd token` while serving
  tokens_loaded_ = clock_type::now();
  return match();
}

void api::write(write_request w, const http_request& req, respond_fn respond,
                std::function<http_response(write_result&)> ok) {
  const auto start = clock_type::now();
  const bool is_deal = std::holds_alternative<deal>(w);
  auto finish = [this, start, is_deal, respond = std::move(respond), ok = std::move(ok)](write_result& r) {
    http_response resp;
    if (r.code != outcome::ok) {
      resp = error(status_of(r.code), r.error);
      if (r.code == outcome::overloaded || r.code == outcome::unavailable) resp.headers.emplace_back("Retry-After", "1");
    } else {
      resp = ok(r);
      if (is_deal) {
        deals_.fetch_add(1, std::memory_order_relaxed);
        deal_latency_.observe(std::chrono::duration<double>(clock_type::now() - start).count());
      }
    }
    count(resp.status);
    respond(std::move(resp));
  };
  store_.submit(std::move(w), [defer = req.defer, finish = std::move(finish)](write_result r) mutable {
    if (!defer) return finish(r);
    defer([finish = std::move(finish), r = std::move(r)]() mutable { finish(r); });
  });
}

void api::handle(const http_request& req, respond_fn respond) {
  const auto answer = [&](http_response r) {
    count(r.status);
    respond(std::move(r));
  };
  const auto qpos = req.target.find('?');
  const std::string_view path = req.target.substr(0, qpos);
  const std::string_view query = qpos == std::string_view::npos ? std::string_view() : req.target.substr(qpos + 1);
  const auto parts = split_path(path);
  const auto allow = [&](std::string_view method) {
    if (req.method == method) return true;
    auto r = error(405, fmt::format("{} takes {}", path, method));
    r.headers.emplace_back("Allow", std::string(method));
    answer(std::move(r));
    return false;
  };
  if (req.body.size() > options_.max_body) return answer(error(413, "request body too large"));
  try {
    if (path == "/healthz") {
      if (!allow("GET")) return;
      try {
        store_.ping();
      } catch (const std::exception& e) {
        return answer(error(503, e.what()));
      }
      return answer(json_response(200, json{{"status", "ok"}, {"store", store_.kind()}}));
    }
    if (path == "/metrics") {
      if (!allow("GET")) return;
      http_response r;
      r.content_type = "text/plain; version=0.0.4";
      r.body = metrics();
      return answer(std::move(r));
    }
    if (auto page = pages_.find(path); page != pages_.end()) {
      if (!allow("GET")) return;
      http_response r;
      r.content_type = page->second.first;
      r.body = std::string(page->second.second);
      return answer(std::move(r));
    }
    if (parts.size() < 2 || parts[0] != "v1" || parts[1] != "tables") return answer(error(404, "no such endpoint"));
    if (parts.size() >= 3 && !valid_table_id(parts[2])) return answer(error(404, "no such table"));
    const std::string table = parts.size() >= 3 ? std::string(parts[2]) : std::string();
    // public, read-only
    if (parts.size() == 3 && req.method == "GET") return answer(get_table(table));
    if (parts.size() == 4 && parts[3] == "log") return allow("GET") ? answer(get_log(table, query)) : void();
    if (parts.size() == 4 && parts[3] == "audit") return allow("GET") ? get_audit(table, query, std::move(respond)) : void();
    // operator writes
    if (parts.size() == 3) {
      auto r = error(405, fmt::format("{} takes GET", path));
      r.headers.emplace_back("Allow", "GET");
      return answer(std::move(r));
    }
    const bool known = parts.size() == 2 || (parts.size() == 4 && (parts[3] == "deals" || parts[3] == "rotate")) ||
                       (parts.size() == 6 && parts[3] == "seats" && parts[5] == "client-seed");
    if (!known) return answer(error(404, "no such endpoint"));
    if (!allow(parts.size() == 6 ? "PUT" : "POST")) return;
    if (rate_limited(req.client)) {
      auto r = error(429, "too many failed authentications; retry in a minute");
      r.headers.emplace_back("Retry-After", "60");
      return answer(std::move(r));
    }
    if (!authorized(req)) {
      note_auth_failure(req.client);
      auto r = error(401, "missing or wrong operator token (Authorization: Bearer <token>)");
      r.headers.emplace_back("WWW-Authenticate", "Bearer");
      return answer(std::move(r));
    }
    if (parts.size() == 2) {
      auto w = parse_open(req.body);  // may throw bad_body: parse before `respond` is moved
      return write(std::move(w), req, std::move(respond), [this](write_result& r) {
        tables_.fetch_add(1, std::memory_order_relaxed);
        const record& rec = *r.rec;
        return json_response(201, json{{"table", r.table}, {"commitment", r.commitment}, {"seats", rec.seats},
                                       {"decks", rec.decks}, {"jokers", rec.jokers}, {"seq", 0}, {"hash", rec.hash}});
      });
    }
    if (parts.size() == 6) {
      const auto seat = parse_u64(parts[4]);
      if (!seat || *seat < 1 || *seat > max_seats) return answer(error(404, "no such seat (seats are numbered from 1)"));
      auto w = parse_seed(req.body, table, static_cast<unsigned>(*seat));
      return write(std::move(w), req, std::move(respond),
                   [this, seat = *seat](write_result& r) {
                     seeds_set_.fetch_add(1, std::memory_order_relaxed);
                     return json_response(200, json{{"table", r.table}, {"seat", seat}, {"commitment", r.commitment}});
                   });
    }
    if (parts[3] == "deals") {
      auto d = parse_deal(req.body, table);
      const game_spec g = d.game;
      return write(std::move(d), req, std::move(respond), [g](write_result& r) {
        json j = deal_json(r);
        const deck_spec spec{r.rec->decks, r.rec->jokers};
        cli::add_game_json(j, cli::game_request{g.holdem, g.holdem ? r.seats : 0, g.hands, g.cards}, r.deck, spec, {});
        return json_response(200, j);
      });
    }
    parse_rotate(req.body);
    return write(rotate{table}, req, std::move(respond), [this](write_result& r) {
      rotations_.fetch_add(1, std::memory_order_relaxed);
      const record& rec = *r.rec;
      return json_response(200, json{{"table", r.table},
                                     {"revealed_seed", rec.revealed_seed},
                                     {"previous_commitment", rec.commitment},
                                     {"commitment", rec.next_commitment},
                                     {"seq", rec.seq},
                                     {"hash", rec.hash}});
    });
  } catch (const bad_body& e) {
    return answer(error(400, e.what()));
  } catch (const store_unavailable& e) {
    auto r = error(503, e.what());
    r.headers.emplace_back("Retry-After", "1");
    return answer(std::move(r));
  } catch (const std::exception& e) {
    return answer(error(500, "internal error"));
  }
}

http_response api::get_table(std::string_view table) {
  const auto t = store_.table(table);
  if (!t) return error(404, fmt::format("no table '{}'", table));
  json ready = json::array();
  for (const auto& s : t->seat_seeds) ready.push_back(!s.empty());
  // Public state only: the sealed seed stays in the store, seat seeds appear in the log.
  return json_response(200, json{{"table", t->id},
                                 {"seats", t->seats},
                                 {"decks", t->spec.decks},
                                 {"jokers", t->spec.jokers},
                                 {"commitment", t->commitment},
                                 {"next_nonce", t->next_nonce},
                                 {"records", t->next_seq},
                                 {"head_hash", t->head_hash},
                                 {"seats_ready", ready}});
}

http_response api::get_log(std::string_view table, std::string_view query) {
  std::optional<std::uint64_t> after;
  if (auto a = query_param(query, "after")) {
    after = parse_u64(*a);
    if (!after) return error(400, "after must be a canonical decimal integer");
  }
  std::size_t limit = 100000;
  if (auto l = query_param(query, "limit")) {
    const auto v = parse_u64(*l);
    if (!v || *v == 0 || *v > limit) return error(400, "limit must be 1..100000");
    limit = static_cast<std::size_t>(*v);
  }
  // Read in rounds and stop the page once its JSON passes log_page_bytes (at least one record
  // per page), so one request costs a bounded read however large the table is.
  constexpr std::size_t round = 512;
  std::string items;
  std::size_t count = 0;
  std::optional<std::uint64_t> cursor = after;
  bool full = false;
  while (count < limit && !full) {
    const std::size_t want = std::min(round, limit - count);
    const auto records = store_.log(table, cursor, want);
    if (!records) return error(404, fmt::format("no table '{}'", table));
    for (const auto& r : *records) {
      std::string item = to_json(r).dump(-1, ' ', false, json::error_handler_t::replace);
      if (count > 0 && items.size() + item.size() + 1 > options_.log_page_bytes) {
        full = true;
        break;
      }
      if (count > 0) items.push_back(',');
      items += item;
      ++count;
      cursor = r.seq;
    }
    if (records->size() < want) break;
  }
  // The keys in nlohmann's (sorted) order, as json_response would write them.
  http_response resp;
  if (full || count == limit) resp.body = fmt::format("{{\"next_after\":{},", *cursor);
  else resp.body = "{";
  resp.body += "\"records\":[" + items + "],\"table\":" + json(table).dump() + "}\n";
  return resp;
}

namespace {

json chain_json(const log_check& check) {
  json chain{{"verified", check.ok}, {"deals_verified", check.deals_verified}, {"deals_unrevealed", check.deals_unrevealed}};
  if (!check.ok) chain.update({{"failed_seq", *check.failed_seq}, {"reason", check.reason}});
  return chain;
}

// The chain verdict in words, for the HTML answer (issue #27 item 17).
std::string chain_html(std::string_view table, std::uint64_t deals, const log_check& check) {
  const std::string t = cli::html_escape(table);
  if (!check.ok)
    return fmt::format("<p class=\"verdict chain FAIL\" style=\"border-left-color:#c00\"><b>Log of table {}: chain check FAILED "
                       "at record {}</b>: {}. The deals below are audited as logged, but the log cannot be trusted.</p>\n",
                       t, *check.failed_seq, cli::html_escape(check.reason));
  std::string out = fmt::format(
      "<p class=\"verdict chain\" style=\"border-left-color:#2a7\"><b>Log of table {}: chain verified</b> &#8212; {} deal{}; "
      "hashes, commitments and nonces check out; {} deal{} re-derived from revealed server seeds",
      t, deals, deals == 1 ? "" : "s", check.deals_verified, check.deals_verified == 1 ? "" : "s");
  if (check.deals_unrevealed > 0)
    out += fmt::format("; {} deal{} not checkable yet (dealt under the seed still in force, revealed at the next rotation)",
                       check.deals_unrevealed, check.deals_unrevealed == 1 ? "" : "s");
  return out + ".</p>\n";
}

// A page with no audit (no deals yet, or deals the audit cannot count): the chain verdict and why.
std::string short_html(const std::string& verdict, std::string_view why) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fairdeck audit</title>\n{}"
                     "</head><body>\n<h1>fairdeck audit</h1>\n{}<p>{}</p>\n</body></html>\n",
                     cli::html_style(), verdict, cli::html_escape(why));
}

}  // namespace

void api::get_audit(std::string_view table, std::string_view query, respond_fn respond) {
  const auto format = query_param(query, "format").value_or("json");
  if (format != "json" && format != "html") {
    auto r = error(400, "format must be json or html");
    count(r.status);
    return respond(std::move(r));
  }
  // Off the I/O threads: the pool answers, or refuses at once when its queue is full.
  std::function<void()> job = [this, t = std::string(table), html = format == "html", respond] {
    http_response r = audit_answer(t, html);
    count(r.status);
    respond(std::move(r));
  };
  if (audit_pool_.try_post(job)) return;
  auto r = error(503, "the audit workers are busy; retry shortly");
  r.headers.emplace_back("Retry-After", "1");
  count(r.status);
  respond(std::move(r));
}

http_response api::audit_answer(const std::string& table, bool html) {
  const auto fail = [&](unsigned status, std::string_view cause) {
    // One line for the operator; the client gets a generic text (no paths, hosts or internals).
    std::fprintf(stderr, "fairdeckd: GET /v1/tables/%s/audit answered %u: %.*s\n", table.c_str(), status,
                 static_cast<int>(cause.size()), cause.data());
    auto r = error(status, status == 503 ? "store unavailable" : "internal error");
    if (status == 503) r.headers.emplace_back("Retry-After", "1");
    return r;
  };
  try {
    http_response out;
    const std::string key = html ? "html" : "json";
    const bool found = audits_.with(store_, table, [&](audit_entry& e) {
      if (auto it = e.rendered.find(key); it != e.rendered.end()) {
        out.body = it->second;
        return;
      }
      table_audit& a = e.audit;
      const log_check check = a.chain();
      const auto result = a.audit(table);
      if (result) {
        std::lock_guard lock(audit_mutex_);
        auto& ps = audit_p_[table];
        ps.clear();
        for (const auto& t : result->tests)
          if (t.p_value) ps.emplace_back(t.name, *t.p_value);
      }
      cli::audit_run_info info;
      info.source = "input";
      info.pairs_planned = 1;
      if (html) {
        const std::string verdict = chain_html(table, a.deals(), check);
        if (!result) {
          out.body = short_html(verdict, a.deals() == 0 ? "No deals yet: nothing to audit."
                                                        : "The deals cannot be audited: " + a.unauditable());
        } else {
          std::ostringstream page;
          cli::write_audit_html(page, {*result}, info);
          out.body = std::move(page).str();
          constexpr std::string_view heading = "<h1>fairdeck audit</h1>\n";
          const auto at = out.body.find(heading);
          out.body.insert(at == std::string::npos ? 0 : at + heading.size(), verdict);
        }
      } else {
        json j;
        if (result) j = cli::audit_json({*result}, info);
        else j = json{{"audit", nullptr}};
        if (!a.unauditable().empty()) j["audit_unavailable"] = a.unauditable();
        j["table"] = table;
        j["deals"] = a.deals();
        j["chain"] = chain_json(check);
        out = json_response(200, j);
      }
      e.rendered[key] = out.body;
    });
    if (!found) return error(404, fmt::format("no table '{}'", table));
    if (html) out.content_type = "text/html; charset=utf-8";
    return out;
  } catch (const store_unavailable& e) {
    return fail(503, e.what());
  } catch (const std::exception& e) {
    return fail(500, e.what());
  }
}

std::string api::metrics() {
  std::string out;
  const auto counter = [&](std::string_view name, std::string_view help, std::uint64_t v) {
    out += fmt::format("# HELP {0} {1}\n# TYPE {0} counter\n{0} {2}\n", name, help, v);
  };
  counter("fairdeck_deals_total", "Deals durably stored and answered.", deals_.load());
  counter("fairdeck_tables_opened_total", "Tables opened.", tables_.load());
  counter("fairdeck_rotations_total", "Server seeds rotated (revealed).", rotations_.load());
  counter("fairdeck_client_seeds_set_total", "Seat client seeds set.", seeds_set_.load());
  const auto st = store_.stats();
  counter("fairdeck_store_batches_total", "Group-commit transactions.", st.batches);
  counter("fairdeck_store_writes_total", "Writes in those transactions.", st.writes);
  counter("fairdeck_store_failed_batches_total", "Transactions that failed (their writes answered 503).",
          st.failed_batches);
  out += "# HELP fairdeck_http_responses_total HTTP responses by status class.\n"
         "# TYPE fairdeck_http_responses_total counter\n";
  constexpr std::array<const char*, 6> labels{"2xx", "4xx", "401", "429", "5xx", "413"};
  for (std::size_t i = 0; i < labels.size(); ++i)
    out += fmt::format("fairdeck_http_responses_total{{code=\"{}\"}} {}\n", labels[i], by_class_[i].load());
  out += "# HELP fairdeck_deal_latency_seconds From request to durable commit.\n"
         "# TYPE fairdeck_deal_latency_seconds histogram\n";
  deal_latency_.write(out, "fairdeck_deal_latency_seconds");
  out += "# HELP fairdeck_audit_p_value p-values of each table's last audit (GET .../audit).\n"
         "# TYPE fairdeck_audit_p_value gauge\n";
  std::lock_guard lock(audit_mutex_);
  for (const auto& [table, ps] : audit_p_)
    for (const auto& [test, p] : ps)
      out += fmt::format("fairdeck_audit_p_value{{table=\"{}\",test=\"{}\"}} {}\n", escape_label(table),
                         escape_label(test), p);
  return out;
}

}  // namespace fairdeck::service
