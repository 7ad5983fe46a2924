// Trusted proxies, X-Forwarded-For and connection caps (see clients.hpp).
#include "clients.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace fairdeck::service {
namespace {

namespace ip = boost::asio::ip;

std::array<unsigned char, 16> as_v6_bytes(const ip::address& a) {
  return a.is_v4() ? ip::make_address_v6(ip::v4_mapped, a.to_v4()).to_bytes() : a.to_v6().to_bytes();
}

bool parse_address(std::string_view text, ip::address& out) {
  if (text.size() >= 2 && text.front() == '[' && text.back() == ']') text = text.substr(1, text.size() - 2);
  boost::system::error_code ec;
  out = ip::make_address(std::string(text), ec);
  return !ec;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace

ip::address normalize(const ip::address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, a.to_v6());
  return a;
}

void trusted_proxies::add(std::string_view text) {
  const auto slash = text.find('/');
  ip::address a;
  if (!parse_address(text.substr(0, slash), a))
    throw std::invalid_argument(fmt::format("'{}' is not an IP address or ADDR/PREFIX network", text));
  a = normalize(a);
  const unsigned bits = a.is_v4() ? 32 : 128;
  unsigned prefix = bits;
  if (slash != std::string_view::npos) {
    const auto p = text.substr(slash + 1);
    unsigned v = 0;
    bool ok = !p.empty() && p.size() <= 3;
    for (const char c : p) {
      if (c < '0' || c > '9') ok = false;
      else v = v * 10 + static_cast<unsigned>(c - '0');
    }
    if (!ok || v > bits) throw std::invalid_argument(fmt::format("'{}': the prefix length must be 0..{}", text, bits));
    prefix = v;
  }
  nets_.push_back({as_v6_bytes(a), prefix + (a.is_v4() ? 96 : 0)});
}

bool trusted_proxies::contains(const ip::address& addr) const noexcept {
  const auto b = as_v6_bytes(normalize(addr));
  for (const auto& n : nets_) {
    bool match = true;
    for (unsigned bit = 0; bit < n.prefix && match; bit += 8) {
      const unsigned take = n.prefix - bit >= 8 ? 8 : n.prefix - bit;
      const auto mask = static_cast<unsigned char>(0xFF00u >> take);
      match = (b[bit / 8] & mask) == (n.bytes[bit / 8] & mask);
    }
    if (match) return true;
  }
  return false;
}

std::string real_client(const ip::address& peer, std::string_view xff, const trusted_proxies& trusted) {
  const ip::address p = normalize(peer);
  if (xff.empty() || !trusted.contains(p)) return p.to_string();
  // Walk from the right: each trusted proxy appended the address it saw.
  ip::address last = p;
  while (true) {
    const auto comma = xff.rfind(',');
    const auto item = trim(comma == std::string_view::npos ? xff : xff.substr(comma + 1));
    ip::address a;
    if (!parse_address(item, a)) return p.to_string();  // not written by a proxy we trust
    last = normalize(a);
    if (!trusted.contains(last)) return last.to_string();
    if (comma == std::string_view::npos) return last.to_string();  // every hop trusted: the first one
    xff = xff.substr(0, comma);
  }
}

std::unique_ptr<connection_counter::slot> connection_counter::try_acquire(const ip::address& peer, bool exempt) {
  std::string key = exempt ? std::string() : normalize(peer).to_string();
  std::lock_guard lock(mutex_);
  if (total_ >= max_total_) return nullptr;
  if (!exempt) {
    auto& n = per_client_[key];
    if (n >= max_per_client_) {
      if (n == 0) per_client_.erase(key);
      return nullptr;
    }
    ++n;
  }
  ++total_;
  return std::make_unique<slot>(*this, std::move(key));
}

std::size_t connection_counter::open() const {
  std::lock_guard lock(mutex_);
  return total_;
}

void connection_counter::release(const std::string& key) noexcept {
  std::lock_guard lock(mutex_);
  --total_;
  if (key.empty()) return;
  const auto it = per_client_.find(key);
  if (it != per_client_.end() && --it->second == 0) per_client_.erase(it);
}

}  // namespace fairdeck::service
