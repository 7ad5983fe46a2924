// Boost.Beast HTTP transport for fairdeckd (see server.hpp).
#include "server.hpp"

#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <fmt/format.h>

#include "fairdeck/util/parallel.hpp"

namespace fairdeck::service {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace net = boost::asio;
using tcp = net::ip::tcp;

std::string_view sv(beast::string_view v) { return {v.data(), v.size()}; }

struct shared_state {
  api& handler;
  const server_options& options;
  std::atomic<bool> stopping{false};
  std::atomic<int> in_flight{0};
};

class session : public std::enable_shared_from_this<session> {
 public:
  session(tcp::socket&& socket, shared_state& state) : stream_(std::move(socket)), state_(state) {
    beast::error_code ec;
    const auto ep = stream_.socket().remote_endpoint(ec);
    client_ = ec ? std::string("?") : ep.address().to_string();
  }

  void run() {
    net::dispatch(stream_.get_executor(), beast::bind_front_handler(&session::do_read, shared_from_this()));
  }

 private:
  void do_read() {
    parser_.emplace();
    parser_->header_limit(static_cast<std::uint32_t>(state_.options.max_header));
    parser_->body_limit(state_.options.max_body);
    stream_.expires_after(state_.options.read_timeout);
    http::async_read(stream_, buffer_, *parser_, beast::bind_front_handler(&session::on_read, shared_from_this()));
  }

  void on_read(beast::error_code ec, std::size_t) {
    if (ec == http::error::end_of_stream || ec == beast::error::timeout || ec == net::error::operation_aborted)
      return close();
    if (ec == http::error::body_limit) return reply_error(413, "request body too large");
    if (ec == http::error::header_limit) return reply_error(431, "request headers too large");
    if (ec) {
      if (ec.category() == http::make_error_code(http::error::bad_target).category()) return reply_error(400, "malformed HTTP request");
      return close();
    }
    request_ = parser_->release();
    stream_.expires_never();  // the store answers; no read timeout while we wait
    state_.in_flight.fetch_add(1);
    http_request req;
    req.method = sv(request_.method_string());
    req.target = sv(request_.target());
    const auto auth = request_.find(http::field::authorization);
    if (auth != request_.end()) req.authorization = sv(auth->value());
    req.body = request_.body();
    req.client = client_;
    req.defer = [ex = stream_.get_executor()](std::function<void()> f) { net::post(ex, std::move(f)); };
    auto self = shared_from_this();
    state_.handler.handle(req, [self](http_response r) {
      net::dispatch(self->stream_.get_executor(), [self, r = std::move(r)]() mutable {
        self->state_.in_flight.fetch_sub(1);
        self->send(std::move(r), self->request_.keep_alive());
      });
    });
  }

  void reply_error(unsigned status, std::string_view message) {
    http_response r;
    r.status = status;
    r.body = fmt::format("{{\"error\":\"{}\",\"status\":{}}}\n", message, status);
    send(std::move(r), false);
  }

  void send(http_response r, bool keep_alive) {
    keep_alive = keep_alive && !state_.stopping.load();
    auto res = std::make_shared<http::response<http::string_body>>(static_cast<http::status>(r.status), 11);
    res->set(http::field::server, "fairdeckd");
    res->set(http::field::content_type, r.content_type);
    res->set(http::field::cache_control, "no-store");
    for (const auto& [k, v] : r.headers) res->set(k, v);
    res->keep_alive(keep_alive);
    res->body() = std::move(r.body);
    res->prepare_payload();
    response_ = res;
    stream_.expires_after(state_.options.read_timeout);
    http::async_write(stream_, *res, [self = shared_from_this(), keep_alive](beast::error_code ec, std::size_t) {
      self->response_.reset();
      if (ec || !keep_alive) return self->close();
      self->do_read();
    });
  }

  void close() {
    beast::error_code ec;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ec);
  }

  beast::tcp_stream stream_;
  shared_state& state_;
  std::string client_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::request<http::string_body> request_;
  std::shared_ptr<http::response<http::string_body>> response_;
};

