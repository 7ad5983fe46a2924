// Signed notes, checkpoints and cosignatures in the C2SP formats, so that existing
// transparency-log tooling (Go's golang.org/x/mod/sumdb/note, Sigsum, witnesses of the
// witness network) reads what fairdeckd publishes:
//   - signed-note (c2sp.org/signed-note): a UTF-8 text ending in "\n", a blank line, then
//     signature lines "— <name> base64(key ID ‖ signature)". Ed25519 keys (type 0x01): key ID =
//     SHA-256(name ‖ "\n" ‖ 0x01 ‖ public key)[:4], the signature is over the text. Verifier
//     key text "<name>+<key ID hex>+base64(0x01 ‖ public key)"; signer key text
//     "PRIVATE+KEY+<name>+<key ID hex>+base64(0x01 ‖ 32-byte seed)" (as Go's note package).
//   - tlog-checkpoint (c2sp.org/tlog-checkpoint): the note text is the origin line, the tree
//     size in decimal, the base64 root hash, then optional extension lines.
//   - tlog-cosignature (c2sp.org/tlog-cosignature), cosignature/v1: Ed25519 key type 0x04; the
//     signature is u64 big-endian timestamp ‖ Ed25519 over "cosignature/v1\ntime <t>\n" ‖ the
//     checkpoint text.
// Guarantees: format_note(parse_note(m)) == m for every note parse_note accepts; a note is
// accepted only in the canonical form the specs allow (the Go implementation's rules: no
// control characters but "\n", at most 100 signatures, names without spaces or '+'); a
// signature counts as verified only against a configured key whose name and key ID both match.
// Secret halves live in sodium_malloc'd memory, wiped on destruction, and never appear in an
// error message.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/tlog/merkle.hpp"

namespace fairdeck::tlog {

// Anything that is not a well-formed note, key, checkpoint or signature.
class malformed : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

enum class key_type : std::uint8_t { ed25519 = 0x01, cosignature_v1 = 0x04 };

// A key name: non-empty, no whitespace or control characters, no '+'.
[[nodiscard]] bool valid_key_name(std::string_view name) noexcept;

struct note_signature {
  std::string name;
  std::uint32_t key_id = 0;
  std::vector<std::uint8_t> signature;  // after the key ID
  friend bool operator==(const note_signature&, const note_signature&) = default;
};

struct note {
  std::string text;  // ends in "\n"
  std::vector<note_signature> signatures;
};

// Throws malformed.
[[nodiscard]] note parse_note(std::string_view message);
[[nodiscard]] std::string format_note(const note& n);
[[nodiscard]] std::string signature_line(const note_signature& s);

// A public key: from its verifier key text, or from a signer.
class note_verifier {
 public:
  // Throws malformed (the text is not "<name>+<8 hex>+<base64>", the key ID does not match,
  // the type is not 0x01 or 0x04, the key is not 32 bytes).
  [[nodiscard]] static note_verifier parse(std::string_view vkey);
  note_verifier(std::string name, key_type type, const std::array<std::uint8_t, 32>& public_key);

  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  [[nodiscard]] std::uint32_t key_id() const noexcept { return key_id_; }
  [[nodiscard]] key_type type() const noexcept { return type_; }
  [[nodiscard]] const std::array<std::uint8_t, 32>& public_key() const noexcept { return pk_; }
  [[nodiscard]] std::string text() const;  // the verifier key text

  // Ed25519 (0x01): is `sig` this key's signature over `text`? cosignature/v1 (0x04): is it a
  // timestamped cosignature of the checkpoint `text`? The timestamp when so.
  [[nodiscard]] bool verify(std::string_view text, std::span<const std::uint8_t> sig) const noexcept;
  [[nodiscard]] std::optional<std::uint64_t> verify_cosignature(std::string_view text,
                                                                std::span<const std::uint8_t> sig) const noexcept;
  [[nodiscard]] bool matches(const note_signature& s) const noexcept { return s.name == name_ && s.key_id == key_id_; }

 private:
  std::string name_;
  key_type type_ = key_type::ed25519;
  std::array<std::uint8_t, 32> pk_{};
  std::uint32_t key_id_ = 0;
};

// An Ed25519 secret key with its name and type.
class note_signer {
 public:
  // A fresh key from OS entropy (libsodium). Throws std::runtime_error without entropy.
  [[nodiscard]] static note_signer generate(std::string name, key_type type = key_type::ed25519);
  // From a 32-byte seed (RFC 8032 secret key); the caller wipes its copy.
  note_signer(std::string name, key_type type, std::span<const std::uint8_t, 32> seed);
  // From signer key text "PRIVATE+KEY+name+keyid+base64(type ‖ seed)". Throws malformed,
  // naming no part of the key.
  [[nodiscard]] static note_signer parse(std::string_view skey);
  note_signer(note_signer&&) noexcept;
  note_signer& operator=(note_signer&&) noexcept;
  ~note_signer();

  [[nodiscard]] const note_verifier& verifier() const noexcept { return verifier_; }
  // The signer key text. A secret: the caller wipes it (sodium_memzero) after use.
  [[nodiscard]] std::string secret_text() const;
  // The 32-byte seed, for sealing. A secret: wipe after use.
  void copy_seed(std::span<std::uint8_t, 32> out) const noexcept;

  // Ed25519 (0x01): a signature over `text`.
  [[nodiscard]] note_signature sign(std::string_view text) const;
  // cosignature/v1 (0x04): a timestamped cosignature of the checkpoint `text`.
  [[nodiscard]] note_signature cosign(std::string_view text, std::uint64_t timestamp) const;

 private:
  struct secret;
  note_signer(std::string name, key_type type, std::unique_ptr<secret> s);
  std::unique_ptr<secret> secret_;
  note_verifier verifier_;
};

// Signs n.text, replacing an earlier signature by the same key; returns the note text.
[[nodiscard]] std::string sign_note(note n, const note_signer& signer);

struct opened_note {
  std::string text;
  std::vector<note_signature> verified;    // by one of the keys given (cosignatures included)
  std::vector<note_signature> unverified;  // by keys not given
  std::vector<std::uint64_t> cosigned_at;  // for each verified cosignature, in order of `verified` (0 for 0x01)
};
// Parses and checks every signature whose name and key ID match a key in `keys`. Throws
// malformed for a malformed note, and std::runtime_error ("invalid signature for key
// NAME+ID") when a signature by a known key does not verify. Does not require any signature
// to be verified: callers check `verified`.
[[nodiscard]] opened_note open_note(std::string_view message, std::span<const note_verifier> keys);

// ---- checkpoints ----
struct checkpoint {
  std::string origin;
  std::uint64_t size = 0;
  hash root{};
  std::vector<std::string> extensions;  // extra non-empty lines, in order
  friend bool operator==(const checkpoint&, const checkpoint&) = default;
};
// The note text: "origin\nsize\nbase64(root)\n" then the extension lines.
[[nodiscard]] std::string checkpoint_text(const checkpoint& c);
// Throws malformed.
[[nodiscard]] checkpoint parse_checkpoint(std::string_view text);

// Standard base64 with padding (RFC 4648 §4), and back (nullopt on anything else).
[[nodiscard]] std::string base64(std::span<const std::uint8_t> bytes);
[[nodiscard]] std::optional<std::vector<std::uint8_t>> from_base64(std::string_view text);

}  // namespace fairdeck::tlog
