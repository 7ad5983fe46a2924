// Provably fair dealing: commit to a secret server seed, deal from HMAC-SHA256 of
// (client seed, nonce), reveal the seed afterwards so anyone can re-derive the deal.
//
// The exact algorithm is a published contract (docs/provably-fair.md, with test vectors):
//   commitment = hex(SHA-256(server seed))
//   stream     = HMAC-SHA256(server seed, "<client seed>:<nonce>:<k>") for k = 0, 1, 2, ...
//   words      = consecutive 4-byte big-endian integers of the stream
//   below m    = first word < m*floor(2^32/m), reduced mod m (exactly uniform)
//   deck       = Fisher-Yates from the top index down: swap(i, below(i + 1)) for i = n-1..1
// Changing anything here breaks every published deal: don't.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/cards/card.hpp"

namespace fairdeck::fair {

inline constexpr std::size_t seed_bytes = 32;    // server seed length
inline constexpr std::size_t digest_bytes = 32;  // SHA-256 and HMAC-SHA256 output
using digest = std::array<std::uint8_t, digest_bytes>;

// Bad text for a seed, commitment, nonce, client seed or claimed deck; what() names it.
class fair_input_error : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// 32 secret bytes. The bytes are wiped from memory when the object dies.
class server_seed {
 public:
  [[nodiscard]] static server_seed generate();  // OS entropy; throws entropy_error
  // Exactly 64 hex digits (either case; fairdeck writes lowercase). Throws fair_input_error.
  [[nodiscard]] static server_seed from_hex(std::string_view hex);
  explicit server_seed(const std::array<std::uint8_t, seed_bytes>& bytes) noexcept : bytes_(bytes) {}
  server_seed(const server_seed&) = default;
  server_seed& operator=(const server_seed&) = default;
  ~server_seed();

  [[nodiscard]] const std::array<std::uint8_t, seed_bytes>& bytes() const noexcept { return bytes_; }
  [[nodiscard]] std::string hex() const;  // 64 lowercase hex digits
  friend bool operator==(const server_seed&, const server_seed&) = default;

 private:
  std::array<std::uint8_t, seed_bytes> bytes_;
};

// Lowercase hex of SHA-256(seed bytes): publish this before dealing.
[[nodiscard]] std::string commitment(const server_seed& seed);

// ---- parsers for user text (each throws fair_input_error naming the field) ----
// 64 hex digits -> 32 bytes; `what` names the field in errors, as the caller calls it (a CLI
// passes its option, a JSON reader its key).
[[nodiscard]] digest parse_hex32(std::string_view hex, std::string_view what);
// Canonical decimal 0..2^64-1: digits only, no sign, no spaces, no leading zeros
// (the nonce is hashed as text, so "007" and "7" would silently be different deals).
[[nodiscard]] std::uint64_t parse_nonce(std::string_view text);
// Non-empty, valid UTF-8, no control characters (U+0000-U+001F, U+007F) and at most
// max_client_seed_bytes; hashed byte for byte (no Unicode normalisation).
inline constexpr std::size_t max_client_seed_bytes = 1024;
void validate_client_seed(std::string_view client_seed);
// The hand's client seed from the seats' client seeds, in seat order (docs/provably-fair.md,
// "Several players"): one seed is used unchanged; N >= 2 give the lowercase hex of
// SHA-256("fairdeck-seats-v1:" + for each seed: "<byte length>:<seed>,"). Each seat seed is
// validated as a client seed (fair_input_error names the seat, numbered from 1); an empty
// list is an error too.
[[nodiscard]] std::string combine_client_seeds(std::span<const std::string> seat_seeds);
// A deck as text ("Ah Kd ..." separated by spaces or commas) -> one face per position.
// Faces, not copies: in a multi-deck shoe "Ah" means any copy of the ace of hearts, and
// duplicates are allowed so a tampered deck is reported as a mismatch, not a parse error.
// An unknown token throws card_parse_error naming it.
[[nodiscard]] std::vector<card_t> parse_faces(std::string_view text, const deck_spec& spec);
// The face a card shows: copies of one face compare equal; jokers stay distinct.
[[nodiscard]] constexpr card_t face_of(card_t c, const deck_spec& spec) noexcept {
  return is_joker(c, spec) ? c : static_cast<card_t>(c % cards_per_deck);
}

// ---- the stream, per the spec ----
// The seed as the stream's HMAC-SHA256 key, its inner and outer pads hashed once: every block
// then costs two SHA-256 compressions instead of four, and a dealer that deals many times from
// one seed (a table's standing seed) pays the pads once, not per deal. Words and decks from it
// are exactly those of the seed. Holds key material: wiped by the destructor; not copyable.
class keyed_seed {
 public:
  explicit keyed_seed(const server_seed& seed);
  keyed_seed(const keyed_seed&) = delete;
  keyed_seed& operator=(const keyed_seed&) = delete;
  ~keyed_seed();

