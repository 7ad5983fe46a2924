// Boost.Beast HTTP transport for fairdeckd (see server.hpp for the guarantees).
#include "server.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "clients.hpp"
#include "fairdeck/util/parallel.hpp"
#include "response_head.hpp"

namespace fairdeck::service {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;
using role_t = http_request::listener_role;
// Each connection's strand as a concrete type, not Asio's type-erased any_io_executor: every
// async step of a request copied and queried that wrapper (shared_ptr copies, virtual calls).
using strand_t = net::strand<net::io_context::executor_type>;
using socket_t = net::basic_stream_socket<tcp, strand_t>;

constexpr auto accept_backoff = std::chrono::milliseconds(100);

std::string_view sv(beast::string_view v) { return {v.data(), v.size()}; }

struct shared_state {
  shared_state(api& h, const server_options& o)
      : handler(h), options(o), connections(o.max_connections, o.max_connections_per_client) {
    for (const auto& p : o.trusted_proxies) proxies.add(p);
  }
  api& handler;
  const server_options& options;
  trusted_proxies proxies;
  connection_counter connections;
  std::atomic<bool> stopping{false};
  std::atomic<int> in_flight{0};
  std::atomic<bool> accept_failing{false};  // an accept-failure episode is under way (logged once)
  std::mutex reserve_mutex;
  int reserve_fd = -1;  // held so that running out of descriptors still leaves one to shed with
};

tcp::endpoint parse_endpoint(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) throw std::invalid_argument(fmt::format("'{}': expected HOST:PORT", text));
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = text.substr(colon + 1);
  unsigned long port = 0;
  try {
    std::size_t used = 0;
    port = std::stoul(port_text, &used);
    if (used != port_text.size() || port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    throw std::invalid_argument(fmt::format("'{}': port must be 0..65535", text));
  }
  beast::error_code ec;
  const auto addr = net::ip::make_address(host, ec);
  if (ec) throw std::invalid_argument(fmt::format("'{}': '{}' is not an IP address", text, host));
  return {addr, static_cast<unsigned short>(port)};
}

tcp::endpoint parse_listen(const std::string& text, std::string_view flag) {
  try {
    return parse_endpoint(text);
  } catch (const std::invalid_argument& e) {
    throw std::runtime_error(fmt::format("{} {}", flag, e.what()));
  }
}

std::string to_text(const tcp::endpoint& ep) {
  return ep.address().is_v6() ? fmt::format("[{}]:{}", ep.address().to_string(), ep.port())
                              : fmt::format("{}:{}", ep.address().to_string(), ep.port());
}

// The answer to a connection over a cap: written without waiting (it fits any socket buffer),
// then the connection is closed.
template <class Socket>
void refuse(Socket& s, shared_state& state) {
  static const std::string body = "{\"error\":\"too many connections\",\"status\":503}\n";
  static const std::string answer = fmt::format(
      "HTTP/1.1 503 Service Unavailable\r\nServer: fairdeckd\r\nContent-Type: application/json\r\n"
      "Cache-Control: no-store\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{}",
      body.size(), body);
  beast::error_code ec;
  s.non_blocking(true, ec);
  s.write_some(net::buffer(answer), ec);
  s.shutdown(net::socket_base::shutdown_both, ec);
  s.close(ec);
  state.handler.count(503);
}

class session : public std::enable_shared_from_this<session> {
 public:
  session(socket_t&& socket, shared_state& state, role_t role, net::ip::address peer,
          std::unique_ptr<connection_counter::slot> slot)
      : stream_(std::move(socket)), state_(state), role_(role), peer_(peer), slot_(std::move(slot)) {}

