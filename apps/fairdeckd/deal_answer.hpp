// The deal answer of fairdeckd (docs/service.md, "Protocol"; its JSON keys are a contract that
// tests and verify.html read): the record's public fields, the game dealt from the shoe
// (report::add_game_json) and the transparency log's receipt (service::receipt_json).
//
// Two writers of the same bytes. deal_json builds an nlohmann tree (the reference, and the
// replayed-deal path, whose receipt is read from the store); deal_answer_text writes the
// answer straight into one string with the keys in the order nlohmann's std::map gives them
// (bytewise sorted) and nlohmann's escaping (dump(-1, ' ', false, replace)), so the answer is
// byte for byte what json_response(200, deal_json(...)) sends. The deal path answers tens of
// thousands of these a second; building the tree and dumping it was ~23 % of fairdeckd's CPU
// (docs/service.md, "Speed"). tests/service/deal_answer_test.cpp pins the equality over many
// deals, games, and strings that need escaping.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fairdeck/service/table.hpp"

namespace fairdeck::service {

// The answer as a tree. "mode" says which way of dealing: "standing" (standing seeds, the
// operator is trusted) or "hand" (seat commitments; also "hand"); "receipt": receipt_json(r).
[[nodiscard]] nlohmann::json deal_json(const write_result& r, const game_spec& g);

// json_response(200, deal_json(r, g)).body, written directly (ends with "\n").
[[nodiscard]] std::string deal_answer_text(const write_result& r, const game_spec& g);

// Appends s as a JSON string, escaped as nlohmann's dump(-1, ' ', false, replace) writes it
// (valid UTF-8 is copied as is; invalid UTF-8 takes nlohmann's own replacement path).
void append_json_string(std::string& out, std::string_view s);

}  // namespace fairdeck::service
