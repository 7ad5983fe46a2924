// fairdeck fair: provably fair commit-reveal dealing (docs/provably-fair.md).
//   commit  new secret server seed -> file (0600, never overwritten); prints the commitment
//   deal    the deck (and hold'em hands) for server seed + client seed + nonce
//   reveal  prints the seed for publication once its deals are over
//   verify  anyone re-derives the deal (or a whole sequence of deals, checking that the
//           nonces are consecutive) from the revealed seed and checks it; --hand: a player
//           checks a fairdeckd hand's deal answer from their seat (their seed, its commitment)
#include <memory>

#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include "report_output.hpp"
#include "cmd_fair_page.hpp"
#include "command.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "fairdeck/util/read_input.hpp"
#include "options.hpp"
#include "std_streams.hpp"

namespace fairdeck::cli::cmd_fair {
namespace {

struct fair_options {
  std::string out;
  std::string seed_file;
  std::string seed_hex;
  std::string commitment;
  std::vector<std::string> client_seeds;  // one per seat, in seat order
  std::string nonce;
  std::string deck_text;
  std::string deck_file;
  std::string deals;        // fair verify --deals FILE|-
  std::string first_nonce;  // fair verify --first-nonce
  std::string hand;         // fair verify --hand FILE|-
  unsigned seat = 0;        // --seat
  std::string my_seed;      // --my-seed
  std::string my_commitment;  // --my-commitment
  CLI::Option* client_opt = nullptr;
  CLI::Option* nonce_opt = nullptr;
  std::string game;
  unsigned hands = 0;
  unsigned cards = 0;
  unsigned players = 0;
  deck_options deck;
  bool unicode = false;
  bool json = false;
};

// The seed is the one secret here: say so when its file is readable by anyone else.
fair::server_seed load_seed(const std::string& path) {
  fair::server_seed seed = fair::read_seed_file(path);
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0 && (st.st_mode & (S_IRWXG | S_IRWXO)))
    fmt::print(stderr, "fairdeck: warning: {} is accessible to other users (mode {:04o}); run chmod 600 on it\n", path,
               st.st_mode & 07777);
  return seed;
}

// The hand's client seed from the seats' seeds (docs/provably-fair.md, "Several players").
std::string hand_client_seed(const std::vector<std::string>& seats) {
  if (seats.size() == 1) fair::validate_client_seed(seats.front());  // the single-seed messages
  return fair::combine_client_seeds(seats);
}

// Largest deck text accepted: a 1000-deck shoe with jokers in the longest spelling.
constexpr std::size_t max_deck_text_bytes = std::size_t{16} << 20;
// Largest --deals input.
constexpr std::size_t max_deals_bytes = std::size_t{256} << 20;

int run_commit(const fair_options& o, bool out_given) {
  if (o.out == "-") throw usage_error("--out - would print the secret seed: give a file name");
  if (out_given && o.out.empty()) throw usage_error("--out is empty: give a file name (or leave --out out)");
  const auto seed = fair::server_seed::generate();
  const std::string commitment = fair::commitment(seed);
  // No --out: a fresh file named after the commitment, so it never collides and is easy
  // to find when the time comes to reveal.
  const std::string path = o.out.empty() ? fmt::format("fairdeck-seed-{}.txt", commitment.substr(0, 16)) : o.out;
  fair::save_seed_file(path, seed);
  try {  // a seed whose commitment was never seen is useless: nothing half-done
    if (o.json) {
      print_json({{"commitment", commitment}, {"server_seed_file", path}});
    } else {
      fmt::print("{}\n", commitment);
    }
    flush_standard_output();
  } catch (...) {
    ::unlink(path.c_str());
    fmt::print(stderr, "fairdeck: the commitment could not be printed, so {} was removed\n", path);
    throw;
  }
  fmt::print(stderr,
             "fairdeck: server seed saved to {} (mode 0600). Publish the commitment now; keep the seed secret until "
             "its deals are over, then run 'fairdeck fair reveal --server-seed-file {}'\n",
             path, path);
  return 0;
}

int run_deal(const fair_options& o) {
  const deck_spec spec = o.deck.spec();
  const game_request game{o.game == "holdem", o.players, o.hands, o.cards};
  if (!o.game.empty() && !game.holdem) throw usage_error(fmt::format("unknown --game '{}' (supported: holdem)", o.game));
  if (!game.holdem && o.players) throw usage_error("--players needs --game holdem");
  check_game(game, spec);
  const std::uint64_t nonce = fair::parse_nonce(o.nonce);
  const std::string client_seed = hand_client_seed(o.client_seeds);
  const auto seed = load_seed(o.seed_file);
  const std::string commitment = fair::commitment(seed);
  const auto deck = fair::deal_deck(seed, client_seed, nonce, spec);
  const format_options fo{o.unicode};

  if (o.json) {
    // The nonce is a string: it is the exact text hashed, and exact beyond 2^53.
    nlohmann::json j{{"commitment", commitment}, {"client_seed", client_seed}, {"seat_seeds", o.client_seeds},
                     {"nonce", std::to_string(nonce)}, {"decks", spec.decks}, {"jokers", spec.jokers},
                     {"n", deck.size()}, {"cards", cards_json(deck, spec, fo)}};
    add_game_json(j, game, deck, spec, fo);
    print_json(j);
    return 0;
  }
  for (std::size_t i = 0; o.client_seeds.size() > 1 && i < o.client_seeds.size(); ++i)
    fmt::print("Seat seed {:>2}: {}\n", i + 1, o.client_seeds[i]);
  fmt::print("Commitment:  {}\nClient seed: {}\nNonce:       {}\nDeck:        {}\n", commitment, client_seed, nonce,
             format_cards(deck, spec, fo));
  print_game(game, deck, spec, fo);
  return 0;
}

int run_reveal(const fair_options& o) {
  const auto seed = load_seed(o.seed_file);
  if (o.json)
    print_json({{"server_seed", seed.hex()}, {"commitment", fair::commitment(seed)}});
  else
    fmt::print("{}\n", seed.hex());
  return 0;
}

int run_verify_deals(const fair_options& o);
int run_verify_hand(const fair_options& o);

int run_verify(const fair_options& o) {
  if (!o.hand.empty()) return run_verify_hand(o);
  if (!o.deals.empty()) return run_verify_deals(o);
  if (!o.client_opt->count() || !o.nonce_opt->count())
    throw usage_error("fair verify needs --client-seed and --nonce (or --deals FILE for a sequence of deals)");
  if (o.deck_text.empty() == o.deck_file.empty())
    throw usage_error("fair verify needs the dealt deck: exactly one of --deck \"Ah Kd ...\" or --deck-file FILE|-");
  const deck_spec spec = o.deck.spec();
  const auto seed = fair::server_seed::from_hex(o.seed_hex);
  (void)fair::parse_hex32(o.commitment, "--commitment");  // report a malformed one as a usage error
  const std::uint64_t nonce = fair::parse_nonce(o.nonce);
  const std::string client_seed = hand_client_seed(o.client_seeds);
  const std::string deck_text =
      o.deck_file.empty() ? o.deck_text : read_input(o.deck_file, max_deck_text_bytes, "deck file");
  const auto claimed = fair::parse_faces(deck_text, spec);
  const auto v = fair::verify(seed, o.commitment, client_seed, nonce, claimed, spec);
  const auto lines = v.describe(spec);
  if (o.json) {
    nlohmann::json diff = nullptr;
    if (v.first_difference)
      diff = {{"position", *v.first_difference}, {"expected", format_card(v.expected_card, spec)},
              {"got", format_card(v.claimed_card, spec)}};
    print_json({{"verified", v.ok()},
                {"commitment_matches", v.commitment_matches},
                {"expected_commitment", v.expected_commitment},
                {"deck_size", v.claimed_size},
                {"expected_deck_size", v.expected_size},
                {"first_difference", diff},
                {"problems", v.ok() ? nlohmann::json::array() : nlohmann::json(lines)}});
  } else if (v.ok()) {
    fmt::print("verified\n");
  } else {
    for (const auto& line : lines) fmt::print("not verified: {}\n", line);
  }
  return v.ok() ? 0 : 1;
}

// One published deal of a --deals sequence, as 'fair deal --json' printed it.
struct published_deal {
  std::string commitment, client_seed;
  std::vector<std::string> seat_seeds;
  std::uint64_t nonce = 0;
  deck_spec spec;
  std::string cards;  // "Ah Kd ..."
};

published_deal parse_published_deal(const nlohmann::json& j, std::size_t number) {
  const auto where = [&](std::string_view what) { return fmt::format("--deals: deal {}: {}", number, what); };
  if (!j.is_object()) throw usage_error(where("not a JSON object (expected one 'fair deal --json' output)"));
  published_deal d;
  const auto text = [&](const char* key) {
    if (!j.contains(key) || !j[key].is_string()) throw usage_error(where(fmt::format("missing string \"{}\"", key)));
    return j[key].get<std::string>();
  };
  d.commitment = text("commitment");
  d.client_seed = text("client_seed");
  try {
    // 'fair deal --json' writes the nonce as a string, fairdeckd's deal answers as a number.
    if (j.contains("nonce") && j["nonce"].is_number_unsigned()) d.nonce = j["nonce"].get<std::uint64_t>();
    else if (j.contains("nonce") && j["nonce"].is_number()) throw usage_error(where("\"nonce\" is not 0..2^64-1"));
    else d.nonce = fair::parse_nonce(text("nonce"));
    fair::validate_client_seed(d.client_seed);
  } catch (const fair::fair_input_error& e) {
    throw usage_error(where(e.what()));
  }
  if (j.contains("seat_seeds")) {
    if (!j["seat_seeds"].is_array()) throw usage_error(where("\"seat_seeds\" is not an array"));
    for (const auto& s : j["seat_seeds"]) {
      if (!s.is_string()) throw usage_error(where("\"seat_seeds\" holds a non-string"));
      d.seat_seeds.push_back(s.get<std::string>());
    }
  }
  for (const char* key : {"decks", "jokers"})
    if (j.contains(key) && !j[key].is_number_unsigned()) throw usage_error(where(fmt::format("\"{}\" is not a count", key)));
  d.spec.decks = j.value("decks", 1u);
  d.spec.jokers = j.value("jokers", 0u);
  try {
    validate(d.spec);
  } catch (const std::invalid_argument& e) {
    throw usage_error(where(e.what()));
  }
  if (j.contains("cards") && j["cards"].is_string()) {  // fairdeckd: the shoe as one string "Ah Kd ..."
    d.cards = j["cards"].get<std::string>();
    return d;
  }
  if (!j.contains("cards") || !j["cards"].is_array())
    throw usage_error(where("missing \"cards\" (an array of cards, or one string as fairdeckd serves it)"));
  for (const auto& c : j["cards"]) {
    if (!c.is_string()) throw usage_error(where("\"cards\" holds a non-string"));
    d.cards += c.get<std::string>();
    d.cards += ' ';
  }
  return d;
}

// --deals input: one JSON object per line (blank lines skipped), or one JSON array.
std::vector<nlohmann::json> parse_deals_input(const std::string& text) {
  std::vector<nlohmann::json> out;
  const auto first = text.find_first_not_of(" \t\r\n");
  try {
    if (first != std::string::npos && text[first] == '[') {
      const auto all = nlohmann::json::parse(text);
      for (const auto& d : all) out.push_back(d);
      return out;
    }
    std::size_t line_no = 0, start = 0;
    while (start < text.size()) {
      const auto end = std::min(text.find('\n', start), text.size());
      const std::string_view line(text.data() + start, end - start);
      ++line_no;
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) {
        try {
          out.push_back(nlohmann::json::parse(line));
        } catch (const nlohmann::json::parse_error& e) {
          throw usage_error(fmt::format("--deals: line {} is not JSON ({})", line_no, e.what()));
        }
      }
      start = end + 1;
    }
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error(fmt::format("--deals: not JSON ({})", e.what()));
  }
  return out;
}