  void run() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&session::wait_request, shared_from_this()));
  }

 private:
  // Between requests: the idle timeout (a new connection: the header timeout) until a byte arrives.
  void wait_request() {
    if (buffer_.size() > 0) return read_header();  // pipelined: the next request is here already
    if (fresh_)
      stream_.expires_at(accepted_ + std::min(state_.options.header_timeout, state_.options.read_timeout));
    else
      stream_.expires_after(state_.options.idle_timeout);
    stream_.async_read_some(buffer_.prepare(4096),
                            beast::bind_front_handler(&session::on_first_bytes, shared_from_this()));
  }

  void on_first_bytes(beast::error_code ec, std::size_t n) {
    if (ec) return close();  // idle timeout, end of stream, reset
    buffer_.commit(n);
    read_header();
  }

  void read_header() {
    started_ = fresh_ ? accepted_ : std::chrono::steady_clock::now();  // a new connection's clock runs from accept
    fresh_ = false;
    head_only_ = false;
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_.options.max_header));
    parser_->body_limit(state_.options.max_body);
    stream_.expires_at(started_ + std::min(state_.options.header_timeout, state_.options.read_timeout));
    http::async_read_header(stream_, buffer_, *parser_,
                            beast::bind_front_handler(&session::on_header, shared_from_this()));
  }

  void on_header(beast::error_code ec, std::size_t) {
    if (ec) return on_error(ec);
    // RFC 9112 §6.3: a Transfer-Encoding whose final coding is not chunked has no length the
    // server can trust; Beast would read no body and take the body's bytes for the next request
    // (request smuggling behind a lenient proxy). Only the single coding `chunked` is read.
    if (const auto& h = parser_->get(); h.count(http::field::transfer_encoding) > 0 &&
                                        (h.count(http::field::transfer_encoding) != 1 || !parser_->chunked() ||
                                         !beast::iequals(h[http::field::transfer_encoding], "chunked")))
      return reply_error(400, "unsupported Transfer-Encoding (only chunked)");
    if (parser_->is_done()) return on_read({}, 0);
    stream_.expires_at(started_ + state_.options.read_timeout);
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_error(beast::error_code ec) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::operation_aborted)
      return close();
    if (ec == http::error::body_limit) return reply_error(413, "request body too large");
    if (ec == http::error::header_limit) return reply_error(431, "request headers too large");
    if (ec.category() == http::make_error_code(http::error::bad_target).category())
      return reply_error(400, "malformed HTTP request");
    close();
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec) return on_error(ec);
    request_ = parser_->release();
    stream_.expires_never();  // the store answers; no read timeout while we wait
    state_.in_flight.fetch_add(1);
    std::string forwarded;  // every X-Forwarded-For value, in order
    for (auto [it, end] = request_.equal_range("X-Forwarded-For"); it != end; ++it) {
      if (!forwarded.empty()) forwarded += ',';
      forwarded += sv(it->value());
    }
    client_ = real_client(peer_, forwarded, state_.proxies);
    http_request req;
    // HEAD is GET without the body (RFC 9110 §9.3.2): the same route, status and headers.
    head_only_ = request_.method() == http::verb::head;
    req.method = head_only_ ? std::string_view("GET") : sv(request_.method_string());
    req.target = sv(request_.target());
    const auto auth = request_.find(http::field::authorization);
    if (auth != request_.end()) req.authorization = sv(auth->value());
    for (auto [it, end] = request_.equal_range("Idempotency-Key"); it != end; ++it) {
      req.idempotency_key_repeated = req.idempotency_key_repeated || it != request_.find("Idempotency-Key");
      req.idempotency_key = sv(it->value());
    }
    if (const auto accept = request_.find(http::field::accept); accept != request_.end())
      req.accept = sv(accept->value());
    req.body = request_.body();
    req.client = client_;
    req.role = role_;
    req.defer = [ex = stream_.get_executor()](std::function<void()> f) { net::post(ex, std::move(f)); };
    auto self = shared_from_this();
    state_.handler.handle(req, [self](http_response r) mutable {
      // The answer may come from a worker thread (audits, mental-poker steps). The session's
      // reference moves into the I/O thread's handler: a worker must not hold it past the
      // answer, or it could drop the last one (and destroy the socket) after the drained
      // io_context was stopped and serve() returned (a hang or abort at shutdown).
      // (serve() drains the worker pools before the io_context goes: a worker's executor copy,
      // destroyed after it, would reach into the destroyed strand service.)
      auto s = std::move(self);
      if (!s) return;  // a second answer to one request: nothing to send it on
      const auto ex = s->stream_.get_executor();
      net::dispatch(ex, [s = std::move(s), r = std::move(r)]() mutable {
        s->state_.in_flight.fetch_sub(1);
        s->send(std::move(r), s->request_.keep_alive());
      });
    });
  }

  // An answer the transport makes itself (fixed texts only), counted as handle() would.
  void reply_error(unsigned status, std::string_view message) {
    state_.handler.count(status);
    http_response r;
    r.status = status;
    r.body = fmt::format("{{\"error\":\"{}\",\"status\":{}}}\n", message, status);
    send(std::move(r), false);
  }

  void send(http_response r, bool keep_alive) {
    keep_alive = keep_alive && !state_.stopping.load();
    // Head and body as two buffers: the bytes Beast's serializer wrote, without it
    // (response_head.hpp). Both stay members until the write completes.
    head_ = response_head(r, keep_alive);  // a HEAD's Content-Length is its GET's
    body_ = head_only_ ? std::string() : std::move(r.body);
    stream_.expires_after(state_.options.read_timeout);
    const std::array<net::const_buffer, 2> parts{net::buffer(head_), net::buffer(body_)};
    net::async_write(stream_, parts, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
      self->body_.clear();
      if (ec || !keep_alive) return self->close();
      self->wait_request();
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(net::socket_base::shutdown_send, ec);
  }

  beast::basic_stream<tcp, strand_t> stream_;
  shared_state& state_;
  role_t role_;
  net::ip::address peer_;
  std::unique_ptr<connection_counter::slot> slot_;  // released when the connection ends
  bool fresh_ = true;
  std::chrono::steady_clock::time_point accepted_ = std::chrono::steady_clock::now(), started_;
  std::string client_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  std::string head_, body_;  // the answer being written
  bool head_only_ = false;   // the request is a HEAD: answer the GET's head, no body
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, const std::string& text, std::string_view flag, shared_state& state, role_t role)
      : ioc_(ioc), acceptor_(net::make_strand(ioc)), backoff_(acceptor_.get_executor()), state_(state), role_(role) {
    const tcp::endpoint ep = parse_listen(text, flag);
    beast::error_code ec;
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (!ec) acceptor_.non_blocking(true, ec);  // shed() accepts without waiting
    if (ec) throw std::runtime_error(fmt::format("cannot listen on {} ({}): {}", text, flag, ec.message()));
  }
  [[nodiscard]] tcp::endpoint local() const { return acceptor_.local_endpoint(); }
  void run() { do_accept(); }
  void stop() {
    net::post(acceptor_.get_executor(), [self = shared_from_this()] {
      beast::error_code ec;
      self->acceptor_.close(ec);
      self->backoff_.cancel();
    });
  }

 private:
  void do_accept() {
    acceptor_.async_accept(net::make_strand(ioc_), beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }

  void on_accept(beast::error_code ec, socket_t socket) {
    if (ec == net::error::operation_aborted || state_.stopping) return;
    if (ec == net::error::connection_aborted) return do_accept();  // the client gave up; nothing wrong here
    if (ec) return on_accept_failure(ec);
    if (state_.accept_failing.exchange(false))
      std::fprintf(stderr, "fairdeckd: accepting connections again (%zu open)\n", state_.connections.open());
    admit(std::move(socket));
    do_accept();
  }

  void admit(socket_t socket) {
    beast::error_code ec;
    const auto peer = socket.remote_endpoint(ec);
    if (ec) return;  // already gone
    auto slot = state_.connections.try_acquire(peer.address(), state_.proxies.contains(peer.address()));
    if (!slot) return refuse(socket, state_);
    socket.set_option(tcp::no_delay(true), ec);
    std::make_shared<session>(std::move(socket), state_, role_, peer.address(), std::move(slot))->run();
  }

  // Out of descriptors (or another accept failure): re-arming at once would spin, since the
  // pending connection stays pending. Shed it through the reserve descriptor and wait a little.
  void on_accept_failure(beast::error_code ec) {
    // By value: no virtual call on the category while no descriptor is left.
    const bool no_fds = ec.category() == boost::system::system_category() &&
                        (ec.value() == EMFILE || ec.value() == ENFILE);
    if (!state_.accept_failing.exchange(true)) {
      if (no_fds)
        std::fprintf(stderr,
                     "fairdeckd: out of file descriptors (%zu connections open): new connections are answered 503 "
                     "and accept retries every %lld ms; raise LimitNOFILE (ulimit -n) or lower --max-connections\n",
                     state_.connections.open(), static_cast<long long>(accept_backoff.count()));
      else
        std::fprintf(stderr, "fairdeckd: accept failed (%s); retrying every %lld ms\n", ec.message().c_str(),
                     static_cast<long long>(accept_backoff.count()));
    }
    if (no_fds) shed();
    backoff_.expires_after(accept_backoff);
    backoff_.async_wait([self = shared_from_this()](beast::error_code wait_ec) {
      if (!wait_ec && !self->state_.stopping) self->do_accept();
    });
  }

  void shed() {
    std::lock_guard lock(state_.reserve_mutex);
    if (state_.reserve_fd >= 0) ::close(state_.reserve_fd);
    beast::error_code ec;
    tcp::socket s(ioc_);
    acceptor_.accept(s, ec);
    if (!ec) refuse(s, state_);
    state_.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);  // -1 if the store took it; tried again next time
  }

  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  net::steady_timer backoff_;
  shared_state& state_;
  role_t role_;
};

}  // namespace

