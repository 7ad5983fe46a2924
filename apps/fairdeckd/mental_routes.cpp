// fairdeckd's mental-poker table routes (api.hpp; docs/mental-poker.md §10, docs/service.md):
//   POST /v1/tables/{t}/mental/hands                    (operator) start a hand
//   POST /v1/tables/{t}/mental/hands/{h}/steps          (operator) add a player's step
//   GET  /v1/tables/{t}/mental/hands/{h}                (public)   where the hand stands, stalled or not
//   GET  /v1/tables/{t}/mental/hands/{h}/transcript     (public)   the transcript, as `fairdeck mental` reads it
// The server holds no card secret: it verifies each step with fairdeck::mental::verify_hand
// (on its own worker thread, never on an I/O thread) before it submits it, and the store
// appends it to the table's log before the answer. A step out of turn, repeated, or built on
// another transcript than the stored one is refused (409); one that does not verify, 400.
#include <algorithm>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api.hpp"
#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/service/mental.hpp"
#include "fairdeck/util/hex.hpp"
#include "http_util.hpp"
#include "requests.hpp"

namespace fairdeck::service {

using namespace http_util;

namespace {

std::optional<std::uint64_t> mental_hand_number(std::string_view h) {
  const auto v = parse_u64(h, max_url_integer);
  if (!v || *v < 1) return std::nullopt;
  return v;
}

std::string head_hex(const std::array<std::uint8_t, 64>& h) {
  return fairdeck::to_hex(std::span<const std::uint8_t>(h));
}

json to_json_of(std::uint32_t to) { return to == mental::to_all ? json("all") : json(to); }

json status_json(const mental_status& st) {
  json pending = json::array();
  for (const auto& o : st.pending)
    pending.push_back(json{{"to", to_json_of(o.to)}, {"positions", o.positions}, {"awaited", o.awaited}});
  return json{{"shuffles", st.shuffles},
              {"reveals", st.reveals},
              {"next", st.next.empty() ? json(nullptr) : json(st.next)},
              {"awaited", st.awaited},
              {"pending", std::move(pending)}};
}

std::string seats_text(const std::vector<unsigned>& seats) {
  std::string out;
  for (const auto s : seats) {
    if (!out.empty()) out.push_back(',');
    out.append(std::to_string(s));
  }
  return out;
}

}  // namespace

// The seq of the first record of mental hand `hand` (< before, the current hand's first record):
// every mental_hand and mental_step record names its hand, and hands grow with seq, so a
// binary search reads O(log n) single records. (Reading the log from the start took one page
// per 1,000 records on an I/O thread, for anyone asking for an old hand: a public endpoint
// that grew slower with the table's age.) nullopt when the table is gone.
std::optional<std::uint64_t> api::first_seq_of_hand(std::string_view table, std::uint64_t hand, std::uint64_t before) {
  std::uint64_t lo = 1, hi = before;  // record 0 is the table's open
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2;
    const auto got = store_.log(table, mid - 1, 1);
    if (!got) return std::nullopt;
    if (got->empty() || got->front().hand >= hand)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

// The hand's transcript from the log: its records from its first (found as above) to the next
// mental hand. An http_response when there is none.
std::variant<api::mental_hand_view, http_response> api::load_mental_hand(std::string_view table, std::uint64_t hand) {
  const auto t = store_.table(table);
  if (!t) return error(404, fmt::format("no table '{}'", table));
  if (!t->mental) return error(409, fmt::format("table '{}' is not a mental-poker table", table));
  const auto& cur = t->mental->hand;
  if (!cur || hand > cur->hand) return error(404, fmt::format("no mental hand {} at table '{}'", hand, table));
  mental_hand_view out;
  out.current = hand == cur->hand;
  out.timeout = t->mental->timeout;
  std::vector<record> recs;
  constexpr std::size_t page = 128;  // a hand is a few dozen records; a page holds the next hand's start too
  std::optional<std::uint64_t> after;
  if (out.current) {
    out.since_ms = cur->since_ms;
    after = cur->first_seq - 1;  // first_seq >= 1: record 0 is the table's open
  } else {
    const auto first = first_seq_of_hand(table, hand, cur->first_seq);
    if (!first) return error(404, fmt::format("no table '{}'", table));
    after = *first - 1;
  }
  while (true) {  // pages until the hand's records end (the next mental hand or the log's end)
    const auto got = store_.log(table, after, page);
    if (!got) return error(404, fmt::format("no table '{}'", table));
    bool ended = false;
    for (const auto& r : *got) {
      if (r.type == record_type::mental_hand) {
        if (!recs.empty() || r.hand > hand) {  // the next hand: this one ended (or is not in the log)
          ended = true;
          break;
        }
        if (r.hand == hand) recs.push_back(r);
      } else if (!recs.empty() && r.type == record_type::mental_step && r.hand == hand) {
        recs.push_back(r);
      }
    }
    if (ended || got->size() < page) break;
    after = got->back().seq;
  }
  if (recs.empty()) return error(404, fmt::format("no mental hand {} at table '{}'", hand, table));
  out.hand = transcript_from_records(recs);  // what the store holds reads back, or a 500
  out.number = hand;
  out.last_time = recs.back().time;
  out.head = recs.back().head;
  return out;
}

void api::watch_mental(const std::string& table, std::uint64_t hand, std::size_t step, const mental_status& st,
                       std::int64_t since_ms, unsigned timeout) {
  std::lock_guard lock(watch_mutex_);
  auto& w = watch_[table];
  if (w.hand == hand && w.step == step && w.known) return;  // already watched (and maybe logged)
  w = mental_watch{true, hand, step, st.next, st.awaited, since_ms + std::int64_t{timeout} * 1000, false, timeout};
  watch_cv_.notify_all();
}

void api::watch_loop() {
  std::unique_lock lock(watch_mutex_);
  while (!watch_stop_) {
    watch_cv_.wait_for(lock, options_.mental_check_interval);
    if (watch_stop_) break;
    const auto now = now_ms();
    for (auto& [table, w] : watch_) {
      if (w.logged || w.awaited.empty() || now < w.deadline_ms) continue;
      w.logged = true;
      log_error("mental hand stalled",
                fmt::format("table {} hand {} step {}: waiting for seat {} to {} for more than {} s", table, w.hand,
                            w.step, seats_text(w.awaited), w.next, w.timeout));
    }
  }
}

std::optional<http_response> api::route_mental_open(const route_args& a, respond_fn& respond) {
  parse_no_fields(a.req.body);
  const auto t = store_.table(a.table);
  if (!t) return error(404, fmt::format("no table '{}'", a.table));
  if (!t->mental) return error(409, fmt::format("table '{}' is not a mental-poker table", a.table));
  mental::hand h = mental::new_hand(t->id, t->mental->players, t->spec);
  const auto v = mental::verify_hand(h);  // the header: h_0, and the players' proofs once more
  if (!v.ok) return error(409, fmt::format("the table's players do not make a hand: {}", v.problem));
  const std::string table = t->id, head = head_hex(v.head);
  const unsigned timeout = t->mental->timeout;
  write(open_mental_hand{table, h.id, head}, a.req, std::move(respond),
        [this, id = h.id, head, timeout, n = h.players.size()](write_result& r) {
          const record& rec = *r.rec;
          mental_status st;
          st.next = "shuffle";
          st.awaited = {1};
          watch_mental(r.table, r.hand, 0, st, now_ms(), timeout);
          return json_response(201, json{{"table", r.table},
                                         {"hand", r.hand},
                                         {"id", id},
                                         {"players", n},
                                         {"head", head},
                                         {"seq", rec.seq},
                                         {"hash", rec.hash},
                                         {"receipt", receipt_json(r)}});
        });
  return std::nullopt;
}

std::optional<http_response> api::route_mental_step(const route_args& a, respond_fn& respond) {
  const auto hand = mental_hand_number(a.hand);
  if (!hand) return error(404, "no such hand (hands are numbered from 1)");
  json body = parse_step_body(a.req.body);  // 400 for malformed JSON, before `respond` is taken
  // Verifying a shuffle takes tens of milliseconds per shuffle so far: on the mental worker.
  std::function<void()> job = [this, defer = a.req.defer, table = std::string(a.table), number = *hand,
                               body = std::move(body), respond]() mutable {
    http_request req;  // what write() needs of the request: where to build the answer
    req.defer = defer;
    const auto answer = [&](http_response r) {
      count(r.status);
      if (!defer) return respond(std::move(r));
      defer([respond, r = std::move(r)]() mutable { respond(std::move(r)); });
    };
    try {
      auto loaded = load_mental_hand(table, number);
      if (auto* bad = std::get_if<http_response>(&loaded)) return answer(std::move(*bad));
      auto& view = std::get<mental_hand_view>(loaded);
      if (!view.current) return answer(error(409, fmt::format("hand {} is over: the table has a later hand", number)));
      mental::hand& h = view.hand;
      mental::step s;
      try {
        s = parse_step(body, h);
      } catch (const std::exception& e) {
        return answer(error(400, fmt::format("the step does not read: {}", e.what())));
      }
      if (auto why = turn_problem(h, s)) return answer(error(409, fmt::format("out of turn: {}", *why)));
      const std::size_t k = h.steps.size();
      const std::uint32_t player = player_of(s);
      std::string stored = step_body(s);
      h.steps.push_back(std::move(s));
      // The proofs of the steps before k were verified when they came (and the log verifier
      // re-verifies every proof): here only the new step's, with the structure of them all.
      const auto v = mental::verify_hand(h, k);
      if (!v.ok) return answer(error(400, fmt::format("the step is refused: {}", v.problem)));
      const auto st = hand_status(h);
      const std::string head = head_hex(v.head);
      const unsigned timeout = view.timeout;
      write(mental_step_write{table, number, k, player, head, std::move(stored)}, req, std::move(respond),
            [this, k, player, head, st, timeout](write_result& r) {
              const record& rec = *r.rec;
              watch_mental(r.table, r.hand, k + 1, st, now_ms(), timeout);
              return json_response(200, json{{"table", r.table},
                                             {"hand", r.hand},
                                             {"step", k},
                                             {"player", player},
                                             {"head", head},
                                             {"seq", rec.seq},
                                             {"hash", rec.hash},
                                             {"status", status_json(st)},
                                             {"receipt", receipt_json(r)}});
            });
    } catch (const store_unavailable& e) {
      log_error("store unavailable", e.what());
      auto r = error(503, "the store is unavailable; retry later");
      r.headers.emplace_back("Retry-After", "1");
      answer(std::move(r));
    } catch (const std::exception& e) {
      log_error("internal error", e.what());
      answer(error(500, "internal error"));
    }
  };
  if (!mental_pool_.try_post(job)) {
    auto r = error(503, "too many mental-poker steps wait to be verified; retry later");
    r.headers.emplace_back("Retry-After", "1");
    return r;
  }
  return std::nullopt;
}

std::optional<http_response> api::route_mental_hand(const route_args& a, respond_fn&) {
  const auto hand = mental_hand_number(a.hand);
  if (!hand) return error(404, "no such hand (hands are numbered from 1)");
  auto loaded = load_mental_hand(a.table, *hand);
  if (auto* bad = std::get_if<http_response>(&loaded)) return std::move(*bad);
  const auto& view = std::get<mental_hand_view>(loaded);
  const auto st = hand_status(view.hand);
  json j = status_json(st);
  bool stalled = false;
  std::int64_t waiting = 0;
  if (view.current) {
    waiting = std::max<std::int64_t>(0, now_ms() - view.since_ms) / 1000;
    stalled = !st.awaited.empty() && now_ms() - view.since_ms > std::int64_t{view.timeout} * 1000;
    watch_mental(std::string(a.table), *hand, view.hand.steps.size(), st, view.since_ms, view.timeout);
  }
  j.update({{"table", std::string(a.table)},
            {"hand", *hand},
            {"id", view.hand.id},
            {"players", view.hand.players.size()},
            {"steps", view.hand.steps.size()},
            {"head", view.head},
            {"current", view.current},
            {"last_time", view.last_time},
            {"timeout", view.timeout},
            {"waiting_seconds", waiting},
            {"stalled", stalled}});
  if (!view.current) j["next"] = nullptr, j["awaited"] = json::array();
  return json_response(200, j);
}

std::optional<http_response> api::route_mental_transcript(const route_args& a, respond_fn&) {
  const auto hand = mental_hand_number(a.hand);
  if (!hand) return error(404, "no such hand (hands are numbered from 1)");
  auto loaded = load_mental_hand(a.table, *hand);
  if (auto* bad = std::get_if<http_response>(&loaded)) return std::move(*bad);
  http_response r;
  r.body = mental::to_json(std::get<mental_hand_view>(loaded).hand);  // the canonical text, byte for byte
  return r;
}

}  // namespace fairdeck::service
