// fairdeck witness: one step of an independent witness of a fairdeckd table's transparency log
// (docs/cli-log.md "Running a witness"). Fetches the latest signed checkpoint and a consistency
// proof from the checkpoint accepted last time (kept in --state DIR), checks both
// (service::witness_check), stores the new one, and with a witness key prints (and with
// --post, posts) a C2SP cosignature/v1 line. A log rolled back, truncated, rewritten or forked
// since the accepted checkpoint: exit 1, both checkpoints kept in DIR as evidence.
// Exit codes: 0 accepted, 1 conflict or an invalid checkpoint, 2 usage, 4 no verdict: the
// service could not be reached or answered with an error (nothing accepted, nothing stored).
#include <charconv>
#include <chrono>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>

#include <fcntl.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/service/transparency.hpp"
#include "fairdeck/tlog/key_file.hpp"
#include "fairdeck/util/read_input.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "fairdeck/util/secret_file.hpp"
#include "log_key.hpp"
#include "options.hpp"

namespace fairdeck::cli::cmd_witness {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

constexpr std::size_t max_answer_bytes = std::size_t{1} << 20;

struct witness_options {
  std::string url, table, key, state, witness_key, generate_key;
  bool post = false;
  unsigned timeout = 10;
};

// The service could not be asked (network, timeout, an HTTP error status): exit 4.
class fetch_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct base_url {
  std::string host, port = "80", prefix;  // prefix: a path without the trailing '/'
  [[nodiscard]] std::string text() const { return fmt::format("http://{}:{}{}", host, port, prefix); }
};

base_url parse_url(std::string_view u) {
  if (u.starts_with("https://"))
    throw usage_error("--url: https is not built in; run a TLS proxy (stunnel, nginx) to the service and give its "
                      "http:// address (docs/cli-log.md)");
  if (!u.starts_with("http://")) throw usage_error("--url must start with http:// (e.g. http://127.0.0.1:8080)");
  u.remove_prefix(7);
  base_url b;
  const auto slash = u.find('/');
  std::string_view authority = u.substr(0, slash);
  if (slash != std::string_view::npos) b.prefix = std::string(u.substr(slash));
  while (!b.prefix.empty() && b.prefix.back() == '/') b.prefix.pop_back();
  if (b.prefix.find_first_of("?#") != std::string::npos) throw usage_error("--url: give the service's base address, no query");
  if (authority.starts_with('[')) {  // [v6]:port
    const auto close = authority.find(']');
    if (close == std::string_view::npos) throw usage_error("--url: unclosed '[' in the host");
    b.host = std::string(authority.substr(1, close - 1));
    authority.remove_prefix(close + 1);
    if (!authority.empty()) {
      if (authority.front() != ':') throw usage_error("--url: junk after the host");
      b.port = std::string(authority.substr(1));
    }
  } else {
    const auto colon = authority.rfind(':');
    b.host = std::string(authority.substr(0, colon));
    if (colon != std::string_view::npos) b.port = std::string(authority.substr(colon + 1));
  }
  if (b.host.empty()) throw usage_error("--url has no host");
  if (b.port.empty() || b.port.size() > 5 || b.port.find_first_not_of("0123456789") != std::string::npos ||
      std::stoul(b.port) == 0 || std::stoul(b.port) > 65535)
    throw usage_error("--url: the port must be 1..65535");
  return b;
}

struct http_answer {
  unsigned status = 0;
  std::string body;
  std::string content_type;
  std::vector<std::pair<std::string, std::string>> fairdeck_headers;  // Fairdeck-* (a raw proof's sizes)
};

// One HTTP/1.1 exchange, the whole of it (resolve, connect, write, read) within `timeout`;
// the answer's body is capped at max_answer_bytes.
http_answer exchange(const base_url& base, http::verb verb, const std::string& target, const std::string& body,
                     std::chrono::seconds timeout, std::string_view accept = {}) {
  net::io_context ioc;
  tcp::resolver resolver(ioc);
  beast::tcp_stream stream(ioc);
  http::request<http::string_body> req{verb, base.prefix + target, 11};
  req.set(http::field::host, base.host.find(':') != std::string::npos ? "[" + base.host + "]:" + base.port
                                                                        : base.host + ":" + base.port);
  req.set(http::field::user_agent, "fairdeck-witness");
  req.set(http::field::connection, "close");
  if (!accept.empty()) req.set(http::field::accept, std::string(accept));
  if (verb == http::verb::post) {
    req.set(http::field::content_type, "text/plain; charset=utf-8");
    req.body() = body;
    req.prepare_payload();
  }
  http::response_parser<http::string_body> parser;
  parser.body_limit(max_answer_bytes);
  beast::flat_buffer buffer;
  beast::error_code failure;
  bool done = false;
  stream.expires_after(timeout);
  resolver.async_resolve(base.host, base.port, [&](beast::error_code ec, tcp::resolver::results_type results) {
    if (ec) {
      failure = ec;
      done = true;
      return;
    }
    stream.async_connect(results, [&](beast::error_code ec2, const tcp::endpoint&) {
      if (ec2) {
        failure = ec2;
        done = true;
        return;
      }
      http::async_write(stream, req, [&](beast::error_code ec3, std::size_t) {
        if (ec3) {
          failure = ec3;
          done = true;
          return;
        }
        http::async_read(stream, buffer, parser, [&](beast::error_code ec4, std::size_t) {
          failure = ec4;
          done = true;
        });
      });
    });
  });
  ioc.run_for(timeout + std::chrono::seconds(1));
  const std::string where = base.text() + target;
  if (!done) {
    resolver.cancel();
    beast::error_code ignored;
    stream.socket().close(ignored);
    throw fetch_error(fmt::format("no answer from {} within {} s", where, timeout.count()));
  }
  if (failure == beast::error::timeout) throw fetch_error(fmt::format("no answer from {} within {} s", where, timeout.count()));
  if (failure) throw fetch_error(fmt::format("{}: {}", where, failure.message()));
  http_answer out{parser.get().result_int(), parser.get().body(), {}, {}};
  for (const auto& field : parser.get()) {
    const std::string name(field.name_string());
    if (field.name() == http::field::content_type) out.content_type = std::string(field.value());
    if (name.size() > 9 && strncasecmp(name.c_str(), "Fairdeck-", 9) == 0)
      out.fairdeck_headers.emplace_back(name, std::string(field.value()));
  }
  return out;
}

std::string first_line(std::string_view s) {
  const auto nl = s.find('\n');
  std::string out(s.substr(0, std::min<std::size_t>(nl, 200)));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20) c = ' ';
  return out;
}

