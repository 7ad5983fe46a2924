// fairdeckd: the provably fair dealing service (docs/service.md).
//   fairdeckd init  --db PATH|postgresql://... [--key-file F] [--json]   create store + key, print a token
//   fairdeckd token --db PATH|postgresql://... [--json]                  add an operator token
//   fairdeckd token --db ... --list [--json] | --revoke ID                list (id, created) / revoke one
//   fairdeckd log-key --db PATH|postgresql://...                          print the log's verifier key
//   fairdeckd serve --db PATH|postgresql://... [--listen 127.0.0.1:8080]  serve until SIGTERM/SIGINT
//                   [--operator-listen HOST:PORT] [--trusted-proxy ADDR[/PREFIX]]... [limits, timeouts]
#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sodium.h>

#include "api.hpp"
#include "fairdeck/security/verify_page.hpp"
#include "fairdeck/util/parallel.hpp"
#include "server.hpp"

namespace {

using namespace fairdeck::service;

// What a command prints is its result: a failed write (a full disk, a closed pipe) is an error.
void flush_stdout(std::string_view what) {
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0)
    throw std::runtime_error(fmt::format("cannot write {} to standard output: {}", what, std::strerror(errno)));
}

// Adds a token and prints it. A token nobody received is a credential nobody holds: when the
// printing fails it is revoked again before the error.
void add_and_print_token(store& s, bool json) {
  std::string token = generate_token();
  const std::string hash = token_hash(token);
  s.add_token_hash(hash);
  std::string text = json ? nlohmann::json{{"token", token}}.dump() : token;
  text += '\n';
  const bool written = std::fwrite(text.data(), 1, text.size(), stdout) == text.size();
  sodium_memzero(text.data(), text.size());
  sodium_memzero(token.data(), token.size());
  try {
    if (!written) throw std::runtime_error(fmt::format("cannot write the token to standard output: {}", std::strerror(errno)));
    flush_stdout("the token");
  } catch (const std::runtime_error& e) {
    s.revoke_token(hash);
    throw std::runtime_error(fmt::format("{}; the token was revoked again (`fairdeckd token` adds another)", e.what()));
  }
}

// `token --list`: one line "ID  CREATED" per token, oldest first (never the token or its hash).
void list_tokens(store& s, bool json) {
  const auto rows = s.token_rows();
  const auto ids = token_ids(rows);
  if (json) {
    auto out = nlohmann::json::array();
    for (std::size_t i = 0; i < rows.size(); ++i) out.push_back({{"id", ids[i]}, {"created", rows[i].second}});
    fmt::print("{}\n", out.dump());
  } else {
    for (std::size_t i = 0; i < rows.size(); ++i) fmt::print("{}  {}\n", ids[i], rows[i].second);
  }
  flush_stdout("the token list");
}

// `token --revoke ID`: deletes the one token whose id (a hash prefix) is ID.
void revoke_token(store& s, std::string id, bool json) {
  for (auto& c : id) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const std::size_t hits = s.revoke_token(id);
  if (hits == 0) throw std::runtime_error(fmt::format("no token with id {} (`fairdeckd token --list` shows them)", id));
  if (hits > 1)
    throw std::runtime_error(fmt::format("id {} names {} tokens; give more of it (`fairdeckd token --list`)", id, hits));
  if (json) fmt::print("{}\n", nlohmann::json{{"revoked", id}}.dump());
  flush_stdout("the answer");
  std::fprintf(stderr, "fairdeckd: revoked token %s; a running server refuses it within a second\n", id.c_str());
  if (s.token_rows().empty())
    std::fprintf(stderr, "fairdeckd: no operator token is left; `fairdeckd token` adds one\n");
}

