// fairdeck certify: the regulators' RNG battery on an engine's raw or scaled output, on
// outside data, decks and dealt hands, with a signed JSON report (docs/certify.md).
// Exit status: 0 pass, 3 fail, 4 invalid (too little data, or interrupted), 2 usage, 1 error.
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "report_output.hpp"
#include "command.hpp"
#include "fairdeck/certify/certify.hpp"
#include "fairdeck/certify/evidence.hpp"
#include "fairdeck/certify/outcomes.hpp"
#include "fairdeck/certify/power_plan.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "fairdeck/util/sha256.hpp"
#include "options.hpp"
#include "progress.hpp"

namespace fairdeck::cli::cmd_certify {
namespace {

constexpr std::uint64_t default_values = std::uint64_t{1} << 27;  // 1 GiB of 64-bit words

struct certify_options {
  engine_options engine;
  deck_options deck;
  std::uint64_t values = default_values, bytes = 0, range = 0, max_values = 0;
  unsigned word_bits = 64, lags = 16;
  double alpha = 0.01;
  std::string raw, scaled, input, hands, outcomes, categories, format = "auto", known_bad, html, report, sign;
  bool json = false;
  CLI::Option *values_opt = nullptr, *bytes_opt = nullptr, *range_opt = nullptr, *max_opt = nullptr,
              *word_bits_opt = nullptr;
  // subcommands
  std::string keygen_prefix, verify_path, public_key;
  CLI::App *keygen = nullptr, *verify = nullptr, *plan = nullptr;
  // certify plan
  std::uint64_t plan_bytes = 0, plan_decks = 0, plan_hands = 0;
  std::vector<std::string> plan_effects;
  double plan_alpha = 0.01, plan_power = 0.9;
  bool plan_json = false;
};

std::string utc_now() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

certify::certify_plan make_plan(const certify_options& o) {
  certify::certify_plan p;
  if (!(o.alpha > 0 && o.alpha < 1)) throw usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o.alpha));
  if (o.lags < 1 || o.lags > 64) throw usage_error("--lags must be 1..64");
  p.alpha = o.alpha;
  p.settings.serial_lags = o.lags;
  if (o.max_opt->count()) {
    if (o.max_values == 0) throw usage_error("--max-values must be at least 1");
    p.max_values = o.max_values;
  }
  const bool outside =
      !o.raw.empty() || !o.scaled.empty() || !o.input.empty() || !o.hands.empty() || !o.outcomes.empty();
  if (!o.raw.empty()) {
    if (o.word_bits != 32 && o.word_bits != 64) throw usage_error("--word-bits must be 32 or 64");
    p.raw_path = o.raw;
    p.word_bits = o.word_bits;
  }
  if (!o.scaled.empty()) {
    if (!o.range_opt->count()) throw usage_error("--scaled needs --range N (values lie in [0, N))");
    p.scaled_path = o.scaled;
  }
  if (o.range_opt->count()) {
    if (o.range < 2) throw usage_error("--range must be at least 2");
    p.range = o.range;
  }
  if (!o.input.empty()) {
    p.decks_path = o.input;
    p.deck_format = labelled("--format", [&] { return stats::parse_deck_format(o.format); });
    p.deck = o.deck.spec();
  }
  if (!o.hands.empty()) p.hands_path = o.hands;
  if (!o.outcomes.empty()) p.outcomes_path = o.outcomes;
  if (!o.categories.empty()) {
    if (o.outcomes.empty()) throw usage_error("--categories applies only to --outcomes");
    (void)labelled("--categories", [&] { return certify::parse_outcome_spec(o.categories); });
    p.outcome_categories = o.categories;
  }
  if (o.values_opt->count() && o.bytes_opt->count()) throw usage_error("--values and --bytes are mutually exclusive");
  if (o.values_opt->count() && o.values == 0) throw usage_error("--values must be at least 1");
  if (!o.known_bad.empty()) {
    p.bad = labelled("--known-bad", [&] { return certify::parse_known_bad(o.known_bad); });
    p.bad_seed = o.engine.seed_opt->count() ? o.engine.seed : 1;
    p.bad_values = o.values;
  }
  const bool engine_named = o.engine.engine_opt->count() || (o.engine.key_opt && o.engine.key_opt->count()) ||
                            (o.engine.seed_opt->count() && o.known_bad.empty());
  const bool engine_runs = engine_named || (!outside && !p.bad);
  if (o.range_opt->count() && o.scaled.empty() && !engine_runs)
    throw usage_error("--range applies to --scaled FILE or to an engine's draws");
  if (o.word_bits_opt->count() && o.raw.empty()) throw usage_error("--word-bits applies only to --raw");
  if ((o.values_opt->count() || o.bytes_opt->count()) && !engine_runs && !p.bad)
    throw usage_error("--values/--bytes apply to an engine or --known-bad (use --max-values for files)");
  if (engine_runs) {
    p.engine = o.engine.resolve();
    p.engine_range = (o.scaled.empty() && o.range_opt->count()) ? o.range : 0;
    const auto spec = p.engine_range ? certify::stream_spec::scaled(p.engine_range) : certify::engine_raw_spec(*p.engine);
    const unsigned word_bytes = spec.type == certify::stream_spec::kind::raw ? (spec.bits + 7) / 8 : 8;
    p.engine_values = o.bytes_opt->count() ? o.bytes / word_bytes : o.values;
    if (p.engine_values == 0) throw usage_error("--bytes must cover at least one word");
  }
  return p;
}