int run_verify_deals(const fair_options& o) {
  if (o.client_opt->count() || o.nonce_opt->count() || !o.deck_text.empty() || !o.deck_file.empty())
    throw usage_error("--deals takes each deal's client seed, nonce and cards from the file: drop --client-seed, "
                      "--nonce, --deck and --deck-file");
  const auto seed = fair::server_seed::from_hex(o.seed_hex);
  (void)fair::parse_hex32(o.commitment, "--commitment");
  std::optional<std::uint64_t> first;
  if (!o.first_nonce.empty()) first = fair::parse_nonce(o.first_nonce);
  const auto records = parse_deals_input(read_input(o.deals, max_deals_bytes, "deals file"));
  if (records.empty()) throw usage_error("--deals: no deals in the input");

  std::vector<std::string> problems;
  std::vector<std::uint64_t> nonces;
  for (std::size_t i = 0; i < records.size(); ++i) {
    const published_deal d = parse_published_deal(records[i], i + 1);
    nonces.push_back(d.nonce);
    const auto prefix = fmt::format("deal {} (nonce {}): ", i + 1, d.nonce);
    if (!d.seat_seeds.empty()) {
      std::string derived;
      try {
        derived = fair::combine_client_seeds(d.seat_seeds);
      } catch (const fair::fair_input_error& e) {
        throw usage_error(fmt::format("--deals: deal {}: {}", i + 1, e.what()));
      }
      if (derived != d.client_seed)
        problems.push_back(prefix + "client_seed is not the one derived from its seat_seeds (" + derived + ")");
    }
    if (fair::parse_hex32(d.commitment, fmt::format("--deals: deal {}: commitment", i + 1)) !=
        fair::parse_hex32(o.commitment, "--commitment"))
      problems.push_back(prefix + "published under another commitment (" + d.commitment + ")");
    const auto claimed = fair::parse_faces(d.cards, d.spec);
    const auto v = fair::verify(seed, o.commitment, d.client_seed, d.nonce, claimed, d.spec);
    if (!v.ok())
      for (const auto& line : v.describe(d.spec)) problems.push_back(prefix + line);
  }
  const auto gap = fair::nonce_sequence_problem(nonces, first);
  if (gap) problems.push_back(*gap);
  const bool ok = problems.empty();
  if (o.json) {
    print_json({{"verified", ok},
                {"deals", records.size()},
                {"first_nonce", std::to_string(nonces.front())},
                {"last_nonce", std::to_string(nonces.back())},
                {"nonces_contiguous", !gap},
                {"problems", problems}});
  } else if (ok) {
    fmt::print("verified: {} deal{}, nonces {}..{} consecutive\n", records.size(), records.size() == 1 ? "" : "s",
               nonces.front(), nonces.back());
  } else {
    for (const auto& line : problems) fmt::print("not verified: {}\n", line);
  }
  return ok ? 0 : 1;
}

