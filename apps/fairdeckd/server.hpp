// fairdeckd's HTTP server on Boost.Beast/Asio, after Beast's "advanced server" example: one
// async session per connection (keep-alive), bounded headers and bodies, read timeouts for
// slow clients, graceful shutdown on SIGTERM/SIGINT (stop accepting, finish what is in
// flight, at most `grace` later exit).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

#include "api.hpp"

namespace fairdeck::service {

struct server_options {
  std::string listen = "127.0.0.1:8080";  // host:port, [v6]:port; port 0 picks a free one
  unsigned threads = 0;                    // 0: one per hardware thread
  std::size_t max_body = 64 * 1024;
  std::size_t max_header = 8 * 1024;
  std::chrono::seconds read_timeout{15};
  std::chrono::seconds grace{5};
};

// Serves until SIGTERM/SIGINT. `on_listening` gets the bound address ("127.0.0.1:43011").
// Throws std::runtime_error when the address cannot be bound.
void serve(api& handler, const server_options& o, const std::function<void(const std::string&)>& on_listening);

}  // namespace fairdeck::service
