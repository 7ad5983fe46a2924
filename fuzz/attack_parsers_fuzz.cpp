// Fuzzes the attack's text parsers: --known (POSITION=CARD list), --around (time of day)
// and --algorithm. Each either returns a value within its contract or throws
// std::invalid_argument with a message free of raw control bytes. Never crashes.
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fairdeck/security/attack.hpp"

namespace {

void check_message(const std::invalid_argument& e) {
  for (const char* p = e.what(); *p; ++p) {
    const auto c = static_cast<unsigned char>(*p);
    if (c < 0x20 || c == 0x7f) std::abort();  // errors are printed on terminals: no raw controls
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  if (size < 1) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    switch (data[0] % 3) {
      case 0: {
        for (const auto& k : parse_known_cards(text))
          if (k.card >= cards_per_deck) std::abort();  // --known names cards of one deck
        break;
      }
      case 1: {
        const std::uint64_t ms = parse_time_of_day(text);
        if (ms >= ms_per_day) std::abort();
        break;
      }
      default: {
        const shuffle_kind k = parse_attack_algorithm(text);
        if (k != shuffle_kind::asf1999 && k != shuffle_kind::naive && k != shuffle_kind::fisher_yates) std::abort();
        break;
      }
    }
  } catch (const std::invalid_argument& e) {
    check_message(e);
  }
  return 0;
}
