#!/usr/bin/env bash
# fairdeck's exact multi-way equity against OMPEval's enumeration (zekyll/OMPEval), side by side
# on this machine. Fetches nothing: give it a checkout of OMPEval's sources.
#   bench/peers/ompeval.sh OMPEVAL_SRC [ROUNDS=5] [THREADS=2] [RUNS=5]
# Builds bench/peers/equity_driver.cpp twice: against OMPEval (its omp/*.cpp, g++ -O3
# -march=native, as its Makefile with the machine's best flags) and against the shipped
# build/release/libfairdeck.a (generic x86-64, as installed). The sides alternate for ROUNDS
# rounds; each round runs every query RUNS times after a warm-up and keeps the median. Prints
# per query the median over rounds of each side, the ratio (OMPEval / fairdeck, > 1 = fairdeck
# faster), its spread over rounds, the load average, and both sides' equities (they must agree).
set -euo pipefail
src=${1:?usage: bench/peers/ompeval.sh OMPEVAL_SRC [ROUNDS] [THREADS] [RUNS]}
rounds=${2:-5} threads=${3:-2} runs=${4:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/build/release/libfairdeck.a
[[ -f $src/omp/EquityCalculator.cpp ]] || { echo "ompeval.sh: $src is not an OMPEval checkout (no omp/EquityCalculator.cpp)" >&2; exit 2; }
[[ -f $lib ]] || { echo "ompeval.sh: $lib missing: build the release preset first (cmake --workflow --preset release)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "building OMPEval (g++ -O3 -march=native) and the fairdeck driver..." >&2
# Two fixes for today's compilers, applied to a copy (the checkout is left as it is): OMPEval
# (C++11) gets <functional> through other headers only with old libstdc++, and its engine's
# min()/max() must be constexpr for std::shuffle since GCC 11.
cp -r "$src/omp" "$src/libdivide" "$work/"
sed -i 's/static uint64_t min()/static constexpr uint64_t min()/; s/static uint64_t max()/static constexpr uint64_t max()/' \
  "$work/omp/Random.h"
src=$work
g++ -O3 -march=native -std=c++11 -include functional -pthread -I "$src" -DDRIVER_OMPEVAL "$root/bench/peers/equity_driver.cpp" \
  "$src"/omp/*.cpp -o "$work/ompeval"
g++ -O2 -std=c++20 -pthread -I "$root/include" -DDRIVER_FAIRDECK "$root/bench/peers/equity_driver.cpp" "$lib" \
  $("$root/bench/peers/fairdeck_libs.sh") -o "$work/fairdeck"
queries=(
  "AA,KK,QQ"
  "AA,KK,QQ,JJ"
  "AhKh,QsQd"
  "AcKc,random"
  "AsKs,QhQd,JcTc,9d9h"
  "AsKs,QhQd,JcTc,9d9h,7c7s"
  "AsKs,QhQd,JcTc,9d9h,7c7s,5d4d"
  "AKs,QQ,JTs|Qh9h2c"
  "QQ+,AK,JJ|7c8d9h2s"
  "JJ+,AK,QQ"
  "TT+,AQs+,KQs,AJo+"
  "AKs,QQ,JTs,99"
  "AhKh,random|Qh9h2c"
)
for ((r = 1; r <= rounds; ++r)); do
  for side in ompeval fairdeck; do
    "$work/$side" "$threads" "$runs" "${queries[@]}" | sed "s/^/$side\t$r\t/" >>"$work/times"
  done
  echo "round $r of $rounds done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $threads threads," \
  "$rounds rounds x $runs runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/times" <<'PY'
import statistics, sys
t = {}
eq = {}
for line in open(sys.argv[1]):
    side, rnd, q, ms, *e = line.rstrip("\n").split("\t")
    t.setdefault(q, {}).setdefault(side, []).append(float(ms))
    eq.setdefault(q, {})[side] = [float(x) for x in e]
print(f"{'query':40} {'OMPEval ms':>11} {'fairdeck ms':>12} {'ratio':>7}  spread over rounds   equities agree")
for q, s in t.items():
    o, f = statistics.median(s["ompeval"]), statistics.median(s["fairdeck"])
    ratios = sorted(a / b for a, b in zip(s["ompeval"], s["fairdeck"]))
    agree = all(abs(a - b) < 1e-6 for a, b in zip(eq[q]["ompeval"], eq[q]["fairdeck"]))
    print(f"{q:40} {o:11.2f} {f:12.2f} {o / f:7.2f}  {ratios[0]:.2f}..{ratios[-1]:.2f}   {'yes' if agree else 'NO: ' + str(eq[q])}")
PY
