// Umbrella header: cards, engines, bounded integers and shuffles.
#pragma once

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/util/run_control.hpp"
