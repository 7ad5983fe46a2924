// Exact path matching for fairdeckd's route table (routes.cpp) and the Authorization header.
//
// Guarantee: a path matches a pattern only segment by segment with the same number of
// segments; "{t}", "{h}" and "{s}" take any one non-empty segment, every other segment must be equal.
// A path that does not start with '/', has an empty segment ("//", "/a//b") or ends with '/'
// matches nothing. So a new route can never be answered by another route's handler, whatever
// its length or method.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api.hpp"

namespace fairdeck::service::routing {

// "/a/b/c" -> {"a","b","c"}; nullopt for an empty segment or a trailing slash.
[[nodiscard]] std::optional<std::vector<std::string_view>> split_exact(std::string_view path);

struct captures {
  std::string_view table;  // {t}
  std::string_view seat;   // {s}
  std::string_view hand;   // {h}
};
[[nodiscard]] bool matches(std::string_view pattern, const std::vector<std::string_view>& parts, captures& out);

// Is a route (needs_auth: an operator route; both: /healthz, /metrics) answered on `role`?
[[nodiscard]] bool visible(bool needs_auth, bool both, http_request::listener_role role) noexcept;

// The credentials of "Bearer <token>" (RFC 7235: the scheme is case-insensitive; spaces or
// tabs around the token are tolerated); nullopt for another scheme or no token.
[[nodiscard]] std::optional<std::string_view> bearer_token(std::string_view header);

// The route for (method, path) in `rows` (anything with method, pattern, needs_auth, both):
// its index, or no index and `allow` listing the methods the path takes (empty: 404).
struct lookup {
  std::optional<std::size_t> index;
  std::string allow;
  captures caps;
};
template <class Row>
[[nodiscard]] lookup find_route(const std::vector<Row>& rows, std::string_view method, std::string_view path,
                                http_request::listener_role role) {
  lookup out;
  const auto parts = split_exact(path);
  if (!parts) return out;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    captures c;
    if (!visible(r.needs_auth, r.both, role) || !matches(r.pattern, *parts, c)) continue;
    if (r.method == method) {
      out.index = i;
      out.caps = c;
      out.allow.clear();
      return out;
    }
    if (!out.allow.empty()) out.allow += ", ";
    out.allow += r.method;
  }
  return out;
}

}  // namespace fairdeck::service::routing
