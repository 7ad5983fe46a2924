// fairdeckd's transparency-log routes (issue #29, docs/service.md): the log key, signed
// checkpoints, inclusion and consistency proofs, witness cosignatures. The work is in
// fairdeck/service/log_tree.hpp; this file only reads parameters and words the answers.
#include <algorithm>
#include <cctype>
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

// How a proof is answered (docs/log-format.md "Proof encodings"): JSON with hex hashes (the
// default), JSON with base64 hashes (?encoding=base64), or the raw hashes (?encoding=binary, or
// Accept: application/octet-stream), the sizes then in response headers.
enum class proof_encoding { hex, base64, binary };

std::string_view trimmed(std::string_view v) {
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t')) v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t')) v.remove_suffix(1);
  return v;
}

bool same_text(std::string_view a, std::string_view b) {  // ASCII, case-insensitive (media types)
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

// Does the Accept header (RFC 9110 §12.5.1) ask for the raw form: application/octet-stream
// acceptable (no q=0) and application/json not named (a client naming both gets JSON, the
// contract's form).
bool wants_binary(std::string_view accept) {
  bool octet = false;
  while (!accept.empty()) {
    const auto comma = accept.find(',');
    std::string_view item = accept.substr(0, comma);
    accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);
    const auto semi = item.find(';');
    const std::string_view type = trimmed(item.substr(0, semi));
    bool refused = false;  // q=0, q=0.0, q=0.00, q=0.000
    for (std::string_view params = semi == std::string_view::npos ? "" : item.substr(semi + 1); !params.empty();) {
      const auto next = params.find(';');
      const std::string_view param = trimmed(params.substr(0, next));
      params = next == std::string_view::npos ? std::string_view{} : params.substr(next + 1);
      if (param.size() >= 3 && same_text(param.substr(0, 2), "q=") && param[2] == '0' &&
          param.substr(3).find_first_not_of(".0") == std::string_view::npos)
        refused = true;
    }
    if (same_text(type, "application/json")) return false;
    if (same_text(type, "application/octet-stream") && !refused) octet = true;
  }
  return octet;
}

// ?encoding= (hex, base64, binary) or the Accept header; a bad value is the 400 that says so.
std::variant<proof_encoding, http_response> encoding_of(const http_request& req, std::string_view query) {
  if (const auto e = query_param(query, "encoding")) {
    if (*e == "hex") return proof_encoding::hex;
    if (*e == "base64") return proof_encoding::base64;
    if (*e == "binary") return proof_encoding::binary;
    return error(400, "encoding must be hex, base64 or binary");
  }
  return wants_binary(req.accept) ? proof_encoding::binary : proof_encoding::hex;
}

// One of a proof's two numbers: its JSON key and, in the raw form, its response header.
struct proof_number {
  const char* key;
  const char* header;
  std::uint64_t value;
};

// A proof answer in `enc`. A proof of given sizes never changes (the tree only grows), so it
// may be cached for good; the answer depends on Accept, hence Vary.
http_response proof_answer(proof_encoding enc, const proof_number& first, const proof_number& second,
                           const std::vector<tlog::hash>& proof) {
  http_response r;
  if (enc == proof_encoding::binary) {
    r.content_type = "application/octet-stream";
    r.body = tlog::proof_to_bytes(proof);
    for (const proof_number* n : {&first, &second}) r.headers.emplace_back(n->header, std::to_string(n->value));
  } else {
    json hashes = json::array();
    for (const auto& h : proof) hashes.push_back(enc == proof_encoding::base64 ? tlog::to_base64(h) : tlog::to_hex(h));
    r = json_response(200, json{{first.key, first.value}, {second.key, second.value}, {"hashes", std::move(hashes)}});
  }
  r.headers.emplace_back("Cache-Control", "public, max-age=31536000, immutable");
  r.headers.emplace_back("Vary", "Accept");
  return r;
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

std::optional<http_response> api::route_cosigned(const route_args& a, respond_fn&) {
  if (!log_key_) return no_log();
  const auto cp = cosigned_checkpoint(store_, a.table, *log_key_);
  if (!cp) return error(404, fmt::format("no table '{}'", a.table));
  if (cp->empty()) return error(404, fmt::format("no checkpoint of table '{}' is cosigned yet", a.table));
  auto r = text(200, *cp);
  r.headers.emplace_back("Cache-Control", "no-cache");  // a newer cosigned checkpoint replaces it
  return r;
}

std::optional<http_response> api::route_inclusion(const route_args& a, respond_fn&) {
  if (!log_key_) return no_log();
  const auto seq = number(a.query, "seq");
  if (const auto* bad = std::get_if<http_response>(&seq)) return *bad;
  const auto size = number(a.query, "size");
  if (const auto* bad = std::get_if<http_response>(&size)) return *bad;
  const auto enc = encoding_of(a.req, a.query);
  if (const auto* bad = std::get_if<http_response>(&enc)) return *bad;
  const std::uint64_t n = std::get<std::uint64_t>(seq), s = std::get<std::uint64_t>(size);
  try {
    const auto proof = inclusion_proof(store_, a.table, n, s);
    if (!proof) return error(404, fmt::format("no table '{}'", a.table));
    return proof_answer(std::get<proof_encoding>(enc), {"seq", "Fairdeck-Seq", n}, {"tree_size", "Fairdeck-Tree-Size", s}, *proof);
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
  const auto enc = encoding_of(a.req, a.query);
  if (const auto* bad = std::get_if<http_response>(&enc)) return *bad;
  const std::uint64_t f = std::get<std::uint64_t>(from), t = std::get<std::uint64_t>(to);
  try {
    const auto proof = consistency_proof(store_, a.table, f, t);
    if (!proof) return error(404, fmt::format("no table '{}'", a.table));
    return proof_answer(std::get<proof_encoding>(enc), {"from", "Fairdeck-From", f}, {"to", "Fairdeck-To", t}, *proof);
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