// A stream of unknown length (stdin, a pipe) sizes the birthday test for 2^60 cells; when
// that left it without data, say how to size it (docs/certify.md).
void note_unsized_streams(const certify_options& o, const certify::certification& c) {
  if (o.max_opt->count()) return;
  for (const auto& in : c.inputs) {
    if ((in.family != "raw" && in.family != "scaled") || (in.source != "stdin" && in.source != "pipe")) continue;
    for (const auto& t : c.tests)
      if (t.family == in.family && t.name.starts_with("birthday-spacings") && t.result == certify::outcome::invalid) {
        std::fprintf(stderr, "fairdeck: note: the length of --%s %s was unknown, so birthday-spacings was sized for "
                             "2^60 cells and lacked data: give --max-values N (the values you send) to size it\n",
                     in.family.c_str(), in.name.c_str());
        return;
      }
  }
}

int run_certify(const certify_options& o) {
  const auto plan = make_plan(o);
  if (!o.sign.empty()) (void)certify::sign_message("", o.sign);  // a bad key fails before the long run
  // Report paths are checked before the long run, against the inputs (util/safe_output.hpp).
  std::vector<std::string> inputs;
  for (const auto* in : {&o.raw, &o.scaled, &o.input, &o.hands, &o.outcomes})
    if (!in->empty()) inputs.push_back(*in);
  for (const auto* out : {&o.report, &o.html})
    if (!out->empty()) (void)check_output_path(*out, inputs);
  certify::certification c;
  {
    progress_bar bar("certifying");
    c = certify::run_certification(plan, bar.control());
  }
  certify_context ctx;
  ctx.engine = plan.engine;
  ctx.date = utc_now();
  std::error_code ec;
  ctx.executable_path = std::filesystem::read_symlink("/proc/self/exe", ec).string();
  ctx.executable_sha256 = sha256_file_hex("/proc/self/exe");
  auto report = certify_json(c, ctx);
  if (!o.sign.empty()) sign_report(report, o.sign);
  if (!o.report.empty()) write_output_file(o.report, report.dump(2) + "\n");
  if (!o.html.empty()) {
    std::ostringstream html;
    write_certify_html(html, report, c.deck_audit ? &*c.deck_audit : nullptr);
    write_output_file(o.html, html.str());
  }
  if (o.json)
    print_json(report);
  else
    print_certify_table(report);
  if (!c.complete) std::fprintf(stderr, "fairdeck: interrupted: the report covers the data read so far\n");
  note_unsized_streams(o, c);
  switch (c.verdict.verdict) {
    case certify::outcome::pass: return 0;
    case certify::outcome::fail: return 3;
    case certify::outcome::invalid: break;
  }
  return 4;
}

