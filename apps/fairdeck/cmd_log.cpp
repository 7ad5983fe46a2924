// fairdeck log verify: a table's log (GET /v1/tables/{t}/log) against the transparency log's
// signed checkpoints and the players' deal receipts (docs/cli-log.md). The checks are
// fairdeck::service::verify_transparency; this file reads the inputs and words the verdict.
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "command.hpp"
#include "fairdeck/service/transparency.hpp"
#include "fairdeck/util/read_input.hpp"
#include "log_key.hpp"
#include "options.hpp"

namespace fairdeck::cli::cmd_log {
namespace {

constexpr std::size_t max_log_bytes = std::size_t{1} << 30;
constexpr std::size_t max_note_bytes = std::size_t{1} << 20;

struct log_options {
  std::string key;
  std::string log;
  std::vector<std::string> checkpoints;
  std::vector<std::string> receipts;
  std::vector<std::string> proofs;
  bool json = false;
};

std::string read_named(const std::string& path, std::size_t max, std::string_view what) {
  try {
    return read_input(path, max, what);
  } catch (const std::runtime_error& e) {
    throw usage_error(e.what());
  }
}

nlohmann::json checkpoint_json(const service::checkpoint_check& c) {
  nlohmann::json j{{"file", c.name}, {"verified", c.ok}, {"root_checked", c.root_checked}};
  j["origin"] = c.cp ? nlohmann::json(c.cp->origin) : nlohmann::json(nullptr);
  j["tree_size"] = c.cp ? nlohmann::json(c.cp->size) : nlohmann::json(nullptr);
  j["root"] = c.cp ? nlohmann::json(tlog::to_hex(c.cp->root)) : nlohmann::json(nullptr);
  j["problem"] = c.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(c.problem);
  return j;
}

nlohmann::json receipt_json(const service::receipt_check& r) {
  nlohmann::json j{{"file", r.name}, {"verified", r.ok}, {"in_log", r.in_log}};
  j["seq"] = r.seq ? nlohmann::json(*r.seq) : nlohmann::json(nullptr);
  j["hash"] = r.hash.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.hash);
  j["tree_size"] = r.tree_size ? nlohmann::json(*r.tree_size) : nlohmann::json(nullptr);
  j["problem"] = r.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(r.problem);
  return j;
}

nlohmann::json proof_json(const service::proof_check& p) {
  return {{"file", p.name}, {"verified", p.ok}, {"from", p.from}, {"to", p.to},
          {"problem", p.problem.empty() ? nlohmann::json(nullptr) : nlohmann::json(p.problem)}};
}

void print_text(const service::transparency_check& v) {
  if (!v.log_given) fmt::print("log: not given: the records, their chain and shoes are not checked\n");
  if (v.records) {
    const std::uint64_t last = v.first_seq + v.records - 1;
    fmt::print("log: table {}, records {}..{} ({})\n", v.table, v.first_seq, last,
               v.partial ? fmt::format("PARTIAL: it does not start at seq 0") : "the whole log from seq 0");
    if (v.chain.ok)
      fmt::print("chain: verified; {} deals, {} re-dealt from revealed seeds, {} waiting for the reveal of their seed\n",
                 v.chain.deals, v.chain.deals_verified, v.chain.deals_unrevealed);
    if (v.chain.ok && v.chain.mental_hands)
      fmt::print("mental poker: {} hands, {} steps; {} transcripts re-verified from the log\n", v.chain.mental_hands,
                 v.chain.mental_steps, v.chain.mental_hands_verified);
    if (v.shoe_checked) fmt::print("seats and shoe: checked for every deal against the open record\n");
  }
  for (const auto& c : v.checkpoints)
    if (c.ok)
      fmt::print("checkpoint {}: signed, size {}, {}\n", c.name, c.cp->size,
                 c.root_checked ? "root matches the log" : "root not checked (partial log)");
  for (const auto& r : v.receipts)
    if (r.ok)
      fmt::print("receipt {}: record {} included in its signed checkpoint (size {}){}\n", r.name, *r.seq, *r.tree_size,
                 r.in_log ? ", the same record in the log" : "");
  for (const auto& p : v.proofs)
    if (p.ok) fmt::print("proof {}: the checkpoint of size {} is a prefix of the one of size {}\n", p.name, p.from, p.to);
  if (v.consistency_proved) fmt::print("checkpoints: all sizes linked by verified consistency proofs\n");
  for (const auto& s : v.skipped) fmt::print("skipped: {}\n", s);
  if (!v.ok) {
    fmt::print("NOT verified: {}\n", v.problems.front());
    for (std::size_t i = 1; i < v.problems.size(); ++i) fmt::print("also: {}\n", v.problems[i]);
  } else if (!v.log_given) {
    fmt::print("verified without the log: {} checkpoint{}, {} receipt{}, {} consistency proof{}\n", v.checkpoints.size(),
               v.checkpoints.size() == 1 ? "" : "s", v.receipts.size(), v.receipts.size() == 1 ? "" : "s",
               v.proofs.size(), v.proofs.size() == 1 ? "" : "s");
  } else if (v.partial) {
    fmt::print("verified as far as a partial log allows (records {}.. only; see 'skipped')\n", v.first_seq);
  } else {
    fmt::print("verified: the whole log, {} checkpoint{} and {} receipt{}\n", v.checkpoints.size(),
               v.checkpoints.size() == 1 ? "" : "s", v.receipts.size(), v.receipts.size() == 1 ? "" : "s");
  }
}

int run_verify(const log_options& o) {
  const tlog::note_verifier key = load_log_key(o.key, "--key");
  if (o.log.empty() && o.checkpoints.empty() && o.receipts.empty())
    throw usage_error("log verify needs --log, or --checkpoint/--receipt to check without the log");
  std::vector<service::record> records;
  std::string log_problem;
  if (!o.log.empty()) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(read_named(o.log, max_log_bytes, "log"));
    } catch (const nlohmann::json::parse_error& e) {
      throw usage_error(fmt::format("--log: not JSON ({})", e.what()));
    }
    try {
      records = service::records_from_log_json(j);
    } catch (const std::invalid_argument& e) {
      log_problem = e.what();  // a malformed record is a log that does not verify (exit 1)
    }
  }
  std::vector<service::named_text> cps, receipts, proofs;
  for (const auto& f : o.checkpoints) cps.push_back({f, read_named(f, max_note_bytes, "checkpoint")});
  for (const auto& f : o.receipts) receipts.push_back({f, read_named(f, max_note_bytes, "receipt")});
  for (const auto& f : o.proofs) proofs.push_back({f, read_named(f, max_note_bytes, "proof")});

  service::transparency_check v;
  if (o.log.empty()) {
    v = service::verify_without_log(key, cps, receipts, proofs);
  } else if (log_problem.empty()) {
    v = service::verify_transparency(key, records, cps, receipts, proofs);
  } else {
    v.ok = false;
    v.problems.push_back(log_problem);
  }
  if (o.json) {
    nlohmann::json j{{"verified", v.ok},
                     {"problem", v.ok ? nlohmann::json(nullptr) : nlohmann::json(v.problems.front())},
                     {"problems", v.problems},
                     {"table", v.table},
                     {"log_given", v.log_given},
                     {"partial", v.partial},
                     {"first_seq", v.first_seq},
                     {"records", v.records},
                     {"chain",
                      {{"verified", v.chain.ok},
                       {"deals", v.chain.deals},
                       {"deals_verified", v.chain.deals_verified},
                       {"deals_unrevealed", v.chain.deals_unrevealed},
                       {"mental_hands", v.chain.mental_hands},
                       {"mental_steps", v.chain.mental_steps},
                       {"mental_hands_verified", v.chain.mental_hands_verified}}},
                     {"shoe_checked", v.shoe_checked},
                     {"checkpoints", nlohmann::json::array()},
                     {"receipts", nlohmann::json::array()},
                     {"proofs", nlohmann::json::array()},
                     {"consistency_proved", v.consistency_proved},
                     {"skipped", v.skipped}};
    for (const auto& c : v.checkpoints) j["checkpoints"].push_back(checkpoint_json(c));
    for (const auto& r : v.receipts) j["receipts"].push_back(receipt_json(r));
    for (const auto& p : v.proofs) j["proofs"].push_back(proof_json(p));
    print_json(j);
  } else {
    print_text(v);
  }
  return v.ok ? 0 : 1;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<log_options>();
  auto* log = app.add_subcommand("log", "Transparency log of a fairdeckd table: check it (docs/cli-log.md)");
  log->require_subcommand(1);
  auto* verify = log->add_subcommand(
      "verify", "Check a table's log, its signed checkpoints and deal receipts: exit 0 verified, 1 not");
  verify->add_option("--key", o->key, "The log's verifier key (GET /v1/log-key): the key text itself or a file holding it")
      ->required();
  verify->add_option("--log", o->log,
                     "The table's log as GET /v1/tables/T/log serves it (FILE, '-': stdin); without it, the "
                     "checkpoints, receipts and proofs are checked on their own");
  verify->add_option("--checkpoint", o->checkpoints, "A signed checkpoint note (GET /v1/tables/T/checkpoint); repeatable")
      ->allow_extra_args(false);
  verify->add_option("--receipt", o->receipts, "A deal answer with its receipt, as fairdeckd served it; repeatable")
      ->allow_extra_args(false);
  verify->add_option("--proof", o->proofs,
                     "A consistency proof between two of the checkpoints' sizes, as GET "
                     "/v1/tables/T/proof/consistency answers it in JSON (hex or base64); repeatable")
      ->allow_extra_args(false);
  verify->add_flag("--json", o->json, "Machine-readable output (docs/cli-log.md)");
  verify->callback([o, &exit_code] { exit_code = run_verify(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_log

FAIRDECK_REGISTER_COMMAND(55, fairdeck::cli::cmd_log::setup)
