// Fuzzes line splitting of untrusted input (audit --input's deck_reader::read_line): the
// lines read back, joined with '\n', are the input (minus one final '\n'); a line longer
// than max_line_bytes is refused with a deck_input_error naming its line. Shuffle-file's
// own line index lives in the CLI; its shuffle (random_permutation) is checked here to be a
// permutation for the item counts the input implies.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "fairdeck/shuffle/huge.hpp"
#include "fairdeck/stats/deck_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace fairdeck;
  if (size < 1) return 0;
  // Byte 0 repeats the rest to reach past the line cap cheaply.
  std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  const std::size_t repeat = data[0] & 0x80 ? (stats::deck_reader::max_line_bytes / (text.size() + 1)) + 1 : 1;
  std::string input;
  for (std::size_t i = 0; i < repeat; ++i) input += text;

  const stats::deck_reader reader(stats::deck_format::auto_detect, deck_spec{});
  std::istringstream in(input);
  std::string line, joined;
  std::size_t lines = 0;
  bool too_long = false;
  try {
    while (reader.read_line(in, line)) {
      if (line.size() > stats::deck_reader::max_line_bytes) std::abort();
      if (lines++) joined += '\n';
      joined += line;
    }
  } catch (const stats::deck_input_error& e) {
    if (e.line() != lines + 1) std::abort();
    too_long = true;
  }
  if (!too_long) {
    std::string expected = input;
    if (!expected.empty() && expected.back() == '\n') expected.pop_back();
    if (joined != expected) std::abort();
  }

  std::vector<std::uint32_t> perm(std::min<std::size_t>(lines, 5000));
  engine_spec spec;
  spec.id = engine_id::xoshiro256pp;
  spec.seed = data[0];
  (void)random_permutation(perm, spec);
  std::ranges::sort(perm);
  for (std::uint32_t i = 0; i < perm.size(); ++i)
    if (perm[i] != i) std::abort();
  return 0;
}
