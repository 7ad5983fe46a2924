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

#include "../fairdeck/audit_report.hpp"
#include "../fairdeck/card_output.hpp"
#include "fairdeck/stats/audit.hpp"

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
    : store_(s), options_(o), auth_failures_(o.auth_failures_per_minute, o.max_tracked_clients) {}

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
  const bool is_deal = std::holds_alternative<deal>(w);
  auto finish = [this, start, is_deal, respond = std::move(respond), ok = std::move(ok)](write_result& r) {
    http_response resp;
    if (r.code == outcome::unavailable) {  // the detail (database host, file, errno) is logged, not shown
      log_error("a write failed", r.error);
      resp = error(503, "the store cannot commit; nothing was stored; retry later");
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
  store_.submit(std::move(w), [defer = req.defer, finish = std::move(finish)](write_result r) mutable {
    if (!defer) return finish(r);
    defer([finish = std::move(finish), r = std::move(r)]() mutable { finish(r); });
  });
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
  const auto records = store_.log(table, after, limit);
  if (!records) return error(404, fmt::format("no table '{}'", table));
  json arr = json::array();
  for (const auto& r : *records) arr.push_back(to_json(r));
  json j{{"table", table}, {"records", std::move(arr)}};
  if (records->size() == limit) j["next_after"] = records->back().seq;
  return json_response(200, j);
}

http_response api::get_audit(std::string_view table, std::string_view query) {
  const auto format = query_param(query, "format").value_or("json");
  if (format != "json" && format != "html") return error(400, "format must be json or html");
  const auto records = store_.log(table, std::nullopt, SIZE_MAX / 2);
  if (!records) return error(404, fmt::format("no table '{}'", table));
  std::string decks;
  std::size_t deals = 0;
  deck_spec spec{};
  for (const auto& r : *records) {
    if (r.type == record_type::open) spec = deck_spec{r.decks, r.jokers};
    if (r.type != record_type::deal) continue;
    decks += r.cards;
    decks.push_back('\n');
    ++deals;
  }
  const log_check check = verify_log(*records);
  json chain{{"verified", check.ok}, {"deals_verified", check.deals_verified}, {"deals_unrevealed", check.deals_unrevealed}};
  if (!check.ok) chain.update({{"failed_seq", *check.failed_seq}, {"reason", check.reason}});
  if (deals == 0) return json_response(200, json{{"table", table}, {"deals", 0}, {"chain", chain}, {"audit", nullptr}});
  std::istringstream in(decks);
  stats::input_settings settings;
  settings.format = stats::deck_format::text;
  settings.deck = spec;
  settings.label = std::string(table);
  const auto result = stats::audit_stream(in, settings);
  {
    std::lock_guard lock(audit_mutex_);
    auto& ps = audit_p_[std::string(table)];
    ps.clear();
    for (const auto& t : result.tests)
      if (t.p_value) ps.emplace_back(t.name, *t.p_value);
  }
  cli::audit_run_info info;
  info.source = "input";
  info.pairs_planned = 1;
  if (format == "html") {
    std::ostringstream out;
    cli::write_audit_html(out, {result}, info);
    http_response r;
    r.content_type = "text/html; charset=utf-8";
    r.body = std::move(out).str();
    return r;
  }
  json j = cli::audit_json({result}, info);
  j["table"] = table;
  j["deals"] = deals;
  j["chain"] = chain;
  return json_response(200, j);
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
