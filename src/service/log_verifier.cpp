// The chain check of docs/log-format.md ("Checking a log", rules 1-6): log_verifier and
// verify_log of include/fairdeck/service/records.hpp. The records' text and hashes are in
// records.cpp.
#include "fairdeck/service/records.hpp"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/security/provably_fair.hpp"

namespace fairdeck::service {
namespace {

// The largest seat number the log checker accepts in a hand (fairdeckd has at most 100 seats):
// bounds the state it keeps.
constexpr unsigned max_hand_seats = 1000;

bool control(std::string_view s) {
  return std::any_of(s.begin(), s.end(), [](char ch) { return static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f; });
}

// Canonical text is one line per field: a newline inside a value would make it ambiguous.
bool has_control(const record& r) {
  for (const auto* s :
       {&r.table, &r.time, &r.prev_hash, &r.hash, &r.commitment, &r.client_seed, &r.cards, &r.revealed_seed,
        &r.next_commitment, &r.seat_commitment, &r.mental_id, &r.players, &r.head, &r.body})
    if (control(*s)) return true;
  return std::any_of(r.seat_seeds.begin(), r.seat_seeds.end(), [](const std::string& s) { return control(s); });
}

}  // namespace

log_verifier::log_verifier(std::optional<std::uint64_t> after) : first_seq_(after ? *after + 1 : 0) {
  if (!after) next_nonce_ = 0;
}

void log_verifier::fail(std::uint64_t seq, std::string why) {
  check_.ok = false;
  check_.failed_seq = seq;
  check_.reason = std::move(why);
  pending_.clear();
}

log_check log_verifier::result() const {
  log_check out = check_;
  if (out.ok) out.deals_unrevealed = pending_.size();
  if (out.ok) finish_mental_hand(out);  // the mental hand read last (mental_log.cpp)
  return out;
}

// Rule 5 for the deals of one seed, once it is revealed.
void log_verifier::check_revealed(const fair::server_seed& seed) {
  for (const pending_deal& d : pending_) {
    const deck_spec spec{d.decks, d.jokers};
    std::string expected;
    try {
      validate(spec);
      expected = format_cards(fair::deal_deck(seed, d.client_seed, d.nonce, spec), spec);
    } catch (const std::exception& e) {
      return fail(d.seq, fmt::format("deal cannot be re-derived: {}", e.what()));
    }
    if (expected != d.cards) return fail(d.seq, "cards differ from the deck the revealed seed deals");
    ++check_.deals_verified;
  }
  pending_.clear();
}

void log_verifier::add(const record& r) {
  if (failed()) return;
  const std::uint64_t i = count_++;
  // 1. sequence, type of record 0, one table
  if (r.seq != first_seq_ + i)
    return fail(r.seq,
                fmt::format("seq {} where {} was expected (missing, repeated or out of order)", r.seq, first_seq_ + i));
  if ((r.seq == 0) != (r.type == record_type::open))
    return fail(r.seq, r.seq == 0 ? "record 0 is not an open record" : "an open record after record 0");
  if (has_control(r)) return fail(r.seq, "a field contains a control character");
  if (i == 0) table_ = r.table;
  if (r.table != table_) return fail(r.seq, fmt::format("names table '{}', not '{}'", r.table, table_));
  // 2. hash and chain
  if (compute_hash(r) != r.hash) return fail(r.seq, "hash does not match the record's canonical text");
  if (i == 0 && first_seq_ == 0 && r.prev_hash != zero_hash) return fail(r.seq, "record 0's prev_hash is not 64 zeros");
  if (i > 0 && r.prev_hash != prev_hash_) return fail(r.seq, "prev_hash is not the previous record's hash");
  prev_hash_ = r.hash;
  // 3, 4, 5
  switch (r.type) {
    case record_type::open:
      in_force_ = r.commitment;
      seats_ = r.seats;
      shoe_ = {r.decks, r.jokers};
      count_seats(std::min(r.seats, max_hand_seats));
      break;
    case record_type::deal: {
      if (hand_) return fail(r.seq, fmt::format("a standing-seed deal while hand {} is in progress", hand_->hand));
      ++check_.deals;
      if (next_nonce_ && r.nonce != *next_nonce_)
        return fail(r.seq, fmt::format("nonce {} where {} was expected", r.nonce, *next_nonce_));
      if (r.nonce == UINT64_MAX) return fail(r.seq, "nonce counter exhausted");
      next_nonce_ = r.nonce + 1;
      if (!in_force_) in_force_ = r.commitment;
      if (r.commitment != *in_force_) return fail(r.seq, "deal names a commitment that is not in force");
      std::string derived;
      try {
        derived = fair::combine_client_seeds(r.seat_seeds);
      } catch (const std::exception& e) {
        return fail(r.seq, fmt::format("seat seeds: {}", e.what()));
      }
      if (derived != r.client_seed) return fail(r.seq, "client_seed is not the derivation of seat_seeds");
      pending_.push_back({r.seq, r.nonce, r.decks, r.jokers, r.client_seed, r.cards});
      break;
    }
    case record_type::rotate: {
      if (hand_)
        return fail(r.seq, fmt::format("a rotation while hand {} is in progress (its server seed must stay sealed "
                                       "until the hand is dealt or aborted)",
                                       hand_->hand));
      if (!in_force_) in_force_ = r.commitment;
      if (r.commitment != *in_force_) return fail(r.seq, "rotation names a commitment that is not in force");
      std::optional<fair::server_seed> seed;
      try {
        seed.emplace(fair::server_seed::from_hex(r.revealed_seed));
      } catch (const std::exception&) {
        return fail(r.seq, "revealed_seed is not 64 hex digits");
      }
      if (fair::commitment(*seed) != *in_force_)
        return fail(r.seq, "revealed seed does not hash to the commitment in force");
      check_revealed(*seed);
      if (failed()) return;
      in_force_ = r.next_commitment;
      break;
    }
    case record_type::hand_open:
    case record_type::commit:
    case record_type::reveal:
    case record_type::hand_deal:
    case record_type::abort: add_hand_record(r); break;
    case record_type::mental_hand:
    case record_type::mental_step: add_mental_record(r); break;
  }
}

void log_verifier::count_seats(unsigned seats) {
  if (check_.aborts.size() < seats) check_.aborts.resize(seats, 0);
  if (check_.missed_commits.size() < seats) check_.missed_commits.resize(seats, 0);
}

namespace {

bool lower_hex64(std::string_view s) {
  return s.size() == 64 &&
         std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// The seats of `seeds` (per seat, "" while not given) that are still empty, from 1.
std::vector<unsigned> empty_seats(const std::vector<std::string>& seeds) {
  std::vector<unsigned> out;
  for (std::size_t i = 0; i < seeds.size(); ++i)
    if (seeds[i].empty()) out.push_back(static_cast<unsigned>(i + 1));
  return out;
}

}  // namespace

// Hands with seat commitments: docs/log-format.md "Checking a log", rule 6.
void log_verifier::add_hand_record(const record& r) {
  const std::uint64_t seq = r.seq;
  const auto nonce_rule = [&]() -> bool {  // rule 3: hand_open consumes the next nonce
    if (next_nonce_ && r.nonce != *next_nonce_) {
      fail(seq, fmt::format("nonce {} where {} was expected", r.nonce, *next_nonce_));
      return false;
    }
    if (r.nonce == UINT64_MAX) {
      fail(seq, "nonce counter exhausted");
      return false;
    }
    next_nonce_ = r.nonce + 1;
    return true;
  };
  const auto in_force_rule = [&](std::string_view what) -> bool {
    if (!in_force_) in_force_ = r.commitment;
    if (r.commitment != *in_force_) {
      fail(seq, fmt::format("{} names a commitment that is not in force", what));
      return false;
    }
    return true;
  };
  if (r.type == record_type::hand_open) {
    if (hand_) return fail(seq, fmt::format("hand {} opened while hand {} is in progress", r.hand, hand_->hand));
    if (last_hand_ && r.hand != *last_hand_ + 1)
      return fail(seq, fmt::format("hand {} where hand {} was expected", r.hand, *last_hand_ + 1));
    if (!last_hand_ && first_seq_ == 0 && r.hand != 1) return fail(seq, "the first hand is not hand 1");
    if (r.seats < 1 || r.seats > max_hand_seats || (seats_ && r.seats != *seats_))
      return fail(seq, fmt::format("a hand of {} seats at a table of {}", r.seats, seats_.value_or(0)));
    if (!nonce_rule() || !in_force_rule("hand_open")) return;
    ++check_.hands;
    last_hand_ = r.hand;
    hand_ = hand_progress{r.hand, r.nonce, true, std::vector<std::string>(r.seats), std::vector<std::string>(r.seats),
                          0,      0};
    check_.hand_in_progress = r.hand;
    count_seats(r.seats);
    return;
  }
  if (!hand_) {
    if (first_seq_ == 0 || last_hand_)
      return fail(seq, fmt::format("{} for hand {}, which is not in progress", type_name(r.type), r.hand));
    // A partial log that starts inside this hand: what came before is taken on trust.
    hand_ = hand_progress{r.hand, 0, false, {}, {}, 0, 0};
    if (seats_) hand_->commitments.resize(*seats_), hand_->seeds.resize(*seats_);
    last_hand_ = r.hand;
  }
  hand_progress& h = *hand_;
  if (r.hand != h.hand)
    return fail(seq, fmt::format("{} for hand {} while hand {} is in progress", type_name(r.type), r.hand, h.hand));
  if (r.type == record_type::commit || r.type == record_type::reveal) {
    const bool fixed = h.known || seats_;
    if (r.seat < 1 || (fixed && r.seat > h.seeds.size()) || r.seat > max_hand_seats)
      return fail(seq, fmt::format("seat {} is not a seat of hand {}", r.seat, h.hand));
    if (!fixed && r.seat > h.seeds.size()) h.commitments.resize(r.seat), h.seeds.resize(r.seat);
  }
  const std::size_t s = r.seat - 1;
  switch (r.type) {
    case record_type::commit:
      if (!h.commitments[s].empty())
        return fail(seq, fmt::format("seat {} committed twice in hand {}", r.seat, h.hand));
      if (h.revealed > 0)
        return fail(seq, fmt::format("seat {} committed after a seed of hand {} was revealed", r.seat, h.hand));
      if (!lower_hex64(r.seat_commitment)) return fail(seq, "seat_commitment is not 64 lowercase hex digits");
      h.commitments[s] = r.seat_commitment;
      ++h.committed;
      return;
    case record_type::reveal:
      if (h.known && h.committed != h.commitments.size())
        return fail(seq, fmt::format("seat {} revealed before every seat of hand {} committed", r.seat, h.hand));
      if (!h.seeds[s].empty()) return fail(seq, fmt::format("seat {} revealed twice in hand {}", r.seat, h.hand));
      try {
        fair::validate_client_seed(r.client_seed);
      } catch (const std::exception& e) {
        return fail(seq, fmt::format("seat {}'s seed: {}", r.seat, e.what()));
      }
      if (h.commitments[s].empty() && h.known)
        return fail(seq, fmt::format("seat {} revealed without a commitment", r.seat));
      if (!h.commitments[s].empty() && !fair::seed_matches_commitment(r.client_seed, h.commitments[s]))
        return fail(seq, fmt::format("seat {}'s revealed seed does not hash to its commitment", r.seat));
      h.seeds[s] = r.client_seed;
      ++h.revealed;
      return;
    case record_type::hand_deal: {
      if (h.known && r.nonce != h.nonce)
        return fail(seq, fmt::format("hand {} dealt with nonce {}, not its nonce {}", h.hand, r.nonce, h.nonce));
      if (!h.known && !next_nonce_) next_nonce_ = r.nonce + 1;
      if (!in_force_rule("hand_deal")) return;
      if (h.known && h.revealed != h.seeds.size())
        return fail(seq, fmt::format("hand {} dealt before every seat revealed", h.hand));
      bool same = !h.known || r.seat_seeds.size() == h.seeds.size();
      for (std::size_t i = 0; same && i < h.seeds.size(); ++i)
        same = h.seeds[i].empty() ? !h.known : (i < r.seat_seeds.size() && r.seat_seeds[i] == h.seeds[i]);
      if (!same) return fail(seq, fmt::format("hand {}'s seat_seeds are not the seeds its seats revealed", h.hand));
      std::string derived;
      try {
        derived = fair::combine_client_seeds(r.seat_seeds);
      } catch (const std::exception& e) {
        return fail(seq, fmt::format("seat seeds: {}", e.what()));
      }
      if (derived != r.client_seed) return fail(seq, "client_seed is not the derivation of seat_seeds");
      ++check_.deals;
      ++check_.hands_dealt;
      pending_.push_back({r.seq, r.nonce, r.decks, r.jokers, r.client_seed, r.cards});
      break;
    }
    case record_type::abort: {
      if (h.known && r.nonce != h.nonce)
        return fail(seq, fmt::format("hand {} aborted with nonce {}, not its nonce {}", h.hand, r.nonce, h.nonce));
      if (!h.known && !next_nonce_) next_nonce_ = r.nonce + 1;
      if (h.known && (r.uncommitted != empty_seats(h.commitments) || r.unrevealed != empty_seats(h.seeds)))
        return fail(seq, fmt::format("hand {}'s abort does not name exactly the seats that did not commit / reveal",
                                     h.hand));
      for (const auto* list : {&r.uncommitted, &r.unrevealed})
        for (std::size_t i = 0; i < list->size(); ++i)
          if ((*list)[i] < 1 || (*list)[i] > max_hand_seats || (i > 0 && (*list)[i] <= (*list)[i - 1]))
            return fail(seq, "an abort's seat list is not ascending seat numbers");
      const auto& blamed = r.uncommitted.empty() ? r.unrevealed : r.uncommitted;
      count_seats(blamed.empty() ? 0 : blamed.back());
      for (const unsigned seat : blamed) ++(r.uncommitted.empty() ? check_.aborts : check_.missed_commits)[seat - 1];
      ++check_.hands_aborted;
      break;
    }
    default: break;
  }
  hand_.reset();
  check_.hand_in_progress.reset();
}

bool log_contains(const std::vector<record>& log, std::uint64_t seq, std::string_view hash) noexcept {
  return std::any_of(log.begin(), log.end(), [&](const record& r) { return r.seq == seq && r.hash == hash; });
}

log_check verify_log(const std::vector<record>& records, std::optional<std::uint64_t> after) {
  log_verifier v(after);
  for (const record& r : records) {
    v.add(r);
    if (v.failed()) break;
  }
  return v.result();
}

}  // namespace fairdeck::service
