// Small pieces shared by fairdeckd's API files (api.cpp, routes.cpp): JSON answers, errors,
// query strings, canonical integers in URLs, and the one-line error log.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "api.hpp"

namespace fairdeck::service::http_util {

using json = nlohmann::json;

// Request text echoed in an error may be invalid UTF-8: replaced (U+FFFD), never a throw.
http_response json_response(unsigned status, const json& j);
// {"error": message, "status": status}
http_response error(unsigned status, std::string_view message);
// Value of `key` in "a=1&b=2" (the first one); nullopt when absent.
std::optional<std::string_view> query_param(std::string_view query, std::string_view key);
// A canonical decimal integer (no sign, no leading zero) of at most `max`; every number a URL
// carries is at most 2^63 - 1, so it fits the stores' signed 64-bit columns.
inline constexpr std::uint64_t max_url_integer = 9223372036854775807ULL;
std::optional<std::uint64_t> parse_u64(std::string_view s, std::uint64_t max = max_url_integer);
// One line on stderr: "fairdeckd: <context>: <detail>" (line breaks in the detail become
// spaces). For details that public answers must not show (hosts, ports, paths, exception texts).
void log_error(std::string_view context, std::string_view detail) noexcept;

}  // namespace fairdeck::service::http_util