class listener : public std::enable_shared_from_this<listener> {
 public:
  listener(net::io_context& ioc, tcp::endpoint ep, shared_state& state) : ioc_(ioc), acceptor_(ioc), state_(state) {
    beast::error_code ec;
    acceptor_.open(ep.protocol(), ec);
    if (!ec) acceptor_.set_option(net::socket_base::reuse_address(true), ec);
    if (!ec) acceptor_.bind(ep, ec);
    if (!ec) acceptor_.listen(net::socket_base::max_listen_connections, ec);
    if (ec) throw std::runtime_error(fmt::format("cannot listen on {}: {}", state.options.listen, ec.message()));
  }
  [[nodiscard]] tcp::endpoint local() const { return acceptor_.local_endpoint(); }
  void run() { do_accept(); }
  void stop() {
    beast::error_code ec;
    acceptor_.close(ec);
  }

 private:
  void do_accept() {
    acceptor_.async_accept(net::make_strand(ioc_), beast::bind_front_handler(&listener::on_accept, shared_from_this()));
  }
  void on_accept(beast::error_code ec, tcp::socket socket) {
    if (ec == net::error::operation_aborted || state_.stopping) return;
    if (!ec) {
      socket.set_option(tcp::no_delay(true), ec);
      std::make_shared<session>(std::move(socket), state_)->run();
    }
    do_accept();
  }
  net::io_context& ioc_;
  tcp::acceptor acceptor_;
  shared_state& state_;
};

tcp::endpoint parse_listen(const std::string& text) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) throw std::runtime_error(fmt::format("--listen {}: expected HOST:PORT", text));
  std::string host = text.substr(0, colon);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  const std::string port_text = text.substr(colon + 1);
  unsigned long port = 0;
  try {
    std::size_t used = 0;
    port = std::stoul(port_text, &used);
    if (used != port_text.size() || port > 65535) throw std::out_of_range("port");
  } catch (const std::exception&) {
    throw std::runtime_error(fmt::format("--listen {}: port must be 0..65535", text));
  }
  beast::error_code ec;
  const auto addr = net::ip::make_address(host, ec);
  if (ec) throw std::runtime_error(fmt::format("--listen {}: '{}' is not an IP address", text, host));
  return {addr, static_cast<unsigned short>(port)};
}

}  // namespace

void serve(api& handler, const server_options& o, const std::function<void(const std::string&)>& on_listening) {
  const unsigned threads = fairdeck::resolve_threads(o.threads);
  net::io_context ioc{static_cast<int>(threads)};
  shared_state state{handler, o};
  auto l = std::make_shared<listener>(ioc, parse_listen(o.listen), state);
  const auto ep = l->local();
  const std::string bound = ep.address().is_v6() ? fmt::format("[{}]:{}", ep.address().to_string(), ep.port())
                                                  : fmt::format("{}:{}", ep.address().to_string(), ep.port());
  l->run();

  net::signal_set signals(ioc, SIGINT, SIGTERM);
  net::steady_timer drain(ioc);
  const auto deadline = std::make_shared<std::chrono::steady_clock::time_point>();
  std::function<void(beast::error_code)> check_drained = [&](beast::error_code) {
    if (state.in_flight.load() == 0 || std::chrono::steady_clock::now() > *deadline) return ioc.stop();
    drain.expires_after(std::chrono::milliseconds(20));
    drain.async_wait(check_drained);
  };
  signals.async_wait([&](beast::error_code, int) {
    state.stopping = true;
    l->stop();
    *deadline = std::chrono::steady_clock::now() + o.grace;
    check_drained({});
  });

  on_listening(bound);
  std::vector<std::thread> pool;
  for (unsigned i = 1; i < threads; ++i) pool.emplace_back([&] { ioc.run(); });
  ioc.run();
  for (auto& t : pool) t.join();
  handler.flush();  // late answers post to the stopped io_context, which is still alive here
}

}  // namespace fairdeck::service
