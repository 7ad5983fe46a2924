// The provably fair deal itself: commitment, HMAC word stream, deck and verification.
#include "fairdeck/security/provably_fair.hpp"

#include <charconv>
#include <cstring>
#include <iterator>
#include <utility>

#include <fmt/format.h>
#include <nettle/hmac.h>

#include "fairdeck/random/chacha20.hpp"  // detail::secure_wipe
#include "fairdeck/random/os_entropy.hpp"
#include "fairdeck/util/hex.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::fair {
// SHA-256, HMAC-SHA256 and hex need no sodium_init() (which aborts without OS entropy), so
// verifying a deal works even on a machine that has none.

// ---- server seed ----

server_seed server_seed::generate() {
  std::array<std::uint8_t, seed_bytes> bytes{};
  os_entropy(std::as_writable_bytes(std::span(bytes)));
  server_seed s(bytes);
  detail::secure_wipe(bytes.data(), bytes.size());
  return s;
}

server_seed server_seed::from_hex(std::string_view hex) {
  digest bytes = parse_hex32(hex, "server seed");
  server_seed s(bytes);
  detail::secure_wipe(bytes.data(), bytes.size());
  return s;
}

server_seed::~server_seed() { detail::secure_wipe(bytes_.data(), bytes_.size()); }

std::string server_seed::hex() const { return to_hex(bytes_); }

std::string commitment(const server_seed& seed) {
  return sha256_hex(seed.bytes());
}

std::string combine_client_seeds(std::span<const std::string> seat_seeds) {
  if (seat_seeds.empty()) throw fair_input_error("no client seed: every seat needs one");
  for (std::size_t i = 0; i < seat_seeds.size(); ++i) {
    try {
      validate_client_seed(seat_seeds[i]);
    } catch (const fair_input_error& e) {
      throw fair_input_error(fmt::format("seat {}: {}", i + 1, e.what()));
    }
  }
  if (seat_seeds.size() == 1) return seat_seeds.front();
  std::string message = "fairdeck-seats-v1:";
  for (const auto& s : seat_seeds) message += fmt::format("{}:{},", s.size(), s);
  return sha256_hex(message);
}

// ---- hands with seat commitments ----

std::string fresh_seat_seed() {
  std::array<std::uint8_t, seed_bytes> bytes{};
  os_entropy(std::as_writable_bytes(std::span(bytes)));
  std::string out = to_hex(bytes);
  detail::secure_wipe(bytes.data(), bytes.size());
  return out;
}

std::string seat_commitment(std::string_view client_seed) {
  validate_client_seed(client_seed);
  return sha256_hex(client_seed);
}

bool seed_matches_commitment(std::string_view client_seed, std::string_view commitment) noexcept {
  try {
    return seat_commitment(client_seed) == to_hex(parse_hex32(commitment, "commitment"));
  } catch (...) {
    return false;
  }
}

hand_check check_hand(const dealt_hand& hand, unsigned seat, std::string_view my_seed, std::string_view my_commitment,
                      const server_seed& revealed, const deck_spec& spec) {
  hand_check c;
  c.seat_in_range = seat >= 1 && seat <= hand.seat_seeds.size();
  c.my_seed_at_my_seat = c.seat_in_range && hand.seat_seeds[seat - 1] == my_seed;
  c.my_commitment_matches = my_commitment.empty() || seed_matches_commitment(my_seed, my_commitment);
  if (!my_commitment.empty()) (void)parse_hex32(my_commitment, "seat commitment");  // throws on bad text
  try {
    c.client_seed_matches = combine_client_seeds(hand.seat_seeds) == hand.client_seed;
  } catch (const fair_input_error&) {
    c.client_seed_matches = false;
  }
  c.deck = verify(revealed, hand.server_commitment, hand.client_seed, hand.nonce, hand.cards, spec);
  return c;
}

std::vector<std::string> hand_check::describe(const deck_spec& spec) const {
  if (ok()) return {"verified"};
  std::vector<std::string> lines;
  if (!seat_in_range) lines.emplace_back("the seat is not one of the hand's seats");
  else if (!my_seed_at_my_seat) lines.emplace_back("the seed dealt at this seat is not my seed");
  if (!my_commitment_matches) lines.emplace_back("my seed does not hash to the commitment my seat made");
  if (!client_seed_matches) lines.emplace_back("the hand's client seed is not the combination of the seat seeds");
  if (!deck.ok())
    for (auto& l : deck.describe(spec)) lines.push_back(std::move(l));
  return lines;
}

// ---- word stream ----

keyed_seed::keyed_seed(const server_seed& seed) {
  static_assert(sizeof(hmac_sha256_ctx) <= sizeof(state_) && alignof(hmac_sha256_ctx) <= 64);  // state_ is alignas(64)
  const auto& key = seed.bytes();  // the whole HMAC key (32 bytes: shorter than a block, used as is)
  hmac_sha256_set_key(reinterpret_cast<hmac_sha256_ctx*>(state_.data()), key.size(), key.data());
}

keyed_seed::~keyed_seed() { detail::secure_wipe(state_.data(), state_.size()); }

word_stream::word_stream(const server_seed& seed, std::string_view client_seed, std::uint64_t nonce)
    : key_(nullptr), prefix_(fmt::format("{}:{}:", client_seed, nonce)) {
  static_assert(SHA256_DIGEST_SIZE == digest_bytes);
  validate_client_seed(client_seed);
  key_ = &own_.emplace(seed);  // after the check: a refused client seed makes no key material
}

word_stream::word_stream(const keyed_seed& key, std::string_view client_seed, std::uint64_t nonce)
    : key_(&key), prefix_(fmt::format("{}:{}:", client_seed, nonce)) {
  validate_client_seed(client_seed);
}

