// Trusted proxies, X-Forwarded-For and connection caps (apps/fairdeckd/clients.hpp); the
// transport around them is tested against the real binary in transport_test.py.
#include <stdexcept>

#include <gtest/gtest.h>

#include "clients.hpp"

namespace fairdeck::service {
namespace {

using boost::asio::ip::make_address;

trusted_proxies proxies(std::initializer_list<const char*> nets) {
  trusted_proxies t;
  for (const char* n : nets) t.add(n);
  return t;
}

TEST(ServiceClients, TrustedProxyNetworks) {
  const auto t = proxies({"127.0.0.1", "10.0.0.0/8", "192.168.1.0/25", "fd00::/8", "::1"});
  EXPECT_TRUE(t.contains(make_address("127.0.0.1")));
  EXPECT_FALSE(t.contains(make_address("127.0.0.2")));
  EXPECT_TRUE(t.contains(make_address("10.255.1.2")));
  EXPECT_FALSE(t.contains(make_address("11.0.0.1")));
  EXPECT_TRUE(t.contains(make_address("192.168.1.127")));
  EXPECT_FALSE(t.contains(make_address("192.168.1.128")));  // /25: a prefix inside a byte
  EXPECT_TRUE(t.contains(make_address("fd12:3456::1")));
  EXPECT_FALSE(t.contains(make_address("fe80::1")));
  EXPECT_TRUE(t.contains(make_address("::1")));
  EXPECT_TRUE(t.contains(make_address("::ffff:10.1.2.3")));  // IPv4 seen by a dual-stack listener
  EXPECT_FALSE(t.contains(make_address("::ffff:11.1.2.3")));
  EXPECT_TRUE(proxies({"0.0.0.0/0"}).contains(make_address("8.8.8.8")));
  EXPECT_FALSE(proxies({"0.0.0.0/0"}).contains(make_address("2001:db8::1")));  // IPv4 networks hold no IPv6
  EXPECT_FALSE(trusted_proxies{}.contains(make_address("127.0.0.1")));
}

TEST(ServiceClients, TrustedProxyTextIsChecked) {
  trusted_proxies t;
  for (const char* bad : {"", "proxy.example", "10.0.0.0/", "10.0.0.0/33", "::/129", "10.0.0.0/-1", "10.0.0.0/8x",
                          "1.2.3.4:80", "10.0.0.0/0008"})
    EXPECT_THROW(t.add(bad), std::invalid_argument) << bad;
  EXPECT_NO_THROW(t.add("[::1]"));
  EXPECT_TRUE(t.contains(make_address("::1")));
}

TEST(ServiceClients, XForwardedForOnlyFromTrustedProxies) {
  const auto t = proxies({"127.0.0.1", "10.0.0.0/8"});
  const auto proxy = make_address("127.0.0.1"), stranger = make_address("198.51.100.1");
  // an untrusted peer is itself, whatever it sends
  EXPECT_EQ(real_client(stranger, "203.0.113.7", t), "198.51.100.1");
  EXPECT_EQ(real_client(proxy, "", t), "127.0.0.1");
  // the right-most address that is not a trusted proxy; forged entries on the left do not matter
  EXPECT_EQ(real_client(proxy, "203.0.113.7", t), "203.0.113.7");
  EXPECT_EQ(real_client(proxy, "1.1.1.1, 203.0.113.7", t), "203.0.113.7");
  EXPECT_EQ(real_client(proxy, "1.1.1.1,203.0.113.7 , 10.0.0.9,10.1.1.1", t), "203.0.113.7");
  EXPECT_EQ(real_client(proxy, "2001:db8::7", t), "2001:db8::7");
  EXPECT_EQ(real_client(proxy, "[2001:db8::7]", t), "2001:db8::7");
  EXPECT_EQ(real_client(proxy, "::ffff:203.0.113.7", t), "203.0.113.7");
  // every hop trusted: the left-most
  EXPECT_EQ(real_client(proxy, "10.0.0.1, 10.0.0.2", t), "10.0.0.1");
  // not an address where the client should be: the proxy (a client cannot pick a fresh identity)
  EXPECT_EQ(real_client(proxy, "1.1.1.1, garbage", t), "127.0.0.1");
  EXPECT_EQ(real_client(proxy, "203.0.113.7,", t), "127.0.0.1");
  EXPECT_EQ(real_client(proxy, "203.0.113.7:4711", t), "127.0.0.1");
  EXPECT_EQ(real_client(make_address("::ffff:127.0.0.1"), "203.0.113.7", t), "203.0.113.7");
  EXPECT_EQ(real_client(make_address("::ffff:198.51.100.1"), "", t), "198.51.100.1");
}

TEST(ServiceClients, ConnectionCaps) {
  connection_counter c(3, 2);
  const auto a = make_address("192.0.2.1"), b = make_address("192.0.2.2"), p = make_address("127.0.0.1");
  auto a1 = c.try_acquire(a, false);
  auto a2 = c.try_acquire(make_address("::ffff:192.0.2.1"), false);  // the same client
  ASSERT_TRUE(a1 && a2);
  EXPECT_FALSE(c.try_acquire(a, false)) << "per-client cap";
  auto b1 = c.try_acquire(b, false);
  ASSERT_TRUE(b1);
  EXPECT_EQ(c.open(), 3u);
  EXPECT_FALSE(c.try_acquire(p, true)) << "the global cap holds for trusted proxies too";
  a1.reset();
  EXPECT_EQ(c.open(), 2u);
  auto a3 = c.try_acquire(a, false);
  EXPECT_TRUE(a3) << "a released slot is reused";
  a2.reset();
  a3.reset();
  b1.reset();
  EXPECT_EQ(c.open(), 0u);
  connection_counter d(10, 1);
  auto p1 = d.try_acquire(p, true), p2 = d.try_acquire(p, true);
  EXPECT_TRUE(p1 && p2) << "trusted proxies are exempt from the per-client cap";
  auto x1 = d.try_acquire(a, false);
  EXPECT_TRUE(x1);
  EXPECT_FALSE(d.try_acquire(a, false));
}

}  // namespace
}  // namespace fairdeck::service
