// docs/log-format.md: canonical text, hashes and the example log (a shared test vector), and
// every rule of "Checking a log".
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/service/records.hpp"

namespace fairdeck::service {
namespace {

const std::string seed1 = "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f";
const std::string seed2 = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

// The example of docs/log-format.md, built from its fields (hashes computed, not copied).
std::vector<record> example() {
  record open;
  open.seq = 0;
  open.type = record_type::open;
  open.table = "demo";
  open.time = "2026-11-23T12:00:00.000Z";
  open.seats = 2;
  open.commitment = fair::commitment(fair::server_seed::from_hex(seed1));
  seal(open, zero_hash);

  record d;
  d.seq = 1;
  d.type = record_type::deal;
  d.table = "demo";
  d.time = "2026-11-23T12:00:01.000Z";
  d.nonce = 0;
  d.commitment = open.commitment;
  d.seat_seeds = {"alice", "bob"};
  d.client_seed = fair::combine_client_seeds(d.seat_seeds);
  d.cards = format_cards(fair::deal_deck(fair::server_seed::from_hex(seed1), d.client_seed, 0, {}), {});
  seal(d, open.hash);

  record rot;
  rot.seq = 2;
  rot.type = record_type::rotate;
  rot.table = "demo";
  rot.time = "2026-11-23T12:00:02.000Z";
  rot.revealed_seed = seed1;
  rot.commitment = open.commitment;
  rot.next_commitment = fair::commitment(fair::server_seed::from_hex(seed2));
  seal(rot, d.hash);
  return {open, d, rot};
}

TEST(ServiceRecords, ExampleHashesOfLogFormatDoc) {
  const auto log = example();
  EXPECT_EQ(log[0].hash, "b2399a83d65cee5847a96da743642236bef50dc7dd176299b48f874616eb3556");
  EXPECT_EQ(log[1].hash, "36e1e81c6f1c7e9f63996e6b2ff34465a5729d873b1dae084fdd4fd091f3f8b5");
  EXPECT_EQ(log[2].hash, "25fe17824cfdf8a16661ae3078ff367df26165aafe99bcfd97990a791c7124d9");
  EXPECT_EQ(log[1].client_seed, "a5195abbbba1c6f6166a75a4e5422ccda605c740adeca49baf969ab2f0f039a5");
  EXPECT_EQ(log[2].next_commitment, "af9613760f72635fbdb44a5a0a63c39f12af30f950a6ee5c971be188e89c4051");
  EXPECT_EQ(canonical_text(log[1]),
            "fairdeck-log-v1\nseq=1\nprev_hash=b2399a83d65cee5847a96da743642236bef50dc7dd176299b48f874616eb3556\n"
            "type=deal\ntable=demo\ntime=2026-11-23T12:00:01.000Z\nnonce=0\n"
            "commitment=630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd\n"
            "seat_seed=alice\nseat_seed=bob\n"
            "client_seed=a5195abbbba1c6f6166a75a4e5422ccda605c740adeca49baf969ab2f0f039a5\ndecks=1\njokers=0\n"
            "cards=4s Jd 7d Ts Kh 6d 9c Kd 8s Qc 6s 6h 8d 5h 3c 5d 9s Qs Td 5s 3s 2s Th 3d 5c Qd Jh 4d 7c 2c 8h Qh "
            "Tc 4h Ah As Jc Kc 9h Ac 9d Ks 2d Ad Js 7h 3h 7s 6c 8c 4c 2h\n");
}

// The JSON block of the doc itself parses into the same records and verifies.
TEST(ServiceRecords, ExampleJsonOfLogFormatDocVerifies) {
  std::ifstream in(FAIRDECK_SOURCE_DIR "/docs/log-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto begin = doc.find("```json\n");
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("```", begin + 8);
  const auto j = nlohmann::json::parse(doc.substr(begin + 8, end - begin - 8));
  std::vector<record> parsed;
  for (const auto& r : j) parsed.push_back(record_from_json(r));
  EXPECT_EQ(parsed, example());
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    EXPECT_EQ(to_json(parsed[i]), j[i]);
    EXPECT_EQ(record_from_canonical(canonical_text(parsed[i]), parsed[i].hash), parsed[i]);  // the stored form
  }
  EXPECT_THROW((void)record_from_canonical("seq=1\n", ""), std::invalid_argument);
  EXPECT_THROW((void)record_from_canonical("fairdeck-log-v1\nseq=x\n", ""), std::invalid_argument);
  EXPECT_THROW((void)record_from_canonical("fairdeck-log-v1\nseq=1", ""), std::invalid_argument);
  const auto check = verify_log(parsed);
  EXPECT_TRUE(check.ok) << check.reason;
  EXPECT_EQ(check.deals, 1u);
  EXPECT_EQ(check.deals_verified, 1u);
  EXPECT_EQ(check.deals_unrevealed, 0u);
}


// The hand example of docs/log-format.md: the same table dealt once through a hand with seat
// commitments (seats "alice" and "bob" again, so the cards are those of the first example).
std::vector<record> hand_example() {
  const auto e = example();
  std::vector<record> out{e[0]};
  const auto add = [&](record r) {
    r.seq = out.size();
    r.table = "demo";
    r.time = fmt::format("2026-11-23T12:00:{:02}.000Z", out.size());
    seal(r, out.back().hash);
    out.push_back(std::move(r));
  };
  record h;
  h.type = record_type::hand_open;
  h.hand = 1;
  h.nonce = 0;
  h.commitment = e[0].commitment;
  h.seats = 2;
  add(h);
  const std::vector<std::string> seeds{"alice", "bob"};
  for (unsigned s = 1; s <= 2; ++s) {
    record c;
    c.type = record_type::commit;
    c.hand = 1;
    c.seat = s;
    c.seat_commitment = fair::seat_commitment(seeds[s - 1]);
    add(c);
  }
  for (unsigned s = 1; s <= 2; ++s) {
    record r;
    r.type = record_type::reveal;
    r.hand = 1;
    r.seat = s;
    r.client_seed = seeds[s - 1];
    add(r);
  }
  record d = e[1];
  d.type = record_type::hand_deal;
  d.hand = 1;
  add(d);
  record rot = e[2];
  add(rot);
  return out;
}

TEST(ServiceRecords, HandExampleOfLogFormatDocVerifies) {
  if (std::getenv("FAIRDECK_PRINT_HAND_EXAMPLE"))  // to regenerate the doc's block
    for (const auto& r : hand_example()) std::cout << to_json(r).dump() << "\n" << canonical_text(r) << "\n";
  std::ifstream in(FAIRDECK_SOURCE_DIR "/docs/log-format.md");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string doc = ss.str();
  const auto section = doc.find("## Example: a hand");
  ASSERT_NE(section, std::string::npos);
  const auto begin = doc.find("```json\n", section);
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("```", begin + 8);
  const auto j = nlohmann::json::parse(doc.substr(begin + 8, end - begin - 8));
  std::vector<record> parsed;
  for (const auto& r : j) parsed.push_back(record_from_json(r));
  const auto built = hand_example();
  EXPECT_EQ(parsed, built);
  for (std::size_t i = 0; i < parsed.size(); ++i) {
    EXPECT_EQ(to_json(parsed[i]), j[i]);
    EXPECT_EQ(record_from_canonical(canonical_text(parsed[i]), parsed[i].hash), parsed[i]);
  }
  EXPECT_EQ(built[6].cards, example()[1].cards);
  const auto check = verify_log(parsed);
  EXPECT_TRUE(check.ok) << check.reason;
  EXPECT_EQ(check.hands_dealt, 1u);
  EXPECT_EQ(check.deals_verified, 1u);
}

log_check check_tampered(const std::function<void(std::vector<record>&)>& edit, bool reseal = false) {
  auto log = example();
  edit(log);
  if (reseal) {
    std::string prev(zero_hash);
    for (auto& r : log) {
      seal(r, prev);
      prev = r.hash;
    }
  }
  return verify_log(log);
}

TEST(ServiceRecords, ChainCatchesEveryTampering) {
  auto c = check_tampered([](auto& l) { l[1].cards[0] = '5'; });
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failed_seq, 1u);
  EXPECT_NE(c.reason.find("hash"), std::string::npos);
  // recomputing the hashes does not help: the revealed seed deals other cards
  c = check_tampered([](auto& l) { std::swap(l[1].cards[0], l[1].cards[3]); }, true);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failed_seq, 1u);
  EXPECT_NE(c.reason.find("cards"), std::string::npos);
  c = check_tampered([](auto& l) { l.erase(l.begin() + 1); });
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failed_seq, 2u);
  c = check_tampered([](auto& l) { std::swap(l[1], l[2]); });
  EXPECT_FALSE(c.ok);
  c = check_tampered([](auto& l) { l[1].nonce = 1; }, true);  // skipped nonce (grinding)
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("nonce"), std::string::npos);
  c = check_tampered([](auto& l) { l[1].client_seed = "alice"; }, true);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("client_seed"), std::string::npos);
  c = check_tampered([](auto& l) { l[2].revealed_seed = std::string(64, '1'); }, true);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.failed_seq, 2u);
  c = check_tampered([](auto& l) { l[1].seat_seeds[1] = "bob\nseat_seed=x"; }, true);  // ambiguous text
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("control"), std::string::npos);
  c = check_tampered([](auto& l) { l[2].table = "other"; }, true);
  EXPECT_FALSE(c.ok);
  c = check_tampered([](auto& l) { l[1].prev_hash = std::string(zero_hash); l[1].hash = compute_hash(l[1]); });
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("prev_hash"), std::string::npos);
}

