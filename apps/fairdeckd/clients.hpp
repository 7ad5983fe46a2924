// Who is the client, and how many connections may it hold (issue #27, items 1 and 3).
//
// - trusted_proxies: the --trusted-proxy addresses/networks. Only a connection whose TCP peer is
//   one of them may name the real client in X-Forwarded-For; anybody else's header is ignored.
// - real_client(): the right-most X-Forwarded-For address that is not itself a trusted proxy
//   (the one the outermost trusted proxy saw), so a client cannot choose its own identity by
//   sending the header itself; anything unparsable falls back to the peer.
// - connection_counter: the global and per-address connection caps. A slot is held for the life
//   of a connection and released by its destructor; trusted proxies are exempt from the
//   per-address cap (every client behind them shares their address) but not from the global one.
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/asio/ip/address.hpp>

namespace fairdeck::service {

class trusted_proxies {
 public:
  // "ADDR" or "ADDR/PREFIX" (IPv4 or IPv6). Throws std::invalid_argument naming the problem.
  void add(std::string_view text);
  [[nodiscard]] bool contains(const boost::asio::ip::address& a) const noexcept;
  [[nodiscard]] bool empty() const noexcept { return nets_.empty(); }

 private:
  struct net {
    std::array<unsigned char, 16> bytes;  // IPv4 as v4-mapped IPv6
    unsigned prefix;                      // of the 128 bits
  };
  std::vector<net> nets_;
};

// IPv4-mapped IPv6 addresses (a dual-stack listener's view of IPv4 peers) as plain IPv4.
boost::asio::ip::address normalize(const boost::asio::ip::address& a);

// The real client's address as text. `x_forwarded_for` is every X-Forwarded-For value in order,
// joined with commas (empty if none).
std::string real_client(const boost::asio::ip::address& peer, std::string_view x_forwarded_for,
                        const trusted_proxies& trusted);

class connection_counter {
 public:
  connection_counter(std::size_t max_total, std::size_t max_per_client)
      : max_total_(max_total), max_per_client_(max_per_client) {}

  class slot {
   public:
    slot(connection_counter& c, std::string key) : counter_(c), key_(std::move(key)) {}
    slot(const slot&) = delete;
    slot& operator=(const slot&) = delete;
    ~slot() { counter_.release(key_); }

   private:
    connection_counter& counter_;
    std::string key_;  // empty: not counted per address
  };

  // A slot, or nullptr when the global cap or (unless `exempt`) the address's cap is reached.
  std::unique_ptr<slot> try_acquire(const boost::asio::ip::address& peer, bool exempt);
  [[nodiscard]] std::size_t open() const;

 private:
  void release(const std::string& key) noexcept;

  std::size_t max_total_, max_per_client_;
  mutable std::mutex mutex_;
  std::size_t total_ = 0;
  std::unordered_map<std::string, std::size_t> per_client_;
};

}  // namespace fairdeck::service
