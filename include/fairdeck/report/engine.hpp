// An engine as the JSON outputs name it: {"name", "secure", "reproducible"[, "seed"]}. The
// seed appears only for a reproducible engine without a key (a key is never shown).
#pragma once

#include <nlohmann/json.hpp>

#include "fairdeck/random/engine_registry.hpp"

namespace fairdeck::report {

[[nodiscard]] nlohmann::json engine_json(const engine_spec& spec);

}  // namespace fairdeck::report
