#include "fairdeck/certify/certify.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <memory>
#include <optional>
#include <streambuf>
#include <fstream>
#include <iostream>
#include <stdexcept>

#include <fmt/format.h>

#include "fairdeck/certify/cards.hpp"
#include "fairdeck/certify/evidence.hpp"
#include "fairdeck/certify/outcomes.hpp"
#include "fairdeck/certify/validity.hpp"
#include "fairdeck/stats/tests.hpp"
#include "fairdeck/util/sha256.hpp"

namespace fairdeck::certify {
namespace {

// Standard input passed through SHA-256: exactly the bytes the tests consumed are hashed
// (a buffer is hashed once it is used up; of the last one, only what was read), so the
// report names the data even when it came from a pipe and was cut at --max-values.
class hashing_input final : public std::streambuf {
 public:
  explicit hashing_input(std::streambuf* src) : src_(src) {}
  [[nodiscard]] std::string consumed_sha256() {
    if (eback()) update(eback(), gptr());
    setg(nullptr, nullptr, nullptr);
    return hash_.hex();
  }

 protected:
  int_type underflow() override {
    if (gptr() < egptr()) return traits_type::to_int_type(*gptr());
    if (eback()) update(eback(), egptr());  // all of it was consumed
    const std::streamsize n = src_->sgetn(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    if (n <= 0) {
      setg(nullptr, nullptr, nullptr);
      return traits_type::eof();
    }
    setg(buf_.data(), buf_.data(), buf_.data() + n);
    return traits_type::to_int_type(buf_[0]);
  }

 private:
  void update(const char* b, const char* e) { hash_.update(std::string_view(b, static_cast<std::size_t>(e - b))); }
  std::streambuf* src_;
  sha256_hasher hash_;
  std::array<char, 1 << 16> buf_{};
};

// Opens `path` ("-": stdin) and records its name, source and SHA-256. A regular file is
// hashed whole and its size is known; stdin and every other named input (a pipe, a FIFO,
// /dev/stdin, a process substitution /dev/fd/N, a character device) is read once, as a
// stream, and hashed as it is consumed: its size is never asked for (finish() sets the hash).
struct opened_input {
  std::ifstream file;
  std::unique_ptr<hashing_input> hashed;
  std::unique_ptr<std::istream> hashed_stream;
  std::istream* in = nullptr;
  std::optional<std::uint64_t> size;  // regular files only
  input_record record;
  input_record finish() {
    if (hashed) record.sha256 = hashed->consumed_sha256();
    return std::move(record);
  }
};

void open_input(opened_input& o, const std::string& path, std::string family) {
  o.record.family = std::move(family);
  auto stream = [&](std::streambuf* src) {
    o.hashed = std::make_unique<hashing_input>(src);
    o.hashed_stream = std::make_unique<std::istream>(o.hashed.get());
    o.in = o.hashed_stream.get();
  };
  if (path == "-") {
    stream(std::cin.rdbuf());
    o.record.source = "stdin";
    o.record.name = std::string(1, '-');  // (not = "-": GCC 12 -Wrestrict false positive)
    return;
  }
  std::error_code ec;
  const auto st = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::is_directory(st))
    throw std::runtime_error(fmt::format("cannot read input file '{}': it is a directory", path));
  o.file.open(path, std::ios::binary);
  if (!o.file) throw std::runtime_error(fmt::format("cannot open input file '{}'", path));
  o.record.name = path;
  if (!ec && std::filesystem::is_regular_file(st)) {
    o.in = &o.file;
    o.record.source = "file";
    o.record.sha256 = sha256_file_hex(path);
    o.size = std::filesystem::file_size(path, ec);
    if (ec) o.size.reset();
    return;
  }
  stream(o.file.rdbuf());
  o.record.source = "pipe";
}

void add_battery(certification& c, const battery& b, input_record rec) {
  for (auto& t : b.results()) c.tests.push_back(std::move(t));
  c.inputs.push_back(std::move(rec));
}

battery_settings sized(const certify_plan& p, std::uint64_t values) {
  if (!p.size_birthday_to_volume || values == 0 || values == UINT64_MAX) return p.settings;
  battery_settings s = battery_settings::for_volume(values);
  s.serial_lags = p.settings.serial_lags;
  s.birthday_max_log2_points = p.settings.birthday_max_log2_points;
  return s;
}

// The fewest decks with which an audit test's null law holds (validity.hpp's deck rows): 5
// expected per cell for the chi-square tests of positions (the smallest category: one card
// id, the smallest suit or rank), 5 per order, 100 decks for the normal approximation of the
// successions count; max-cell (exact binomial tails, Bonferroni) holds at any size.
std::uint64_t audit_minimum(const std::string& name, const stats::audit_result& a) {
  const std::size_t n = a.cards.size();
  if (n == 0) return 1;
  auto smallest = [&](const stats::categories& cat) {
    std::vector<std::size_t> size;
    for (int c : cat) {
      if (c < 0) continue;
      if (size.size() <= static_cast<std::size_t>(c)) size.resize(static_cast<std::size_t>(c) + 1, 0);
      ++size[static_cast<std::size_t>(c)];
    }
    std::size_t m = n;
    for (std::size_t v : size)
      if (v) m = std::min(m, v);
    return m;
  };
  auto cells = [&](std::size_t smallest_category) {
    return static_cast<std::uint64_t>(std::ceil(min_expected_per_cell * static_cast<double>(n) /
                                                static_cast<double>(smallest_category)));
  };
  if (name == "first-card" || name == "position-card") return cells(1);
  if (name == "first-suit" || name == "position-suit") return cells(smallest(stats::suit_categories(a.cards, a.deck)));
  if (name == "first-rank" || name == "position-rank") return cells(smallest(stats::rank_categories(a.cards, a.deck)));
  if (name == "orders" && n <= 8) {
    std::uint64_t f = 1;
    for (std::size_t i = 2; i <= n; ++i) f *= i;
    return static_cast<std::uint64_t>(min_expected_per_cell) * f;
  }
  if (name == "successions") return validity_of("successions").min;
  return validity_of("audit-other").min;
}

test_result from_audit(const stats::test_result& a, const stats::audit_result& audit) {
  const std::uint64_t deals = audit.counts.trials;
  test_result r{.name = a.name, .family = "decks", .description = a.description,
                .reference = "fairdeck audit (docs/audit.md)", .distribution = a.distribution,
                .statistic = a.statistic, .df = a.df, .p_value = a.p_value, .sample = deals,
                .min_sample = audit_minimum(a.name, audit), .unit = "decks", .note = a.note};
  if (!a.p_value) return invalid(std::move(r), a.note.empty() ? "skipped by the audit" : a.note);
  if (deals < r.min_sample) return invalid(std::move(r), needs(r.min_sample, deals, r.unit));
  if (a.distribution == "chi2" && a.df && a.p_value) {
    r.effect = effect_kind::chi2;
    r.effect_n = static_cast<double>(deals);
  }
  return r;
}

}  // namespace

std::string seeding_description(const engine_spec& e) {
  const engine_info& inf = info(e.id);
  if (e.id == engine_id::secure) return std::string(inf.description) + "; not reproducible";
  if (e.id == engine_id::chacha20 && e.key) return std::string(inf.description) + "; key given by the operator";
  return fmt::format("{}; seed {} ({}reproducible, not secure)", inf.description, e.seed,
                     inf.legacy ? "legacy emulation, " : "");
}

certification run_certification(const certify_plan& p, const run_control& rc) {
  if (!(p.alpha > 0 && p.alpha < 1)) throw std::invalid_argument("alpha must be between 0 and 1");
  if (!p.engine && !p.bad && !p.raw_path && !p.scaled_path && !p.decks_path && !p.hands_path &&
      !p.outcomes_path)
    throw std::invalid_argument("nothing to certify: name an engine or an input");
  certification c;
  if (p.engine) {
    const stream_spec spec = p.engine_range ? stream_spec::scaled(p.engine_range) : engine_raw_spec(*p.engine);
    battery b(spec, sized(p, p.engine_values));
    const std::uint64_t n = feed_engine(*p.engine, p.engine_range, p.engine_values, b, rc);
    input_record rec{.family = b.spec().family, .source = "engine", .name = std::string(info(p.engine->id).name),
                     .description = fmt::format("{} ({}); {}", p.engine_range ? "bounded draws" : "raw output",
                                                spec.describe(), seeding_description(*p.engine)),
                     .volume = n, .unit = "values"};
    if (spec.type == stream_spec::kind::raw) rec.bytes = n * ((spec.bits + 7) / 8);
    add_battery(c, b, std::move(rec));
  }
  if (p.bad && !rc.stopped()) {
    const auto& inf = known_bad_catalog()[static_cast<std::size_t>(*p.bad)];
    battery b(known_bad_spec(*p.bad), sized(p, p.bad_values));
    const std::uint64_t n = feed_known_bad(*p.bad, p.bad_seed, p.bad_values, b, rc);
    add_battery(c, b, {.family = b.spec().family, .source = "known-bad", .name = std::string(inf.name),
                       .description = fmt::format("{}; seed {} (a deliberately flawed generator)", inf.description,
                                                  p.bad_seed),
                       .volume = n, .unit = "values"});
  }
  if (p.raw_path && !rc.stopped()) {
    opened_input o;
    open_input(o, *p.raw_path, "raw");
    const std::uint64_t expect = o.size ? *o.size / (p.word_bits / 8) : UINT64_MAX;
    battery b(stream_spec::raw_words(p.word_bits), sized(p, std::min(expect, p.max_values)));
    const std::uint64_t n = feed_raw(*o.in, p.word_bits, p.max_values, b, rc, expect == UINT64_MAX ? 0 : expect);
    o.record.description = fmt::format("{}-bit little-endian words", p.word_bits);
    o.record.volume = n;
    o.record.unit = "values";
    o.record.bytes = n * (p.word_bits / 8);
    add_battery(c, b, o.finish());
  }
  if (p.scaled_path && !rc.stopped()) {
    opened_input o;
    open_input(o, *p.scaled_path, "scaled");
    // A stream of unknown length is sized by --max-values, as --raw's (without it: the
    // default 2^60 cells, which need about 2^25 values). A file's size gives a lower bound
    // on its values instead: lines are at least 2 bytes.
    std::uint64_t volume = p.max_values;
    if (o.size) {
      const std::uint64_t digits = static_cast<std::uint64_t>(fmt::format("{}", p.range - 1).size()) + 1;
      volume = std::min<std::uint64_t>(p.max_values, *o.size / digits);
    }
    battery b(stream_spec::scaled(p.range), sized(p, volume));
    const std::uint64_t n = feed_scaled(*o.in, p.range, p.max_values, b, rc);
    o.record.description = fmt::format("one integer in [0, {}) per line", p.range);
    o.record.volume = n;
    o.record.unit = "values";
    add_battery(c, b, o.finish());
  }
  if (p.decks_path && !rc.stopped()) {
    opened_input o;
    open_input(o, *p.decks_path, "decks");
    stats::input_settings s;
    s.format = p.deck_format;
    s.deck = p.deck;
    s.label = o.record.name;
    std::optional<deck_outcomes> outcomes;
    std::vector<card_t> top;
    s.on_deck = [&](std::span<const card_t> order, std::span<const card_t> cards) {
      if (!outcomes) {
        bool standard = cards.size() == cards_per_deck;
        for (std::size_t i = 0; standard && i < cards.size(); ++i) standard = cards[i] == i;
        outcomes.emplace(standard);
      }
      top.resize(std::min<std::size_t>(order.size(), 7));
      for (std::size_t i = 0; i < top.size(); ++i) top[i] = cards[order[i]];
      outcomes->add(top);
    };
    stats::audit_result a;
    try {
      a = stats::audit_stream(*o.in, s, rc);
    } catch (const stats::deck_input_error& e) {
      throw std::runtime_error(e.what());
    }
    for (const auto& t : a.tests) c.tests.push_back(from_audit(t, a));
    if (outcomes) outcomes->results(a.cards.size(), c.tests);
    o.record.description = fmt::format("decks of {} cards, one per line", a.cards.size());
    o.record.volume = a.counts.trials;
    o.record.unit = "decks";
    c.inputs.push_back(o.finish());
    c.deck_audit = std::move(a);
  }
  if (p.hands_path && !rc.stopped()) {
    opened_input o;
    open_input(o, *p.hands_path, "hands");
    hand_tallies t;
    read_hands(*o.in, t, rc);
    hand_results(t, c.tests);
    o.record.description = fmt::format("dealt hands: {} of 2 cards, {} of 5, {} of 6, {} of 7; {} with hole cards",
                                       t.hole_hands, t.five.hands, t.six.hands, t.seven.hands, t.holdem.deals());
    o.record.volume = t.hands;
    o.record.unit = "hands";
    c.inputs.push_back(o.finish());
  }
  if (p.outcomes_path && !rc.stopped()) {
    std::optional<outcome_spec> declared;
    if (p.outcome_categories) declared = parse_outcome_spec(*p.outcome_categories);
    opened_input o;
    open_input(o, *p.outcomes_path, "outcomes");
    const outcome_tally t = read_outcomes(*o.in, std::move(declared), rc);
    t.results(c.tests);
    o.record.description = "one outcome per line; categories " + t.spec().describe();
    o.record.volume = t.outcomes();
    o.record.unit = "outcomes";
    c.inputs.push_back(o.finish());
  }
  c.complete = !rc.stopped();
  c.verdict = decide(c.tests, p.alpha);
  planned_data given;
  for (const auto& in : c.inputs) {
    if (in.family == "raw") given.raw_bytes += in.bytes ? in.bytes : in.volume * 8;
    if (in.family == "decks") given.decks += in.volume;
    if (in.family == "hands") given.hands += in.volume;
  }
  c.power = plan_power(given, {}, p.alpha, 0.9, c.verdict.valid_tests);
  if (!c.complete && c.verdict.verdict == outcome::pass) c.verdict.verdict = outcome::invalid;
  return c;
}

}  // namespace fairdeck::certify
