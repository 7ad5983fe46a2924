// C2SP signed notes, checkpoints and cosignatures: see include/fairdeck/tlog/note.hpp.
#include "fairdeck/tlog/note.hpp"

#include <algorithm>
#include <charconv>
#include <new>
#include <set>

#include <sodium.h>

#include "fairdeck/util/internal/wipe.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::tlog {
namespace {

constexpr std::string_view sig_prefix = "\xE2\x80\x94 ";  // "— " (U+2014, space)
constexpr std::size_t max_signatures = 100;

malformed bad_note() { return malformed("malformed note"); }

void init_sodium() {
  if (sodium_init() < 0) throw std::runtime_error("libsodium could not be initialised");
}

std::uint32_t key_id_of(std::string_view name, key_type type, const std::array<std::uint8_t, 32>& pk) {
  sha256_hasher hasher;
  hasher.update(name);
  const std::uint8_t sep[2] = {'\n', static_cast<std::uint8_t>(type)};
  hasher.update(std::span<const std::uint8_t>(sep));
  hasher.update(std::span<const std::uint8_t>(pk));
  const auto h = hasher.digest();
  return (std::uint32_t{h[0]} << 24) | (std::uint32_t{h[1]} << 16) | (std::uint32_t{h[2]} << 8) | h[3];
}

std::string hex8(std::uint32_t v) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(8, '0');
  for (int i = 7; i >= 0; --i, v >>= 4) s[static_cast<std::size_t>(i)] = digits[v & 15];
  return s;
}

std::optional<std::uint32_t> parse_hex8(std::string_view s) {
  if (s.size() != 8) return std::nullopt;
  std::uint32_t v = 0;
  for (char c : s) {
    int d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else
      return std::nullopt;  // Go writes lowercase; accept only that
    v = (v << 4) | static_cast<std::uint32_t>(d);
  }
  return v;
}

// Valid UTF-8 with no ASCII control character but '\n' (the signed-note rule).
bool clean_text(std::string_view s) noexcept {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      if ((c < 0x20 && c != '\n') || c == 0x7f) return false;
      ++i;
      continue;
    }
    std::size_t len;
    std::uint32_t cp;
    if (c >= 0xC2 && c <= 0xDF)
      len = 2, cp = c & 0x1F;
    else if (c >= 0xE0 && c <= 0xEF)
      len = 3, cp = c & 0x0F;
    else if (c >= 0xF0 && c <= 0xF4)
      len = 4, cp = c & 0x07;
    else
      return false;
    if (i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(s[i + k]);
      if ((cc & 0xC0) != 0x80) return false;
      cp = (cp << 6) | (cc & 0x3F);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
      return false;
    i += len;
  }
  return true;
}

std::string timestamp_header(std::uint64_t t) { return "cosignature/v1\ntime " + std::to_string(t) + "\n"; }

}  // namespace

bool valid_key_name(std::string_view name) noexcept {
  if (name.empty() || !clean_text(name)) return false;
  return std::none_of(name.begin(), name.end(), [](char c) { return c == '+' || c == ' ' || c == '\n'; });
}

std::string base64(std::span<const std::uint8_t> bytes) {
  std::string out(sodium_base64_encoded_len(bytes.size(), sodium_base64_VARIANT_ORIGINAL), '\0');
  sodium_bin2base64(out.data(), out.size(), bytes.data(), bytes.size(), sodium_base64_VARIANT_ORIGINAL);
  out.pop_back();  // the terminating NUL
  return out;
}

std::optional<std::vector<std::uint8_t>> from_base64(std::string_view text) {
  std::vector<std::uint8_t> out(text.size() / 4 * 3 + 3);
  detail::wipe_on_exit wipe(out.data(), out.size());  // may be a secret key: wiped unless returned
  std::size_t len = 0;
  const char* end = nullptr;
  if (sodium_base642bin(out.data(), out.size(), text.data(), text.size(), nullptr, &len, &end,
                        sodium_base64_VARIANT_ORIGINAL) != 0 ||
      end != text.data() + text.size())
    return std::nullopt;
  {
    std::string canonical = base64(std::span<const std::uint8_t>(out.data(), len));
    const detail::wipe_on_exit wipe_canonical(canonical.data(), canonical.size());
    if (canonical != text) return std::nullopt;  // canonical only (no stray bits, padding as written)
  }
  wipe.release();
  out.resize(len);
  return out;
}

// ---- notes ----

