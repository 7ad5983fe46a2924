// Exact multi-way equity, one query at a time, timed in-process: the same driver is built against
// fairdeck (-DDRIVER_FAIRDECK, linking the shipped libfairdeck.a) or against OMPEval's sources
// (-DDRIVER_OMPEVAL) by bench/peers/ompeval.sh, so both sides answer the same queries the same way.
//   equity_driver THREADS RUNS 'AA,KK,QQ' ['AhKh,QsQd|board'] ...
// Each query: one untimed warm-up, then RUNS timed runs; prints "query<TAB>median ms<TAB>equities".
// Hands are comma-separated ranges in the syntax both accept (AA, AKs, AhKh, random); an
// optional '|' adds a board. Both enumerate every deal (exact), results printed to compare.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#if defined(DRIVER_FAIRDECK)
#include "fairdeck/poker/equity.hpp"
#include "fairdeck/poker/range.hpp"
#elif defined(DRIVER_OMPEVAL)
#include "omp/EquityCalculator.h"
#else
#error "define DRIVER_FAIRDECK or DRIVER_OMPEVAL"
#endif

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (;;) {
    const auto next = s.find(sep, at);
    out.push_back(s.substr(at, next - at));
    if (next == std::string::npos) return out;
    at = next + 1;
  }
}

// One exact computation; returns each player's equity.
std::vector<double> solve(const std::vector<std::string>& hands, const std::string& board, unsigned threads) {
#if defined(DRIVER_FAIRDECK)
  namespace fp = fairdeck::poker;
  fp::equity_input in;
  for (const auto& h : hands) in.ranges.push_back(fp::parse_range(h));
  in.board = fp::parse_card_run(board);
  const auto r = fp::exact_equity(fp::prepared(std::move(in)), threads);
  std::vector<double> eq;
  for (std::size_t p = 0; p < r.players.size(); ++p) eq.push_back(fp::equity_share(r, p));
  return eq;
#else
  std::vector<omp::CardRange> ranges(hands.begin(), hands.end());
  omp::EquityCalculator calc;
  calc.start(ranges, omp::CardRange::getCardMask(board), 0, true, 0, nullptr, 1e9, threads);
  calc.wait();
  const auto r = calc.getResults();
  return {r.equity, r.equity + r.players};
#endif
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s THREADS RUNS QUERY...\n", argv[0]);
    return 2;
  }
  const auto threads = static_cast<unsigned>(std::atoi(argv[1]));
  const int runs = std::atoi(argv[2]);
  for (int q = 3; q < argc; ++q) {
    const auto parts = split(argv[q], '|');
    const auto hands = split(parts[0], ',');
    const std::string board = parts.size() > 1 ? parts[1] : "";
    auto eq = solve(hands, board, threads);  // warm-up (tables, threads)
    std::vector<double> ms;
    for (int i = 0; i < runs; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      eq = solve(hands, board, threads);
      ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%s\t%.3f", argv[q], ms[ms.size() / 2]);
    for (const double e : eq) std::printf("\t%.6f", e);
    std::printf("\n");
  }
  return 0;
}