 private:
  friend class word_stream;
  alignas(64) std::array<unsigned char, 384> state_{};  // nettle's hmac_sha256_ctx after set_key (util/sha256.hpp: why Nettle)
};

// Words of HMAC-SHA256(seed, "<client_seed>:<nonce>:<k>"), k = 0, 1, 2, ..., 8 per block.
class word_stream {
 public:
  word_stream(const server_seed& seed, std::string_view client_seed, std::uint64_t nonce);
  // From a keyed seed, which must outlive the stream.
  word_stream(const keyed_seed& key, std::string_view client_seed, std::uint64_t nonce);
  word_stream(const word_stream&) = delete;
  word_stream& operator=(const word_stream&) = delete;
  ~word_stream();

  [[nodiscard]] std::uint32_t next_word();
  [[nodiscard]] std::uint64_t words_used() const noexcept { return words_used_; }
  // The HMAC message for block k: the one string an independent verifier must match.
  [[nodiscard]] static std::string block_message(std::string_view client_seed, std::uint64_t nonce, std::uint64_t k);

 private:
  void next_block();
  std::optional<keyed_seed> own_;  // keyed here when built from a seed
  const keyed_seed* key_;
  std::string prefix_;  // "<client_seed>:<nonce>:"
  std::uint64_t block_index_ = 0;
  digest block_{};
  std::size_t pos_ = digest_bytes;  // byte offset of the next word in block_
  std::uint64_t words_used_ = 0;
};

// Exactly uniform integer in [0, m), 1 <= m <= 2^32, by the spec's rejection rule. Works
// with any source that has `std::uint32_t next_word()`. Throws std::invalid_argument on m.
void check_bound(std::uint64_t m);
template <class WordSource>
[[nodiscard]] std::uint32_t uniform_below(WordSource& words, std::uint64_t m) {
  check_bound(m);
  const std::uint64_t limit = m * ((std::uint64_t{1} << 32) / m);  // largest multiple of m <= 2^32
  for (;;) {
    const std::uint64_t w = words.next_word();
    if (w < limit) return static_cast<std::uint32_t>(w % m);
  }
}

// The deck for (seed, client seed, nonce): position 0 is dealt first. Throws
// fair_input_error for an invalid client seed, std::invalid_argument for a bad spec.
[[nodiscard]] std::vector<card_t> deal_deck(const server_seed& seed, std::string_view client_seed, std::uint64_t nonce,
                                            const deck_spec& spec);
// The same deck from the keyed seed (keyed_seed above: the pads are not hashed again).
[[nodiscard]] std::vector<card_t> deal_deck(const keyed_seed& key, std::string_view client_seed, std::uint64_t nonce,
                                            const deck_spec& spec);

// Result of checking a published deal. Every check runs, so all problems are reported.
struct verification {
  bool commitment_matches = false;
  std::string expected_commitment;  // SHA-256 of the revealed seed
  std::size_t expected_size = 0;    // cards in the shoe
  std::size_t claimed_size = 0;
  // First position (0 = dealt first) whose face differs, within the shorter deck.
  std::optional<std::size_t> first_difference;
  card_t expected_card = 0;  // at first_difference
  card_t claimed_card = 0;
  [[nodiscard]] bool size_matches() const noexcept { return expected_size == claimed_size; }
  [[nodiscard]] bool ok() const noexcept { return commitment_matches && size_matches() && !first_difference; }
  // One line per problem ("commitment does not match ..."), or "verified".
  [[nodiscard]] std::vector<std::string> describe(const deck_spec& spec) const;
};

// `claimed` holds cards or faces (copies are ignored); `published_commitment` is compared
// case-insensitively after hex parsing (throws fair_input_error if it is not 64 hex digits).
[[nodiscard]] verification verify(const server_seed& seed, std::string_view published_commitment,
                                  std::string_view client_seed, std::uint64_t nonce, std::span<const card_t> claimed,
                                  const deck_spec& spec);

// Deals published under one seed must carry consecutive nonces, none skipped and none
// repeated (docs/provably-fair.md, "Nonce grinding"): a skipped nonce is a deal the operator
// kept to itself. Returns one line naming the first gap or repeat (deals numbered from 1 in
// the order given), or nothing. `first`: the nonce the sequence must start at, when known.
[[nodiscard]] std::optional<std::string> nonce_sequence_problem(std::span<const std::uint64_t> nonces,
                                                                std::optional<std::uint64_t> first = {});

// ---- hands with seat commitments (docs/provably-fair.md, "Hands no one can grind") ----
// The player's side of a hand: make a fresh secret seat seed, commit to it, and after the
// deal check it. Guarantee (argued in provably-fair.md): if this seat's seed is fresh and
// secret and is revealed only once every seat's commitment is in, no other party -- the
// operator holding the server seed included -- can choose or predict the deal; a
// commitment binds its seat to one seed (SHA-256 is collision and preimage resistant).

// A fresh seat seed: 64 lowercase hex digits of 32 bytes of OS entropy (throws entropy_error).
[[nodiscard]] std::string fresh_seat_seed();
// hex(SHA-256(seed bytes)), lowercase: what a seat commits before any seed is revealed.
// Throws fair_input_error when `client_seed` is not a valid client seed.
[[nodiscard]] std::string seat_commitment(std::string_view client_seed);
// Does `client_seed` hash to `commitment` (64 hex digits, either case)? false for an invalid
// seed or a commitment that is not 64 hex digits.
[[nodiscard]] bool seed_matches_commitment(std::string_view client_seed, std::string_view commitment) noexcept;

// A dealt hand checked from one seat's side, once its server seed is revealed. Every check
// runs, so all problems are reported.
struct hand_check {
  bool seat_in_range = false;          // 1 <= seat <= seat_seeds.size()
  bool my_seed_at_my_seat = false;     // seat_seeds[seat - 1] == my seed
  bool my_commitment_matches = false;  // SHA-256(my seed) == the commitment my seat made (when given)
  bool client_seed_matches = false;    // combine_client_seeds(seat_seeds) == the hand's client seed
  verification deck;                   // server seed vs its commitment; cards vs the deal
  [[nodiscard]] bool ok() const noexcept {
    return seat_in_range && my_seed_at_my_seat && my_commitment_matches && client_seed_matches && deck.ok();
  }
  // One line per problem, or "verified".
  [[nodiscard]] std::vector<std::string> describe(const deck_spec& spec) const;
};
struct dealt_hand {
  std::vector<std::string> seat_seeds;  // the revealed seeds, in seat order (from the deal answer)
  std::string client_seed;              // the hand's client seed (combined)
  std::uint64_t nonce = 0;              // the hand's nonce
  std::string server_commitment;        // the commitment in force when the hand was opened
  std::vector<card_t> cards;            // the shoe as dealt
};
// `my_commitment`: the commitment the seat made (empty: take SHA-256 of my seed, i.e. only
// check that my seed was used). Throws fair_input_error for a commitment that is not hex.
[[nodiscard]] hand_check check_hand(const dealt_hand& hand, unsigned seat, std::string_view my_seed,
                                    std::string_view my_commitment, const server_seed& revealed,
                                    const deck_spec& spec);

// ---- the server seed file: 64 lowercase hex digits and a newline ----
// Creates `path` with mode 0600 (O_CREAT|O_EXCL: never overwrites, never follows a
// symlink) and writes `seed`. Throws std::runtime_error naming the path; on failure
// no partial file is left behind. The file and then its directory are fsync()ed before it
// returns, so the seed of a published commitment survives a crash.
void save_seed_file(const std::filesystem::path& path, const server_seed& seed);
// save_seed_file with a fresh seed from OS entropy, which it returns.
[[nodiscard]] server_seed create_seed_file(const std::filesystem::path& path);
// Reads a seed file (trailing newline/whitespace allowed). Throws std::runtime_error when
// unreadable, fair_input_error when the content is not a seed.
[[nodiscard]] server_seed read_seed_file(const std::filesystem::path& path);

}  // namespace fairdeck::fair
