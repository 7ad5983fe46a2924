// Java's signed seeds on --seed (add_engine_options, options.cpp): a negative -S is read as
// new Random(-SL) reads it, the 64-bit two's complement 2^64 - S, and remembered so that any
// generator other than Java's refuses it with that rule in the message.
#pragma once

#include "options.hpp"

namespace fairdeck::cli {

// Throws usage_error naming Java's rule when the --seed of `o` was negative and the generator
// is not Java's (`java` false). engine_options::resolve() calls it for engines.
void allow_negative_seed(const engine_options& o, bool java);

}  // namespace fairdeck::cli