word_stream::~word_stream() { detail::secure_wipe(block_.data(), block_.size()); }

std::string word_stream::block_message(std::string_view client_seed, std::uint64_t nonce, std::uint64_t k) {
  return fmt::format("{}:{}:{}", client_seed, nonce, k);
}

void word_stream::next_block() {
  // HMAC(seed, prefix || decimal k): the keyed state is copied, so the pads are hashed once.
  char index[24];
  const auto [end, ec] = std::to_chars(std::begin(index), std::end(index), block_index_++);
  (void)ec;  // 24 characters hold any uint64
  hmac_sha256_ctx st;
  std::memcpy(&st, key_->state_.data(), sizeof st);
  hmac_sha256_update(&st, prefix_.size(), reinterpret_cast<const std::uint8_t*>(prefix_.data()));
  hmac_sha256_update(&st, static_cast<std::size_t>(end - index), reinterpret_cast<const std::uint8_t*>(index));
  hmac_sha256_digest(&st, block_.size(), block_.data());
  detail::secure_wipe(&st, sizeof st);
  pos_ = 0;
}

std::uint32_t word_stream::next_word() {
  if (pos_ == block_.size()) next_block();
  const std::uint32_t w = (std::uint32_t{block_[pos_]} << 24) | (std::uint32_t{block_[pos_ + 1]} << 16) |
                          (std::uint32_t{block_[pos_ + 2]} << 8) | std::uint32_t{block_[pos_ + 3]};  // big-endian
  pos_ += 4;
  ++words_used_;
  return w;
}

void check_bound(std::uint64_t m) {
  if (m < 1 || m > (std::uint64_t{1} << 32))
    throw std::invalid_argument(fmt::format("uniform_below needs 1 <= m <= 2^32, got {}", m));
}

// ---- deck ----

std::vector<card_t> deal_deck(const server_seed& seed, std::string_view client_seed, std::uint64_t nonce,
                              const deck_spec& spec) {
  const keyed_seed key(seed);  // wiped however the deal ends
  return deal_deck(key, client_seed, nonce, spec);
}

std::vector<card_t> deal_deck(const keyed_seed& key, std::string_view client_seed, std::uint64_t nonce,
                              const deck_spec& spec) {
  auto deck = make_deck(spec);  // validates the spec
  word_stream words(key, client_seed, nonce);
  // Durstenfeld's Fisher-Yates (CACM 7(7), 1964), from the last position down.
  for (std::size_t i = deck.size() - 1; i >= 1; --i) {
    const std::size_t j = uniform_below(words, i + 1);
    std::swap(deck[i], deck[j]);
  }
  return deck;
}

// ---- verification ----

verification verify(const server_seed& seed, std::string_view published_commitment, std::string_view client_seed,
                    std::uint64_t nonce, std::span<const card_t> claimed, const deck_spec& spec) {
  const digest published = parse_hex32(published_commitment, "commitment");
  verification v;
  v.expected_commitment = commitment(seed);
  v.commitment_matches = to_hex(published) == v.expected_commitment;
  const auto deck = deal_deck(seed, client_seed, nonce, spec);
  v.expected_size = deck.size();
  v.claimed_size = claimed.size();
  const std::size_t common = std::min(deck.size(), claimed.size());
  for (std::size_t i = 0; i < common; ++i) {
    if (face_of(deck[i], spec) != face_of(claimed[i], spec)) {
      v.first_difference = i;
      v.expected_card = deck[i];
      v.claimed_card = claimed[i];
      break;
    }
  }
  return v;
}

std::vector<std::string> verification::describe(const deck_spec& spec) const {
  if (ok()) return {"verified"};
  std::vector<std::string> lines;
  if (!commitment_matches)
    lines.push_back(fmt::format("commitment does not match: SHA-256(server seed) is {}", expected_commitment));
  if (!size_matches())
    lines.push_back(fmt::format("deck size does not match: the deck has {} cards, the shoe ({} deck{}, {} joker{}) has {}",
                                claimed_size, spec.decks, spec.decks == 1 ? "" : "s", spec.jokers,
                                spec.jokers == 1 ? "" : "s", expected_size));
  if (first_difference)
    lines.push_back(fmt::format("deck differs at position {} (card {} dealt): expected {}, got {}", *first_difference,
                                *first_difference + 1, format_card(expected_card, spec),
                                format_card(claimed_card, spec)));
  return lines;
}

std::optional<std::string> nonce_sequence_problem(std::span<const std::uint64_t> nonces,
                                                  std::optional<std::uint64_t> first) {
  if (nonces.empty()) return "no deals to check";
  if (first && nonces[0] != *first)
    return fmt::format("deal 1 has nonce {}, but the sequence must start at nonce {}{}", nonces[0], *first,
                       nonces[0] > *first ? fmt::format(": nonces {}..{} are missing", *first, nonces[0] - 1) : "");
  for (std::size_t i = 1; i < nonces.size(); ++i) {
    const std::uint64_t prev = nonces[i - 1], cur = nonces[i];
    if (prev != ~std::uint64_t{0} && cur == prev + 1) continue;
    if (cur == prev) return fmt::format("nonce {} repeats (deals {} and {})", cur, i, i + 1);
    if (cur > prev)
      return fmt::format("nonce gap after deal {}: nonce {} follows nonce {}, so {} missing", i, cur, prev,
                         cur - prev == 2 ? fmt::format("nonce {} is", prev + 1)
                                         : fmt::format("nonces {}..{} are", prev + 1, cur - 1));
    return fmt::format("nonces go backwards at deal {}: nonce {} follows nonce {}", i + 1, cur, prev);
  }
  return std::nullopt;
}

}  // namespace fairdeck::fair
