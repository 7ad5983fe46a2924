// `fair verify --deals` takes fairdeckd's deal answers as served (issue #29): `nonce` a JSON
// number, `cards` one string. The answer below is record 1 of docs/log-format.md's example as
// POST /v1/tables/{t}/deals returns it (seed of vector 1 revealed by record 2).
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "fair_test_vectors.hpp"
#include "cli_runner.hpp"

namespace {

using fairdeck::testing::run_cli;

using fairdeck::testing::commitment1;
const char* const seed1 = fairdeck::testing::seed1_hex;

nlohmann::json service_answer() {
  return {{"table", "demo"},
          {"seq", 1},
          {"nonce", 0},
          {"commitment", commitment1},
          {"seat_seeds", {"alice", "bob"}},
          {"client_seed", "a5195abbbba1c6f6166a75a4e5422ccda605c740adeca49baf969ab2f0f039a5"},
          {"decks", 1},
          {"jokers", 0},
          {"cards", "4s Jd 7d Ts Kh 6d 9c Kd 8s Qc 6s 6h 8d 5h 3c 5d 9s Qs Td 5s 3s 2s Th 3d 5c Qd Jh 4d 7c 2c 8h Qh "
                    "Tc 4h Ah As Jc Kc 9h Ac 9d Ks 2d Ad Js 7h 3h 7s 6c 8c 4c 2h"},
          {"time", "2026-11-23T12:00:01.000Z"},
          {"prev_hash", "b2399a83d65cee5847a96da743642236bef50dc7dd176299b48f874616eb3556"},
          {"hash", "36e1e81c6f1c7e9f63996e6b2ff34465a5729d873b1dae084fdd4fd091f3f8b5"}};
}

std::string verify_args() {
  return std::string("fair verify --server-seed ") + seed1 + " --commitment " + commitment1 + " --deals -";
}

TEST(FairDealsServiceAnswers, AcceptedAsServed) {
  const auto r = run_cli(verify_args(), service_answer().dump() + "\n");
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("verified: 1 deal, nonces 0..0 consecutive"), std::string::npos) << r.out;
}

TEST(FairDealsServiceAnswers, ATamperedServedDealIsNotVerified) {
  auto a = service_answer();
  auto cards = a["cards"].get<std::string>();
  std::swap(cards[0], cards[3]);  // "4s Jd" -> "Js 4d": two cards exchanged suits
  a["cards"] = cards;
  const auto r = run_cli(verify_args(), a.dump() + "\n");
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  auto b = service_answer();
  b["nonce"] = 1;
  EXPECT_EQ(run_cli(verify_args(), b.dump() + "\n").exit_code, 1);
}

TEST(FairDealsServiceAnswers, NonceOutOfRangeIsAUsageError) {
  auto a = service_answer();
  a["nonce"] = -1;
  const auto r = run_cli(verify_args(), a.dump() + "\n");
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("\"nonce\" is not 0..2^64-1"), std::string::npos) << r.err;
}

}  // namespace