http_answer get_ok(const base_url& base, const std::string& target, std::chrono::seconds timeout,
                   std::string_view accept = {}) {
  auto a = exchange(base, http::verb::get, target, {}, timeout, accept);
  if (a.status != 200)
    throw fetch_error(fmt::format("GET {} answered {}: {}", target, a.status, first_line(a.body)));
  return a;
}

std::optional<std::uint64_t> header_number(const http_answer& a, std::string_view name) {
  for (const auto& [k, v] : a.fairdeck_headers)
    if (k.size() == name.size() && strncasecmp(k.c_str(), name.data(), name.size()) == 0) {
      std::uint64_t n = 0;
      const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
      if (ec == std::errc() && end == v.data() + v.size()) return n;
    }
  return std::nullopt;
}

// The consistency proof from `from` to `to`, in whichever form the service answered: raw
// hashes (asked for; the sizes in Fairdeck-From/-To) or JSON with hex or base64 hashes (a
// service that ignores Accept). A proof for other sizes, or one that does not parse, is
// empty: it proves nothing and the step will not verify.
std::vector<tlog::hash> parse_proof(const http_answer& a, std::uint64_t from, std::uint64_t to) {
  if (a.content_type.starts_with("application/octet-stream")) {
    if (header_number(a, "Fairdeck-From") != from || header_number(a, "Fairdeck-To") != to) return {};
    return tlog::proof_from_bytes(a.body).value_or(std::vector<tlog::hash>{});
  }
  try {
    const auto p = service::proof_from_json(nlohmann::json::parse(a.body), "from", "to");
    if (p.first != from || p.second != to) return {};
    return p.hashes;
  } catch (const nlohmann::json::exception&) {
  } catch (const std::invalid_argument&) {
  }
  return {};
}

