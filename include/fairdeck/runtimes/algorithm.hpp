// What an algorithm name means where a command takes either kind (`shuffle`, `audit`,
// `attack`): the shuffle a runtime ships (runtime.hpp: php, java, go, ...), which brings its
// own seeded generator, or a fairdeck shuffle algorithm (shuffle/algorithm.hpp: fisher-yates,
// riffle:7, compositions with '+'), which runs on a fairdeck engine.
//
// The guarantee: the two name spaces are disjoint (no runtime name parses as a shuffle
// algorithm; tests/runtimes_algorithm_test.cpp), so every command that reads a name reads it
// the same way.
#pragma once

#include <string_view>
#include <variant>

#include "fairdeck/runtimes/runtime.hpp"
#include "fairdeck/shuffle/algorithm.hpp"

namespace fairdeck::runtimes {

// A runtime's shuffle, or a fairdeck shuffle algorithm with its parameters.
using algorithm_choice = std::variant<runtime_id, shuffle_spec>;

// A runtime name from runtime_catalog() gives its runtime_id; anything else is read by
// parse_shuffle_spec, whose std::invalid_argument (naming the problem and the catalogued
// algorithms) it passes on.
[[nodiscard]] algorithm_choice resolve_algorithm(std::string_view name);

}  // namespace fairdeck::runtimes
