#include "fairdeck/report/engine.hpp"

namespace fairdeck::report {

nlohmann::json engine_json(const engine_spec& spec) {
  const auto& inf = info(spec.id);
  nlohmann::json j{{"name", inf.name}, {"secure", spec.secure()}, {"reproducible", spec.reproducible()}};
  if (spec.reproducible() && !spec.key) j["seed"] = spec.seed;
  return j;
}

}  // namespace fairdeck::report