void check_endpoint(const std::string& text) { parse_endpoint(text); }

void check_trusted_proxy(const std::string& text) { trusted_proxies{}.add(text); }

std::string connection_budget(server_options& o) {
  constexpr std::size_t auto_cap = 4096, reserve = 64;
  const std::size_t want = o.max_connections != 0 ? o.max_connections : auto_cap;
  rlimit rl{};
  if (::getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
    if (o.max_connections == 0) o.max_connections = auto_cap;
    return {};
  }
  const rlim_t need = static_cast<rlim_t>(want + reserve);
  if (rl.rlim_cur < need) {  // raise the soft limit as far as the hard one allows
    rlimit raised = rl;
    raised.rlim_cur = rl.rlim_max == RLIM_INFINITY ? need : std::min(need, rl.rlim_max);
    if (raised.rlim_cur > rl.rlim_cur && ::setrlimit(RLIMIT_NOFILE, &raised) == 0) rl = raised;
  }
  const auto limit = static_cast<std::size_t>(rl.rlim_cur);
  const std::size_t fit = limit - std::min(reserve, limit / 2);
  if (o.max_connections == 0) {
    o.max_connections = std::max<std::size_t>(1, std::min(want, fit));
    return {};
  }
  if (o.max_connections <= fit) return {};
  return fmt::format(
      "warning: --max-connections {} does not fit under the file-descriptor limit {} (ulimit -n, "
      "LimitNOFILE) with {} kept for the store; when descriptors run out, new connections are "
      "answered 503",
      o.max_connections, limit, std::min(reserve, limit / 2));
}

