// fairdeckd's API (api.hpp): writes, public reads and metrics. Routing, authentication and
// the rate limit are in routes.cpp, request bodies in requests.cpp.
#include "api.hpp"
#include "http_util.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <sstream>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fairdeck/report/audit.hpp"
#include "fairdeck/report/cards.hpp"
#include "fairdeck/stats/audit.hpp"
#include "fairdeck/util/parallel.hpp"

namespace fairdeck::service {
namespace {
using clock_type = std::chrono::steady_clock;
}  // namespace

// ---- http_util.hpp ----

namespace http_util {

http_response json_response(unsigned status, const json& j) {
  http_response r;
  r.status = status;
  r.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  r.body.push_back('\n');
  return r;
}

http_response error(unsigned status, std::string_view message) {
  return json_response(status, json{{"error", message}, {"status", status}});
}

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

std::optional<std::uint64_t> parse_u64(std::string_view s, std::uint64_t max) {
  std::uint64_t v = 0;
  if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v > max) return std::nullopt;
  return v;
}

void log_error(std::string_view context, std::string_view detail) noexcept {
  try {
    std::string line = fmt::format("fairdeckd: {}: {}", context, detail);
    std::replace(line.begin(), line.end(), '\n', ' ');
    std::replace(line.begin(), line.end(), '\r', ' ');
    line.push_back('\n');
    std::fputs(line.c_str(), stderr);  // one call: lines from several threads do not interleave
  } catch (...) {  // logging never fails an answer
  }
}

}  // namespace http_util

using namespace http_util;

