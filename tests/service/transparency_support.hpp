// A table's log built with the library (service::records + a tlog signer), with the tools of an
// operator who wants to cheat: no server needed. For the transparency tests (issue #29).
#pragma once

#include <array>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/records.hpp"
#include "fairdeck/service/transparency.hpp"
#include "fairdeck/tlog/note.hpp"

namespace fairdeck::service::testing {

inline std::string server_seed_hex(unsigned k) { return fmt::format("{:064x}", k + 1); }
inline fair::server_seed server_seed_of(unsigned k) { return fair::server_seed::from_hex(server_seed_hex(k)); }

inline tlog::note_signer test_signer(std::string name, std::uint8_t k,
                                     tlog::key_type type = tlog::key_type::ed25519) {
  std::array<std::uint8_t, 32> seed{};
  seed.fill(k);
  return tlog::note_signer(std::move(name), type, seed);
}

// The log key of the table simulations in these tests (one signer, made once).
inline const tlog::note_signer& log_key() {
  static const tlog::note_signer k = test_signer("fairdeckd.test", 7);
  return k;
}

struct table_sim {
  std::string id = "demo";
  std::vector<record> log;
  unsigned seed_index = 0;
  std::uint64_t nonce = 0;
  std::uint64_t hands = 0;  // hands dealt so far

  static std::string time_of(std::uint64_t seq) {
    return fmt::format("2026-11-23T{:02}:{:02}:{:02}.000Z", 12 + seq / 3600 % 12, seq / 60 % 60, seq % 60);
  }
  [[nodiscard]] std::string head() const { return log.empty() ? std::string(zero_hash) : log.back().hash; }

  void open(unsigned seats, unsigned decks = 1, unsigned jokers = 0) {
    record r;
    r.seq = 0;
    r.type = record_type::open;
    r.table = id;
    r.time = time_of(0);
    r.seats = seats;
    r.decks = decks;
    r.jokers = jokers;
    r.commitment = fair::commitment(server_seed_of(seed_index));
    seal(r, zero_hash);
    log.push_back(r);
  }
  // A deal as fairdeckd makes it (the shoe of the open record unless `shoe` says otherwise).
  const record& deal(std::vector<std::string> seat_seeds, std::optional<deck_spec> shoe = {}) {
    record d;
    d.seq = log.size();
    d.type = record_type::deal;
    d.table = id;
    d.time = time_of(d.seq);
    d.nonce = nonce++;
    d.commitment = fair::commitment(server_seed_of(seed_index));
    d.seat_seeds = std::move(seat_seeds);
    d.client_seed = fair::combine_client_seeds(d.seat_seeds);
    const deck_spec spec = shoe.value_or(deck_spec{log.front().decks, log.front().jokers});
    d.decks = spec.decks;
    d.jokers = spec.jokers;
    d.cards = format_cards(fair::deal_deck(server_seed_of(seed_index), d.client_seed, d.nonce, spec), spec);
    seal(d, head());
    log.push_back(d);
    return log.back();
  }
  // A hand as fairdeckd makes it: hand_open, a commit and a reveal per seat, then its deal (the
  // shoe of the open record unless `shoe` says otherwise). Returns the hand_deal record.
  const record& hand(std::vector<std::string> seat_seeds, std::optional<deck_spec> shoe = {}) {
    const std::uint64_t number = ++hands;
    const auto add = [&](record r) {
      r.seq = log.size();
      r.table = id;
      r.time = time_of(r.seq);
      r.hand = number;
      seal(r, head());
      log.push_back(r);
    };
    record o;
    o.type = record_type::hand_open;
    o.nonce = nonce;
    o.commitment = fair::commitment(server_seed_of(seed_index));
    o.seats = static_cast<unsigned>(seat_seeds.size());
    add(o);
    for (unsigned i = 0; i < seat_seeds.size(); ++i) {
      record c;
      c.type = record_type::commit;
      c.seat = i + 1;
      c.seat_commitment = fair::seat_commitment(seat_seeds[i]);
      add(c);
    }
    for (unsigned i = 0; i < seat_seeds.size(); ++i) {
      record r;
      r.type = record_type::reveal;
      r.seat = i + 1;
      r.client_seed = seat_seeds[i];
      add(r);
    }
    record d;
    d.type = record_type::hand_deal;
    d.nonce = nonce++;
    d.commitment = fair::commitment(server_seed_of(seed_index));
    d.seat_seeds = std::move(seat_seeds);
    d.client_seed = fair::combine_client_seeds(d.seat_seeds);
    const deck_spec spec = shoe.value_or(deck_spec{log.front().decks, log.front().jokers});
    d.decks = spec.decks;
    d.jokers = spec.jokers;
    d.cards = format_cards(fair::deal_deck(server_seed_of(seed_index), d.client_seed, d.nonce, spec), spec);
    add(d);
    return log.back();
  }
  void rotate() {
    record r;
    r.seq = log.size();
    r.type = record_type::rotate;
    r.table = id;
    r.time = time_of(r.seq);
    r.revealed_seed = server_seed_hex(seed_index);
    r.commitment = fair::commitment(server_seed_of(seed_index));
    r.next_commitment = fair::commitment(server_seed_of(seed_index + 1));
    ++seed_index;
    seal(r, head());
    log.push_back(r);
  }
  // The cheat's tool: recompute every hash from record i on, so the chain holds again.
  void reseal_from(std::size_t i) {
    for (; i < log.size(); ++i) seal(log[i], i == 0 ? std::string(zero_hash) : log[i - 1].hash);
  }
  // Re-deal record i from the seed that dealt it (known once revealed) with other seat seeds
  // (and, given `shoe`, another shoe).
  void redeal(std::size_t i, std::vector<std::string> seat_seeds, unsigned seed_k, std::optional<deck_spec> shoe = {}) {
    record& d = log[i];
    d.seat_seeds = std::move(seat_seeds);
    d.client_seed = fair::combine_client_seeds(d.seat_seeds);
    if (shoe) d.decks = shoe->decks, d.jokers = shoe->jokers;
    const deck_spec spec{d.decks, d.jokers};
    d.cards = format_cards(fair::deal_deck(server_seed_of(seed_k), d.client_seed, d.nonce, spec), spec);
    reseal_from(i);
  }

