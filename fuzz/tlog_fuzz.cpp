// The transparency log's parsers and verifiers on untrusted bytes (include/fairdeck/tlog):
// signed notes (parse, open against a fixed key), verifier and signer key text, checkpoints,
// tree frontiers, and RFC 9162 proof verification with arbitrary proofs. None may crash, hang
// or accept what it then cannot print back: a parsed note formats to exactly its input.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "fairdeck/tlog/merkle.hpp"
#include "fairdeck/tlog/note.hpp"

using namespace fairdeck::tlog;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  static const std::vector<note_verifier> keys{
      note_verifier::parse("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW")};
  try {
    const note n = parse_note(text);
    if (format_note(n) != text) std::abort();  // the round trip the header promises
    (void)open_note(text, keys);
  } catch (const std::exception&) {
  }
  try {
    const checkpoint c = parse_checkpoint(text);
    if (checkpoint_text(c) != text) std::abort();
  } catch (const malformed&) {
  }
  try {
    const note_verifier v = note_verifier::parse(text);
    if (v.text() != text) std::abort();
  } catch (const malformed&) {
  }
  try {
    (void)note_signer::parse(text);
  } catch (const malformed&) {
  }
  try {
    const frontier f = frontier::from_text(text);
    if (f.to_text() != text) std::abort();
  } catch (const std::invalid_argument&) {
  }
  // Proof verification: the first 16 bytes are the index/size (or from/to), the rest hashes.
  if (size >= 16 + 64) {
    std::uint64_t a = 0, b = 0;
    for (int i = 0; i < 8; ++i) a = (a << 8) | data[i], b = (b << 8) | data[8 + i];
    hash x{}, y{};
    std::copy(data + 16, data + 48, x.begin());
    std::copy(data + 48, data + 80, y.begin());
    std::vector<hash> proof((size - 80) / 32);
    for (std::size_t i = 0; i < proof.size(); ++i) std::copy(data + 80 + 32 * i, data + 112 + 32 * i, proof[i].begin());
    (void)verify_inclusion(a, b, x, proof, y);
    (void)verify_consistency(a, b, x, y, proof);
  }
  return 0;
}