std::string signature_line(const note_signature& s) {
  std::vector<std::uint8_t> raw{static_cast<std::uint8_t>(s.key_id >> 24), static_cast<std::uint8_t>(s.key_id >> 16),
                                static_cast<std::uint8_t>(s.key_id >> 8), static_cast<std::uint8_t>(s.key_id)};
  raw.insert(raw.end(), s.signature.begin(), s.signature.end());
  return std::string(sig_prefix) + s.name + " " + base64(raw) + "\n";
}

std::string format_note(const note& n) {
  std::string out = n.text + "\n";
  for (const auto& s : n.signatures) out += signature_line(s);
  return out;
}

note parse_note(std::string_view msg) {
  if (!clean_text(msg)) throw bad_note();
  const std::size_t split = msg.rfind("\n\n");
  if (split == std::string_view::npos) throw bad_note();
  note n;
  n.text = std::string(msg.substr(0, split + 1));
  std::string_view sigs = msg.substr(split + 2);
  if (sigs.empty() || sigs.back() != '\n') throw bad_note();
  while (!sigs.empty()) {
    const std::size_t nl = sigs.find('\n');
    std::string_view line = sigs.substr(0, nl);
    sigs.remove_prefix(nl + 1);
    if (!line.starts_with(sig_prefix)) throw bad_note();
    line.remove_prefix(sig_prefix.size());
    const std::size_t sp = line.find(' ');
    if (sp == std::string_view::npos) throw bad_note();
    const std::string_view name = line.substr(0, sp), b64 = line.substr(sp + 1);
    const auto raw = from_base64(b64);
    if (!valid_key_name(name) || b64.empty() || !raw || raw->size() < 5) throw bad_note();
    if (n.signatures.size() == max_signatures) throw bad_note();
    note_signature s;
    s.name = std::string(name);
    s.key_id = (std::uint32_t{(*raw)[0]} << 24) | (std::uint32_t{(*raw)[1]} << 16) | (std::uint32_t{(*raw)[2]} << 8) |
               (*raw)[3];
    s.signature.assign(raw->begin() + 4, raw->end());
    n.signatures.push_back(std::move(s));
  }
  return n;
}

// ---- keys ----

note_verifier::note_verifier(std::string name, key_type type, const std::array<std::uint8_t, 32>& public_key)
    : name_(std::move(name)), type_(type), pk_(public_key) {
  if (!valid_key_name(name_)) throw malformed("malformed key name");
  key_id_ = key_id_of(name_, type_, pk_);
}

note_verifier note_verifier::parse(std::string_view vkey) {
  const auto bad = [] { return malformed("malformed verifier key"); };
  const std::size_t p1 = vkey.find('+');
  if (p1 == std::string_view::npos) throw bad();
  const std::size_t p2 = vkey.find('+', p1 + 1);
  if (p2 == std::string_view::npos) throw bad();
  const std::string_view name = vkey.substr(0, p1), id = vkey.substr(p1 + 1, p2 - p1 - 1), key = vkey.substr(p2 + 1);
  const auto id_value = parse_hex8(id);
  const auto raw = from_base64(key);
  if (!valid_key_name(name) || !id_value || !raw || raw->size() != 33) throw bad();
  const auto type = static_cast<key_type>((*raw)[0]);
  if (type != key_type::ed25519 && type != key_type::cosignature_v1) throw malformed("unknown verifier key type");
  std::array<std::uint8_t, 32> pk;
  std::copy(raw->begin() + 1, raw->end(), pk.begin());
  note_verifier v(std::string(name), type, pk);
  if (v.key_id() != *id_value) throw malformed("verifier key ID does not match the key");
  return v;
}

std::string note_verifier::text() const {
  std::vector<std::uint8_t> raw{static_cast<std::uint8_t>(type_)};
  raw.insert(raw.end(), pk_.begin(), pk_.end());
  return name_ + "+" + hex8(key_id_) + "+" + base64(raw);
}

bool note_verifier::verify(std::string_view text, std::span<const std::uint8_t> sig) const noexcept {
  if (type_ == key_type::cosignature_v1) return verify_cosignature(text, sig).has_value();
  if (sig.size() != crypto_sign_BYTES) return false;
  return crypto_sign_verify_detached(sig.data(), reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                                     pk_.data()) == 0;
}

