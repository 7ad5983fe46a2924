#include "options.hpp"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <iostream>

#include <fmt/format.h>

#include "command.hpp"
#include "seed_option.hpp"

namespace fairdeck::cli {

deck_spec deck_options::spec() const {
  const deck_spec s{decks, jokers};
  labelled("--decks", [&] { validate(deck_spec{decks, 0}); });
  labelled("--jokers", [&] { validate(s); });
  return s;
}

void add_deck_options(CLI::App& cmd, deck_options& o) {
  cmd.add_option("--decks", o.decks, fmt::format("Standard 52-card decks in the shoe (1..{})", max_decks))
      ->capture_default_str();
  cmd.add_option("--jokers", o.jokers, fmt::format("Jokers after the decks (0..{})", max_jokers))->capture_default_str();
}

// The --seed text of each engine_options whose seed was negative (at most one per command).
static std::map<const engine_options*, std::string>& negative_seeds() {
  static std::map<const engine_options*, std::string> seeds;
  return seeds;
}

// Plain decimal in [-2^63, 2^64): a negative S becomes 2^64 + S (Java's long, C's cast) and
// is remembered, since only Java's seeds are signed (allow_negative_seed, seed_option.hpp).
// Everything else is refused as main.cpp's strict check refuses it (no octal, hex, sign on a
// positive value, or overflow).
static std::string seed_decimal(std::string& text, const engine_options& o) {
  const bool minus = !text.empty() && text.front() == '-';
  const std::string digits_text = minus ? text.substr(1) : text;
  if (digits_text.empty() || digits_text.find_first_not_of("0123456789") != std::string::npos)
    return "'" + text + "' is not a decimal integer";
  if (minus) {
    std::int64_t v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc{} || p != text.data() + text.size()) return "'" + text + "' is below -2^63";
    negative_seeds()[&o] = text;
    text = std::to_string(static_cast<std::uint64_t>(v));
    return {};
  }
  std::uint64_t v = 0;
  const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc{} || p != text.data() + text.size()) return "'" + text + "' is larger than 2^64-1";
  negative_seeds().erase(&o);
  text = std::to_string(v);  // no octal surprises for leading zeros
  return {};
}

void allow_negative_seed(const engine_options& o, bool java) {
  const auto it = negative_seeds().find(&o);
  if (it == negative_seeds().end() || java) return;
  throw usage_error(fmt::format("--seed: {} is negative: only Java's seeds are signed (--engine java and --algorithm "
                                "java take it as new Random({}L) does, 2^64{}); others take 0..18446744073709551615",
                                it->second, it->second, it->second));
}

void add_engine_options(CLI::App& cmd, engine_options& o, bool with_key) {
  std::string names;
  for (const auto& e : engine_catalog()) names += fmt::format("{}{}", names.empty() ? "" : ", ", e.name);
  o.engine_opt = cmd.add_option("--engine", o.engine,
                                fmt::format("Random engine: {} (default secure; chacha20 when --seed/--key given)", names));
  o.seed_opt = cmd.add_option("--seed", o.seed,
                              "64-bit seed: reproducible and therefore NOT secure (a negative S is its 64-bit two's "
                              "complement 2^64 + S, as Java's long: new Random(-5))");
  // Not "UINT": main.cpp's strict decimal check would refuse the sign before this runs.
  o.seed_opt->type_name("INT")->transform(
      CLI::Validator([&o](std::string& text) { return seed_decimal(text, o); }, "", "seed"));
  if (with_key) {
    o.key_opt = cmd.add_option("--key", o.key, "ChaCha20 key, 64 hex digits (engine chacha20)");
    o.key_opt->excludes(o.seed_opt);
    o.key_file_opt = cmd.add_option("--key-file", o.key_file,
                                    "Read the ChaCha20 key (64 hex digits) from FILE ('-': stdin): unlike --key, it "
                                    "stays out of the process list");
    o.key_file_opt->excludes(o.seed_opt)->excludes(o.key_opt);
  }
}

engine_spec engine_options::resolve() const {
  std::optional<std::string_view> name, key_hex;
  std::optional<std::uint64_t> s;
  if (engine_opt && engine_opt->count()) name = engine;
  if (seed_opt && seed_opt->count()) s = seed;
  if (key_opt && key_opt->count()) key_hex = key;
  std::string file_key_hex;
  engine_spec spec;
  try {
    if (name) labelled("--engine", [&] { return parse_engine_name(*name); });
    if (key_file_opt && key_file_opt->count()) {
      file_key_hex = labelled("--key-file", [&] { return key_to_hex(read_key_file(key_file)); });
      key_hex = file_key_hex;
    }
    // With the name known good, what is left to refuse is the seed or key it was given.
    const std::string_view flag = s ? "--seed" : !file_key_hex.empty() ? "--key-file" : key_hex ? "--key" : "--engine";
    spec = labelled(flag, [&] { return make_engine_spec(name, s, key_hex); });
  } catch (...) {
    detail::secure_wipe(file_key_hex.data(), file_key_hex.size());
    throw;
  }
  detail::secure_wipe(file_key_hex.data(), file_key_hex.size());
  allow_negative_seed(*this, spec.id == engine_id::java);
  const auto& inf = info(spec.id);
  if (s)
    std::fprintf(stderr, "fairdeck: note: --seed %llu makes this run reproducible and therefore not secure (engine %.*s)\n",
                 static_cast<unsigned long long>(*s), static_cast<int>(inf.name.size()), inf.name.data());
  else if (key_hex)
    std::fprintf(stderr, "fairdeck: note: %s makes this run reproducible; it is secure only while the key stays secret%s\n",
                 file_key_hex.empty() ? "--key" : "--key-file",
                 file_key_hex.empty() ? " (--key-file keeps it out of the process list)" : "");
  else if (spec.reproducible())
    std::fprintf(stderr, "fairdeck: note: engine %.*s seeded from OS entropy with --seed %llu (not secure)\n",
                 static_cast<int>(inf.name.size()), inf.name.data(), static_cast<unsigned long long>(spec.seed));
  return spec;
}

shuffle_spec algorithm_options::spec() const {
  return labelled("--algorithm", [&] { return parse_shuffle_spec(algorithm); });
}

void add_algorithm_option(CLI::App& cmd, algorithm_options& o) {
  std::string names;
  for (const auto& a : shuffle_catalog())
    names += fmt::format("{}{}{}", names.empty() ? "" : ", ", a.name, a.takes_param ? "[:K]" : "");
  cmd.add_option("--algorithm", o.algorithm,
                 fmt::format("Shuffle algorithm: {}; compose with '+', e.g. riffle:3+cut", names))
      ->capture_default_str();
}

CLI::Option* add_threads_option(CLI::App& cmd, unsigned& threads, const std::string& description) {
  auto check = [](const std::string& text) -> std::string {
    unsigned long long v = 0;
    try {
      v = std::stoull(text);
    } catch (const std::exception&) {
      return {};  // not a number: CLI11's own message
    }
    if (v > max_threads) return fmt::format("must be 0..{} (0: one per hardware thread), not {}", max_threads, text);
    return {};
  };
  return cmd.add_option("--threads", threads, description)->capture_default_str()->check(CLI::Validator(check, "", "threads"));
}

void print_json(const nlohmann::json& j) { std::cout << j.dump(2) << '\n'; }

}  // namespace fairdeck::cli
