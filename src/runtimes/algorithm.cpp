// resolve_algorithm (algorithm.hpp): runtime names first, then the shuffle catalogue.
#include "fairdeck/runtimes/algorithm.hpp"

namespace fairdeck::runtimes {

algorithm_choice resolve_algorithm(std::string_view name) {
  if (const auto id = find_runtime(name)) return *id;
  return parse_shuffle_spec(name);
}

}  // namespace fairdeck::runtimes