std::string utc_stamp() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t t = std::chrono::system_clock::to_time_t(now);
  std::tm tm{};
  gmtime_r(&t, &tm);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count() % 1'000'000'000;
  return fmt::format("{:04}{:02}{:02}T{:02}{:02}{:02}.{:09}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec, ns);
}

// The witness's secret key file: PRIVATE+KEY text of a cosignature/v1 key.
tlog::note_signer load_witness_key(const std::string& path) {
  std::optional<tlog::note_signer> signer;
  try {
    signer.emplace(tlog::read_signer_key_file(path, "witness key file"));
  } catch (const tlog::malformed&) {
    throw usage_error(fmt::format("--witness-key: {} does not hold a PRIVATE+KEY+... signer key", path));
  } catch (const std::runtime_error& e) {
    throw usage_error(fmt::format("--witness-key: {}", e.what()));
  }
  if (signer->verifier().type() != tlog::key_type::cosignature_v1)
    throw usage_error("--witness-key: not a cosignature/v1 key (type 0x04); make one with --generate-key NAME");
  return std::move(*signer);
}

// --generate-key NAME --witness-key FILE: a new cosignature/v1 key, FILE created 0600 (never
// overwritten); prints the verifier key for the operator's --witness-key.
int run_generate(const witness_options& o) {
  if (o.witness_key.empty()) throw usage_error("--generate-key needs --witness-key FILE to write the secret key to");
  if (!tlog::valid_key_name(o.generate_key))
    throw usage_error("--generate-key: a key name is non-empty, without spaces, control characters or '+'");
  const auto signer = tlog::note_signer::generate(o.generate_key, tlog::key_type::cosignature_v1);
  try {
    tlog::create_signer_key_file(o.witness_key, signer);  // O_EXCL | O_NOFOLLOW, 0600, fsync'd file and folder
  } catch (const secret_file_error& e) {
    if (e.kind() == secret_file_error::kind_t::io) throw std::runtime_error(fmt::format("cannot write {}", o.witness_key));
    throw usage_error(fmt::format("--witness-key: cannot create {} ({}); it is never overwritten", o.witness_key,
                                  std::strerror(e.os_error())));
  }
  fmt::print("{}\n", signer.verifier().text());
  return 0;
}