std::optional<std::uint64_t> note_verifier::verify_cosignature(std::string_view text,
                                                               std::span<const std::uint8_t> sig) const noexcept {
  if (type_ != key_type::cosignature_v1 || sig.size() != 8 + crypto_sign_BYTES) return std::nullopt;
  std::uint64_t t = 0;
  for (std::size_t i = 0; i < 8; ++i) t = (t << 8) | sig[i];
  if (t >> 63) return std::nullopt;
  try {
    const std::string msg = timestamp_header(t) + std::string(text);
    if (crypto_sign_verify_detached(sig.data() + 8, reinterpret_cast<const unsigned char*>(msg.data()), msg.size(),
                                    pk_.data()) != 0)
      return std::nullopt;
  } catch (const std::bad_alloc&) {
    return std::nullopt;
  }
  return t;
}

struct note_signer::secret {
  unsigned char* sk = nullptr;  // crypto_sign_SECRETKEYBYTES in sodium_malloc'd memory
  secret() {
    init_sodium();
    sk = static_cast<unsigned char*>(sodium_malloc(crypto_sign_SECRETKEYBYTES));
    if (!sk) throw std::bad_alloc();
  }
  secret(const secret&) = delete;
  secret& operator=(const secret&) = delete;
  ~secret() { sodium_free(sk); }  // zeroes before freeing
};

namespace {
std::array<std::uint8_t, 32> public_half(const unsigned char* sk) {
  std::array<std::uint8_t, 32> pk;
  std::copy(sk + 32, sk + 64, pk.begin());  // libsodium's secret key is seed ‖ public key
  return pk;
}
}  // namespace

note_signer::note_signer(std::string name, key_type type, std::unique_ptr<secret> s)
    : secret_(std::move(s)), verifier_(std::move(name), type, public_half(secret_->sk)) {}

note_signer::note_signer(std::string name, key_type type, std::span<const std::uint8_t, 32> seed)
    : note_signer(std::move(name), type, [&] {
        auto s = std::make_unique<secret>();
        std::array<unsigned char, 32> pk;
        crypto_sign_seed_keypair(pk.data(), s->sk, seed.data());
        return s;
      }()) {}

note_signer note_signer::generate(std::string name, key_type type) {
  auto s = std::make_unique<secret>();
  std::array<unsigned char, 32> pk;
  crypto_sign_keypair(pk.data(), s->sk);
  return note_signer(std::move(name), type, std::move(s));
}

note_signer note_signer::parse(std::string_view skey) {
  const auto bad = [] { return malformed("malformed signer key"); };
  constexpr std::string_view head = "PRIVATE+KEY+";
  if (!skey.starts_with(head)) throw bad();
  skey.remove_prefix(head.size());
  const std::size_t p1 = skey.find('+');
  if (p1 == std::string_view::npos) throw bad();
  const std::size_t p2 = skey.find('+', p1 + 1);
  if (p2 == std::string_view::npos) throw bad();
  const std::string_view name = skey.substr(0, p1), id = skey.substr(p1 + 1, p2 - p1 - 1);
  const auto id_value = parse_hex8(id);
  auto raw = from_base64(skey.substr(p2 + 1));
  const detail::wipe_on_exit wipe(raw ? raw->data() : nullptr, raw ? raw->size() : 0);
  if (!valid_key_name(name) || !id_value || !raw || raw->size() != 33) throw bad();
  const auto type = static_cast<key_type>((*raw)[0]);
  if (type != key_type::ed25519 && type != key_type::cosignature_v1) throw malformed("unknown signer key type");
  note_signer signer(std::string(name), type, std::span<const std::uint8_t, 32>(raw->data() + 1, 32));
  if (signer.verifier().key_id() != *id_value) throw malformed("signer key ID does not match the key");
  return signer;
}

note_signer::note_signer(note_signer&&) noexcept = default;
note_signer& note_signer::operator=(note_signer&&) noexcept = default;
note_signer::~note_signer() = default;

std::string note_signer::secret_text() const {
  std::array<std::uint8_t, 33> raw;
  const detail::wipe_on_exit wipe_raw(raw.data(), raw.size());
  raw[0] = static_cast<std::uint8_t>(verifier_.type());
  std::copy(secret_->sk, secret_->sk + 32, raw.begin() + 1);
  std::string b64 = base64(raw);
  const detail::wipe_on_exit wipe_b64(b64.data(), b64.size());
  constexpr std::string_view head = "PRIVATE+KEY+";
  const std::string id = hex8(verifier_.key_id());
  std::string out;  // sized once: no part of the key is left in a buffer outgrown and freed
  out.reserve(head.size() + verifier_.name().size() + 1 + id.size() + 1 + b64.size());
  out.append(head).append(verifier_.name()).append("+").append(id).append("+").append(b64);
  return out;
}

void note_signer::copy_seed(std::span<std::uint8_t, 32> out) const noexcept {
  std::copy(secret_->sk, secret_->sk + 32, out.begin());
}

