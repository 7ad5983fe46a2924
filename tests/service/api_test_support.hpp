// The API without sockets, for the service tests: one request through api::handle, its
// answer waited for (a write answers from the store's writer thread once it is durable).
#pragma once

#include <future>
#include <string>
#include <string_view>
#include <utility>

#include "api.hpp"

namespace fairdeck::service {

// What `a` answers to `req`.
inline http_response handle_now(api& a, const http_request& req) {
  std::promise<http_response> p;
  auto f = p.get_future();
  a.handle(req, [&p](http_response r) { p.set_value(std::move(r)); });
  return f.get();
}

// A request with the bearer token `token` (empty: no Authorization header).
inline http_response call_api(api& a, std::string_view token, std::string_view method, std::string_view target,
                              std::string_view body = "", std::string_view client = "c1",
                              http_request::listener_role role = http_request::listener_role::all) {
  const std::string header = token.empty() ? std::string() : "Bearer " + std::string(token);
  return handle_now(a, {method, target, header, body, client, role, {}});
}

}  // namespace fairdeck::service
