// fairdeckd writes its answers' heads as text (response_head.hpp). These tests pin the bytes to
// what the server sent before: Beast's serialization of the http::response it built from the
// same http_response (server.cpp's old send(), kept here as the reference).
#include <sstream>
#include <stdexcept>
#include <string>

#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include "response_head.hpp"

namespace {

namespace http = boost::beast::http;
using fairdeck::service::http_response;
using fairdeck::service::response_head;

// The message the server built, serialized by Beast.
std::string beast_bytes(const http_response& r, bool keep_alive) {
  http::response<http::string_body> res{static_cast<http::status>(r.status), 11};
  res.set(http::field::server, "fairdeckd");
  res.set(http::field::content_type, r.content_type);
  res.set(http::field::cache_control, "no-store");
  for (const auto& [k, v] : r.headers) res.set(k, v);
  res.keep_alive(keep_alive);
  res.body() = r.body;
  res.prepare_payload();
  std::ostringstream out;
  out << res;
  return out.str();
}

http_response make(unsigned status, std::string body, std::vector<std::pair<std::string, std::string>> headers = {},
                   std::string type = "application/json") {
  http_response r;
  r.status = status;
  r.body = std::move(body);
  r.headers = std::move(headers);
  r.content_type = std::move(type);
  return r;
}

TEST(ResponseHead, SameBytesAsBeastForEveryAnswerTheApiGives) {
  const std::vector<http_response> answers{
      make(200, "{\"status\":\"ok\"}\n"),
      make(201, std::string(1407, 'x')),
      make(200, ""),
      make(200, "<html></html>", {}, "text/html; charset=utf-8"),
      make(200, "text", {}, "text/plain; version=0.0.4"),
      make(400, "{\"error\":\"bad\",\"status\":400}\n"),
      make(401, "{}", {{"WWW-Authenticate", "Bearer"}}),
      make(404, "{}"),
      make(405, "{}", {{"Allow", "POST"}}),
      make(409, "{}"),
      make(413, "{}"),
      make(429, "{}", {{"Retry-After", "60"}}),
      make(431, "{}"),
      make(500, "{}"),
      make(503, "{}", {{"Retry-After", "1"}}),
      // a route's own Cache-Control replaces no-store (the proofs and checkpoints)
      make(200, "bytes", {{"Cache-Control", "public, max-age=31536000, immutable"}, {"Vary", "Accept"}},
           "application/octet-stream"),
      make(200, "{}", {{"cache-control", "no-cache"}}),
      make(200, "{}", {{"X-Fairdeck-Tree-Size", "7"}, {"X-Fairdeck-Leaf-Index", "3"}}),
      // the same name twice: the last one wins, at its own place
      make(503, "{}", {{"Retry-After", "1"}, {"Vary", "Accept"}, {"Retry-After", "2"}}),
  };
  for (const auto& r : answers)
    for (const bool keep_alive : {true, false}) {
      SCOPED_TRACE(testing::Message() << r.status << " keep_alive=" << keep_alive);
      EXPECT_EQ(response_head(r, keep_alive) + r.body, beast_bytes(r, keep_alive));
    }
}

TEST(ResponseHead, AFieldThatWouldSplitTheHeadIsRefused) {
  EXPECT_THROW((void)response_head(make(200, "{}", {{"Retry-After", "1\r\nSet-Cookie: x=1"}}), true), std::logic_error);
  EXPECT_THROW((void)response_head(make(200, "{}", {{"X-A\n", "1"}}), true), std::logic_error);
  EXPECT_THROW((void)response_head(make(200, "{}", {}, std::string("text/plain\0x", 12)), true), std::logic_error);
}

}  // namespace