note_signature note_signer::sign(std::string_view text) const {
  if (verifier_.type() != key_type::ed25519) throw std::logic_error("a cosigner key signs only cosignatures");
  note_signature s{verifier_.name(), verifier_.key_id(), std::vector<std::uint8_t>(crypto_sign_BYTES)};
  crypto_sign_detached(s.signature.data(), nullptr, reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                       secret_->sk);
  return s;
}

note_signature note_signer::cosign(std::string_view text, std::uint64_t timestamp) const {
  if (verifier_.type() != key_type::cosignature_v1) throw std::logic_error("only a cosigner key cosigns");
  if (timestamp >> 63) throw std::invalid_argument("cosignature timestamp out of range");
  note_signature s{verifier_.name(), verifier_.key_id(), std::vector<std::uint8_t>(8 + crypto_sign_BYTES)};
  for (int i = 0; i < 8; ++i)
    s.signature[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(timestamp >> (56 - 8 * i));
  const std::string msg = timestamp_header(timestamp) + std::string(text);
  crypto_sign_detached(s.signature.data() + 8, nullptr, reinterpret_cast<const unsigned char*>(msg.data()), msg.size(),
                       secret_->sk);
  return s;
}

std::string sign_note(note n, const note_signer& signer) {
  if (n.text.empty() || n.text.back() != '\n' || !clean_text(n.text)) throw bad_note();
  const note_verifier& v = signer.verifier();
  std::erase_if(n.signatures, [&](const note_signature& s) { return v.matches(s); });
  n.signatures.insert(n.signatures.begin(), signer.sign(n.text));
  return format_note(n);
}

opened_note open_note(std::string_view message, std::span<const note_verifier> keys) {
  note n = parse_note(message);
  opened_note out;
  out.text = n.text;
  std::set<std::pair<std::string, std::uint32_t>> seen;
  for (auto& s : n.signatures) {
    const note_verifier* key = nullptr;
    for (const auto& k : keys) {
      if (!k.matches(s)) continue;
      if (key) throw std::runtime_error("ambiguous key " + s.name + "+" + hex8(s.key_id));
      key = &k;
    }
    if (!key) {
      if (std::find(out.unverified.begin(), out.unverified.end(), s) == out.unverified.end())
        out.unverified.push_back(s);
      continue;
    }
    if (!seen.insert({s.name, s.key_id}).second) continue;  // a repeated signature by one key
    std::uint64_t when = 0;
    if (key->type() == key_type::cosignature_v1) {
      const auto t = key->verify_cosignature(n.text, s.signature);
      if (!t) throw std::runtime_error("invalid signature for key " + s.name + "+" + hex8(s.key_id));
      when = *t;
    } else if (!key->verify(n.text, s.signature)) {
      throw std::runtime_error("invalid signature for key " + s.name + "+" + hex8(s.key_id));
    }
    out.verified.push_back(std::move(s));
    out.cosigned_at.push_back(when);
  }
  return out;
}

// ---- checkpoints ----

std::string checkpoint_text(const checkpoint& c) {
  std::string out = c.origin + "\n" + std::to_string(c.size) + "\n" + base64(c.root) + "\n";
  for (const auto& e : c.extensions) out += e + "\n";
  return out;
}

checkpoint parse_checkpoint(std::string_view text) {
  const auto bad = [] { return malformed("malformed checkpoint"); };
  if (text.empty() || text.back() != '\n' || !clean_text(text)) throw bad();
  std::vector<std::string_view> lines;
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t nl = text.find('\n', at);
    lines.push_back(text.substr(at, nl - at));
    at = nl + 1;
  }
  if (lines.size() < 3) throw bad();
  checkpoint c;
  c.origin = std::string(lines[0]);
  const std::string_view size = lines[1];
  if (c.origin.empty() || size.empty() || size.size() > 20 || (size.size() > 1 && size[0] == '0')) throw bad();
  const auto [end, ec] = std::from_chars(size.data(), size.data() + size.size(), c.size);
  if (ec != std::errc{} || end != size.data() + size.size() || (c.size >> 63)) throw bad();
  const auto root = from_base64(lines[2]);
  if (!root || root->size() != 32) throw bad();
  std::copy(root->begin(), root->end(), c.root.begin());
  for (std::size_t i = 3; i < lines.size(); ++i) {
    if (lines[i].empty()) throw bad();
    c.extensions.emplace_back(lines[i]);
  }
  return c;
}

}  // namespace fairdeck::tlog
