// fairdeck fair: provably fair commit-reveal dealing (docs/provably-fair.md).
//   commit  new secret server seed -> file (0600, never overwritten); prints the commitment
//   deal    the deck (and hold'em hands) for server seed + client seed + nonce
//   reveal  prints the seed for publication once its deals are over
//   verify  anyone re-derives the deal from the revealed seed and checks it
#include <memory>

#include <sys/stat.h>

#include <fmt/format.h>

#include "card_output.hpp"
#include "cmd_fair_page.hpp"
#include "command.hpp"
#include "fairdeck/cards/deal.hpp"
#include "fairdeck/security/provably_fair.hpp"
#include "options.hpp"

namespace fairdeck::cli {
namespace {

struct fair_options {
  std::string out;
  std::string seed_file;
  std::string seed_hex;
  std::string commitment;
  std::string client_seed;
  std::string nonce;
  std::string deck_text;
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


int run_commit(const fair_options& o) {
  if (o.out == "-") throw usage_error("--out - would print the secret seed: give a file name");
  const auto seed = fair::server_seed::generate();
  const std::string commitment = fair::commitment(seed);
  // No --out: a fresh file named after the commitment, so it never collides and is easy
  // to find when the time comes to reveal.
  const std::string path = o.out.empty() ? fmt::format("fairdeck-seed-{}.txt", commitment.substr(0, 16)) : o.out;
  fair::save_seed_file(path, seed);
  if (o.json) {
    print_json({{"commitment", commitment}, {"server_seed_file", path}});
  } else {
    fmt::print("{}\n", commitment);
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
  fair::validate_client_seed(o.client_seed);
  const auto seed = load_seed(o.seed_file);
  const std::string commitment = fair::commitment(seed);
  const auto deck = fair::deal_deck(seed, o.client_seed, nonce, spec);
  const format_options fo{o.unicode};

  if (o.json) {
    // The nonce is a string: it is the exact text hashed, and exact beyond 2^53.
    nlohmann::json j{{"commitment", commitment}, {"client_seed", o.client_seed}, {"nonce", std::to_string(nonce)},
                     {"decks", spec.decks},      {"jokers", spec.jokers},         {"n", deck.size()},
                     {"cards", cards_json(deck, spec, fo)}};
    add_game_json(j, game, deck, spec, fo);
    print_json(j);
    return 0;
  }
  fmt::print("Commitment:  {}\nClient seed: {}\nNonce:       {}\nDeck:        {}\n", commitment, o.client_seed, nonce,
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

int run_verify(const fair_options& o) {
  const deck_spec spec = o.deck.spec();
  const auto seed = fair::server_seed::from_hex(o.seed_hex);
  (void)fair::parse_hex32(o.commitment, "--commitment");  // report a malformed one as a usage error
  const std::uint64_t nonce = fair::parse_nonce(o.nonce);
  fair::validate_client_seed(o.client_seed);
  const auto claimed = fair::parse_faces(o.deck_text, spec);
  const auto v = fair::verify(seed, o.commitment, o.client_seed, nonce, claimed, spec);
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

void add_seed_file_option(CLI::App& cmd, fair_options& o) {
  cmd.add_option("--server-seed-file", o.seed_file, "File written by 'fair commit'")->required();
}

void add_deal_inputs(CLI::App& cmd, fair_options& o) {
  cmd.add_option("--client-seed", o.client_seed, "The player's seed (non-empty UTF-8, hashed as given)")->required();
  cmd.add_option("--nonce", o.nonce, "Deal counter, decimal 0..2^64-1 without leading zeros")->required();
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
  commit->callback([o, &exit_code] { exit_code = run_commit(*o); });

  auto* deal = fair->add_subcommand("deal", "Deal the deck for a server seed, client seed and nonce");
  add_seed_file_option(*deal, *o);
  add_deal_inputs(*deal, *o);
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
  add_deal_inputs(*verify, *o);
  verify->add_option("--deck", o->deck_text, "The deck as dealt, top card first: \"Ah Kd ...\"")->required();
  verify->add_flag("--json", o->json, "Machine-readable output (docs/cli-fair.md)");
  verify->callback([o, &exit_code] { exit_code = run_verify(*o); });

  add_fair_page_command(*fair, exit_code);  // `fair page`: the browser verifier (cmd_fair_page.cpp)
}

}  // namespace
}  // namespace fairdeck::cli

FAIRDECK_REGISTER_COMMAND(50, fairdeck::cli::setup)
