// fairdeckd's HTTP server on Boost.Beast/Asio, after Beast's "advanced server" example: one
// async session per connection (keep-alive), bounded headers and bodies, graceful shutdown on
// SIGTERM/SIGINT (stop accepting, finish what is in flight, at most `grace` later exit).
//
// Guarantees against slow or many clients (issue #27):
// - at most `max_connections` connections, and at most `max_connections_per_client` from one
//   address (trusted proxies exempt); a connection over a cap is answered a short 503 with
//   Retry-After and closed at once, and counted in /metrics;
// - a connection that stalls is closed: `header_timeout` from a request's first byte (or from
//   accept) to the end of its headers, `read_timeout` for the whole request and for writing the
//   answer, `idle_timeout` for a keep-alive connection waiting for its next request;
// - out of file descriptors (EMFILE/ENFILE) accept pauses 100 ms at a time instead of spinning,
//   the waiting connection is answered 503 through a reserve descriptor, and the episode is
//   logged once (not per failure).
// Every answer the transport makes itself (400, 413, 431, 503) goes through api::count.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "api.hpp"

namespace fairdeck::service {

struct server_options {
  std::string listen = "127.0.0.1:8080";  // host:port, [v6]:port; port 0 picks a free one
  std::string operator_listen;            // empty: one listener for every route (role `all`)
  std::vector<std::string> trusted_proxies;  // ADDR or ADDR/PREFIX whose X-Forwarded-For is believed
  unsigned threads = 0;                   // 0: one per hardware thread
  std::size_t max_body = 64 * 1024;
  std::size_t max_header = 8 * 1024;
  std::size_t max_connections = 0;        // 0: from the file-descriptor limit (see connection_budget)
  std::size_t max_connections_per_client = 64;
  std::chrono::seconds header_timeout{5};
  std::chrono::seconds read_timeout{15};
  std::chrono::seconds idle_timeout{10};
  std::chrono::seconds grace{5};
};

// Throws std::invalid_argument naming the problem for text that is not HOST:PORT or [V6]:PORT.
void check_endpoint(const std::string& text);
// Throws std::invalid_argument for text that is not ADDR or ADDR/PREFIX.
void check_trusted_proxy(const std::string& text);

// Resolves max_connections = 0 to min(4096, file-descriptor limit - reserve) where the reserve
// is 64 descriptors (half the limit if that is smaller), after raising the soft RLIMIT_NOFILE
// towards the hard one as far as the connections need. Returns a warning for stderr when an
// explicit cap does not fit under the limit (accept then pauses whenever descriptors run out).
std::string connection_budget(server_options& o);

// Serves until SIGTERM/SIGINT. `on_listening` gets the bound addresses ("127.0.0.1:43011"; the
// operator one empty without --operator-listen). Throws std::runtime_error when an address cannot
// be bound.
void serve(api& handler, const server_options& o,
           const std::function<void(const std::string& bound, const std::string& operator_bound)>& on_listening);

}  // namespace fairdeck::service
