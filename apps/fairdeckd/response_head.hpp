// The status line and header fields of fairdeckd's answers, written as text (RFC 9112 §4, §5).
//
// The answer's head was built as a Beast message (a heap-allocated http::response with one
// allocation per field) and written by Beast's serializer; under 256 keep-alive connections
// that path was ~9 % of the server's CPU beyond the socket write itself. The same bytes are
// now written by one string append per field and sent with the body as two buffers.
// tests/service/response_head_test.cpp pins them to Beast's serialization of the message the
// server used to build, for every status and header the API answers with.
#pragma once

#include <string>

#include "api.hpp"

namespace fairdeck::service {

// "HTTP/1.1 <status> <reason>\r\n" then, in this order: Server: fairdeckd, Content-Type,
// Cache-Control: no-store, r.headers, Connection: close (unless keep_alive), Content-Length,
// and the empty line. A name of r.headers replaces an earlier field of that name
// (case-insensitive; the last one wins, at its own place), as Beast's set() did, so a route's
// own Cache-Control replaces no-store. Header names and values are the server's own constants
// and numbers; one holding CR, LF or NUL throws std::logic_error (never sent as a split header).
[[nodiscard]] std::string response_head(const http_response& r, bool keep_alive);

}  // namespace fairdeck::service
