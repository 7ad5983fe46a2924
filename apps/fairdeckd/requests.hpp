// The bodies of fairdeckd's write requests: JSON objects with known keys only, each key once,
// each value checked against its limit (the range an error names is the range checked).
// Every problem, malformed JSON and numbers out of range included, is a bad_body (400) in one
// line naming the field; nothing else escapes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fairdeck/service/table.hpp"

namespace fairdeck::service {

// Thrown while reading a request body: 400 with this message.
struct bad_body : std::runtime_error {
  using std::runtime_error::runtime_error;
};

open_table parse_open(std::string_view body);                                          // POST /v1/tables
set_client_seed parse_seed(std::string_view body, std::string table, unsigned seat);  // PUT …/client-seed
deal parse_deal(std::string_view body, std::string table);                            // POST …/deals
void parse_rotate(std::string_view body);  // POST …/rotate: empty, or a JSON object without fields
// POST …/hands, …/hands/{h}/abort: empty, or a JSON object without fields
void parse_no_fields(std::string_view body);
// PUT …/hands/{h}/seats/{s}/commit: {"commitment": "<64 hex digits>"}
commit_seat parse_commit(std::string_view body, std::string table, std::uint64_t hand, unsigned seat);
// PUT …/hands/{h}/seats/{s}/reveal: {"client_seed": "…"}
reveal_seat parse_reveal(std::string_view body, std::string table, std::uint64_t hand, unsigned seat);

// POST …/mental/hands/{h}/steps: one step object of a fairdeck-mental/v1 transcript (read by
// fairdeck::service::parse_step); here only JSON, an object, no duplicate keys.
nlohmann::json parse_step_body(std::string_view body);

}  // namespace fairdeck::service
