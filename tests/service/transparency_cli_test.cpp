// `fairdeck log verify` and `fairdeck witness` through the binary (issue #29): the attacks of
// transparency_test.cpp on files as fairdeckd serves them, and witnesses run against a small
// in-process HTTP server that serves one view of a log, then another (a fork, a rollback).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <mutex>
#include <thread>

#include <sys/stat.h>

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <gtest/gtest.h>

#include "../cli_runner.hpp"
#include "service_test_support.hpp"
#include "transparency_support.hpp"

namespace fairdeck::service {
namespace {

namespace fs = std::filesystem;
namespace net = boost::asio;
namespace http = boost::beast::http;
using fairdeck::testing::run_cli;
using testing::table_sim;
using testing::ten_record_table;
using testing::test_signer;
using testing::log_key;

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }
std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Serves what `view` says for each request: status 0 = accept and never answer.
class fake_service {
 public:
  using view_fn = std::function<std::pair<unsigned, std::string>(const std::string& target)>;
  fake_service() : acceptor_(ioc_, {net::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    thread_ = std::thread([this] { loop(); });
  }
  ~fake_service() {
    stop_ = true;
    try {
      net::io_context io;
      net::ip::tcp::socket s(io);
      s.connect({net::ip::make_address("127.0.0.1"), port_});
    } catch (...) {
    }
    thread_.join();
  }
  fake_service(const fake_service&) = delete;
  fake_service& operator=(const fake_service&) = delete;

  void serve(view_fn v) {
    std::lock_guard lock(mu_);
    view_ = std::move(v);
  }
  // A table's log as fairdeckd would serve it: its checkpoint of `size` and proofs.
  void serve_log(const table_sim& t, std::uint64_t size) {
    serve([t, size](const std::string& target) -> std::pair<unsigned, std::string> {
      if (target == "/v1/tables/demo/checkpoint") return {200, t.checkpoint(log_key(), size)};
      unsigned long long from = 0, to = 0;
      if (std::sscanf(target.c_str(), "/v1/tables/demo/proof/consistency?from=%llu&to=%llu", &from, &to) == 2) {
        nlohmann::json hashes = nlohmann::json::array();
        for (const auto& h : t.tree().consistency_proof(from, to)) hashes.push_back(tlog::to_hex(h));
        return {200, nlohmann::json{{"from", from}, {"to", to}, {"hashes", hashes}}.dump()};
      }
      if (target == "/v1/tables/demo/checkpoint/cosignatures") return {200, "ok\n"};
      return {404, "{\"error\": \"no such route\"}"};
    });
  }
  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] std::vector<std::string> requests() {
    std::lock_guard lock(mu_);
    return requests_;
  }

