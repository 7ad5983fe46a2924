// What makes a certification report checkable: SHA-256 digests of the executable and of
// every input (util/sha256.hpp), and an Ed25519 signature over the report
// (libsodium crypto_sign_detached; RFC 8032).
//
// Key files are one line of text: "fairdeck-ed25519-secret-key <128 hex digits>" (libsodium's
// 64-byte secret key: seed || public key), written with mode 0600, and
// "fairdeck-ed25519-public-key <64 hex digits>". Secret key bytes are wiped after use.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace fairdeck::certify {

struct key_pair_files {
  std::string secret_path, public_path, public_key_hex;
};
// Generates a key pair from OS entropy and writes PREFIX.key (0600, refuses to overwrite)
// and PREFIX.pub. Throws std::runtime_error.
key_pair_files generate_key_files(const std::string& prefix);

// Signs `message` with the secret key in `secret_key_file`; returns {public key hex,
// signature hex}. Throws std::runtime_error on unreadable or malformed key files, and refuses
// (std::runtime_error saying chmod 600) a key file that is not a regular file or whose mode
// gives its group or others any access (mode & 077), as ssh refuses such private keys.
struct signature {
  std::string public_key_hex;
  std::string signature_hex;
};
[[nodiscard]] signature sign_message(std::string_view message, const std::string& secret_key_file);

// True when `signature_hex` is a valid Ed25519 signature of `message` by `public_key_hex`.
// Malformed hex is simply invalid.
[[nodiscard]] bool verify_message(std::string_view message, std::string_view signature_hex,
                                  std::string_view public_key_hex);

// The public key hex stored in a .pub file (throws std::runtime_error).
[[nodiscard]] std::string read_public_key_file(const std::string& path);

}  // namespace fairdeck::certify
