// --key of `log verify` and `witness`: a note verifier key given as its text or as a file.
#pragma once

#include <string>
#include <string_view>

#include <fmt/format.h>

#include "command.hpp"
#include "fairdeck/tlog/note.hpp"
#include "fairdeck/util/read_input.hpp"

namespace fairdeck::cli {

inline std::string_view trim_key_text(std::string_view s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

// The key text itself ("name+keyid+base64") or a file holding it; `type` is the key type the
// option needs. A signer (PRIVATE+KEY) text is refused without repeating it.
inline tlog::note_verifier load_verifier_key(const std::string& given, std::string_view flag,
                                             tlog::key_type type = tlog::key_type::ed25519) {
  std::string text(trim_key_text(given));
  const auto is_secret = [](std::string_view t) { return t.starts_with("PRIVATE+KEY+"); };
  tlog::note_verifier key = [&] {
    if (is_secret(text)) throw usage_error(fmt::format("{}: that is a secret (PRIVATE+KEY) key; give the verifier key", flag));
    try {
      return tlog::note_verifier::parse(text);
    } catch (const tlog::malformed&) {
    }
    std::string file;
    try {
      file = read_input(given, 64 * 1024, "key file");
    } catch (const std::runtime_error&) {
      throw usage_error(fmt::format("{}: neither a verifier key (name+keyid+base64) nor a readable file", flag));
    }
    const std::string_view t = trim_key_text(file);
    if (is_secret(t)) throw usage_error(fmt::format("{}: {} holds a secret (PRIVATE+KEY) key; give the verifier key", flag, given));
    try {
      return tlog::note_verifier::parse(t);
    } catch (const tlog::malformed& e) {
      throw usage_error(fmt::format("{}: {} does not hold a verifier key ({})", flag, given, e.what()));
    }
  }();
  if (key.type() != type)
    throw usage_error(fmt::format("{}: a key of type 0x{:02x} where 0x{:02x} ({}) is needed", flag,
                                  static_cast<unsigned>(key.type()), static_cast<unsigned>(type),
                                  type == tlog::key_type::ed25519 ? "Ed25519 note key" : "cosignature/v1"));
  return key;
}

inline tlog::note_verifier load_log_key(const std::string& given, std::string_view flag) {
  return load_verifier_key(given, flag, tlog::key_type::ed25519);
}

}  // namespace fairdeck::cli