 private:
  void loop() {
    while (!stop_) {
      net::ip::tcp::socket s(ioc_);
      boost::system::error_code ec;
      acceptor_.accept(s, ec);
      if (stop_ || ec) break;
      try {
        boost::beast::flat_buffer buf;
        http::request<http::string_body> req;
        http::read(s, buf, req);
        std::pair<unsigned, std::string> answer{404, ""};
        {
          std::lock_guard lock(mu_);
          requests_.push_back(std::string(req.method_string()) + " " + std::string(req.target()) + "\n" + req.body());
          if (view_) answer = view_(std::string(req.target()));
        }
        if (answer.first == 0) {  // never answer
          for (int i = 0; i < 40 && !stop_; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
          continue;
        }
        http::response<http::string_body> res{static_cast<http::status>(answer.first), 11};
        res.body() = answer.second;
        res.prepare_payload();
        http::write(s, res);
      } catch (const std::exception&) {
      }
    }
  }
  net::io_context ioc_;
  net::ip::tcp::acceptor acceptor_;
  unsigned short port_ = 0;
  std::atomic<bool> stop_{false};
  std::mutex mu_;
  view_fn view_;
  std::vector<std::string> requests_;
  std::thread thread_;
};

struct files {
  test_dir dir;
  std::string key;  // the log's verifier key text
  files() : key(log_key().verifier().text()) {}
  std::string put(const std::string& name, const std::string& text) {
    write_file(dir.path / name, text);
    return (dir.path / name).string();
  }
};

// ---- log verify ----

TEST(LogVerifyCli, HonestLogCheckpointAndReceiptVerify) {
  files f;
  const table_sim t = ten_record_table();
  const auto log = f.put("log.json", t.log_json().dump());
  const auto cp = f.put("cp.txt", t.checkpoint(log_key(), 10));
  const auto rc = f.put("deal.json", t.receipt(log_key(), 4, 7).dump());
  const auto keyfile = f.put("log.vkey", f.key + "\n");
  const auto r = run_cli("log verify --key " + keyfile + " --log " + log + " --checkpoint " + cp + " --receipt " + rc);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("records 0..9 (the whole log from seq 0)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("waiting for the reveal"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("verified: the whole log, 1 checkpoint and 1 receipt"), std::string::npos) << r.out;
  // The key text itself works as well as a file; stdin for the log.
  const auto s = run_cli("log verify --key '" + f.key + "' --log - --checkpoint " + cp, t.log_json().dump());
  EXPECT_EQ(s.exit_code, 0) << s.out << s.err;
}

TEST(LogVerifyCli, RewrittenDealIsNotVerifiedWithExitOneAndOneLine) {
  files f;
  const table_sim honest = ten_record_table();
  table_sim forged = honest;
  forged.redeal(2, {"alice1", "mallory"}, 0);
  const auto rc = f.put("deal.json", honest.receipt(log_key(), 2, 3).dump());
  const auto log = f.put("log.json", forged.log_json().dump());
  // Without the receipt the rewrite passes (the review's finding); with it, it does not.
  EXPECT_EQ(run_cli("log verify --key '" + f.key + "' --log " + log).exit_code, 0);
  const auto r = run_cli("log verify --key '" + f.key + "' --log " + log + " --receipt " + rc);
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("NOT verified: receipt " + rc + ": the log's record 2 is not the one the receipt proves"),
            std::string::npos)
      << r.out;
  const auto j = run_cli("log verify --json --key '" + f.key + "' --log " + log + " --receipt " + rc);
  const auto parsed = nlohmann::json::parse(j.out);
  EXPECT_FALSE(parsed["verified"].get<bool>());
  EXPECT_EQ(parsed["problem"], parsed["problems"][0]);
  EXPECT_FALSE(parsed["receipts"][0]["in_log"].get<bool>());
  for (const char* key : {"table", "partial", "first_seq", "records", "chain", "shoe_checked", "checkpoints", "skipped"})
    EXPECT_TRUE(parsed.contains(key)) << key;
}

TEST(LogVerifyCli, PartialLogIsNeverCalledWhole) {
  files f;
  const table_sim t = ten_record_table();
  const auto log = f.put("log.json", t.log_json(3).dump());
  const auto cp = f.put("cp.txt", t.checkpoint(log_key(), 10));
  const auto r = run_cli("log verify --key '" + f.key + "' --log " + log + " --checkpoint " + cp);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("PARTIAL"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("skipped: checkpoint roots"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("whole"), std::string::npos) << r.out;
  const auto j = nlohmann::json::parse(run_cli("log verify --json --key '" + f.key + "' --log " + log).out);
  EXPECT_TRUE(j["partial"].get<bool>());
  EXPECT_EQ(j["first_seq"], 3);
}

TEST(LogVerifyCli, CutTailAndBadInputs) {
  files f;
  const table_sim honest = ten_record_table();
  table_sim cut = honest;
  cut.log.resize(8);
  const auto log = f.put("log.json", cut.log_json().dump());
  const auto cp = f.put("cp.txt", honest.checkpoint(log_key(), 10));
  const auto r = run_cli("log verify --key '" + f.key + "' --log " + log + " --checkpoint " + cp);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("the log's tail was cut"), std::string::npos) << r.out;
  // Usage: exit 2, one line.
  EXPECT_EQ(run_cli("log verify --key nonsense --log " + log).exit_code, 2);
  EXPECT_EQ(run_cli("log verify --key '" + f.key + "' --log " + f.put("bad.json", "{not json")).exit_code, 2);
  EXPECT_EQ(run_cli("log verify --key '" + f.key + "' --log " + log + " --checkpoint /nonexistent/cp").exit_code, 2);
  EXPECT_EQ(run_cli("log verify --log " + log).exit_code, 2);
  const auto secret = run_cli("log verify --key '" + log_key().secret_text() + "' --log " + log);
  EXPECT_EQ(secret.exit_code, 2);
  EXPECT_EQ(secret.err.find(log_key().secret_text()), std::string::npos) << "a secret key must never be echoed";
}

// ---- witness ----

std::string witness_args(const fake_service& s, const fs::path& state, const std::string& extra = {}) {
  return "witness --url " + s.url() + " --table demo --key '" + log_key().verifier().text() + "' --state " +
         state.string() + " --timeout 2 " + extra;
}

std::size_t evidence_files(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.path().filename().string().starts_with("evidence-");
  return n;
}

TEST(WitnessCli, AcceptsConsistentGrowthCosignsAndPosts) {
  files f;
  fake_service svc;
  table_sim t = ten_record_table();
  // A witness key of its own.
  const auto wkey = f.dir.path / "witness.key";
  const auto g = run_cli("witness --generate-key witness.example --witness-key " + wkey.string());
  ASSERT_EQ(g.exit_code, 0) << g.err;
  struct stat st {};
  ASSERT_EQ(::stat(wkey.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  const auto wv = tlog::note_verifier::parse(g.out.substr(0, g.out.size() - 1));
  EXPECT_EQ(wv.type(), tlog::key_type::cosignature_v1);
  EXPECT_EQ(run_cli("witness --generate-key again --witness-key " + wkey.string()).exit_code, 2) << "never overwritten";

  const auto state = f.dir.path / "state";
  svc.serve_log(t, 6);
  auto r = run_cli(witness_args(svc, state, "--witness-key " + wkey.string()));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("accepted: first checkpoint of fairdeckd.test/demo accepted: size 6"), std::string::npos) << r.out;
  // The last line is a cosignature/v1 line that verifies over the checkpoint.
  const std::string line = r.out.substr(r.out.rfind("\xE2\x80\x94 "));
  const std::vector<tlog::note_verifier> keys{log_key().verifier(), wv};
  const auto opened = tlog::open_note(t.checkpoint(log_key(), 6) + line, keys);
  EXPECT_EQ(opened.verified.size(), 2u);

  svc.serve_log(t, 10);
  r = run_cli(witness_args(svc, state, "--witness-key " + wkey.string() + " --post"));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("grew from 6 to 10 records, consistent"), std::string::npos) << r.out;
  const auto reqs = svc.requests();
  EXPECT_TRUE(std::any_of(reqs.begin(), reqs.end(), [](const std::string& q) {
    return q.starts_with("GET /v1/tables/demo/proof/consistency?from=6&to=10");
  }));
  const auto post = std::find_if(reqs.begin(), reqs.end(), [](const std::string& q) { return q.starts_with("POST "); });
  ASSERT_NE(post, reqs.end());
  EXPECT_EQ(tlog::open_note(post->substr(post->find('\n') + 1), keys).verified.size(), 2u);
  EXPECT_EQ(service::open_checkpoint(read_file(state / "checkpoint"), log_key().verifier(), "demo").cp.size, 10u);
}

// A witness key file others may read is refused before anything is fetched, as fairdeckd
// refuses such a key file, in one line naming the file and the fix (never the key).
TEST(WitnessCli, WitnessKeyFileOthersMayReadIsRefused) {
  files f;
  const auto wkey = f.dir.path / "witness.key";
  ASSERT_EQ(run_cli("witness --generate-key witness.example --witness-key " + wkey.string()).exit_code, 0);
  const std::string secret = read_file(wkey);
  const auto args = "witness --url http://127.0.0.1:1 --table demo --key '" + f.key + "' --state " +
                    (f.dir.path / "state").string() + " --witness-key " + wkey.string();
  ASSERT_EQ(::chmod(wkey.c_str(), 0644), 0);
  const auto r = run_cli(args);
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("--witness-key: witness key file " + wkey.string() +
                       " is accessible by other users (mode 644); chmod 600 it"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err.find(secret.substr(secret.rfind('+') + 1, 12)), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(f.dir.path / "state"));
  ASSERT_EQ(::chmod(wkey.c_str(), 0600), 0);
  EXPECT_EQ(run_cli(args).exit_code, 4) << "the key accepted, the service unreachable";
}

TEST(WitnessCli, RollbackIsRefusedWithEvidenceAndTheStateKept) {
  files f;
  fake_service svc;
  const table_sim t = ten_record_table();
  const auto state = f.dir.path / "state";
  svc.serve_log(t, 9);
  ASSERT_EQ(run_cli(witness_args(svc, state)).exit_code, 0);
  table_sim rolled = t;
  rolled.log.resize(7);
  svc.serve_log(rolled, 7);
  const auto r = run_cli(witness_args(svc, state));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("CONFLICT: the log shrank from 9 to 7 records"), std::string::npos) << r.out;
  EXPECT_EQ(evidence_files(state), 2u);
  EXPECT_EQ(service::open_checkpoint(read_file(state / "checkpoint"), log_key().verifier(), "demo").cp.size, 9u);
}

TEST(WitnessCli, ForkedLogShownToTwoWitnessesEachRefusesTheOtherView) {
  files f;
  fake_service svc;
  table_sim a = ten_record_table();
  a.log.resize(6);
  a.nonce = 5;
  table_sim b = a;
  a.deal({"alice5", "bob5"});
  b.deal({"alice5", "eve"});
  const auto w1 = f.dir.path / "w1", w2 = f.dir.path / "w2";
  svc.serve_log(a, 7);
  ASSERT_EQ(run_cli(witness_args(svc, w1)).exit_code, 0);
  svc.serve_log(b, 7);
  ASSERT_EQ(run_cli(witness_args(svc, w2)).exit_code, 0);
  // Each view grows on; each witness sees the other one's.
  b.deal({"alice6", "bob6"});
  svc.serve_log(b, 8);
  auto r = run_cli(witness_args(svc, w1));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("CONFLICT: no valid consistency proof from size 7 to 8"), std::string::npos) << r.out;
  EXPECT_EQ(evidence_files(w1), 2u);
  svc.serve_log(a, 7);
  r = run_cli(witness_args(svc, w2));
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("different roots"), std::string::npos) << r.out;
  // The two accepted checkpoints conflict on their own: log verify says the log forked.
  const auto cps = " --checkpoint " + (w1 / "checkpoint").string() + " --checkpoint " + (w2 / "checkpoint").string();
  const auto v = run_cli("log verify --key '" + log_key().verifier().text() + "' --log " +
                         f.put("log.json", a.log_json().dump()) + cps);
  EXPECT_EQ(v.exit_code, 1);
  EXPECT_NE(v.out.find("with different roots: the log forked"), std::string::npos) << v.out;
}

