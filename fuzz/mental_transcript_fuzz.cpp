// fuzz_mental_transcript: the mental-poker transcript, public-share and key-file parsers
// (fairdeck/mental/transcript.hpp) on arbitrary bytes: a format_error or a value, never a
// crash; a parsed transcript serialises and parses back to the same text.
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "fairdeck/mental/transcript.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  using namespace fairdeck::mental;
  try {
    const hand h = parse_hand(text);
    std::string once;
    try {
      once = to_json(h);
    } catch (const std::exception&) {
      return 0;  // text that is not UTF-8: verify_text refuses it the same way
    }
    if (to_json(parse_hand(once)) != once) std::abort();
  } catch (const format_error&) {
  }
  try {
    (void)parse_public_share(text);
  } catch (const format_error&) {
  }
  try {
    (void)parse_key_file(text);
  } catch (const format_error&) {
  }
  return 0;
}