// A password in --db is visible to every local user (ps, /proc/PID/cmdline) until this
// overwrites it; PGPASSFILE keeps it off the command line altogether (docs/service.md).
void hide_db_password(int argc, char** argv, const std::string& db) {
  const auto passwords = uri_passwords(db);
  if (passwords.empty()) return;
  std::fprintf(stderr, "fairdeckd: warning: --db holds a password, which other local users can read from the process "
                       "list; put it in PGPASSFILE instead (docs/service.md)\n");
  for (int i = 1; i < argc; ++i)
    for (const auto& pw : passwords)
      for (char* p = std::strstr(argv[i], pw.c_str()); p != nullptr; p = std::strstr(p + pw.size(), pw.c_str()))
        std::memset(p, '*', pw.size());  // in place: CLI11 has copied the text already
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fairdeckd: provably fair dealing service with hash-chained, durable records"};
  app.require_subcommand(1);
  store_options so;
  bool json = false;
  server_options srv;
  api_options ao;

  const auto common = [&](CLI::App* c) {
    c->add_option("--db", so.db, "SQLite file, or postgresql://... URI")->required();
    c->add_option("--key-file", so.key_file, "At-rest key file (default: <db>.key; required for PostgreSQL)");
  };
  auto* init = app.add_subcommand("init", "Create the store and its key file; print a new operator token");
  common(init);
  init->add_flag("--json", json, "Print {\"token\": ...}");
  init->add_option("--log-name", so.log_name,
                   "Name of the transparency log's key, the origin prefix of its checkpoints (default: "
                   "fairdeckd.local-<8 random hex digits>)")
      ->check([](const std::string& v) -> std::string {
        return fairdeck::tlog::valid_key_name(v) ? "" : "a log name has no spaces, '+' or control characters";
      });
  auto* log_key_cmd = app.add_subcommand("log-key", "Print the transparency log's verifier key (no key file needed)");
  log_key_cmd->add_option("--db", so.db, "SQLite file, or postgresql://... URI")->required();
  auto* token = app.add_subcommand("token", "Add another operator token to the store and print it; or list or revoke tokens");
  common(token);
  token->add_flag("--json", json, "Print {\"token\": ...} (--list: [{\"id\": ..., \"created\": ...}])");
  bool list = false;
  std::string revoke;
  auto* list_opt = token->add_flag("--list", list, "List the tokens: an id (a prefix of the token's hash) and when it was created");
  token->add_option("--revoke", revoke, "Revoke the token with this id (from --list)")
      ->excludes(list_opt)
      ->check([](const std::string& v) -> std::string {
        const bool hex = std::all_of(v.begin(), v.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
        return hex && v.size() >= 8 && v.size() <= 64 ? "" : "an id is 8 to 64 hex digits, as --list shows it";
      });
  auto* serve_cmd = app.add_subcommand("serve", "Serve the HTTP API until SIGTERM/SIGINT");
  common(serve_cmd);
  serve_cmd->add_option("--listen", srv.listen, "HOST:PORT (port 0: any free port)")->capture_default_str();
  serve_cmd->add_option("--threads", srv.threads, "I/O threads (0: one per core); with --operator-listen as many again for that listener")->capture_default_str()->check(
      CLI::Range(0u, fairdeck::max_threads));
  serve_cmd->add_option("--max-body", srv.max_body, "Largest request body, bytes")->capture_default_str();
  const auto valid = [](void (*check)(const std::string&), const char* what) {
    return CLI::Validator(
        [check](std::string& text) {
          try {
            check(text);
          } catch (const std::exception& e) {
            return std::string(e.what());
          }
          return std::string();
        },
        what);
  };
  serve_cmd->add_option("--operator-listen", srv.operator_listen,
                        "HOST:PORT of a second listener for the operator routes; --listen then serves only the "
                        "public ones")
      ->check(valid(check_endpoint, "HOST:PORT"));
  serve_cmd->add_option("--trusted-proxy", srv.trusted_proxies,
                        "ADDR or ADDR/PREFIX of a reverse proxy whose X-Forwarded-For names the client (repeatable); "
                        "also exempt from --max-connections-per-client")
      ->check(valid(check_trusted_proxy, "ADDR[/PREFIX]"));
  serve_cmd->add_option("--max-connections", srv.max_connections,
                        "Most open connections (0: 4096 or what the file-descriptor limit allows)")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{0}, std::size_t{1000000}));
  serve_cmd->add_option("--max-connections-per-client", srv.max_connections_per_client,
                        "Most open connections from one address")
      ->capture_default_str()
      ->check(CLI::Range(std::size_t{1}, std::size_t{1000000}));
  unsigned header_timeout = 5, read_timeout = 15, idle_timeout = 10;
  serve_cmd->add_option("--header-timeout", header_timeout,
                        "Seconds from a request's first byte (or a new connection) to the end of its headers")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600u));
  serve_cmd->add_option("--read-timeout", read_timeout,
                        "Seconds a client may take to send a whole request (and to take its answer)")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600u));
  serve_cmd->add_option("--idle-timeout", idle_timeout, "Seconds a keep-alive connection may wait for its next request")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600u));
  serve_cmd->add_option("--writers", so.writers, "PostgreSQL writer connections")->capture_default_str()->check(
      CLI::Range(1u, 64u));
  std::vector<std::string> witness_keys;
  serve_cmd->add_option("--witness-key", witness_keys,
                        "Verifier key of a witness (cosignature/v1) whose cosignatures POST "
                        "/v1/tables/{t}/checkpoint/cosignatures accepts (repeatable)")
      ->check([](const std::string& v) -> std::string {
        try {
          if (fairdeck::tlog::note_verifier::parse(v).type() == fairdeck::tlog::key_type::cosignature_v1) return "";
        } catch (const std::exception&) {
        }
        return "a witness key is a verifier key of type cosignature/v1 (NAME+KEYID+BASE64)";
      });
  serve_cmd->add_option("--max-batch", so.max_batch, "Most writes in one group commit")->capture_default_str()->check(
      CLI::Range(std::size_t{1}, std::size_t{100000}));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  hide_db_password(argc, argv, so.db);

  try {
    // The store's key lives next to a SQLite file; a PostgreSQL URI has nowhere to put it.
    if ((init->parsed() || serve_cmd->parsed()) && so.key_file.empty() && is_postgres_uri(so.db))
      throw std::runtime_error("--key-file: a PostgreSQL store needs a key file (there is no database file to put it next to)");
    if (init->parsed()) {
      if (!is_postgres_uri(so.db) && std::filesystem::exists(so.db))  // init_store refuses it too; here with advice
        throw std::runtime_error(fmt::format("{} already exists; `fairdeckd token` adds a token to it", so.db));
      init_store(so);
      auto s = open_store_for_tokens(so);
      add_and_print_token(*s, json);
      std::fprintf(stderr, "fairdeckd: created %s and key file %s (mode 0600); keep the key file secret and backed up\n",
                   redact_db(so.db).c_str(), key_path(so).c_str());
    } else if (log_key_cmd->parsed()) {
      auto s = open_store_for_tokens(so);
      const auto v = log_verifier_key(*s);
      if (!v) throw std::runtime_error("the store has no log key yet; `fairdeckd serve` makes one when it opens the store");
      fmt::print("{}\n", *v);
      flush_stdout("the log key");
    } else if (token->parsed()) {
      auto s = open_store_for_tokens(so);
      if (list) list_tokens(*s, json);
      else if (!revoke.empty()) revoke_token(*s, revoke, json);
      else add_and_print_token(*s, json);
    } else {
      ao.max_body = srv.max_body;
      for (const auto& w : witness_keys) ao.witness_keys.push_back(fairdeck::tlog::note_verifier::parse(w));
      srv.header_timeout = std::chrono::seconds(header_timeout);
      srv.read_timeout = std::chrono::seconds(read_timeout);
      srv.idle_timeout = std::chrono::seconds(idle_timeout);
      if (const auto warning = connection_budget(srv); !warning.empty())
        std::fprintf(stderr, "fairdeckd: %s\n", warning.c_str());
      auto s = open_store(so);
      api handler(*s, ao);
      // The player's offline verifier, byte-identical to `fairdeck fair page` (docs/verify-page.md).
      handler.add_page("/verify", "text/html; charset=utf-8", fairdeck::fair::verify_page());
      serve(handler, srv, [](const std::string& addr, const std::string& operator_addr) {
        fmt::print("fairdeckd listening on http://{}\n", addr);  // first line: scripts and tests parse it
        if (!operator_addr.empty()) fmt::print("fairdeckd operator listener on http://{}\n", operator_addr);
        std::fflush(stdout);
      });
      std::fprintf(stderr, "fairdeckd: stopped\n");
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fairdeckd: %s\n", scrub_password(e.what(), so.db).c_str());  // never the --db password
    return 1;
  }
  return 0;
}
