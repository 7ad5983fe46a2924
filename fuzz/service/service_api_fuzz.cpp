// Fuzzes fairdeckd's request handling (routing, query strings, JSON bodies, auth header)
// against a real SQLite store. Input layout: byte 0 picks the method and whether the valid
// token is sent (bits 0-2), the client (bits 3-5) and the listener (bits 6-7); then the target
// up to the first '\n'; the rest is the body.
// Invariants checked: every request is answered exactly once with a known status and a
// JSON body for JSON responses; the table's log always verifies; the live seed never appears;
// after every write the table's latest checkpoint is signed by the log key and covers every
// record (the transparency log's routes: log-key, checkpoint, proofs, cosignatures).
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <future>
#include <string>

#include <nlohmann/json.hpp>

#include "api.hpp"
#include "fairdeck/service/log_tree.hpp"
#include "fairdeck/service/store.hpp"

using namespace fairdeck::service;

namespace {

struct harness {
  std::string dir;
  std::unique_ptr<store> s;
  std::unique_ptr<api> handler;
  std::string token;
  std::optional<fairdeck::tlog::note_verifier> log_key;
  harness() {
    const char* base = std::filesystem::exists("/dev/shm") ? "/dev/shm" : "/tmp";  // cheap fsync
    std::string tmpl = std::string(base) + "/fairdeck-fuzz-XXXXXX";
    if (!::mkdtemp(tmpl.data())) std::abort();
    dir = tmpl;
    store_options o;
    o.db = dir + "/f.db";
    init_store(o);
    s = open_store(o);
    token = generate_token();
    s->add_token_hash(token_hash(token));
    api_options ao;  // one witness, so that cosignatures can be accepted
    ao.witness_keys.push_back(
        fairdeck::tlog::note_signer::generate("witness.fuzz", fairdeck::tlog::key_type::cosignature_v1).verifier());
    handler = std::make_unique<api>(*s, ao);
    log_key = fairdeck::tlog::note_verifier::parse(log_verifier_key(*s).value());
    (void)s->execute(open_table{2, {}, "demo"});
    (void)s->execute(set_client_seed{"demo", 1, "alice", std::nullopt});
    (void)s->execute(set_client_seed{"demo", 2, "bob", std::nullopt});
  }
  ~harness() {
    handler.reset();
    s.reset();
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
  }
};

harness& h() {
  static harness instance;
  return instance;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  auto& H = h();
  static const char* methods[] = {"GET", "POST", "PUT", "DELETE"};
  const std::string method = methods[data[0] & 3];
  const std::string auth = (data[0] & 4) ? "Bearer " + H.token : std::string(reinterpret_cast<const char*>(data), 0);
  const std::string rest(reinterpret_cast<const char*>(data + 1), size - 1);
  const auto nl = rest.find('\n');
  const std::string target = rest.substr(0, nl);
  const std::string body = nl == std::string::npos ? std::string() : rest.substr(nl + 1);
  std::promise<http_response> p;
  auto f = p.get_future();
  int calls = 0;
  const std::string client = "fuzz" + std::to_string((data[0] >> 3) & 7);  // not all rate-limited at once
  static const http_request::listener_role roles[] = {
      http_request::listener_role::all, http_request::listener_role::public_only,
      http_request::listener_role::operator_only, http_request::listener_role::all};
  const auto role = roles[(data[0] >> 6) & 3];
  H.handler->handle({method, target, auth, body, client, role, {}}, [&](http_response r) {
    ++calls;
    p.set_value(std::move(r));
  });
  const auto r = f.get();
  if (calls != 1) std::abort();
  static const unsigned known[] = {200, 201, 400, 401, 403, 404, 405, 409, 413, 429, 503};
  if (std::find(std::begin(known), std::end(known), r.status) == std::end(known)) std::abort();
  if (r.content_type == "application/json" && !nlohmann::json::accept(r.body)) std::abort();
  // Exact routing: an empty segment or a trailing slash never reaches a route.
  const auto path = target.substr(0, target.find('?'));
  if ((path.find("//") != std::string::npos || (path.size() > 1 && path.back() == '/')) && r.status != 404 &&
      r.status != 413)
    std::abort();
  // A valid token is never refused for someone else's failures.
  if ((data[0] & 4) && r.status == 429 && r.body.find("failed authentications") != std::string::npos) std::abort();
  if (method != "GET") {
    const auto log = H.s->log("demo", std::nullopt, 1'000'000);
    if (!log || !verify_log(*log).ok) std::abort();
    const auto cp = checkpoint_with_cosignatures(*H.s, "demo").value();
    const auto opened = fairdeck::tlog::open_note(cp, std::span(&*H.log_key, 1));
    if (opened.verified.size() != 1 || fairdeck::tlog::parse_checkpoint(opened.text).size != log->size()) std::abort();
  }
  return 0;
}