// certify plan: what the data would detect, and the data a target effect needs
// (certify/power_plan.hpp). Exit 0, or 2 for usage.
int run_plan(const certify_options& o) {
  if (!(o.plan_alpha > 0 && o.plan_alpha < 1))
    throw usage_error(fmt::format("--alpha must be between 0 and 1, not {}", o.plan_alpha));
  if (!(o.plan_power > 0 && o.plan_power < 1))
    throw usage_error(fmt::format("--power must be between 0 and 1, not {}", o.plan_power));
  std::vector<certify::target_effect> targets;
  for (const auto& e : o.plan_effects) targets.push_back(labelled("--effect", [&] { return certify::parse_target_effect(e); }));
  if (!o.plan_bytes && !o.plan_decks && !o.plan_hands && targets.empty())
    throw usage_error("certify plan needs the data you plan (--bytes, --decks, --hands) or a target --effect");
  const certify::planned_data data{.raw_bytes = o.plan_bytes, .decks = o.plan_decks, .hands = o.plan_hands};
  const auto plan = certify::plan_power(data, targets, o.plan_alpha, o.plan_power);
  if (o.plan_json)
    print_json(report::certify_power_json(plan));
  else
    fmt::print("{}", report::certify_power_table(plan));
  return 0;
}

// Exit status: 0 the signature is valid and made by the pinned key (--public-key); 3 no
// signature, an invalid one, another signer, or a report that repeats a JSON key; 5 the
// signature is valid but no key was pinned (anyone can re-sign a report with a key of their
// own, so an unpinned signature proves nothing about who signed); 1 unreadable files.
constexpr int exit_unpinned = 5;

