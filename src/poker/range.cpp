#include "fairdeck/poker/range.hpp"

#include "fairdeck/poker/preflop_table.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include <fmt/format.h>

namespace fairdeck::poker {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

[[noreturn]] void fail(std::string_view item, std::string_view why) {
  throw range_parse_error(fmt::format("invalid hand or range '{}': {}", item, why));
}

// Poker rank (deuce 0 .. ace 12) of a range rank character, or -1.
int range_rank(char ch) {
  static constexpr std::string_view order = "23456789TJQKA";
  const auto pos = order.find(static_cast<char>(std::toupper(static_cast<unsigned char>(ch))));
  return pos == std::string_view::npos ? -1 : static_cast<int>(pos);
}

card_t card_of(int poker_rank, unsigned suit) {
  return static_cast<card_t>(suit * ranks_per_suit + static_cast<unsigned>(poker_rank + 1) % ranks_per_suit);
}

hole_cards ordered(card_t a, card_t b) { return a < b ? hole_cards{a, b} : hole_cards{b, a}; }

enum class suitedness { any, suited, offsuit };

void add_pair(int r, std::vector<hole_cards>& out) {
  for (unsigned s1 = 0; s1 < 4; ++s1)
    for (unsigned s2 = s1 + 1; s2 < 4; ++s2) out.push_back(ordered(card_of(r, s1), card_of(r, s2)));
}

void add_two_ranks(int high, int low, suitedness kind, std::vector<hole_cards>& out) {
  for (unsigned s1 = 0; s1 < 4; ++s1)
    for (unsigned s2 = 0; s2 < 4; ++s2) {
      if ((kind == suitedness::suited && s1 != s2) || (kind == suitedness::offsuit && s1 == s2)) continue;
      out.push_back(ordered(card_of(high, s1), card_of(low, s2)));
    }
}

// One hand class: "QQ", "AKs", "AKo", "AK". Ranks sorted high first.
struct hand_class {
  int high;
  int low;
  suitedness kind;
};

std::optional<hand_class> parse_class(std::string_view t) {
  if (t.size() < 2 || t.size() > 3) return std::nullopt;
  int a = range_rank(t[0]), b = range_rank(t[1]);
  if (a < 0 || b < 0) return std::nullopt;
  suitedness kind = suitedness::any;
  if (t.size() == 3) {
    const char k = static_cast<char>(std::tolower(static_cast<unsigned char>(t[2])));
    if (k == 's') kind = suitedness::suited;
    else if (k == 'o') kind = suitedness::offsuit;
    else return std::nullopt;
  }
  if (a < b) std::swap(a, b);
  return hand_class{a, b, kind};
}

void add_class(const hand_class& c, std::string_view item, std::vector<hole_cards>& out) {
  if (c.high == c.low) {
    if (c.kind != suitedness::any) fail(item, "a pair cannot be suited or offsuit");
    add_pair(c.high, out);
  } else {
    add_two_ranks(c.high, c.low, c.kind, out);
  }
}

void add_random(std::vector<hole_cards>& out) {
  for (card_t a = 0; a < cards_per_deck; ++a)
    for (card_t b = a + 1; b < cards_per_deck; ++b) out.push_back({a, b});
}

bool is_random(std::string_view item) {
  std::string lower;
  for (char ch : item) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(ch))));
  return lower == "random" || lower == "*";
}

std::optional<std::uint64_t> parse_decimal(std::string_view t, unsigned max_decimals);

void parse_item(std::string_view item, std::vector<hole_cards>& out) {
  if (item.empty()) fail(item, "empty item (two commas in a row?)");
  if (is_random(item)) return add_random(out);
  if (item.back() == '%') {  // top x % by the preflop ranking
    const auto v = parse_decimal(trim(item.substr(0, item.size() - 1)), 2);
    if (!v || *v == 0 || *v > 10000) fail(item, "a percentage range is 0.01% to 100% with at most two decimals");
    const auto top = preflop_top_percent(static_cast<double>(*v) / 100);
    out.insert(out.end(), top.begin(), top.end());
    return;
  }
  if (const auto h = parse_hole_cards(item)) {
    out.push_back(*h);
    return;
  }
  if (const auto dash = item.find('-'); dash != std::string_view::npos) {
    const auto a = parse_class(trim(item.substr(0, dash))), b = parse_class(trim(item.substr(dash + 1)));
    if (!a || !b) fail(item, "a span needs two hand classes like 99-66 or A5s-A2s");
    if ((a->high == a->low) != (b->high == b->low) || a->kind != b->kind)
      fail(item, "both ends of a span must be pairs, or share suitedness");
    if (a->high == a->low) {
      for (int r = std::min(a->high, b->high); r <= std::max(a->high, b->high); ++r) add_pair(r, out);
      return;
    }
    if (a->high != b->high) fail(item, "both ends of a span must share the high card (A5s-A2s)");
    for (int r = std::min(a->low, b->low); r <= std::max(a->low, b->low); ++r) add_two_ranks(a->high, r, a->kind, out);
    return;
  }
  const bool plus = item.back() == '+';
  const auto c = parse_class(plus ? item.substr(0, item.size() - 1) : item);
  if (!c) fail(item, "expected two cards (AhKh), a hand class (QQ, AKs, KQo, AK), a span (A5s-A2s), X+ or 'random'");
  if (!plus) {
    add_class(*c, item, out);
  } else if (c->high == c->low) {
    if (c->kind != suitedness::any) fail(item, "a pair cannot be suited or offsuit");
    for (int r = c->high; r <= 12; ++r) add_pair(r, out);
  } else {
    for (int r = c->low; r < c->high; ++r) add_two_ranks(c->high, r, c->kind, out);
  }
}

}  // namespace

