// The worked example of docs/cli-log.md: files in docs/examples/transparency/ that the
// documented `fairdeck log verify` runs read (tests/docs_examples_test.cpp checks their output).
// Built here with the library from fixed seeds and a fixed log key (Ed25519 signatures are
// deterministic), so the files are checked byte for byte; FAIRDECK_UPDATE_DOC_EXAMPLES=1
// rewrites them.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <gtest/gtest.h>

#include "transparency_support.hpp"

namespace fairdeck::service {
namespace {

namespace fs = std::filesystem;

TEST(TransparencyDocExample, FilesAreWhatTheLibraryBuilds) {
  const auto key = testing::test_signer("fairdeckd.example", 42);
  const testing::table_sim t = testing::ten_record_table();
  testing::table_sim forged = t;
  forged.redeal(3, {"alice2", "mallory"}, 0);
  // A table dealing by hands (seat commitments): hand 1's deal, then a rotation revealing its
  // seed; and the same log with the hand re-dealt from another shoe once the seeds were public.
  testing::table_sim hands;
  hands.id = "hands";
  hands.open(2);
  const std::uint64_t hand_deal = hands.hand({"alice", "bob"}).seq;
  hands.rotate();
  testing::table_sim reshod = hands;
  reshod.redeal(hand_deal, {"alice", "bob"}, 0, deck_spec{2, 2});
  const std::map<std::string, std::string> want{
      {"log.vkey", key.verifier().text() + "\n"},
      {"log.json", t.log_json().dump(1) + "\n"},
      {"log-after-3.json", t.log_json(4).dump(1) + "\n"},
      {"log-rewritten.json", forged.log_json().dump(1) + "\n"},
      {"checkpoint-6.note", t.checkpoint(key, 6)},
      {"checkpoint-10.note", t.checkpoint(key, 10)},
      {"deal-3.json", t.receipt(key, 3, 4).dump(1) + "\n"},
      {"deal-8.json", t.receipt(key, 8, 10).dump(1) + "\n"},
      {"checkpoint-10-rewritten.note", forged.checkpoint(key, 10)},
      {"hands-log.json", hands.log_json().dump(1) + "\n"},
      {"hands-deal-6.json", hands.receipt(key, hand_deal, hands.log.size()).dump(1) + "\n"},
      {"hands-log-other-shoe.json", reshod.log_json().dump(1) + "\n"},
  };
  const fs::path dir = fs::path(FAIRDECK_SOURCE_DIR) / "docs" / "examples" / "transparency";
  const bool update = std::getenv("FAIRDECK_UPDATE_DOC_EXAMPLES") != nullptr;
  for (const auto& [name, text] : want) {
    std::ifstream in(dir / name, std::ios::binary);
    const std::string have(std::istreambuf_iterator<char>(in), {});
    if (have == text) continue;
    if (update) {
      fs::create_directories(dir);
      std::ofstream(dir / name, std::ios::binary) << text;
    } else {
      ADD_FAILURE() << "docs/examples/transparency/" << name << " is not what the library builds; rerun with "
                    << "FAIRDECK_UPDATE_DOC_EXAMPLES=1";
    }
  }
}

}  // namespace
}  // namespace fairdeck::service
