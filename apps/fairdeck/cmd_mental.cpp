// fairdeck mental: a mental-poker hand played between terminals on one JSON transcript
// (docs/mental-poker.md). keygen | new | shuffle | reveal | open | verify; the protocol is
// fairdeck::mental, this file reads files, writes them safely and words the results.
// Exit codes: 0 done (verify: verified), 1 a failure (verify: NOT verified, naming the step),
// 2 usage or an unreadable input (verify: unreadable).
#include <cstring>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sodium.h>

#include "command.hpp"
#include "fairdeck/mental/transcript.hpp"
#include "fairdeck/util/hex.hpp"
#include "fairdeck/util/read_input.hpp"
#include "fairdeck/util/safe_output.hpp"
#include "fairdeck/util/secret_file.hpp"
#include "options.hpp"

namespace fairdeck::cli::cmd_mental {
namespace {

constexpr std::size_t max_transcript_bytes = std::size_t{64} << 20;
constexpr std::size_t max_key_bytes = 4096;

struct mental_options {
  std::string out, key, hand, players, positions, to, table = "fairdeck";
  unsigned decks = 1;
  bool json = false;
};

std::string read_or_usage(const std::string& path, std::size_t max, std::string_view what) {
  try {
    return read_input(path, max, what);
  } catch (const std::runtime_error& e) {
    throw usage_error(e.what());
  }
}

mental::key_pair load_key(const std::string& path) {
  std::string text;
  try {
    text = read_secret_input(path, max_key_bytes, "key file");
  } catch (const std::runtime_error& e) {
    throw usage_error(e.what());
  }
  try {
    auto k = mental::parse_key_file(text);
    sodium_memzero(text.data(), text.size());
    return k;
  } catch (const std::invalid_argument& e) {
    sodium_memzero(text.data(), text.size());
    throw usage_error(fmt::format("--key {}: {}", path, e.what()));
  }
}

mental::hand load_hand(const std::string& path) {
  const std::string text = read_or_usage(path, max_transcript_bytes, "transcript");
  try {
    return mental::parse_hand(text);
  } catch (const std::invalid_argument& e) {
    throw usage_error(fmt::format("{}: {}", path, e.what()));
  }
}

// Replaces the transcript atomically (temp file, fsync, rename), refusing when another step
// changed it meanwhile (two players writing at once: the later one runs again).
void save_hand(const std::string& path, const std::string& before, const mental::hand& h) {
  const std::string text = mental::to_json(h);
  safe_output out(path);
  out.write(text);
  if (read_input(path, max_transcript_bytes, "transcript") != before)
    throw std::runtime_error(fmt::format("{} changed while this step ran: nothing written; run the step again", path));
  out.commit();
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const auto comma = s.find(',', at);
    out.push_back(s.substr(at, comma - at));
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

int run_keygen(const mental_options& o) {
  if (o.out.empty() || o.out == "-")
    throw usage_error("-o: give a file name for the secret key (never standard output)");
  const auto k = mental::generate_key();
  std::string secret = mental::key_file_text(k);
  try {
    create_secret_file(o.out, secret);  // O_EXCL, 0600, synced (util/secret_file.hpp)
  } catch (const secret_file_error& e) {
    sodium_memzero(secret.data(), secret.size());
    if (e.kind() == secret_file_error::kind_t::io) throw;
    throw usage_error(
        fmt::format("-o: cannot create {} ({}); a key file is never overwritten", o.out, std::strerror(e.os_error())));
  }
  sodium_memzero(secret.data(), secret.size());
  fmt::print("{}", mental::to_json(mental::make_public_share(k)));
  return 0;
}

int run_new(const mental_options& o) {
  std::vector<mental::public_share> players;
  for (const auto& f : split_commas(o.players)) {
    if (f.empty()) throw usage_error("--players: an empty file name (give A.pub,B.pub,...)");
    const std::string text = read_or_usage(f, max_key_bytes, "public share");
    try {
      players.push_back(mental::parse_public_share(text));
    } catch (const std::invalid_argument& e) {
      throw usage_error(fmt::format("--players {}: {}", f, e.what()));
    }
  }
  const auto h = labelled("--players", [&] { return mental::new_hand(o.table, players, deck_spec{o.decks, 0}); });
  write_output_file(o.out, mental::to_json(h));
  fmt::print("hand {}: {} players, {} cards; player 1 shuffles first\n", h.id, h.players.size(), h.spec.size());
  return 0;
}

int run_shuffle(const mental_options& o) {
  const auto k = load_key(o.key);
  const std::string before = read_or_usage(o.hand, max_transcript_bytes, "transcript");
  auto h = load_hand(o.hand);
  const auto seat = labelled("--key", [&] { return mental::seat_of(h, k.pub); });
  try {
    mental::add_shuffle(h, k);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  save_hand(o.hand, before, h);
  const std::size_t next = h.steps.size() + 1;
  fmt::print("player {} shuffled; {}\n", seat,
             next <= h.players.size() ? fmt::format("player {} shuffles next", next)
                                      : std::string("every player has shuffled: cards can be revealed"));
  return 0;
}

std::uint32_t parse_to(const std::string& to, std::size_t players) {
  if (to == "all") return mental::to_all;
  if (to.empty() || to.size() > 3 || to.find_first_not_of("0123456789") != std::string::npos || std::stoul(to) < 1 ||
      std::stoul(to) > players)
    throw usage_error(fmt::format("--to must be a player number 1..{} (in --players order) or 'all'", players));
  return static_cast<std::uint32_t>(std::stoul(to));
}

std::vector<std::uint32_t> parse_positions(const std::string& s) {
  std::vector<std::uint32_t> out;
  for (const auto& p : split_commas(s)) {
    if (p.empty() || p.size() > 6 || p.find_first_not_of("0123456789") != std::string::npos)
      throw usage_error(fmt::format("--positions: '{}' is not a deck position (0-based)", p));
    out.push_back(static_cast<std::uint32_t>(std::stoul(p)));
  }
  return out;
}

int run_reveal(const mental_options& o) {
  const auto k = load_key(o.key);
  const std::string before = read_or_usage(o.hand, max_transcript_bytes, "transcript");
  auto h = load_hand(o.hand);
  const auto seat = labelled("--key", [&] { return mental::seat_of(h, k.pub); });
  const auto positions = parse_positions(o.positions);
  const auto to = parse_to(o.to, h.players.size());
  try {
    mental::add_reveal(h, k, positions, to);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  }
  save_hand(o.hand, before, h);
  fmt::print("player {} revealed {} position{} to {}\n", seat, positions.size(), positions.size() == 1 ? "" : "s",
             to == mental::to_all ? std::string("all") : fmt::format("player {}", to));
  return 0;
}

int run_open(const mental_options& o) {
  const auto k = load_key(o.key);
  const auto h = load_hand(o.hand);
  (void)labelled("--key", [&] { return mental::seat_of(h, k.pub); });
  const auto cards = mental::open_cards(h, k);
  if (o.json) {
    nlohmann::json j{{"cards", nlohmann::json::object()}};
    for (const auto& [p, c] : cards) j["cards"][std::to_string(p)] = format_card(c, h.spec);
    print_json(j);
  } else {
    for (const auto& [p, c] : cards) fmt::print("{}: {}\n", p, format_card(c, h.spec));
    if (cards.empty()) fmt::print(stderr, "fairdeck: no card is open to this player yet\n");
  }
  return 0;
}

int run_verify(const mental_options& o) {
  std::string text;
  try {
    text = read_input(o.hand, max_transcript_bytes, "transcript");
  } catch (const std::runtime_error& e) {
    fmt::print(stderr, "fairdeck: {}\n", e.what());
    return 2;
  }
  const auto r = mental::verify_text(text);
  if (!r.readable) {
    fmt::print(stderr, "fairdeck: {}: not a {} transcript\n", o.hand, mental::hand_format);
    return 2;
  }
  const auto& v = r.v;
  mental::hand h;
  if (v.ok) h = mental::parse_hand(text);
  if (o.json) {
    nlohmann::json j{{"verified", v.ok},
                     {"step", v.failed_step ? nlohmann::json(*v.failed_step) : nlohmann::json(nullptr)},
                     {"problem", v.ok ? nlohmann::json(nullptr) : nlohmann::json(v.problem)},
                     {"shuffles", v.shuffles},
                     {"reveals", v.reveals},
                     {"transcript_hash", v.ok ? nlohmann::json(to_hex(v.head)) : nlohmann::json(nullptr)},
                     {"public_cards", nlohmann::json::object()}};
    for (const auto& [p, c] : v.public_cards) j["public_cards"][std::to_string(p)] = format_card(c, h.spec);
    print_json(j);
  } else if (v.ok) {
    fmt::print("verified: {} players, {} shuffle{}, {} reveal{}\n", h.players.size(), v.shuffles,
               v.shuffles == 1 ? "" : "s", v.reveals, v.reveals == 1 ? "" : "s");
    for (const auto& [p, c] : v.public_cards) fmt::print("open to all: {}: {}\n", p, format_card(c, h.spec));
    fmt::print("transcript hash: {}\n", to_hex(v.head));
  } else {
    fmt::print("NOT verified: {}\n", v.problem);
  }
  return v.ok ? 0 : 1;
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<mental_options>();
  auto* m = app.add_subcommand("mental",
                               "Mental poker: a hand with no dealer, shuffled by the players (docs/mental-poker.md)");
  m->require_subcommand(1);
  auto* keygen = m->add_subcommand("keygen",
                                   "Create a player's key share (file 0600) and print its public share with its proof");
  keygen->add_option("-o,--out", o->out, "The secret key file to create (mode 0600, never overwritten)")->required();
  keygen->callback([o, &exit_code] { exit_code = run_keygen(*o); });

  auto* start = m->add_subcommand("new", "Start a hand: the joint key and the public encrypted deck");
  start->add_option("--players", o->players, "The players' public shares, in seat order: A.pub,B.pub,...")->required();
  start->add_option("--decks", o->decks, "Decks in the shoe")->check(CLI::Range(1u, mental::max_hand_decks));
  start->add_option("--table", o->table, "The table's name, bound into every proof")->capture_default_str();
  start->add_option("-o,--out", o->out, "The transcript file to write")->required();
  start->callback([o, &exit_code] { exit_code = run_new(*o); });

  auto* shuffle = m->add_subcommand("shuffle",
                                    "Add this player's re-encryption, permutation and proof (in seat order)");
  shuffle->add_option("--key", o->key, "This player's key file")->required();
  shuffle->add_option("hand", o->hand, "The transcript (updated in place)")->required();
  shuffle->callback([o, &exit_code] { exit_code = run_shuffle(*o); });

  auto* reveal = m->add_subcommand("reveal", "Add this player's partial decryptions (with proofs) of deck positions");
  reveal->add_option("--key", o->key, "This player's key file")->required();
  reveal->add_option("hand", o->hand, "The transcript (updated in place)")->required();
  reveal->add_option("--positions", o->positions, "Deck positions, 0-based: 0,1")->required();
  reveal->add_option("--to", o->to, "The player who may see them (1-based, --players order) or 'all'")->required();
  reveal->callback([o, &exit_code] { exit_code = run_reveal(*o); });

  auto* open = m->add_subcommand("open", "Print the cards this player can see now, by deck position");
  open->add_option("--key", o->key, "This player's key file")->required();
  open->add_option("hand", o->hand, "The transcript")->required();
  open->add_flag("--json", o->json, "{\"cards\": {\"0\": \"Ah\", ...}}");
  open->callback([o, &exit_code] { exit_code = run_open(*o); });

  auto* verify =
      m->add_subcommand("verify", "Check the whole transcript: exit 0 verified, 1 not (naming the step), 2 unreadable");
  verify->add_option("hand", o->hand, "The transcript")->required();
  verify->add_flag("--json", o->json, "Machine-readable verdict");
  verify->callback([o, &exit_code] { exit_code = run_verify(*o); });
}

}  // namespace
}  // namespace fairdeck::cli::cmd_mental

FAIRDECK_REGISTER_COMMAND(67, fairdeck::cli::cmd_mental::setup)
