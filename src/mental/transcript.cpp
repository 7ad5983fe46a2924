// The hand transcript: steps, opening, the whole-hand verifier (transcript.hpp). The JSON
// form is in transcript_json.cpp.
#include "fairdeck/mental/transcript.hpp"

#include <algorithm>
#include <limits>
#include <set>

#include <fmt/format.h>

#include "fairdeck/util/hex.hpp"

namespace fairdeck::mental {

namespace {

using digest = std::array<std::uint8_t, 64>;

constexpr std::string_view hand_label = "fairdeck/mental/v1/hand";
constexpr std::string_view step_label = "fairdeck/mental/v1/step";

digest header_hash(const hand& h) {
  fs_hash x(hand_label);
  x.add(hand_format).add(h.table).add(h.id).add_u32(h.spec.decks).add_u32(h.spec.jokers);
  x.add_u32(static_cast<std::uint32_t>(h.players.size()));
  for (const auto& p : h.players) x.add(p.pub).add(to_bytes(p.proof));
  return x.digest();
}

std::vector<std::uint8_t> step_context(const digest& head, std::size_t k, std::uint32_t player) {
  std::vector<std::uint8_t> c(head.begin(), head.end());
  for (const std::uint32_t v : {static_cast<std::uint32_t>(k), player})
    for (int i = 0; i < 4; ++i) c.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  return c;
}

std::vector<std::uint8_t> reveal_context(const std::vector<std::uint8_t>& ctx, std::uint32_t to, std::uint32_t pos) {
  std::vector<std::uint8_t> c = ctx;
  for (const std::uint32_t v : {to, pos})
    for (int i = 0; i < 4; ++i) c.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  return c;
}

digest next_head(const digest& head, const step& s) {
  fs_hash x(step_label);
  x.add(head);
  if (const auto* sh = std::get_if<shuffle_step>(&s)) {
    x.add("shuffle").add_u32(sh->player);
    for (const auto& e : sh->out) x.add(e.a).add(e.b);
    x.add(serialize(sh->proof));
    x.add(to_bytes(sh->key_proof));
  } else {
    const auto& r = std::get<reveal_step>(s);
    x.add("reveal").add_u32(r.player).add_u32(r.to).add_u32(static_cast<std::uint32_t>(r.positions.size()));
    for (std::size_t i = 0; i < r.positions.size() && i < r.shares.size(); ++i)
      x.add_u32(r.positions[i]).add(r.shares[i].share).add(to_bytes(r.shares[i].proof));
  }
  return x.digest();
}

std::string who(const step& s, std::size_t k) {
  if (const auto* sh = std::get_if<shuffle_step>(&s))
    return fmt::format("step {} (shuffle by player {})", k, sh->player);
  const auto& r = std::get<reveal_step>(s);
  return fmt::format("step {} (reveal by player {} to {})", k, r.player,
                     r.to == to_all ? std::string("all") : fmt::format("player {}", r.to));
}

// The transcript replayed: what every step needs, checked as it goes.
struct replay {
  digest head{};
  point joint{};
  deck current;
  // shares[p][player-1]: a partial decryption of position p published by that player.
  std::map<std::uint32_t, std::map<std::uint32_t, point>> shares_to_all;
  std::map<std::uint32_t, std::map<std::uint32_t, std::map<std::uint32_t, point>>> shares_to;  // [to][p][player]
};

std::string header_problem(const hand& h, bool verify_proofs = true) {
  if (h.players.size() < min_players || h.players.size() > max_players)
    return fmt::format("a hand has {}..{} players, not {}", min_players, max_players, h.players.size());
  if (h.spec.decks < 1 || h.spec.decks > max_hand_decks) return fmt::format("a hand uses 1..{} decks", max_hand_decks);
  if (h.spec.jokers > max_hand_jokers) return fmt::format("a hand uses at most {} jokers", max_hand_jokers);
  if (h.table.empty() || h.table.size() > 128) return "the table name must be 1..128 bytes";
  if (h.id.size() != 32 || h.id.find_first_not_of("0123456789abcdef") != std::string::npos)
    return "the hand id is not 32 lowercase hex digits";
  std::set<point> seen;
  for (std::size_t i = 0; i < h.players.size(); ++i) {
    if (!seen.insert(h.players[i].pub).second)
      return fmt::format("player {} repeats another player's public share", i + 1);
    if (verify_proofs && !verify_public_share(h.players[i]))
      return fmt::format("player {}'s proof of knowledge of its key share does not verify", i + 1);
  }
  return {};
}

// Replays and checks; fills v (ok, failed_step, problem, counts) and returns the state. The
// structure of every step is checked; the proofs of the header only when proofs_from is 0, and
// those of step k only when k >= proofs_from.
replay check(const hand& h, verification& v, std::size_t proofs_from = 0) {
  replay r;
  v = {};
  if (auto p = header_problem(h, proofs_from == 0); !p.empty()) {
    v.problem = "header: " + p;
    return r;
  }
  std::vector<point> pubs;
  for (const auto& p : h.players) pubs.push_back(p.pub);
  r.joint = joint_key(pubs);
  if (r.joint == identity()) {
    v.problem = "header: the joint key is the identity";
    return r;
  }
  r.head = header_hash(h);
  v.heads.push_back(r.head);
  const std::size_t n_cards = h.spec.size();
  r.current = initial_deck(n_cards, r.joint, r.head);
  const auto n = static_cast<std::uint32_t>(h.players.size());
  for (std::size_t k = 0; k < h.steps.size(); ++k) {
    const step& s = h.steps[k];
    const bool verify_proofs = k >= proofs_from;
    auto fail = [&](const std::string& what) {
      v.failed_step = k;
      v.problem = who(s, k) + ": " + what;
    };
    if (const auto* sh = std::get_if<shuffle_step>(&s)) {
      if (k >= n || sh->player != k + 1) {
        fail(k >= n ? "every player has shuffled already" : fmt::format("it is player {}'s turn to shuffle", k + 1));
        return r;
      }
      const auto ctx = step_context(r.head, k, sh->player);
      if (verify_proofs && !verify_key(h.players[sh->player - 1].pub, sh->key_proof, ctx)) {
        fail("the proof of knowledge of the player's key share does not verify");
        return r;
      }
      if (sh->out.size() != n_cards) {
        fail(fmt::format("the deck has {} cards, not {}", sh->out.size(), n_cards));
        return r;
      }
      if (verify_proofs && !verify_shuffle(r.current, sh->out, r.joint, sh->proof, ctx)) {
        fail("the shuffle proof does not verify");
        return r;
      }
      r.current = sh->out;
      ++v.shuffles;
    } else {
      const auto& rv = std::get<reveal_step>(s);
      if (k < n) {
        fail(fmt::format("player {} has not shuffled yet", k + 1));
        return r;
      }
      if (rv.player < 1 || rv.player > n) {
        fail("no such player");
        return r;
      }
      if (rv.to > n || rv.to == rv.player) {
        fail(rv.to == rv.player ? "a player never reveals to itself" : "no such recipient");
        return r;
      }
      if (rv.positions.empty() || rv.positions.size() != rv.shares.size()) {
        fail("the positions and the shares do not match");
        return r;
      }
      std::set<std::uint32_t> seen;
      const auto ctx = step_context(r.head, k, rv.player);
      for (std::size_t i = 0; i < rv.positions.size(); ++i) {
        const std::uint32_t p = rv.positions[i];
        if (p >= n_cards || !seen.insert(p).second) {
          fail(fmt::format("position {} is {}", p, p >= n_cards ? "not in the deck" : "repeated"));
          return r;
        }
        if (verify_proofs && !verify_partial(h.players[rv.player - 1].pub, r.current[p].b, rv.shares[i],
                                             reveal_context(ctx, rv.to, p))) {
          fail(fmt::format("the partial decryption of position {} does not verify", p));
          return r;
        }
        if (rv.to == to_all)
          r.shares_to_all[p][rv.player] = rv.shares[i].share;
        else
          r.shares_to[rv.to][p][rv.player] = rv.shares[i].share;
      }
      ++v.reveals;
    }
    r.head = next_head(r.head, s);
    v.heads.push_back(r.head);
  }
  for (const auto& [p, by] : r.shares_to_all) {
    if (by.size() != n) continue;
    std::vector<point> shares;
    for (const auto& [player, d] : by) shares.push_back(d);
    const auto card = combine(r.current[p], shares, n_cards);
    if (!card) {
      v.problem = fmt::format("position {} opened to all is not a card of the shoe", p);
      return r;
    }
    v.public_cards[p] = *card;
  }
  v.ok = true;
  v.head = r.head;
  return r;
}

replay checked(const hand& h, bool verify_first) {
  verification v;
  replay r = check(h, v, verify_first ? 0 : std::numeric_limits<std::size_t>::max());
  if (!v.ok) throw std::runtime_error("the transcript does not verify: " + v.problem);
  return r;
}

}  // namespace

public_share make_public_share(const key_pair& k) { return {k.pub, prove_key(k, as_bytes(keygen_context))}; }

bool verify_public_share(const public_share& s) noexcept {
  return verify_key(s.pub, s.proof, as_bytes(keygen_context));
}

hand new_hand(std::string table, std::vector<public_share> players, deck_spec spec) {
  hand h;
  h.table = std::move(table);
  h.players = std::move(players);
  h.spec = spec;
  std::array<std::uint8_t, 16> id;
  (void)scalar::random();  // initialises libsodium (an entropy_error here, not an abort)
  randombytes_buf(id.data(), id.size());
  h.id = fairdeck::to_hex(id);
  if (auto p = header_problem(h); !p.empty()) throw std::invalid_argument(p);
  return h;
}

verification verify_hand(const hand& h, std::size_t proofs_from) {
  verification v;
  (void)check(h, v, proofs_from);
  return v;
}

std::uint32_t seat_of(const hand& h, const point& pub) {
  for (std::size_t i = 0; i < h.players.size(); ++i)
    if (h.players[i].pub == pub) return static_cast<std::uint32_t>(i + 1);
  throw std::invalid_argument("this key is not one of the hand's players");
}

void add_shuffle(hand& h, const key_pair& k, bool verify_first) {
  const std::uint32_t seat = seat_of(h, k.pub);
  const replay r = checked(h, verify_first);
  const std::size_t step_no = h.steps.size();
  if (step_no >= h.players.size()) throw std::invalid_argument("every player has shuffled already");
  if (seat != step_no + 1) throw std::invalid_argument(fmt::format("it is player {}'s turn to shuffle", step_no + 1));
  const auto ctx = step_context(r.head, step_no, seat);
  shuffle_step s;
  s.player = seat;
  s.key_proof = prove_key(k, ctx);
  auto res = shuffle_and_prove(r.current, r.joint, ctx);
  s.out = std::move(res.out);
  s.proof = std::move(res.proof);
  h.steps.emplace_back(std::move(s));
}

void add_reveal(hand& h, const key_pair& k, std::span<const std::uint32_t> positions, std::uint32_t to,
                bool verify_first) {
  const std::uint32_t seat = seat_of(h, k.pub);
  const replay r = checked(h, verify_first);
  const std::size_t step_no = h.steps.size();
  if (step_no < h.players.size())
    throw std::invalid_argument(
        fmt::format("cards are revealed after every player has shuffled; player {} is next", step_no + 1));
  if (to > h.players.size()) throw std::invalid_argument(fmt::format("there is no player {}", to));
  if (to == seat) throw std::invalid_argument("a player never reveals its share to itself (open shows its own cards)");
  if (positions.empty()) throw std::invalid_argument("no positions to reveal");
  std::set<std::uint32_t> seen;
  for (const auto p : positions) {
    if (p >= r.current.size())
      throw std::invalid_argument(fmt::format("position {} is not in the deck (0..{})", p, r.current.size() - 1));
    if (!seen.insert(p).second) throw std::invalid_argument(fmt::format("position {} is repeated", p));
  }
  const auto ctx = step_context(r.head, step_no, seat);
  reveal_step s;
  s.player = seat;
  s.to = to;
  s.positions.assign(positions.begin(), positions.end());
  for (const auto p : positions) s.shares.push_back(partial_decrypt(k, r.current[p].b, reveal_context(ctx, to, p)));
  h.steps.emplace_back(std::move(s));
}

std::map<std::uint32_t, card_t> open_cards(const hand& h, const key_pair& k, bool verify_first) {
  const std::uint32_t seat = seat_of(h, k.pub);
  const replay r = checked(h, verify_first);
  const auto n = static_cast<std::uint32_t>(h.players.size());
  // Every share this player can use for a position: to all, or to this player.
  std::map<std::uint32_t, std::map<std::uint32_t, point>> usable = r.shares_to_all;
  if (auto it = r.shares_to.find(seat); it != r.shares_to.end())
    for (const auto& [p, by] : it->second)
      for (const auto& [player, d] : by) usable[p][player] = d;
  std::map<std::uint32_t, card_t> out;
  for (auto& [p, by] : usable) {
    by.erase(seat);
    if (by.size() != n - 1) continue;
    std::vector<point> shares;
    for (const auto& [player, d] : by) shares.push_back(d);
    point own;
    if (!mul(own, k.secret, r.current[p].b))
      throw std::runtime_error("position " + std::to_string(p) + " cannot be decrypted");
    shares.push_back(own);
    const auto card = combine(r.current[p], shares, h.spec.size());
    sodium_memzero(own.data(), own.size());  // this player's share of a card: never kept
    sodium_memzero(shares.back().data(), point_bytes);
    if (!card) throw std::runtime_error(fmt::format("position {} does not decrypt to a card of the shoe", p));
    out[p] = static_cast<card_t>(*card);
  }
  return out;
}

}  // namespace fairdeck::mental