int run_verify(const certify_options& o) {
  std::ifstream f(o.verify_path, std::ios::binary);
  if (!f) throw std::runtime_error(fmt::format("cannot open report '{}'", o.verify_path));
  std::ostringstream text;
  text << f.rdbuf();
  if (f.bad()) throw std::runtime_error(fmt::format("read error on report '{}'", o.verify_path));
  nlohmann::json r;
  try {
    r = parse_report_strict(text.view());
  } catch (const std::runtime_error& e) {
    fmt::print("fairdeck: {}: {}\n", o.verify_path, e.what());
    return 3;
  }
  // The pinned key is read first: a missing or malformed .pub file is an error (exit 1).
  const std::string pinned = o.public_key.empty() ? std::string() : certify::read_public_key_file(o.public_key);
  if (!r.is_object() || !r.contains("signature") || !r["signature"].is_object() ||
      !r["signature"].value("public_key", nlohmann::json()).is_string() ||
      !r["signature"].value("value", nlohmann::json()).is_string()) {
    fmt::print("fairdeck: {}: no signature (sign with fairdeck certify --sign KEYFILE)\n", o.verify_path);
    return 3;
  }
  const std::string pk = r["signature"]["public_key"].get<std::string>();
  if (!pinned.empty() && pinned != pk) {
    fmt::print("fairdeck: {}: signed by key {}, not by the expected key {}\n", o.verify_path, pk, pinned);
    return 3;
  }
  if (!certify::verify_message(signed_bytes(r), r["signature"]["value"].get<std::string>(), pk)) {
    fmt::print("fairdeck: {}: signature INVALID: the report was changed or not signed by key {}\n", o.verify_path, pk);
    return 3;
  }
  const auto field = [&](const char* key) {
    const auto it = r.find(key);
    return it != r.end() && it->is_string() ? it->get<std::string>() : std::string("?");
  };
  if (pinned.empty()) {
    fmt::print("fairdeck: {}: signature is valid but the key is not pinned: pass --public-key FILE (the signer's "
               ".pub, from the signer, not from the report); it names key {}\n", o.verify_path, pk);
    return exit_unpinned;
  }
  fmt::print("signature valid: Ed25519 key {} (the expected key); verdict {}, dated {}\n", pk, field("verdict"),
             field("date"));
  return 0;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<certify_options>();
  auto* cmd = app.add_subcommand("certify", "RNG certification battery with a signed report for labs (docs/certify.md)");
  add_engine_options(*cmd, o->engine);
  add_deck_options(*cmd, o->deck);
  o->values_opt = cmd->add_option("--values", o->values, "Values to draw from the engine")->capture_default_str();
  o->bytes_opt = cmd->add_option("--bytes", o->bytes, "Or: bytes of raw engine output to test");
  o->range_opt = cmd->add_option("--range", o->range, "Scaled draws in [0, N): the engine's bounded draws, or --scaled's range");
  cmd->add_option("--raw", o->raw, "Test binary words from FILE ('-': stdin)");
  o->word_bits_opt = cmd->add_option("--word-bits", o->word_bits, "Word size of --raw: 32 or 64 (little-endian)")->capture_default_str();
  cmd->add_option("--scaled", o->scaled, "Test integers in [0, --range) from FILE ('-': stdin), one per line");
  cmd->add_option("--input", o->input, "Test decks from FILE ('-': stdin), one per line, as fairdeck audit --input");
  cmd->add_option("--format", o->format, "Deck format: auto, text or indices")->capture_default_str();
  cmd->add_option("--hands", o->hands, "Test dealt hands from FILE, one per line (2, 5, 6 or 7 cards)");
  cmd->add_option("--outcomes", o->outcomes,
                  "Test game outcomes from FILE, one per line, categories declared by '# categories: name=p ...'");
  cmd->add_option("--categories", o->categories,
                  "Declare --outcomes' categories here instead: 'banker=0.458597 player=0.446247 tie=0.095156'");
  o->max_opt = cmd->add_option("--max-values", o->max_values, "Read at most N values from --raw/--scaled");
  std::string bad_names;
  for (const auto& k : certify::known_bad_catalog()) bad_names += fmt::format("{}{}", bad_names.empty() ? "" : ", ", k.name);
  cmd->add_option("--known-bad", o->known_bad, fmt::format("Test a known-bad generator (power check): {}", bad_names));
  cmd->add_option("--alpha", o->alpha, "Family-wise false-fail rate (Holm over all tests)")->capture_default_str();
  cmd->add_option("--lags", o->lags, "Serial-correlation lags 1..K")->capture_default_str();
  cmd->add_flag("--json", o->json, "Print the JSON report (docs/certify.md)");
  cmd->add_option("--report", o->report, "Also write the JSON report to FILE");
  cmd->add_option("--html", o->html, "Also write an HTML report to FILE");
  cmd->add_option("--sign", o->sign, "Sign the JSON report with the Ed25519 key in KEYFILE (fairdeck certify keygen)");
  o->keygen = cmd->add_subcommand("keygen", "Create an Ed25519 key pair: PREFIX.key (secret, 0600) and PREFIX.pub");
  o->keygen->add_option("prefix", o->keygen_prefix, "Path prefix of the key files")->required();
  o->verify = cmd->add_subcommand("verify", "Check the Ed25519 signature of a JSON report against --public-key "
                                  "(exit 0 valid, 3 invalid, 5 valid but no key pinned)");
  o->verify->add_option("report", o->verify_path, "The signed JSON report")->required();
  o->verify->add_option("--public-key", o->public_key,
                        "The signer's key (a .pub file from keygen); without it a valid signature exits 5");
  o->plan = cmd->add_subcommand("plan", "Power before the run: which effects the data given detects, and the data "
                                "a target --effect needs (docs/certify.md)");
  o->plan->add_option("--bytes", o->plan_bytes, "Raw output to test, in bytes (64-bit words)");
  o->plan->add_option("--decks", o->plan_decks, "52-card decks to test");
  o->plan->add_option("--hands", o->plan_hands, "Two-card hands to test");
  o->plan->add_option("--effect", o->plan_effects,
                      "Target effect MEASURE:SIZE, repeatable: bias:E (bit), cell:E (relative, one cell), lag:E "
                      "(correlation), repeat:E (relative repeat-top rate)");
  o->plan->add_option("--alpha", o->plan_alpha, "Family-wise false-fail rate")->capture_default_str();
  o->plan->add_option("--power", o->plan_power, "Power to detect with")->capture_default_str();
  o->plan->add_flag("--json", o->plan_json, "Print the plan as JSON (docs/certify.md)");
  cmd->require_subcommand(0, 1);
  o->keygen->callback([o, &exit_code] {
    const auto k = certify::generate_key_files(o->keygen_prefix);
    fmt::print("wrote {} (secret, keep it safe) and {}\npublic key {}\n", k.secret_path, k.public_path, k.public_key_hex);
    exit_code = 0;
  });
  o->verify->callback([o, &exit_code] { exit_code = run_verify(*o); });
  o->plan->callback([o, &exit_code] { exit_code = run_plan(*o); });
  cmd->callback([o, &exit_code] {
    if (o->keygen->parsed() || o->verify->parsed() || o->plan->parsed()) return;
    exit_code = run_certify(*o);
  });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_certify

FAIRDECK_REGISTER_COMMAND(45, fairdeck::cli::cmd_certify::setup)