TEST(WitnessCli, UnreachableSilentOrForgedServiceNeverHangsAndAcceptsNothing) {
  files f;
  const auto state = f.dir.path / "state";
  const table_sim t = ten_record_table();
  {
    const auto other = test_signer("fairdeckd.test", 3);  // outlives svc, whose thread signs with it
    fake_service svc;
    svc.serve([](const std::string&) { return std::pair<unsigned, std::string>{0, ""}; });
    const auto start = std::chrono::steady_clock::now();
    const auto r = run_cli(witness_args(svc, state).replace(witness_args(svc, state).find("--timeout 2"), 11, "--timeout 1"));
    EXPECT_EQ(r.exit_code, 4) << r.out << r.err;
    EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(4));
    EXPECT_NE(r.err.find("within 1 s"), std::string::npos) << r.err;
    svc.serve([](const std::string&) { return std::pair<unsigned, std::string>{503, "busy"}; });
    EXPECT_EQ(run_cli(witness_args(svc, state)).exit_code, 4);
    svc.serve([&](const std::string&) { return std::pair<unsigned, std::string>{200, t.checkpoint(other, 5)}; });
    const auto forged = run_cli(witness_args(svc, state));
    EXPECT_EQ(forged.exit_code, 1);
    EXPECT_NE(forged.out.find("NOT accepted"), std::string::npos) << forged.out;
  }
  EXPECT_FALSE(fs::exists(state / "checkpoint"));
  EXPECT_EQ(run_cli("witness --url http://127.0.0.1:1 --table demo --key '" + log_key().verifier().text() +
                    "' --state " + state.string())
                .exit_code,
            4);
  EXPECT_EQ(run_cli("witness --url https://example.org --table demo --key '" + log_key().verifier().text() +
                    "' --state " + state.string())
                .exit_code,
            2);
  EXPECT_EQ(run_cli("witness --url http://127.0.0.1:1 --table 'bad table' --key x --state " + state.string()).exit_code, 2);
}

}  // namespace
}  // namespace fairdeck::service
