// The test vectors published in docs/provably-fair.md. If one of these changes, every
// deal anyone has published becomes unverifiable: fix the code, not the vector.
#include <gtest/gtest.h>

#include "fair_test_vectors.hpp"
#include "fairdeck/util/sha256.hpp"

#include <deque>
#include <limits>
#include <string>
#include <vector>

#include "fairdeck/security/provably_fair.hpp"

using namespace fairdeck;
using namespace fairdeck::fair;

namespace {

using fairdeck::testing::seed1_hex;
constexpr std::string_view seed2_hex = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

// Counts words so tests can see how many a deal consumed (i.e. how many were rejected).
struct counting_words {
  word_stream& inner;
  std::uint64_t used = 0;
  std::uint32_t next_word() {
    ++used;
    return inner.next_word();
  }
};

struct scripted_words {
  std::deque<std::uint32_t> words;
  std::uint32_t next_word() {
    const auto w = words.front();
    words.pop_front();
    return w;
  }
};

}  // namespace

TEST(FairVectors, Commitment) {
  EXPECT_EQ(commitment(server_seed::from_hex(seed1_hex)),
            "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd");
  EXPECT_EQ(commitment(server_seed::from_hex(seed2_hex)),
            "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051");
}

TEST(FairVectors, FirstWordsAreBigEndianHmacBlocks) {
  word_stream words(server_seed::from_hex(seed1_hex), "alice", 0);
  // Block 0 = HMAC-SHA256(seed, "alice:0:0") = 1a23092d344123b75fc0fc9f3c8c380eff9feba8d2638125948782bac026065c
  const std::uint32_t expected[] = {0x1a23092d, 0x344123b7, 0x5fc0fc9f, 0x3c8c380e, 0xff9feba8, 0xd2638125,
                                    0x948782ba, 0xc026065c,
                                    // block 1 = HMAC-SHA256(seed, "alice:0:1") = 1cb727722da57c2e...
                                    0x1cb72772, 0x2da57c2e};
  for (auto w : expected) EXPECT_EQ(words.next_word(), w);
  EXPECT_EQ(words.words_used(), 10u);
  EXPECT_EQ(word_stream::block_message("alice", 0, 1), "alice:0:1");
  EXPECT_EQ(word_stream::block_message("Bob \u2660", std::numeric_limits<std::uint64_t>::max(), 12),
            "Bob \u2660:18446744073709551615:12");
}

TEST(FairVectors, UniformBelowRejectsWordsAtOrAboveTheLimit) {
  // m = 3*2^30: limit = 3*2^30 = 0xc0000000, so words 0xff9feba8, 0xd2638125 and 0xc026065c
  // of the stream above are rejected.
  word_stream words(server_seed::from_hex(seed1_hex), "alice", 0);
  const std::uint64_t m = 3ull << 30;
  const std::uint32_t expected[] = {438503725, 876684215, 1606483103, 1015822350, 2491908794, 481765234};
  for (auto v : expected) EXPECT_EQ(uniform_below(words, m), v);
  EXPECT_EQ(words.words_used(), 9u);  // 6 accepted + 3 rejected
}

TEST(FairVectors, UniformBelowBoundaries) {
  // m = 52: limit = 52*floor(2^32/52) = 4294967248; 4294967247 is the largest accepted word.
  scripted_words s{{4294967295u, 4294967248u, 4294967247u}};
  EXPECT_EQ(uniform_below(s, 52), 51u);
  EXPECT_TRUE(s.words.empty());
  scripted_words one{{123u}};
  EXPECT_EQ(uniform_below(one, 1), 0u);  // m = 1 still consumes one word
  EXPECT_TRUE(one.words.empty());
  scripted_words full{{4294967295u}};
  EXPECT_EQ(uniform_below(full, std::uint64_t{1} << 32), 4294967295u);  // m = 2^32 accepts everything
  scripted_words none{};
  EXPECT_THROW((void)uniform_below(none, 0), std::invalid_argument);
  EXPECT_THROW((void)uniform_below(none, (std::uint64_t{1} << 32) + 1), std::invalid_argument);
}

TEST(FairVectors, FullDeck) {
  const auto deck = deal_deck(server_seed::from_hex(seed1_hex), "alice", 0, {});
  EXPECT_EQ(format_cards(deck, {}),
            "Ah 9s 9c 7s As Tc 5c 9h 3c 6h 8d Ks 2c 9d Jd 7d Qh 3d 7c Ac Qc 6c 3s 8c Jh Qs Jc 8h 5d Kd Ts 4d 8s Th "
            "Qd Td 2h 5h 4s 7h 6s 3h Kc Kh 5s 2d Ad 2s 6d 4c 4h Js");
  const std::vector<card_t> indices = {26, 47, 8,  45, 39, 9,  4,  34, 2,  31, 20, 51, 1,  21, 23, 19, 37, 15,
                                       6,  0,  11, 5,  41, 7,  36, 50, 10, 33, 17, 25, 48, 16, 46, 35, 24, 22,
                                       27, 30, 42, 32, 44, 28, 12, 38, 43, 14, 13, 40, 18, 3,  29, 49};
  EXPECT_EQ(deck, indices);
}

