// Fuzzes the log checker (docs/log-format.md): any JSON array of records must be parsed or
// refused with std::invalid_argument, and verify_log must return (never crash or hang) with a
// failing seq whenever it rejects.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include <nlohmann/json.hpp>

#include "fairdeck/service/records.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck::service;
  const auto j = nlohmann::json::parse(std::string_view(reinterpret_cast<const char*>(data), size), nullptr, false);
  if (!j.is_array() || j.size() > 64) return 0;
  std::vector<record> records;
  try {
    for (const auto& r : j) records.push_back(record_from_json(r));
  } catch (const std::invalid_argument&) {
    return 0;
  }
  for (const auto& r : records)
    if (record_from_json(to_json(r)) != r) std::abort();  // JSON round trip
  const auto check = verify_log(records);
  if (!check.ok && !check.failed_seq) std::abort();
  if (check.ok && check.deals_verified + check.deals_unrevealed != check.deals) std::abort();
  if (check.ok)  // the stores keep the canonical text: it must parse back to the same record
    for (const auto& r : records)
      if (record_from_canonical(canonical_text(r), r.hash) != r) std::abort();
  return 0;
}
