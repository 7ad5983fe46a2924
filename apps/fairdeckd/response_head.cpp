// The answer's status line and fields as text (see response_head.hpp).
#include "response_head.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <boost/beast/http/status.hpp>

namespace fairdeck::service {
namespace {

bool same_name(std::string_view a, std::string_view b) noexcept {
  return std::ranges::equal(a, b, [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

void check_field(std::string_view text) {
  if (text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos)
    throw std::logic_error("an answer's header field holds CR, LF or NUL");
}

}  // namespace

std::string response_head(const http_response& r, bool keep_alive) {
  // The fields in Beast's order: set() erased a field of the same name and appended.
  std::vector<std::pair<std::string_view, std::string_view>> fields{{"Server", "fairdeckd"},
                                                                    {"Content-Type", r.content_type},
                                                                    {"Cache-Control", "no-store"}};
  for (const auto& field : r.headers) {
    std::erase_if(fields, [&](const auto& f) { return same_name(f.first, field.first); });
    fields.emplace_back(field.first, field.second);
  }
  const std::string length = std::to_string(r.body.size());
  if (!keep_alive) fields.emplace_back("Connection", "close");
  fields.emplace_back("Content-Length", length);

  const auto reason = boost::beast::http::obsolete_reason(static_cast<boost::beast::http::status>(r.status));
  std::string head;
  head.reserve(160 + 40 * r.headers.size() + r.content_type.size());
  head += "HTTP/1.1 ";
  head += std::to_string(r.status);
  head += ' ';
  head.append(reason.data(), reason.size());
  head += "\r\n";
  for (const auto& [name, value] : fields) {
    check_field(name);
    check_field(value);
    head += name;
    head += ": ";
    head += value;
    head += "\r\n";
  }
  head += "\r\n";
  return head;
}

}  // namespace fairdeck::service