// A keyed seed (the pads hashed once, for many deals) deals exactly what its seed deals: the
// published vector above, and word for word on other seeds, client seeds, nonces and shoes.
TEST(FairVectors, AKeyedSeedDealsWhatItsSeedDeals) {
  const keyed_seed key1(server_seed::from_hex(seed1_hex));  // the seed itself may go: the key is a copy
  EXPECT_EQ(deal_deck(key1, "alice", 0, {}), deal_deck(server_seed::from_hex(seed1_hex), "alice", 0, {}));
  EXPECT_EQ(format_cards(deal_deck(key1, "alice", 0, {}), {}).substr(0, 11), "Ah 9s 9c 7s");
  for (const std::string_view hex : {std::string_view(seed1_hex), std::string_view(seed2_hex)}) {
    const auto seed = server_seed::from_hex(hex);
    const keyed_seed key(seed);
    for (const std::uint64_t nonce : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{77}, ~std::uint64_t{0}})
      for (const deck_spec spec : {deck_spec{}, deck_spec{6, 2}}) {
        EXPECT_EQ(deal_deck(key, "Bob \u2660", nonce, spec), deal_deck(seed, "Bob \u2660", nonce, spec));
        word_stream a(seed, "carol", nonce), b(key, "carol", nonce);
        for (int w = 0; w < 40; ++w) ASSERT_EQ(a.next_word(), b.next_word()) << "word " << w;
      }
  }
  EXPECT_THROW((void)deal_deck(key1, "", 0, {}), fair_input_error);  // the client seed is still checked
}

TEST(FairVectors, ShoeWithJokersUnicodeClientSeedAndLargestNonce) {
  const deck_spec shoe{2, 2};
  const auto deck = deal_deck(server_seed::from_hex(seed2_hex), "Bob \u2660", std::numeric_limits<std::uint64_t>::max(),
                              shoe);
  EXPECT_EQ(format_cards(deck, shoe),
            "5s 9c 4d Tc Jh Ts Th Ac Qc Ad Kd 8d 2d 2c Td 9d Tc 8h Ac 9s Qh Ks Jc 9d 2s Th 7d 5h Td 6c Kh Jh 2c 5d 8s "
            "Qs 4c 8d 3c Ks 6s 4s Kc Kc 4c 5h Ah 8h Ts 4h Jd 2d 2h 8c Qd 3s 2h Qc 8c Qd 9c 7d 3h 6h 9h Jc 4h X1 Ah 3d "
            "6h Jd 5s 7c 4d Js 3d 6d Kd 2s Qs As 6s 5c 7s Js Qh 8s 3s 4s 5c Kh 3h 6d 3c 7h 5d 6c Ad As 7h X2 7c 9h 9s "
            "7s");
}

TEST(FairVectors, LargestShoeRejectsOneWord) {
  // 1000 decks + 1000 jokers, nonce 0: the draw for position 14140 (m = 14141) rejects
  // word 4294963059, so the deal consumes 52999 + 1 = 53000 words.
  const deck_spec shoe{1000, 1000};
  const auto seed = server_seed::from_hex(seed1_hex);
  const auto deck = deal_deck(seed, "alice", 0, shoe);
  EXPECT_EQ(sha256_hex(format_cards(deck, shoe)), "84c7e56eaffcd2065261cd27963fc979f24c7dc50a72d86a9dd8b8f410467a3c");

  word_stream inner(seed, "alice", 0);
  counting_words words{inner};
  for (std::size_t i = shoe.size() - 1; i >= 1; --i) {
    const std::uint64_t before = words.used;
    (void)uniform_below(words, i + 1);
    EXPECT_EQ(words.used - before, i == 14140 ? 2u : 1u) << "position " << i;
  }
  EXPECT_EQ(words.used, 53000u);
}

TEST(FairVectors, SeveralSeatsCombineIntoOneClientSeed) {
  using seeds = std::vector<std::string>;
  EXPECT_EQ(combine_client_seeds(seeds{"alice"}), "alice");
  EXPECT_EQ(combine_client_seeds(seeds{"alice", "bob"}),
            "a5195abbbba1c6f6166a75a4e5422ccda605c740adeca49baf969ab2f0f039a5");
  EXPECT_EQ(combine_client_seeds(seeds{"bob", "alice"}),
            "5f1890de9535022281728a89db4fe741eeb2be37c03bd62f32c481478120fa61");
  EXPECT_EQ(combine_client_seeds(seeds{"Bob \u2660", "a:b,c", "x"}),
            "7bda884d4c99b305e1f1ec847b7a171dfabed0d9cee195173b32bd499f4c5f76");
  // Length prefixes keep the encoding injective.
  EXPECT_EQ(combine_client_seeds(seeds{"ab", "c"}), "b7f1bcaf5d1c3c4f297286a9500f20933239f1aacf49a7723acbf33f9a3e2aff");
  EXPECT_EQ(combine_client_seeds(seeds{"a", "bc"}), "633514c1f1647175753c501715581c0c119f263b764bd6914d6bb0ec315dcc2e");
  const auto deck = deal_deck(server_seed::from_hex(seed1_hex), combine_client_seeds(seeds{"alice", "bob"}), 0, {});
  EXPECT_EQ(format_cards(deck, {}).substr(0, 29), "4s Jd 7d Ts Kh 6d 9c Kd 8s Qc");
}

TEST(FairVectors, SeatSeedsAreValidatedAndNamed) {
  using seeds = std::vector<std::string>;
  EXPECT_THROW((void)combine_client_seeds(seeds{}), fair_input_error);
  try {
    (void)combine_client_seeds(seeds{"alice", "bad\nseed"});
    FAIL() << "a control character in seat 2 must be refused";
  } catch (const fair_input_error& e) {
    EXPECT_NE(std::string(e.what()).find("seat 2"), std::string::npos) << e.what();
  }
}
