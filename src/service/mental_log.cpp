// The log verifier's rule for mental-poker records (records.hpp, docs/log-format.md "Checking
// a log", rule 7): a mental_hand record starts a hand (numbered after the table's last hand, its
// header hash h_0 as `head`); its mental_step records follow as steps 0, 1, 2, ... each naming
// its player as `seat`; when the hand ends (the next mental_hand, or the end of the log) its
// transcript, rebuilt from the records, must verify (fairdeck::mental::verify_hand: every key,
// shuffle and decryption proof, the order of the steps) and every record's `head` must be the
// transcript hash after it (h_0 for the mental_hand record). A hand is the table's: its seats
// and shoe are the open record's, its players the table's first hand's, its mental_id used by
// no earlier hand. A partial log that starts inside a hand skips that hand's steps (and knows
// only the hands it holds).
#include <fmt/format.h>

#include "fairdeck/mental/group.hpp"
#include "fairdeck/service/mental.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/util/hex.hpp"

namespace fairdeck::service {

void log_verifier::add_mental_record(const record& r) {
  if (r.type == record_type::mental_hand) {
    if (!mental_.empty()) {
      log_check c = check_;
      finish_mental_hand(c);
      if (!c.ok) {
        check_ = c;
        return;
      }
      check_.mental_hands_verified = c.mental_hands_verified;
      mental_.clear();
    }
    if (hand_) return fail(r.seq, fmt::format("a mental hand while hand {} is in progress", hand_->hand));
    if (last_mental_hand_ && r.hand <= *last_mental_hand_)
      return fail(r.seq, fmt::format("mental hand {} after hand {}", r.hand, *last_mental_hand_));
    if (last_hand_ && r.hand <= *last_hand_)
      return fail(r.seq, fmt::format("hand {} after hand {}", r.hand, *last_hand_));
    try {
      (void)hand_of_record(r);
    } catch (const std::exception& e) {
      return fail(r.seq, fmt::format("mental hand: {}", e.what()));
    }
    // The hand is the table's: its seats and shoe are the open record's, its players those of
    // the table's first hand, and its id is new (the id is the only thing the header of two
    // hands of the table differs in, so a repeated id would replay an earlier transcript).
    if (seats_ && r.seats != *seats_)
      return fail(r.seq, fmt::format("mental hand {} has {} seats at a table of {}", r.hand, r.seats, *seats_));
    if (shoe_ && (r.decks != shoe_->first || r.jokers != shoe_->second))
      return fail(r.seq, fmt::format("mental hand {}'s shoe ({} decks, {} jokers) is not the table's ({} decks, {} "
                                     "jokers)",
                                     r.hand, r.decks, r.jokers, shoe_->first, shoe_->second));
    if (mental_players_ && r.players != mental_players_->second)
      return fail(r.seq, fmt::format("mental hand {}'s players are not the table's (those of hand {})", r.hand,
                                     mental_players_->first));
    if (const auto it = mental_ids_.find(r.mental_id); it != mental_ids_.end())
      return fail(r.seq, fmt::format("mental hand {} reuses the mental_id of hand {}", r.hand, it->second));
    if (!mental_players_) mental_players_.emplace(r.hand, r.players);
    mental_ids_.emplace(r.mental_id, r.hand);
    last_mental_hand_ = r.hand;
    ++check_.mental_hands;
    mental_.push_back(r);
    return;
  }
  ++check_.mental_steps;
  if (mental_.empty()) {
    if (first_seq_ > 0 && !last_mental_hand_) return;  // a partial log that starts inside a hand
    return fail(r.seq, "a mental step outside a mental hand");
  }
  if (r.hand != mental_.front().hand)
    return fail(r.seq, fmt::format("a step of mental hand {} inside hand {}", r.hand, mental_.front().hand));
  if (r.step != mental_.size() - 1)
    return fail(r.seq, fmt::format("step {} where step {} was expected", r.step, mental_.size() - 1));
  mental_.push_back(r);
}

void log_verifier::finish_mental_hand(log_check& check) const {
  if (mental_.empty() || !check.ok) return;
  mental::hand h;
  try {
    h = transcript_from_records(mental_);
  } catch (const std::exception& e) {
    check.ok = false;
    check.failed_seq = mental_.front().seq;
    check.reason = fmt::format("mental hand {}: {}", mental_.front().hand, e.what());
    return;
  }
  const auto v = mental::verify_hand(h);
  // Every record's head is h after it (the mental_hand record's h_0), up to where the check got.
  for (std::size_t i = 0; i < v.heads.size() && i < mental_.size(); ++i) {
    if (fairdeck::to_hex(std::span<const std::uint8_t>(v.heads[i])) == mental_[i].head) continue;
    check.ok = false;
    check.failed_seq = mental_[i].seq;
    check.reason = fmt::format("mental hand {}: head is not the transcript hash after {}", mental_.front().hand,
                               i == 0 ? std::string("the header") : fmt::format("step {}", i - 1));
    return;
  }
  if (!v.ok) {
    check.ok = false;
    check.failed_seq = v.failed_step ? mental_[*v.failed_step + 1].seq : mental_.front().seq;
    check.reason = fmt::format("mental hand {}: {}", mental_.front().hand, v.problem);
    return;
  }
  ++check.mental_hands_verified;
}

}  // namespace fairdeck::service
