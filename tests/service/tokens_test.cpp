// Issue #27 item 9: operator tokens can be listed (an id and the creation time, never the
// token or its hash) and revoked by id.
#include <gtest/gtest.h>

#include "fairdeck/service/store.hpp"
#include "service_test_support.hpp"

namespace fairdeck::service {
namespace {

TEST(ServiceTokens, IdsAreShortUniqueHashPrefixes) {
  const std::string a = "abcdef01" + std::string(56, '1');
  const std::string b = "abcdef01" + std::string(2, '2') + std::string(54, '3');
  const std::string c = "01234567" + std::string(56, '4');
  const auto ids = token_ids({{a, "t1"}, {b, "t2"}, {c, "t3"}});
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids[0], "abcdef011");  // shares 8 digits with b: one more
  EXPECT_EQ(ids[1], "abcdef012");
  EXPECT_EQ(ids[2], "01234567");
}

TEST(ServiceTokens, ListAndRevokeOnSqlite) {
  test_dir dir;
  store_options o;
  o.db = (dir.path / "t.db").string();
  init_store(o);
  auto s = open_store_for_tokens(o);
  const auto t1 = generate_token(), t2 = generate_token();
  s->add_token_hash(token_hash(t1));
  s->add_token_hash(token_hash(t2));
  const auto rows = s->token_rows();
  ASSERT_EQ(rows.size(), 2u);
  const auto ids = token_ids(rows);
  for (std::size_t i = 0; i < ids.size(); ++i) {
    EXPECT_GE(ids[i].size(), 8u);
    EXPECT_LT(ids[i].size(), 64u);
    EXPECT_EQ(rows[i].second.size(), std::string("2026-11-23T12:00:01.000Z").size()) << rows[i].second;
  }
  const std::string id1 = token_hash(t1).substr(0, 8);
  EXPECT_EQ(s->revoke_token("00000000" + std::string(8, '0')), 0u);
  EXPECT_EQ(s->revoke_token(id1), 1u);
  const auto left = s->token_hashes();
  ASSERT_EQ(left.size(), 1u);
  EXPECT_EQ(left[0], token_hash(t2));
  EXPECT_EQ(s->revoke_token(id1), 0u);  // already gone
  // Two hashes with the same first 8 digits: the short id is ambiguous and revokes nothing.
  s->add_token_hash("feedbeef" + std::string(56, 'a'));
  s->add_token_hash("feedbeef" + std::string(56, 'b'));
  EXPECT_EQ(s->revoke_token("feedbeef"), 2u);
  EXPECT_EQ(s->token_hashes().size(), 3u);
  EXPECT_EQ(s->revoke_token("feedbeefb"), 1u);
  EXPECT_EQ(s->token_hashes().size(), 2u);
}

}  // namespace
}  // namespace fairdeck::service
