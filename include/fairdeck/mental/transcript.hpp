// A mental-poker hand as one transcript: the players' public shares, then each player's
// shuffle (with its proofs), then partial decryptions (with theirs); the steps that build it,
// what a player can open, and the whole-hand verifier. docs/mental-poker.md §5–§7.
//
// Guarantees:
//  * Every proof of step k is bound by Fiat–Shamir to ctx_k = h_k ‖ u32le(k) ‖ u32le(player),
//    h_k the hash chain over the header and every earlier step: a step copied from another
//    table, hand, seat or place in the transcript does not verify.
//  * verify_hand checks everything (key proofs, the starting deck, every shuffle and partial
//    decryption, the order of the steps) and names the first step that fails; verify_text also
//    refuses any text that is not byte for byte the canonical serialisation to_json writes.
//  * add_shuffle / add_reveal first verify the transcript they extend (a player never builds
//    on a cheated deck) and refuse steps out of turn; nothing of a secret key reaches an error
//    message or the transcript.
// Not checked: poker rules (which positions are opened to whom); see the spec §6.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "fairdeck/cards/card.hpp"
#include "fairdeck/mental/decrypt.hpp"
#include "fairdeck/mental/keys.hpp"
#include "fairdeck/mental/shuffle_proof.hpp"

namespace fairdeck::mental {

inline constexpr std::string_view hand_format = "fairdeck-mental/v1";
inline constexpr std::string_view key_format = "fairdeck-mental-key/v1";
inline constexpr std::string_view pub_format = "fairdeck-mental-pub/v1";
inline constexpr unsigned min_players = 2, max_players = 16;
inline constexpr unsigned max_hand_decks = 8, max_hand_jokers = 8;
inline constexpr std::uint32_t to_all = 0;  // a reveal's recipient: everyone

// Text that is not a transcript, key or public share of this format; what() names the place.
class format_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

struct public_share {
  point pub;
  sigma_proof proof;  // Schnorr, context "keygen"
};
[[nodiscard]] public_share make_public_share(const key_pair& k);
[[nodiscard]] bool verify_public_share(const public_share& s) noexcept;
[[nodiscard]] std::string to_json(const public_share& s);  // one line
[[nodiscard]] public_share parse_public_share(std::string_view text);

// The key file's text; it holds the secret: wipe it (sodium_memzero) when written.
[[nodiscard]] std::string key_file_text(const key_pair& k);
// Parses a key file; checks the public part against the secret. The text is not wiped here.
[[nodiscard]] key_pair parse_key_file(std::string_view text);

struct shuffle_step {
  std::uint32_t player = 0;  // 1-based
  deck out;
  shuffle_proof proof;
  sigma_proof key_proof;  // Schnorr with ctx_k
};

struct reveal_step {
  std::uint32_t player = 0;   // 1-based, who decrypts
  std::uint32_t to = to_all;  // 1-based recipient, or to_all
  std::vector<std::uint32_t> positions;
  std::vector<partial_decryption> shares;  // one per position
};

using step = std::variant<shuffle_step, reveal_step>;

struct hand {
  std::string table;
  std::string id;  // 32 lowercase hex digits
  deck_spec spec;
  std::vector<public_share> players;
  std::vector<step> steps;
};

// Starts a hand: checks the players' proofs, refuses a repeated share, a bad player count or
// shoe; the hand id is 16 fresh random bytes.
[[nodiscard]] hand new_hand(std::string table, std::vector<public_share> players, deck_spec spec);

// Canonical serialisation (keys sorted, one value per line) and its parser. parse_hand checks
// types, sizes and encodings (format_error naming the place), not the proofs.
[[nodiscard]] std::string to_json(const hand& h);
[[nodiscard]] hand parse_hand(std::string_view text);

struct verification {
  bool ok = false;
  std::optional<std::size_t> failed_step;  // index into steps; none: the header
  std::string problem;                     // names the step and what fails
  std::array<std::uint8_t, 64> head{};     // h after the last step (when ok)
  // h after 0, 1, 2, … steps (heads[0] = h_0, the header's), as far as the check got: every
  // step when ok, else up to the failed step (its own h excluded)
  std::vector<std::array<std::uint8_t, 64>> heads;
  std::size_t shuffles = 0, reveals = 0;
  std::map<std::uint32_t, std::uint32_t> public_cards;  // position -> card, opened to all
};
// proofs_from > 0 checks the structure of every step (turns, players, positions, deck sizes,
// the chained head) but the proofs only of steps proofs_from and later (the header's only when
// it is 0): for a caller that verified the first proofs_from steps when they came, like
// fairdeckd accepting one step at a time (a step then costs its own proofs, not the hand's).
// An offline verifier passes 0, the default.
[[nodiscard]] verification verify_hand(const hand& h, std::size_t proofs_from = 0);

struct text_verification {
  bool readable = false;  // false: not JSON or not a fairdeck-mental/v1 transcript at all
  verification v;
};
[[nodiscard]] text_verification verify_text(std::string_view text);

// 1-based seat of a key in the hand; throws std::invalid_argument when it is not a player's.
[[nodiscard]] std::uint32_t seat_of(const hand& h, const point& pub);

// The next steps. Throw std::invalid_argument for a step out of turn or a bad argument, and
// std::runtime_error (naming the step) when the transcript so far does not verify.
// verify_first = false skips the proofs (not the structure) of the transcript so far: only for
// a caller that has verified it already (a benchmark, a client verifying step by step).
void add_shuffle(hand& h, const key_pair& k, bool verify_first = true);
void add_reveal(hand& h, const key_pair& k, std::span<const std::uint32_t> positions, std::uint32_t to,
                bool verify_first = true);

// The cards the key's owner can see now, by deck position (its own share applied locally).
// Verifies the transcript first (std::runtime_error when it fails).
[[nodiscard]] std::map<std::uint32_t, card_t> open_cards(const hand& h, const key_pair& k, bool verify_first = true);

}  // namespace fairdeck::mental
