// Fuzzes the provably-fair parsers (hex, nonce, client seed, deck text) and verification
// of arbitrary deck text. Every input is accepted with a round-trip-exact meaning or
// rejected with fair_input_error / card_parse_error; never a crash, hang or other exception.
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fairdeck/security/provably_fair.hpp"

using namespace fairdeck;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

void fuzz_hex(std::string_view text) {
  try {
    const auto seed = fair::server_seed::from_hex(text);
    std::string lower(text);
    for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    check(seed.hex() == lower);
  } catch (const fair::fair_input_error&) {
    check(text.size() != 64 || text.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos);
  }
}

void fuzz_nonce(std::string_view text) {
  try {
    check(std::to_string(fair::parse_nonce(text)) == text);  // only canonical decimal is accepted
  } catch (const fair::fair_input_error&) {
  }
}

void fuzz_client_seed(std::string_view text) {
  try {
    fair::validate_client_seed(text);
    check(!text.empty() && text.size() <= fair::max_client_seed_bytes);
    fair::word_stream words(fair::server_seed({}), text, 0);
    (void)words.next_word();
  } catch (const fair::fair_input_error&) {
  }
}

void fuzz_deck(std::string_view text, const deck_spec& spec) {
  try {
    const auto faces = fair::parse_faces(text, spec);
    for (auto c : faces) check(c < spec.size() && fair::face_of(c, spec) == c);
    check(fair::parse_faces(format_cards(faces, spec), spec) == faces);
    check(fair::parse_faces(format_cards(faces, spec, {true}), spec) == faces);
    static const fair::server_seed seed({});
    const auto v = fair::verify(seed, std::string(64, '0'), "fuzz", 1, faces, spec);
    check(!v.commitment_matches && !v.ok() && v.claimed_size == faces.size() && !v.describe(spec).empty());
  } catch (const card_parse_error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  switch (data[0] % 4) {
    case 0: fuzz_hex(text); break;
    case 1: fuzz_nonce(text); break;
    case 2: fuzz_client_seed(text); break;
    default: fuzz_deck(text, deck_spec{1u + data[0] / 4 % 3, data[0] / 16 % 4u}); break;
  }
  return 0;
}
