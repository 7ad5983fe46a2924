// fairdeckd's transparency-log routes (issue #29, docs/service.md): the log key, signed
// checkpoints, inclusion and consistency proofs, witness cosignatures. The work is in
// fairdeck/service/log_tree.hpp; this file only reads parameters and words the answers.
#include <stdexcept>
#include <variant>

#include <fmt/format.h>

#include "api.hpp"
#include "http_util.hpp"

namespace fairdeck::service {

using namespace http_util;

namespace {

http_response text(unsigned status, std::string body) {
  http_response r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.body = std::move(body);
  return r;
}

http_response no_log() {
  auto r = error(503, "this store keeps no transparency log");
  r.headers.emplace_back("Retry-After", "1");
  return r;
}

json hex_list(const std::vector<tlog::hash>& hashes) {
  json out = json::array();
  for (const auto& h : hashes) out.push_back(tlog::to_hex(h));
  return out;
}

// A required canonical integer query parameter, or the 400 that says what is wrong.
std::variant<std::uint64_t, http_response> number(std::string_view query, std::string_view key) {
  const auto v = query_param(query, key);
  if (!v) return error(400, fmt::format("{} is required", key));
  const auto n = parse_u64(*v);
  if (!n) return error(400, fmt::format("{} must be an integer 0..{} without sign or leading zeros", key, max_url_integer));
  return *n;
}

}  // namespace

std::optional<http_response> api::route_log_key(const route_args&, respond_fn&) {
  if (!log_key_) return no_log();
  return text(200, log_key_->text() + "\n");
}

std::optional<http_response> api::route_checkpoint(const route_args& a, respond_fn&) {
  if (!log_key_) return no_log();
  const auto cp = checkpoint_with_cosignatures(store_, a.table);
  if (!cp) return error(404, fmt::format("no table '{}'", a.table));
  return text(200, *cp);
}

std::optional<http_response> api::route_inclusion(const route_args& a, respond_fn&) {
  if (!log_key_) return no_log();
  const auto seq = number(a.query, "seq");
  if (const auto* bad = std::get_if<http_response>(&seq)) return *bad;
  const auto size = number(a.query, "size");
  if (const auto* bad = std::get_if<http_response>(&size)) return *bad;
  const std::uint64_t n = std::get<std::uint64_t>(seq), s = std::get<std::uint64_t>(size);
  try {
    const auto proof = inclusion_proof(store_, a.table, n, s);
    if (!proof) return error(404, fmt::format("no table '{}'", a.table));
    return json_response(200, json{{"seq", n}, {"tree_size", s}, {"hashes", hex_list(*proof)}});
  } catch (const std::out_of_range& e) {
    return error(400, e.what());
  }
}

std::optional<http_response> api::route_consistency(const route_args& a, respond_fn&) {
  if (!log_key_) return no_log();
  const auto from = number(a.query, "from");
  if (const auto* bad = std::get_if<http_response>(&from)) return *bad;
  const auto to = number(a.query, "to");
  if (const auto* bad = std::get_if<http_response>(&to)) return *bad;
  const std::uint64_t f = std::get<std::uint64_t>(from), t = std::get<std::uint64_t>(to);
  try {
    const auto proof = consistency_proof(store_, a.table, f, t);
    if (!proof) return error(404, fmt::format("no table '{}'", a.table));
    return json_response(200, json{{"from", f}, {"to", t}, {"hashes", hex_list(*proof)}});
  } catch (const std::out_of_range& e) {
    return error(400, e.what());
  }
}

std::optional<http_response> api::route_cosign(const route_args& a, respond_fn&) {
  if (!log_key_) return no_log();
  const auto r = add_cosignatures(store_, a.table, a.req.body, *log_key_, options_.witness_keys);
  switch (r.status) {
    case cosign_status::ok: {
      std::string body;
      for (const auto& line : r.kept) body += line;
      return text(200, std::move(body));
    }
    case cosign_status::malformed: return error(400, r.message);
    case cosign_status::unknown_witness: return error(403, r.message);
    case cosign_status::not_ours: return error(409, r.message);
    case cosign_status::no_table: return error(404, r.message);
  }
  return error(500, "internal error");
}

}  // namespace fairdeck::service