// A hand of fairdeckd (docs/provably-fair.md, "Hands no one can grind") checked from one seat:
// the deal answer of POST /v1/tables/{t}/hands/{h}/deal, the player's own seed and the server
// seed revealed later.
int run_verify_hand(const fair_options& o) {
  if (o.client_opt->count() || o.nonce_opt->count() || !o.deck_text.empty() || !o.deck_file.empty() || !o.deals.empty())
    throw usage_error("--hand takes the seat seeds, nonce and cards from the deal answer: drop --client-seed, --nonce, "
                      "--deck, --deck-file and --deals");
  if (o.seat == 0 || o.my_seed.empty()) throw usage_error("--hand needs --seat (from 1) and --my-seed");
  const auto seed = fair::server_seed::from_hex(o.seed_hex);
  (void)fair::parse_hex32(o.commitment, "--commitment");
  if (!o.my_commitment.empty()) (void)fair::parse_hex32(o.my_commitment, "--my-commitment");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(read_input(o.hand, max_deals_bytes, "hand file"));
  } catch (const nlohmann::json::parse_error& e) {
    throw usage_error(fmt::format("--hand: not JSON ({})", e.what()));
  }
  const auto bad = [](std::string_view what) { return usage_error(fmt::format("--hand: {}", what)); };
  if (!j.is_object() || !j.contains("hand") || !j.contains("seat_seeds") || !j["seat_seeds"].is_array() ||
      !j.contains("client_seed") || !j["client_seed"].is_string() || !j.contains("nonce") ||
      !j["nonce"].is_number_unsigned() || !j.contains("cards") || !j["cards"].is_string() ||
      !j.contains("commitment") || !j["commitment"].is_string())
    throw bad("expected the deal answer of POST /v1/tables/{t}/hands/{h}/deal (hand, nonce, commitment, "
              "seat_seeds, client_seed, cards)");
  fair::dealt_hand hand;
  for (const auto& s : j["seat_seeds"]) {
    if (!s.is_string()) throw bad("\"seat_seeds\" holds a non-string");
    hand.seat_seeds.push_back(s.get<std::string>());
  }
  hand.client_seed = j["client_seed"].get<std::string>();
  hand.nonce = j["nonce"].get<std::uint64_t>();
  hand.server_commitment = o.commitment;  // the one the player saw when the hand opened
  const deck_spec spec{j.value("decks", 1u), j.value("jokers", 0u)};
  try {
    validate(spec);
  } catch (const std::invalid_argument& e) {
    throw bad(e.what());
  }
  hand.cards = fair::parse_faces(j["cards"].get<std::string>(), spec);
  const auto c = fair::check_hand(hand, o.seat, o.my_seed, o.my_commitment, seed, spec);
  std::vector<std::string> problems;
  if (!c.ok()) problems = c.describe(spec);
  if (fair::parse_hex32(j["commitment"].get<std::string>(), "the answer's commitment") !=
      fair::parse_hex32(o.commitment, "--commitment"))
    problems.push_back("the deal answer names another commitment than the one given");
  const bool ok = problems.empty();
  if (o.json) {
    print_json({{"verified", ok}, {"hand", j["hand"]}, {"seat", o.seat}, {"nonce", std::to_string(hand.nonce)},
                {"my_seed_at_my_seat", c.my_seed_at_my_seat}, {"my_commitment_matches", c.my_commitment_matches},
                {"problems", problems}});
  } else if (ok) {
    fmt::print("verified: hand {}, seat {}: my seed was dealt with, the cards re-derive from the revealed seed\n",
               j["hand"].dump(), o.seat);
  } else {
    for (const auto& line : problems) fmt::print("not verified: {}\n", line);
  }
  return ok ? 0 : 1;
}