  [[nodiscard]] record_tree tree() const {
    record_tree t;
    for (const auto& r : log) t.append(tlog::leaf_hash(*tlog::hash_from_hex(r.hash)));
    return t;
  }
  // The signed checkpoint of the first `size` records.
  [[nodiscard]] std::string checkpoint(const tlog::note_signer& key, std::uint64_t size) const {
    const tlog::checkpoint c{key.verifier().name() + "/" + id, size, tree().root(size), {}};
    return tlog::sign_note(tlog::note{tlog::checkpoint_text(c), {}}, key);
  }
  // The deal answer of record seq with its receipt in the tree of the first `size` records.
  [[nodiscard]] nlohmann::json receipt(const tlog::note_signer& key, std::uint64_t seq, std::uint64_t size) const {
    nlohmann::json j = to_json(log.at(seq));
    j.erase("type");
    j["mode"] = log.at(seq).type == record_type::hand_deal ? "hand" : "standing";  // as deal_json answers
    nlohmann::json inclusion = nlohmann::json::array();
    for (const auto& h : tree().inclusion_proof(seq, size)) inclusion.push_back(tlog::to_hex(h));
    j["receipt"] = {{"seq", seq}, {"hash", log.at(seq).hash}, {"checkpoint", checkpoint(key, size)}, {"inclusion", inclusion}};
    return j;
  }
  [[nodiscard]] nlohmann::json log_json(std::size_t from = 0) const {
    nlohmann::json records = nlohmann::json::array();
    for (std::size_t i = from; i < log.size(); ++i) records.push_back(to_json(log[i]));
    return {{"table", id}, {"records", records}};
  }
};

// A table with two seats: deals 0..4 under seed 0 (records 1..5), a rotation revealing it
// (record 6), deals 5..7 under seed 1 (records 7..9): 10 records.
inline table_sim ten_record_table() {
  table_sim t;
  t.open(2);
  for (int i = 0; i < 5; ++i) t.deal({fmt::format("alice{}", i), fmt::format("bob{}", i)});
  t.rotate();
  for (int i = 5; i < 8; ++i) t.deal({fmt::format("alice{}", i), fmt::format("bob{}", i)});
  return t;
}

}  // namespace fairdeck::service::testing