namespace {

unsigned status_of(outcome o) {
  switch (o) {
    case outcome::ok: return 200;
    case outcome::bad_request: return 400;
    case outcome::not_found: return 404;
    case outcome::conflict: return 409;
    case outcome::unavailable: return 503;
    case outcome::overloaded: return 429;
    case outcome::unknown: return 503;
  }
  return 500;
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
    : store_(s),
      options_(o),
      auth_failures_(o.auth_failures_per_minute, o.max_tracked_clients),
      audits_(o.audit_cache_bytes),
      mental_pool_(o.mental_threads, o.mental_queue),
      audit_pool_(o.audit_threads, o.audit_queue) {
  watch_thread_ = std::thread([this] {
    fairdeck::name_this_thread("fd-watch");
    watch_loop();
  });
  try {
    if (const auto v = log_verifier_key(s)) log_key_ = tlog::note_verifier::parse(*v);
  } catch (const std::exception& e) {  // the log routes then answer 503
    log_error("the store's log key", e.what());
  }
}

api::~api() {
  {
    std::lock_guard lock(watch_mutex_);
    watch_stop_ = true;
  }
  watch_cv_.notify_all();
  watch_thread_.join();
}

void api::add_page(std::string path, std::string content_type, std::string_view body) {
  pages_[std::move(path)] = {std::move(content_type), body};
}

void api::count(unsigned status) noexcept {
  const std::size_t k = status < 300    ? 0
                        : status == 401 ? 2
                        : status == 429 ? 3
                        : status == 413 ? 5
                        : status == 431 ? 6
                        : status >= 500 ? 4
                                        : 1;
  by_class_[k].fetch_add(1, std::memory_order_relaxed);
}

void api::write(write_request w, const http_request& req, respond_fn respond,
                std::function<http_response(write_result&)> ok) {
  const auto start = clock_type::now();
  const bool is_deal = std::holds_alternative<deal>(w) || std::holds_alternative<deal_hand>(w);
  auto finish = [this, start, is_deal, respond = std::move(respond), ok = std::move(ok)](write_result& r) {
    http_response resp;
    if (r.code == outcome::unavailable || r.code == outcome::unknown) {  // the detail (database host, file, errno) is logged, not shown
      log_error("a write failed", r.error);
      resp = error(503, r.code == outcome::unknown
                            ? "the store cannot tell whether this write was committed: it may have been stored; retry with the same Idempotency-Key, or read the table's log first"
                            : "the store cannot commit; nothing was stored; retry later");
      resp.headers.emplace_back("Retry-After", "1");
    } else if (r.code != outcome::ok) {
      resp = error(status_of(r.code), r.error);
      if (r.code == outcome::overloaded) resp.headers.emplace_back("Retry-After", "1");
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
  // The store may keep this callback after calling it: it lets go of `defer` (a copy of the
  // connection's strand executor) on the call, or that copy could outlive the server's
  // io_context (its destruction then reaches into the destroyed strand service).
  store_.submit(std::move(w), [defer = req.defer, finish = std::move(finish)](write_result r) mutable {
    auto d = std::exchange(defer, nullptr);
    if (!d) return finish(r);
    d([finish = std::move(finish), r = std::move(r)]() mutable { finish(r); });
  });
}

http_response api::get_table(std::string_view table) {
  const auto t = store_.table(table);
  if (!t) return error(404, fmt::format("no table '{}'", table));
  json ready = json::array();
  for (const auto& s : t->seat_seeds) ready.push_back(!s.empty());
  // Public state only: the sealed seed stays in the store, seat seeds appear in the log (a
  // hand's seeds once revealed; its commitments are public as soon as made).
  json hand = nullptr;
  if (t->hand) {
    json committed = json::array(), revealed = json::array();
    for (const auto& c : t->hand->commitments) committed.push_back(!c.empty());
    for (const auto& s : t->hand->seeds) revealed.push_back(!s.empty());
    hand = json{{"hand", t->hand->hand},
                {"nonce", t->hand->nonce},
                {"seat_commitments", t->hand->commitments},
                {"committed", committed},
                {"revealed", revealed}};
  }
  json out{{"table", t->id},
                                 {"mode", t->mental ? "mental" : "standing"},
                                 {"hands", t->hands},
                                 {"hand", hand},
                                 {"aborts", t->aborts},
                                 {"missed_commits", t->missed_commits},
                                 {"seats", t->seats},
                                 {"decks", t->spec.decks},
                                 {"jokers", t->spec.jokers},
                                 {"commitment", t->commitment},
                                 {"next_nonce", t->next_nonce},
                                 {"records", t->next_seq},
                                 {"head_hash", t->head_hash},
                                 {"seats_ready", ready}};
  if (t->mental) {  // the players' public shares (as keygen printed them), the timeout, the hand now
    json players = json::array();
    for (const auto& p : t->mental->players) players.push_back(json::parse(mental::to_json(p)));
    out["players"] = std::move(players);
    out["timeout"] = t->mental->timeout;
    out["mental_hand"] = t->mental->hand ? json(t->mental->hand->hand) : json(nullptr);
  }
  return json_response(200, out);
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
  json chain{{"verified", check.ok}, {"deals_verified", check.deals_verified}, {"deals_unrevealed", check.deals_unrevealed},
             {"hands", check.hands}, {"hands_dealt", check.hands_dealt}, {"hands_aborted", check.hands_aborted},
             {"hand_in_progress", check.hand_in_progress ? json(*check.hand_in_progress) : json(nullptr)},
             {"aborts", check.aborts}, {"missed_commits", check.missed_commits}};
  if (!check.ok) chain.update({{"failed_seq", *check.failed_seq}, {"reason", check.reason}});
  return chain;
}

// The chain verdict in words, for the HTML answer (issue #27 item 17).
std::string chain_html(std::string_view table, std::uint64_t deals, const log_check& check) {
  const std::string t = report::html_escape(table);
  if (!check.ok)
    return fmt::format("<p class=\"verdict chain FAIL\" style=\"border-left-color:#c00\"><b>Log of table {}: chain check FAILED "
                       "at record {}</b>: {}. The deals below are audited as logged, but the log cannot be trusted.</p>\n",
                       t, *check.failed_seq, report::html_escape(check.reason));
  std::string out = fmt::format(
      "<p class=\"verdict chain\" style=\"border-left-color:#2a7\"><b>Log of table {}: chain verified</b> &#8212; {} deal{}; "
      "hashes, commitments and nonces check out; {} deal{} re-derived from revealed server seeds",
      t, deals, deals == 1 ? "" : "s", check.deals_verified, check.deals_verified == 1 ? "" : "s");
  if (check.hands > 0) {
    std::string per_seat;
    for (std::size_t i = 0; i < check.aborts.size(); ++i)
      if (check.aborts[i] > 0) per_seat += fmt::format("{}seat {}: {}", per_seat.empty() ? "" : ", ", i + 1, check.aborts[i]);
    out += fmt::format("; {} hand{} with seat commitments ({} dealt, {} aborted{})", check.hands, check.hands == 1 ? "" : "s",
                       check.hands_dealt, check.hands_aborted,
                       per_seat.empty() ? "" : "; reveals withheld in aborted hands, " + per_seat);
  }
  if (check.deals_unrevealed > 0)
    out += fmt::format("; {} deal{} not checkable yet (dealt under the seed still in force, revealed at the next rotation)",
                       check.deals_unrevealed, check.deals_unrevealed == 1 ? "" : "s");
  return out + ".</p>\n";
}

// A page with no audit (no deals yet, or deals the audit cannot count): the chain verdict and why.
std::string short_html(const std::string& verdict, std::string_view why) {
  return fmt::format("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>fairdeck audit</title>\n{}"
                     "</head><body>\n<h1>fairdeck audit</h1>\n{}<p>{}</p>\n</body></html>\n",
                     report::html_style(), verdict, report::html_escape(why));
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
    log_error(fmt::format("GET /v1/tables/{}/audit answered {}", table, status), cause);  // one line, always
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
      report::audit_run_info info;
      info.source = "input";
      info.pairs_planned = 1;
      if (html) {
        const std::string verdict = chain_html(table, a.deals(), check);
        if (!result) {
          out.body = short_html(verdict, a.deals() == 0 ? "No deals yet: nothing to audit."
                                                        : "The deals cannot be audited: " + a.unauditable());
        } else {
          std::ostringstream page;
          report::write_audit_html(page, {*result}, info);
          out.body = std::move(page).str();
          constexpr std::string_view heading = "<h1>fairdeck audit</h1>\n";
          const auto at = out.body.find(heading);
          out.body.insert(at == std::string::npos ? 0 : at + heading.size(), verdict);
        }
      } else {
        json j;
        if (result) j = report::audit_json({*result}, info);
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
  counter("fairdeck_hands_opened_total", "Hands with seat commitments opened.", hands_opened_.load());
  counter("fairdeck_hands_aborted_total", "Hands aborted before every seat revealed.", hands_aborted_.load());
  const auto st = store_.stats();
  counter("fairdeck_store_batches_total", "Group-commit transactions.", st.batches);
  counter("fairdeck_store_writes_total", "Writes in those transactions.", st.writes);
  counter("fairdeck_store_failed_batches_total", "Transactions that failed (their writes answered 503).",
          st.failed_batches);
  counter("fairdeck_store_isolated_batches_total",
          "Transactions rerun with a savepoint per write because a write or one of its rows was refused.",
          st.isolated_batches);
  counter("fairdeck_store_retried_batches_total",
          "Transactions rerun whole after a retryable failure (deadlock, serialization, a writer's kept rows changed).",
          st.retried_batches);
  counter("fairdeck_store_optimistic_batches_total",
          "Transactions committed in one round trip on rows the writer kept from its last commits (PostgreSQL).",
          st.optimistic_batches);
  out += "# HELP fairdeck_http_responses_total HTTP responses by status class.\n"
         "# TYPE fairdeck_http_responses_total counter\n";
  constexpr std::array<const char*, 7> labels{"2xx", "4xx", "401", "429", "5xx", "413", "431"};
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