void serve(api& handler, const server_options& o,
           const std::function<void(const std::string&, const std::string&)>& on_listening) {
  const unsigned threads = fairdeck::resolve_threads(o.threads);
  shared_state state{handler, o};  // outlives the io_contexts: sessions they destroy release their slots here
  net::io_context ioc{static_cast<int>(threads)};
  // Two listeners: the operator's has I/O threads of its own (as many again), so neither
  // side's requests queue behind the other's — a flood of public reads does not hold up the
  // game server's deals, and deals at full rate do not hold up /healthz on the public side.
  const bool split = !o.operator_listen.empty();
  net::io_context operator_ioc{static_cast<int>(threads)};
  auto operator_work = net::make_work_guard(operator_ioc);  // its threads run until it is stopped
  std::vector<std::shared_ptr<listener>> listeners;
  listeners.push_back(
      std::make_shared<listener>(ioc, o.listen, "--listen", state, split ? role_t::public_only : role_t::all));
  if (split)
    listeners.push_back(
        std::make_shared<listener>(operator_ioc, o.operator_listen, "--operator-listen", state, role_t::operator_only));
  const std::string bound = to_text(listeners[0]->local());
  const std::string operator_bound = split ? to_text(listeners[1]->local()) : std::string();
  state.reserve_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  for (auto& l : listeners) l->run();

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  net::steady_timer drain(ioc);
  const auto deadline = std::make_shared<std::chrono::steady_clock::time_point>();
  std::function<void(beast::error_code)> check_drained = [&](beast::error_code) {
    if (state.in_flight.load() == 0 || std::chrono::steady_clock::now() > *deadline) {
      operator_ioc.stop();
      return ioc.stop();
    }
    drain.expires_after(std::chrono::milliseconds(20));
    drain.async_wait(check_drained);
  };
  signals.async_wait([&](beast::error_code, int) {
    state.stopping = true;
    for (auto& l : listeners) l->stop();
    *deadline = std::chrono::steady_clock::now() + o.grace;
    check_drained({});
  });

  on_listening(bound, operator_bound);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i)
    pool.emplace_back([&] {
      fairdeck::name_this_thread("fd-io");
      ioc.run();
    });
  for (unsigned i = 0; split && i < threads; ++i)
    pool.emplace_back([&] {
      fairdeck::name_this_thread("fd-op-io");
      operator_ioc.run();
    });
  ioc.run();  // the main thread keeps its name (fairdeckd) and serves too
  operator_ioc.stop();
  for (auto& t : pool) t.join();
  handler.flush();  // late answers post to the stopped io_contexts, which are still alive here
  if (state.reserve_fd >= 0) ::close(state.reserve_fd);
}

}  // namespace fairdeck::service
