// fairdeckd's HTTP/JSON API, independent of the transport: server.cpp (Boost.Beast) feeds it
// parsed requests, the fuzz target and the tests call it directly. Routes, status codes and
// JSON keys are the contract of issue #13 / docs/service.md.
//
// Guarantees: routes match exactly (one table in routes.cpp; an empty segment or a trailing
// slash is 404, a known path with another method 405 with Allow); operator routes check the
// token before anything is limited, so a valid token is never refused with 429; malformed
// bodies of any kind are 400 with one line; public answers never carry store details (hosts,
// ports, paths, exception texts: those go to stderr); every answer is counted in /metrics.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <variant>
#include <vector>

#include "fairdeck/service/mental.hpp"
#include "fairdeck/service/store.hpp"
#include "fairdeck/service/table_audit.hpp"
#include "fairdeck/service/work_pool.hpp"
#include "limiter.hpp"

namespace fairdeck::service {

struct http_request {
  std::string_view method;         // "GET", "POST", ...
  std::string_view target;         // path and query
  std::string_view authorization;  // the Authorization header, if any
  std::string_view body;
  std::string_view client;  // the real client's address (the peer, or X-Forwarded-For from a trusted proxy)
  // Which listener the request arrived on: with `serve --operator-listen`, operator routes
  // answer only on the operator listener and public routes only on the public one.
  enum class listener_role { all, public_only, operator_only };
  listener_role role = listener_role::all;
  // Where a write's answer is built once committed (e.g. the connection's strand), so the
  // store's writer thread only commits. Empty: on the writer thread.
  std::function<void(std::function<void()>)> defer;
  std::string_view accept = {};           // the Accept header (the proofs' encoding), if any
  std::string_view idempotency_key = {};  // the Idempotency-Key header (POST .../deals), if any
  bool idempotency_key_repeated = false;  // sent more than once
};

struct http_response {
  unsigned status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

using respond_fn = std::function<void(http_response)>;

struct api_options {
  std::size_t max_body = 64 * 1024;
  unsigned auth_failures_per_minute = 20;    // per client, then 429 (for failures only)
  std::size_t max_tracked_clients = 100000;  // the limiter's memory bound (oldest evicted)
  // GET .../audit runs on this many worker threads, never on the I/O threads; when
  // audit_queue requests already wait, it answers 503 with Retry-After.
  unsigned audit_threads = 1;
  std::size_t audit_queue = 16;
  std::size_t audit_cache_bytes = std::size_t{256} << 20;  // folded audits kept (LRU)
  // GET .../log stops a page once its JSON passes this many bytes (then next_after).
  std::size_t log_page_bytes = std::size_t{1} << 20;
  // Witnesses whose cosignatures POST .../checkpoint/cosignatures accepts (cosignature/v1 keys).
  std::vector<tlog::note_verifier> witness_keys;
  // Mental-poker tables: steps are verified on this many worker threads (at most mental_queue
  // waiting, then 503); stalled hands are looked for every mental_check_interval.
  unsigned mental_threads = 1;
  std::size_t mental_queue = 64;
  std::chrono::milliseconds mental_check_interval{1000};
};

// Prometheus histogram with fixed buckets (seconds).
class latency_histogram {
 public:
  static constexpr std::array<double, 12> bounds{0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                 0.05,   0.1,   0.25,   0.5,   1.0,  2.5};
  void observe(double seconds) noexcept;
  void write(std::string& out, std::string_view name) const;

 private:
  std::array<std::atomic<std::uint64_t>, bounds.size() + 1> counts_{};
  std::atomic<std::uint64_t> sum_us_{0};
};

class api {
 public:
  api(store& s, api_options o = {});
  ~api();
  api(const api&) = delete;
  api& operator=(const api&) = delete;
  // Answers through `respond`, possibly later and on a store thread (writes answer after commit).
  void handle(const http_request& req, respond_fn respond);
  // A fixed GET page (e.g. GET /verify -> the browser verifier); one line to add a route.
  void add_page(std::string path, std::string content_type, std::string_view body);
  [[nodiscard]] std::string metrics();
  // Every accepted write answered, every accepted audit and mental step answered and its job
  // gone (serve() calls it before the io_context the answers are posted to is destroyed).
  void flush() {
    store_.flush();
    mental_pool_.drain();
    audit_pool_.drain();
  }
  // Counts a response the transport answered itself (413, 431, 503 at the connection cap...)
  // in /metrics, as if handle() had answered it.
  void count(unsigned status) noexcept;