std::vector<card_t> parse_card_run(std::string_view text) {
  std::vector<card_t> cards;
  std::size_t i = 0;
  while (i < text.size()) {
    if (std::isspace(static_cast<unsigned char>(text[i])) || text[i] == ',') {
      ++i;
      continue;
    }
    bool found = false;
    // A card token is a rank ("10" or one character) plus a suit letter or symbol (up to 3 bytes).
    for (std::size_t len = 2; len <= 5 && i + len <= text.size() && !found; ++len) {
      try {
        cards.push_back(parse_card(text.substr(i, len)));
        i += len;
        found = true;
      } catch (const card_parse_error&) {
      }
    }
    if (!found) {
      std::size_t end = i;
      while (end < text.size() && !std::isspace(static_cast<unsigned char>(text[end])) && text[end] != ',') ++end;
      throw range_parse_error(fmt::format("invalid card '{}' in '{}'", text.substr(i, std::max<std::size_t>(end - i, 1)), text));
    }
  }
  return cards;
}

std::optional<hole_cards> parse_hole_cards(std::string_view text) {
  text = trim(text);
  std::vector<card_t> cards;
  try {
    cards = parse_card_run(text);
  } catch (const range_parse_error&) {
    return std::nullopt;
  }
  if (cards.size() != 2) return std::nullopt;
  if (cards[0] == cards[1]) throw range_parse_error(fmt::format("invalid hand '{}': the same card twice", text));
  return ordered(cards[0], cards[1]);
}

namespace {

// "50", "12.5" -> value * 10^scale_digits, at most max_decimals decimals, else nullopt.
std::optional<std::uint64_t> parse_decimal(std::string_view t, unsigned max_decimals) {
  if (t.empty()) return std::nullopt;
  std::uint64_t v = 0;
  unsigned decimals = 0;
  bool dot = false, digits = false;
  for (char ch : t) {
    if (ch == '.' && !dot) {
      dot = true;
      continue;
    }
    if (ch < '0' || ch > '9') return std::nullopt;
    if (dot && ++decimals > max_decimals) return std::nullopt;
    if (v > 1'000'000'000) return std::nullopt;
    v = v * 10 + static_cast<unsigned>(ch - '0');
    digits = true;
  }
  if (!digits) return std::nullopt;
  for (; decimals < max_decimals; ++decimals) v *= 10;
  return v;
}

// Splits "ITEM@W" / "ITEM:F" into the item and its weight (weight_unit when absent).
std::pair<std::string_view, std::uint32_t> split_weight(std::string_view item) {
  const auto at = item.find_first_of("@:");
  if (at == std::string_view::npos) return {item, weight_unit};
  const std::string_view num = trim(item.substr(at + 1));
  const bool percent = item[at] == '@';
  const auto v = parse_decimal(num, percent ? 2 : 4);  // both in units of 1/10000
  if (!v || *v > weight_unit)
    fail(item, percent ? "a weight after '@' is a percentage from 0 to 100 with at most two decimals"
                       : "a weight after ':' is a fraction from 0 to 1 with at most four decimals");
  return {trim(item.substr(0, at)), static_cast<std::uint32_t>(*v)};
}

}  // namespace

weighted_range parse_weighted_range(std::string_view text) {
  const std::string_view all = trim(text);
  if (all.empty()) fail(text, "empty");
  std::vector<std::pair<hole_cards, std::uint32_t>> listed;  // in order of mention
  std::vector<hole_cards> item_combos;
  std::size_t start = 0;
  while (start <= all.size()) {
    const auto comma = all.find(',', start);
    const auto end = comma == std::string_view::npos ? all.size() : comma;
    const auto [item, weight] = split_weight(trim(all.substr(start, end - start)));
    item_combos.clear();
    parse_item(item, item_combos);
    for (const auto& h : item_combos) listed.push_back({h, weight});
    start = end + 1;
  }
  // The last mention of a combo wins: stable sort by combo, keep each run's last entry.
  std::stable_sort(listed.begin(), listed.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  weighted_range out;
  bool all_full = true;
  for (std::size_t i = 0; i < listed.size(); ++i) {
    if (i + 1 < listed.size() && listed[i + 1].first == listed[i].first) continue;
    if (listed[i].second == 0) continue;
    out.combos.push_back(listed[i].first);
    out.weights.push_back(listed[i].second);
    all_full = all_full && listed[i].second == weight_unit;
  }
  if (out.combos.empty()) fail(text, "every combo has weight 0");
  if (all_full) out.weights.clear();
  return out;
}

std::vector<hole_cards> parse_range(std::string_view text) {
  auto r = parse_weighted_range(text);
  if (!r.weights.empty()) fail(text, "weights are not allowed here");
  return std::move(r.combos);
}

}  // namespace fairdeck::poker
