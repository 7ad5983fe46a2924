// Umbrella header: cards, engines, bounded integers and shuffles (the core every user needs).
// Larger modules have their own entry points:
//   fairdeck/stats/audit.hpp            statistical fairness audits
//   fairdeck/security/provably_fair.hpp commit-reveal dealing
//   fairdeck/security/seed_space.hpp    seed-space arithmetic;  fairdeck/security/attack.hpp the weak-seed attack
//   fairdeck/poker/hand_eval.hpp        hand evaluator; odds.hpp, equity.hpp, range.hpp
//   fairdeck/shuffle/mixing.hpp         exact riffle-shuffle mixing distances
//   fairdeck/stats/power.hpp            what an audit can detect (test power); stats/bins.hpp chi-square bins
#pragma once

#include "fairdeck/cards/card.hpp"
#include "fairdeck/random/bounded.hpp"
#include "fairdeck/random/chacha20.hpp"
#include "fairdeck/random/engine_registry.hpp"
#include "fairdeck/random/legacy.hpp"
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/random/pcg64.hpp"
#include "fairdeck/random/xoshiro256pp.hpp"
#include "fairdeck/shuffle/algorithm.hpp"
#include "fairdeck/shuffle/huge.hpp"
#include "fairdeck/shuffle/physical.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/util/run_control.hpp"
