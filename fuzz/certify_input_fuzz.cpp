// Fuzzes certify's input readers: dealt hands (text), scaled draws (one integer per line) and
// raw binary words. Each either accepts the input, with results that respect the stated
// minimum data, or throws std::runtime_error naming the problem. Never crashes.
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <stdexcept>
#include <string>

#include "fairdeck/certify/battery.hpp"
#include "fairdeck/certify/cards.hpp"
#include "fairdeck/certify/sources.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck::certify;
  if (size < 1) return 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  std::istringstream in(text);
  try {
    switch (data[0] % 3) {
      case 0: {
        hand_tallies t;
        read_hands(in, t);
        std::vector<test_result> r;
        hand_results(t, r);
        for (const auto& x : r)
          if (x.valid() && x.sample < x.min_sample) std::abort();
        break;
      }
      case 1: {
        const std::uint64_t range = 2 + data[0] / 3;
        battery b(stream_spec::scaled(range), battery_settings::for_volume(text.size()));
        const auto n = feed_scaled(in, range, UINT64_MAX, b);
        if (n != b.values()) std::abort();
        for (const auto& x : b.results())
          if (x.valid() && x.sample < x.min_sample) std::abort();
        break;
      }
      default: {
        const unsigned bits = data[0] & 8 ? 32 : 64;
        battery b(stream_spec::raw_words(bits), battery_settings::for_volume(text.size()));
        const auto n = feed_raw(in, bits, UINT64_MAX, b);
        if (n != text.size() / (bits / 8)) std::abort();
        (void)b.results();
      }
    }
  } catch (const std::runtime_error&) {
  }
  return 0;
}