// Holds an exclusive lock on DIR/lock: two witness runs on one state never interleave.
struct state_lock {
  int fd = -1;
  explicit state_lock(const std::string& dir) {
    fd = ::open((dir + "/lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) throw usage_error(fmt::format("--state: cannot use {} ({})", dir, std::strerror(errno)));
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      ::close(fd);
      throw std::runtime_error(fmt::format("another witness run holds {}/lock", dir));
    }
  }
  ~state_lock() { ::close(fd); }
  state_lock(const state_lock&) = delete;
  state_lock& operator=(const state_lock&) = delete;
};

int run_witness(const witness_options& o) {
  if (!o.generate_key.empty()) return run_generate(o);
  for (const auto& [value, flag] : {std::pair{&o.url, "--url"}, {&o.table, "--table"}, {&o.key, "--key"}, {&o.state, "--state"}})
    if (value->empty()) throw usage_error(fmt::format("witness needs {} (see --help)", flag));
  if (o.timeout == 0 || o.timeout > 600) throw usage_error("--timeout must be 1..600 seconds");
  if (o.post && o.witness_key.empty()) throw usage_error("--post needs --witness-key: there is nothing to post without it");
  const base_url base = parse_url(o.url);
  if (!service::valid_table_id(o.table)) throw usage_error("--table: a table id is 1..64 of A-Z a-z 0-9 _ -");
  const tlog::note_verifier key = load_log_key(o.key, "--key");
  std::optional<tlog::note_signer> witness;
  if (!o.witness_key.empty()) witness.emplace(load_witness_key(o.witness_key));
  const auto timeout = std::chrono::seconds(o.timeout);

  std::error_code ec;
  std::filesystem::create_directories(o.state, ec);
  if (!std::filesystem::is_directory(o.state)) throw usage_error(fmt::format("--state: {} is not a folder", o.state));
  const state_lock lock(o.state);
  const std::string state_file = o.state + "/checkpoint";
  std::optional<std::string> accepted;
  if (std::filesystem::exists(state_file)) accepted = read_input(state_file, max_answer_bytes, "accepted checkpoint");

  service::witness_step step;
  try {
    const std::string t = "/v1/tables/" + o.table;
    const std::string fresh = get_ok(base, t + "/checkpoint", timeout).body;
    std::vector<tlog::hash> proof;
    std::optional<tlog::checkpoint> old_cp, new_cp;
    try {
      if (accepted) old_cp = service::open_checkpoint(*accepted, key, o.table).cp;
      new_cp = service::open_checkpoint(fresh, key, o.table).cp;
    } catch (const std::invalid_argument&) {
      // witness_check below words it
    }
    if (old_cp && new_cp && new_cp->size > old_cp->size) {
      const std::string target = fmt::format("{}/proof/consistency?from={}&to={}", t, old_cp->size, new_cp->size);
      proof = parse_proof(get_ok(base, target, timeout, "application/octet-stream"), old_cp->size, new_cp->size);
    }
    try {
      step = service::witness_check(key, o.table, accepted, fresh, proof);
    } catch (const std::invalid_argument& e) {
      fmt::print("NOT accepted: the checkpoint {} served is not valid: {}\n", base.text(), e.what());
      return 1;
    }
  } catch (const fetch_error& e) {
    fmt::print(stderr, "fairdeck: error: {} (nothing accepted)\n", e.what());
    return 4;
  }

  if (step.outcome == service::witness_outcome::conflict) {
    const std::string stem = fmt::format("{}/evidence-{}", o.state, utc_stamp());
    write_output_file(stem + "-accepted.note", step.accepted->note);
    write_output_file(stem + "-offered.note", step.fresh.note);
    fmt::print("CONFLICT: {}; both checkpoints kept as evidence: {}-accepted.note and {}-offered.note\n", step.message,
               stem, stem);
    return 1;
  }
  if (step.outcome != service::witness_outcome::unchanged) write_output_file(state_file, step.fresh.note);
  fmt::print("accepted: {}\n", step.message);
  if (!witness) return 0;

  const auto now = static_cast<std::uint64_t>(std::time(nullptr));
  const tlog::note_signature cosig = witness->cosign(step.fresh.text, now);
  fmt::print("{}", tlog::signature_line(cosig));  // ends in "\n"
  if (!o.post) return 0;
  tlog::note n = tlog::parse_note(step.fresh.note);
  n.signatures.push_back(cosig);
  try {
    const auto a = exchange(base, http::verb::post, "/v1/tables/" + o.table + "/checkpoint/cosignatures",
                            tlog::format_note(n), timeout);
    if (a.status != 200) throw fetch_error(fmt::format("the service refused the cosignature ({}: {})", a.status, first_line(a.body)));
  } catch (const fetch_error& e) {
    fmt::print(stderr, "fairdeck: error: {} (the checkpoint is accepted and stored)\n", e.what());
    return 4;
  }
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<witness_options>();
  auto* w = app.add_subcommand("witness", "Witness a fairdeckd table's transparency log: accept its new checkpoint "
                                          "only if consistent with the last (docs/cli-log.md)");
  w->add_option("--url", o->url, "The service's base address, http://HOST:PORT (https: through a TLS proxy)");
  w->add_option("--table", o->table, "The table to witness");
  w->add_option("--key", o->key, "The log's verifier key (GET /v1/log-key): the key text itself or a file holding it");
  w->add_option("--state", o->state, "Folder of the witness's state: the last accepted checkpoint, evidence files");
  w->add_option("--witness-key", o->witness_key,
                "File holding the witness's PRIVATE+KEY+... cosignature/v1 key: print a cosignature line");
  w->add_flag("--post", o->post, "Also post the cosignature to POST /v1/tables/T/checkpoint/cosignatures");
  w->add_option("--timeout", o->timeout, "Seconds for each HTTP exchange (default 10)");
  w->add_option("--generate-key", o->generate_key,
                "Instead: make a new cosignature/v1 key named NAME into --witness-key FILE (0600, never "
                "overwritten) and print its verifier key");
  w->callback([o, &exit_code] { exit_code = run_witness(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_witness

FAIRDECK_REGISTER_COMMAND(56, fairdeck::cli::cmd_witness::setup)