TEST(ServiceRecords, PartialLogAndUnrevealedDeals) {
  auto log = example();
  const std::vector<record> tail(log.begin() + 1, log.end());
  EXPECT_TRUE(verify_log(tail, 0).ok);
  EXPECT_FALSE(verify_log(tail).ok);  // without `after` it must start at seq 0
  const std::vector<record> head(log.begin(), log.begin() + 2);
  const auto c = verify_log(head);
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.deals_unrevealed, 1u);
}

TEST(ServiceRecords, TableIdsAndTime) {
  EXPECT_TRUE(valid_table_id("demo_1-X"));
  EXPECT_FALSE(valid_table_id(""));
  EXPECT_FALSE(valid_table_id("a/b"));
  EXPECT_FALSE(valid_table_id(std::string(65, 'a')));
  const auto t = utc_now();
  ASSERT_EQ(t.size(), 24u);
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t.back(), 'Z');
}

// utc_time writes its digits in place: the same text as the straightforward fmt::format of
// gmtime_r's fields, at the calendar's edges and at 100,000 random milliseconds up to 9999.
TEST(ServiceRecords, UtcTimeMatchesFormattedFields) {
  const auto expected = [](std::int64_t ms) {
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                       tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
  };
  EXPECT_EQ(utc_time(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(utc_time(951782400123), "2000-02-29T00:00:00.123Z");
  EXPECT_EQ(utc_time(4102444799999), "2099-12-31T23:59:59.999Z");
  EXPECT_EQ(utc_time(253402300799999), "9999-12-31T23:59:59.999Z");
  EXPECT_EQ(utc_time(253402300800000), "10000-01-01T00:00:00.000Z");
  EXPECT_EQ(utc_time(-1), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(utc_time(-1000), "1969-12-31T23:59:59.000Z");
  for (const std::int64_t edge : {std::numeric_limits<std::int64_t>::min(), std::numeric_limits<std::int64_t>::max()}) {
    try {  // a year of nine digits, or the C library's refusal: never an overflow (UBSan in CI)
      EXPECT_EQ(utc_time(edge).back(), 'Z');
    } catch (const std::invalid_argument&) {
    }
  }
  std::uint64_t x = 0x9e3779b97f4a7c15ULL;  // splitmix64 (Steele, Lea, Flood 2014): fixed values
  for (int i = 0; i < 100000; ++i) {
    x += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    const auto ms = static_cast<std::int64_t>(z % 253402300800000ULL);
    ASSERT_EQ(utc_time(ms), expected(ms)) << ms;
  }
}

}  // namespace
}  // namespace fairdeck::service
