// Verification catches every tampered field; parsers reject bad text with clear errors.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "test_support.hpp"
#include "fairdeck/security/provably_fair.hpp"

using namespace fairdeck;
using fairdeck::testing::temp_dir;
using namespace fairdeck::fair;

namespace {

const server_seed seed = server_seed::from_hex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f");
const std::string published = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd";

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST(FairVerify, GenuineDealVerifies) {
  const auto deck = deal_deck(seed, "alice", 0, {});
  const auto v = verify(seed, published, "alice", 0, deck, {});
  EXPECT_TRUE(v.ok());
  EXPECT_EQ(v.describe({}), std::vector<std::string>{"verified"});
  // Hex case does not matter for the published commitment.
  std::string upper = published;
  for (auto& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(verify(seed, upper, "alice", 0, deck, {}).ok());
}

TEST(FairVerify, EveryTamperedFieldIsCaught) {
  const deck_spec spec{};
  const auto deck = deal_deck(seed, "alice", 0, spec);

  auto other_bytes = seed.bytes();
  other_bytes[31] ^= 1;
  const auto wrong_seed = verify(server_seed(other_bytes), published, "alice", 0, deck, spec);
  EXPECT_FALSE(wrong_seed.commitment_matches);
  EXPECT_TRUE(wrong_seed.first_difference.has_value());  // a different seed deals another deck

  std::string wrong_commitment = published;
  wrong_commitment[0] = '7';
  const auto bad_commit = verify(seed, wrong_commitment, "alice", 0, deck, spec);
  EXPECT_FALSE(bad_commit.ok());
  EXPECT_FALSE(bad_commit.commitment_matches);
  EXPECT_FALSE(bad_commit.first_difference);
  EXPECT_NE(joined(bad_commit.describe(spec)).find("commitment does not match: SHA-256(server seed) is " + published),
            std::string::npos);

  EXPECT_TRUE(verify(seed, published, "alicE", 0, deck, spec).first_difference);
  EXPECT_TRUE(verify(seed, published, "alice ", 0, deck, spec).first_difference);
  EXPECT_TRUE(verify(seed, published, "alice", 1, deck, spec).first_difference);
  EXPECT_TRUE(verify(seed, published, "alice", 10, deck, spec).first_difference);

  auto swapped = deck;
  std::swap(swapped[20], swapped[30]);
  const auto sw = verify(seed, published, "alice", 0, swapped, spec);
  ASSERT_TRUE(sw.first_difference);
  EXPECT_EQ(*sw.first_difference, 20u);
  EXPECT_EQ(sw.expected_card, deck[20]);
  EXPECT_EQ(sw.claimed_card, deck[30]);
  EXPECT_EQ(joined(sw.describe(spec)), "deck differs at position 20 (card 21 dealt): expected " +
                                           format_card(deck[20], spec) + ", got " + format_card(deck[30], spec) + "\n");

  auto replaced = deck;  // one card replaced by a duplicate of another
  replaced[51] = replaced[0];
  EXPECT_EQ(verify(seed, published, "alice", 0, replaced, spec).first_difference, 51u);

  const std::span<const card_t> short_deck(deck.data(), 51);
  const auto sh = verify(seed, published, "alice", 0, short_deck, spec);
  EXPECT_FALSE(sh.ok());
  EXPECT_FALSE(sh.size_matches());
  EXPECT_FALSE(sh.first_difference);
  EXPECT_EQ(joined(sh.describe(spec)), "deck size does not match: the deck has 51 cards, the shoe (1 deck, 0 jokers) has 52\n");
  auto long_deck = deck;
  long_deck.push_back(deck[0]);
  EXPECT_FALSE(verify(seed, published, "alice", 0, long_deck, spec).size_matches());

  // The wrong shoe size is a size mismatch even if the claimed cards are the 52-card deal.
  EXPECT_FALSE(verify(seed, published, "alice", 0, deck, {1, 2}).size_matches());
}

TEST(FairVerify, MultiDeckComparesFacesNotCopies) {
  const deck_spec shoe{2, 1};
  const auto deck = deal_deck(seed, "carol", 5, shoe);
  // Text names faces, so parsing the printed deal assigns copies in order of appearance:
  // the indices differ from the deal's, but the faces - and the verdict - agree.
  const auto faces = parse_faces(format_cards(deck, shoe), shoe);
  EXPECT_TRUE(verify(seed, published, "carol", 5, faces, shoe).ok());
  EXPECT_TRUE(verify(seed, published, "carol", 5, parse_cards(format_cards(deck, shoe), shoe), shoe).ok());
  auto swapped = faces;
  const auto other = std::find_if(swapped.begin() + 1, swapped.end(), [&](card_t c) { return c != swapped[0]; });
  std::iter_swap(swapped.begin(), other);
  const auto v = verify(seed, published, "carol", 5, swapped, shoe);
  ASSERT_TRUE(v.first_difference);
  EXPECT_EQ(*v.first_difference, 0u);
}

TEST(FairParse, HexErrorsNameTheProblem) {
  const std::string good(64, 'a');
  EXPECT_NO_THROW((void)parse_hex32(good, "--commitment"));
  EXPECT_EQ(error_of([] { (void)parse_hex32("", "--commitment"); }), "--commitment is empty: expected 64 hex digits");
  EXPECT_EQ(error_of([&] { (void)parse_hex32(good.substr(0, 63), "--commitment"); }),
            "--commitment must be 64 hex digits (32 bytes), got 63");
  EXPECT_EQ(error_of([&] { (void)parse_hex32(good + "0", "--commitment"); }),
            "--commitment must be 64 hex digits (32 bytes), got 65");
  EXPECT_EQ(error_of([&] { (void)parse_hex32("0x" + good.substr(2), "server seed"); }),
            "server seed has a non-hex character 'x' at position 2 (expected 64 hex digits)");
  EXPECT_EQ(error_of([&] { (void)server_seed::from_hex(good.substr(1) + "\xff"); }),
            "server seed has a non-hex character '\\xff' at position 64 (expected 64 hex digits)");
  EXPECT_EQ(server_seed::from_hex(std::string(64, 'F')).hex(), std::string(64, 'f'));
  EXPECT_THROW((void)server_seed::from_hex(" " + good.substr(1)), fair_input_error);
}

TEST(FairParse, NonceIsCanonicalDecimal) {
  EXPECT_EQ(parse_nonce("0"), 0u);
  EXPECT_EQ(parse_nonce("42"), 42u);
  EXPECT_EQ(parse_nonce("18446744073709551615"), 18446744073709551615ull);
  EXPECT_EQ(error_of([] { (void)parse_nonce("18446744073709551616"); }),
            "nonce '18446744073709551616' is larger than 2^64-1 = 18446744073709551615");
  EXPECT_NE(error_of([] { (void)parse_nonce("99999999999999999999999999"); }).find("larger than 2^64-1"),
            std::string::npos);
  for (const char* bad : {"-1", "+1", " 1", "1 ", "1e3", "0x10", "abc", "1.0", "\xe2\x91\xa0"})
    EXPECT_NE(error_of([&] { (void)parse_nonce(bad); }).find("digits only"), std::string::npos) << bad;
  EXPECT_EQ(error_of([] { (void)parse_nonce(""); }), "nonce is empty: expected a decimal integer 0..18446744073709551615");
  EXPECT_NE(error_of([] { (void)parse_nonce("007"); }).find("leading zeros"), std::string::npos);
}

TEST(FairParse, ClientSeed) {
  EXPECT_NO_THROW(validate_client_seed("alice"));
  EXPECT_NO_THROW(validate_client_seed("\xf0\x9f\x82\xa1 ace:of:spades"));
  EXPECT_NO_THROW(validate_client_seed(std::string(max_client_seed_bytes, 'x')));
  EXPECT_NE(error_of([] { validate_client_seed(""); }).find("client seed is empty"), std::string::npos);
  EXPECT_NE(error_of([] { validate_client_seed(std::string(max_client_seed_bytes + 1, 'x')); }).find("at most 1024"),
            std::string::npos);
  EXPECT_EQ(error_of([] { validate_client_seed("ab\xc3"); }), "client seed is not valid UTF-8 (byte 3 is 0xc3)");
  for (const char* bad : {"\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe0\x80\xaf", "\x80", "\xff"})
    EXPECT_THROW(validate_client_seed(bad), fair_input_error) << bad;
  EXPECT_EQ(error_of([] { validate_client_seed("alice\n"); }), "client seed contains a control character (byte 6 is 0x0a)");
  for (const char* bad : {"a\tb", "\x1b[31m", "x\x7f"}) EXPECT_THROW(validate_client_seed(bad), fair_input_error) << bad;
  EXPECT_THROW((void)deal_deck(seed, "", 0, {}), fair_input_error);
}

TEST(FairParse, DeckTextAllowsDuplicateFacesButNotBadTokens) {
  EXPECT_EQ(parse_faces("Ah, Ah  Kd\n", {}), (std::vector<card_t>{parse_card("Ah"), parse_card("Ah"), parse_card("Kd")}));
  EXPECT_TRUE(parse_faces("", {}).empty());
  EXPECT_EQ(error_of([] { (void)parse_faces("Ah Zz", {}); }), "invalid card 'Zz': unknown rank (use A 2-9 T/10 J Q K)");
  EXPECT_THROW((void)parse_faces("X1", {}), card_parse_error);
  EXPECT_EQ(parse_faces("X2", {1, 2}), std::vector<card_t>{53});
}

TEST(FairSeedFile, CreatedPrivateAndNeverOverwritten) {
  temp_dir dir;
  const auto path = dir.path / "seed.txt";
  const mode_t old_mask = ::umask(0);  // even with a permissive umask the file is 0600
  const auto s = create_seed_file(path);
  ::umask(old_mask);
  struct stat st {};
  ASSERT_EQ(::stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  std::ifstream in(path);
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, s.hex() + "\n");
  EXPECT_EQ(read_seed_file(path), s);

  EXPECT_NE(error_of([&] { (void)create_seed_file(path); }).find("already exists"), std::string::npos);
  EXPECT_EQ(read_seed_file(path), s);  // untouched

  const auto link = dir.path / "link.txt";  // a dangling symlink is not followed
  std::filesystem::create_symlink(dir.path / "target.txt", link);
  EXPECT_THROW((void)create_seed_file(link), std::runtime_error);
  EXPECT_FALSE(std::filesystem::exists(dir.path / "target.txt"));

  EXPECT_NE(error_of([&] { (void)create_seed_file(dir.path / "missing" / "seed.txt"); }).find("cannot create"),
            std::string::npos);
}

TEST(FairSeedFile, ReadingRejectsWhatIsNotASeed) {
  temp_dir dir;
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir.path / name) << text;
    return dir.path / name;
  };
  const std::string hex = seed.hex();
  EXPECT_EQ(read_seed_file(write("crlf", hex + "\r\n")), seed);
  EXPECT_EQ(read_seed_file(write("bare", hex)), seed);
  EXPECT_NE(error_of([&] { (void)read_seed_file(write("short", hex.substr(2))); }).find("is not a server seed file"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)read_seed_file(write("big", std::string(5000, 'a'))); }).find("too large"),
            std::string::npos);
  EXPECT_NE(error_of([&] { (void)read_seed_file(write("empty", "")); }).find("is empty"), std::string::npos);
  EXPECT_NE(error_of([&] { (void)read_seed_file(dir.path / "nope"); }).find("cannot open"), std::string::npos);
  // Errors never echo the secret.
  EXPECT_EQ(error_of([&] { (void)read_seed_file(write("long", hex + "0")); }).find(hex.substr(0, 8)), std::string::npos);
}

TEST(FairSeedFile, GeneratedSeedsDiffer) {
  const auto a = server_seed::generate(), b = server_seed::generate();
  EXPECT_NE(a, b);  // 2^-256 false-failure rate
  EXPECT_NE(commitment(a), commitment(b));
}