void add_seed_file_option(CLI::App& cmd, fair_options& o) {
  cmd.add_option("--server-seed-file", o.seed_file, "File written by 'fair commit'")->required();
}

void add_deal_inputs(CLI::App& cmd, fair_options& o, bool required) {
  o.client_opt = cmd.add_option("--client-seed", o.client_seeds,
                                "The player's seed (non-empty UTF-8, hashed as given); repeat once per seat, in seat "
                                "order, to derive the hand's seed from all of them")
                     ->allow_extra_args(false);
  o.nonce_opt = cmd.add_option("--nonce", o.nonce, "Deal counter, decimal 0..2^64-1 without leading zeros");
  if (required) {
    o.client_opt->required();
    o.nonce_opt->required();
  }
  add_deck_options(cmd, o.deck);
}

void setup(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<fair_options>();
  auto* fair = app.add_subcommand("fair", "Provably fair commit-reveal dealing (docs/provably-fair.md)");
  fair->require_subcommand(1);

  auto* commit = fair->add_subcommand("commit", "Create a secret server seed file and print its commitment");
  commit->add_option("--out", o->out,
                     "Seed file to create (mode 0600, never overwritten; default fairdeck-seed-<commitment prefix>.txt)");
  commit->add_flag("--json", o->json, "Machine-readable output (docs/cli-fair.md)");
  commit->callback([o, commit, &exit_code] { exit_code = run_commit(*o, commit->get_option("--out")->count() > 0); });

  auto* deal = fair->add_subcommand("deal", "Deal the deck for a server seed, client seed and nonce");
  add_seed_file_option(*deal, *o);
  add_deal_inputs(*deal, *o, true);
  deal->add_option("--game", o->game, "Also deal a game: holdem");
  deal->add_option("--players", o->players, "Hold'em players (2..22)");
  deal->add_option("--hands", o->hands, "Or deal H hands round the table (with --cards)");
  deal->add_option("--cards", o->cards, "Cards per hand (with --hands)");
  deal->add_flag("--unicode", o->unicode, "Print suits as \u2663\u2666\u2665\u2660");
  deal->add_flag("--json", o->json, "Machine-readable output (docs/cli-fair.md)");
  deal->callback([o, &exit_code] { exit_code = run_deal(*o); });

  auto* reveal = fair->add_subcommand("reveal", "Print the server seed for publication (after its deals)");
  add_seed_file_option(*reveal, *o);
  reveal->add_flag("--json", o->json, "Machine-readable output (docs/cli-fair.md)");
  reveal->callback([o, &exit_code] { exit_code = run_reveal(*o); });

  auto* verify = fair->add_subcommand("verify", "Check a published deal against the revealed seed: exit 0 if verified");
  verify->add_option("--server-seed", o->seed_hex, "Revealed server seed (64 hex digits)")->required();
  verify->add_option("--commitment", o->commitment, "Commitment published before the deal (64 hex digits)")->required();
  add_deal_inputs(*verify, *o, false);
  verify->add_option("--deck", o->deck_text, "The deck as dealt, top card first: \"Ah Kd ...\"");
  verify->add_option("--deck-file", o->deck_file, "Read the dealt deck from FILE ('-': stdin), for shoes too big for "
                                                  "the command line");
  verify->add_option("--deals", o->deals,
                     "Verify a sequence of deals instead: FILE ('-': stdin) with one 'fair deal --json' object or "
                     "fairdeckd deal answer per line, or a JSON array; also checks that the nonces are consecutive");
  verify->add_option("--first-nonce", o->first_nonce, "With --deals: the nonce the sequence must start at");
  verify->add_option("--hand", o->hand,
                     "Check a fairdeckd hand from your seat instead: FILE ('-': stdin) with the deal answer of "
                     "POST .../hands/{h}/deal (docs/provably-fair.md, \"Hands no one can grind\")");
  verify->add_option("--seat", o->seat, "With --hand: your seat (from 1)");
  verify->add_option("--my-seed", o->my_seed, "With --hand: the seed your seat committed to and revealed");
  verify->add_option("--my-commitment", o->my_commitment,
                     "With --hand: the commitment your seat made (64 hex digits); checked against --my-seed");
  verify->add_flag("--json", o->json, "Machine-readable output (docs/cli-fair.md)");
  verify->callback([o, &exit_code] { exit_code = run_verify(*o); });

  add_fair_page_command(*fair, exit_code);  // `fair page`: the browser verifier (cmd_fair_page.cpp)
}

}  // namespace
}  // namespace fairdeck::cli::cmd_fair

FAIRDECK_REGISTER_COMMAND(50, fairdeck::cli::cmd_fair::setup)