 private:
  // The route table (routes.cpp): {method, pattern, needs_auth, handler}. Pattern segments
  // match exactly; "{t}" is a table id, "{h}" a hand, "{s}" a seat. needs_auth routes live on the operator
  // listener, the others on the public one; `both` routes (/healthz, /metrics) on both.
  struct route_args {
    const http_request& req;
    std::string_view table;  // {t}
    std::string_view seat;   // {s}
    std::string_view hand;   // {h}
    std::string_view query;
  };
  // An answer now, or nullopt once `respond` was handed to a write (answered after commit).
  using route_handler = std::optional<http_response> (api::*)(const route_args&, respond_fn&);
  struct route {
    std::string_view method;
    std::string_view pattern;
    bool needs_auth;
    route_handler handler;
    bool both = false;
  };
  static const std::vector<route>& routes();
  std::optional<http_response> route_healthz(const route_args&, respond_fn&);
  std::optional<http_response> route_metrics(const route_args&, respond_fn&);
  std::optional<http_response> route_table(const route_args&, respond_fn&);
  std::optional<http_response> route_log(const route_args&, respond_fn&);
  std::optional<http_response> route_audit(const route_args&, respond_fn&);
  std::optional<http_response> route_open(const route_args&, respond_fn&);
  std::optional<http_response> route_seed(const route_args&, respond_fn&);
  std::optional<http_response> route_deal(const route_args&, respond_fn&);
  std::optional<http_response> route_rotate(const route_args&, respond_fn&);
  std::optional<http_response> route_hand_open(const route_args&, respond_fn&);
  std::optional<http_response> route_hand_commit(const route_args&, respond_fn&);
  std::optional<http_response> route_hand_reveal(const route_args&, respond_fn&);
  std::optional<http_response> route_hand_deal(const route_args&, respond_fn&);
  std::optional<http_response> route_hand_abort(const route_args&, respond_fn&);
  // Mental-poker tables (mental_routes.cpp).
  std::optional<http_response> route_mental_open(const route_args&, respond_fn&);
  std::optional<http_response> route_mental_step(const route_args&, respond_fn&);
  std::optional<http_response> route_mental_hand(const route_args&, respond_fn&);
  std::optional<http_response> route_mental_transcript(const route_args&, respond_fn&);
  struct mental_hand_view {
    mental::hand hand;  // the transcript, from the log
    std::uint64_t number = 0;
    bool current = false;       // the table's hand now (an earlier one is over)
    std::int64_t since_ms = 0;  // current: when its last step (or the hand) was accepted
    unsigned timeout = 0;
    std::string last_time, head;  // its last record's time and transcript hash
  };
  std::variant<mental_hand_view, http_response> load_mental_hand(std::string_view table, std::uint64_t hand);
  std::optional<std::uint64_t> first_seq_of_hand(std::string_view table, std::uint64_t hand, std::uint64_t before);
  // Stalls: one entry per mental table this process served; one log line per stalled step.
  struct mental_watch {
    bool known = false;
    std::uint64_t hand = 0;
    std::size_t step = 0;
    std::string next;
    std::vector<unsigned> awaited;
    std::int64_t deadline_ms = 0;
    bool logged = false;
    unsigned timeout = 0;
  };
  void watch_mental(const std::string& table, std::uint64_t hand, std::size_t step, const mental_status& st,
                    std::int64_t since_ms, unsigned timeout);
  void watch_loop();
  // The transparency log (log_routes.cpp).
  std::optional<http_response> route_log_key(const route_args&, respond_fn&);
  std::optional<http_response> route_checkpoint(const route_args&, respond_fn&);
  std::optional<http_response> route_cosign(const route_args&, respond_fn&);
  std::optional<http_response> route_cosigned(const route_args&, respond_fn&);
  std::optional<http_response> route_inclusion(const route_args&, respond_fn&);
  std::optional<http_response> route_consistency(const route_args&, respond_fn&);
  void dispatch(const http_request& req, respond_fn& respond);
  bool authorized(const http_request& req);
  void write(write_request w, const http_request& req, respond_fn respond,
             std::function<http_response(write_result&)> ok);
  http_response get_table(std::string_view table);
  http_response get_log(std::string_view table, std::string_view query);
  // Answers through `respond` from the audit pool (or at once: 400, or 503 when it is full).
  void get_audit(std::string_view table, std::string_view query, respond_fn respond);
  http_response audit_answer(const std::string& table, bool html);

  store& store_;
  api_options options_;
  std::optional<tlog::note_verifier> log_key_;  // the store's log key (public half)
  std::map<std::string, std::pair<std::string, std::string_view>, std::less<>> pages_;
  // tokens: hashes cached, refreshed on a miss at most once a second
  std::mutex token_mutex_;
  std::vector<std::string> token_hashes_;
  std::chrono::steady_clock::time_point tokens_loaded_{};
  // failed authentications per client in the current minute
  failure_limiter auth_failures_;
  // metrics
  std::atomic<std::uint64_t> deals_{0}, tables_{0}, rotations_{0}, seeds_set_{0}, hands_opened_{0}, hands_aborted_{0};
  std::array<std::atomic<std::uint64_t>, 7> by_class_{};  // 2xx 4xx(other) 401 429 5xx 413 431
  latency_histogram deal_latency_;
  std::mutex audit_mutex_;
  std::map<std::string, std::vector<std::pair<std::string, double>>> audit_p_;  // table -> (test, p)
  audit_cache audits_;
  std::mutex watch_mutex_;
  std::condition_variable watch_cv_;
  std::map<std::string, mental_watch, std::less<>> watch_;
  bool watch_stop_ = false;
  std::thread watch_thread_;
  work_pool mental_pool_;  // before audit_pool_: both finish their jobs while the rest lives
  work_pool audit_pool_;   // last: its destructor finishes accepted audits while the rest still lives
};

}  // namespace fairdeck::service
