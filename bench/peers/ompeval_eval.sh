#!/usr/bin/env bash
# fairdeck's 7-card evaluator against OMPEval's HandEvaluator (zekyll/OMPEval), side by side on
# this machine, one thread, CPU time. Fetches nothing: give it a checkout of OMPEval's sources.
#   bench/peers/ompeval_eval.sh OMPEVAL_SRC [ROUNDS=5] [HANDS=4000000] [PASSES=20] [ENUM_PASSES=5]
# Builds bench/peers/eval_driver.cpp twice: against OMPEval (omp/HandEvaluator.cpp, g++ -O3
# -march=native, as its Makefile with the machine's best flags) and against the shipped
# build/release/libfairdeck.a (g++ -O3, generic x86-64 as installed; the library picks its
# AVX2/AVX-512 kernels at run time). Both sides evaluate the same pregenerated random hands:
#   rand_cards  7 card indices per hand (one byte each, in the side's own encoding), the hand
#               built inside the timed loop (OMPEval README's "Rand1")
#   rand_hands  each side's own 16-byte hand object built before timing ("Rand2")
#   rand_batch_K fairdeck's batch call (eval7_batch) with kernel K (scalar; avx512 where the
#               CPU has it) on the rand_cards input; the ratio is against OMPEval's rand_cards
#   rand_bytes_K the same on the cards as bytes (7 bytes a hand, as OMPEval's rand_cards reads;
#               fairdeck's card_t is 2 bytes): the input streamed from memory halves
#   enum_nested all 133,784,560 hands, nested loops adding a card per level ("Seq")
#   enum_library fairdeck's own enumeration (for_each_hand<7>) against OMPEval's enum_nested
#   control     fairdeck's rand_cards against itself: the harness's own spread (ideal 1.00)
# The rand_* items time all PASSES passes over the hands together; an enumeration item runs
# ENUM_PASSES whole enumerations and reports its fastest.
# The two sides of a ratio run at the same time in alternating 10 ms slices (bench/peers/
# alternate.py: one runs while the other is stopped), each in its own process timing itself by
# CPU time, so both meet the same moments of a shared machine whose speed drifts by up to 2x
# within seconds (timed back to back instead, identical runs measured 0.53-1.17x of each other).
# Which side starts alternates by round. Prints per item the median over rounds of each side
# (M evaluations/s of CPU time), the ratio of the medians (fairdeck / OMPEval, > 1 = fairdeck
# faster), the spread of the rounds' ratios, the load average, and whether the checksums agree
# (same hands, same values).
set -euo pipefail
src=${1:?usage: bench/peers/ompeval_eval.sh OMPEVAL_SRC [ROUNDS] [HANDS] [PASSES] [ENUM_PASSES]}
rounds=${2:-5} hands=${3:-4000000} passes=${4:-20} enum_passes=${5:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=$root/build/release/libfairdeck.a
[[ -f $src/omp/HandEvaluator.cpp ]] || { echo "ompeval_eval.sh: $src is not an OMPEval checkout (no omp/HandEvaluator.cpp)" >&2; exit 2; }
[[ -f $lib ]] || { echo "ompeval_eval.sh: $lib missing: build the release preset first (cmake --workflow --preset release)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "building OMPEval's evaluator (g++ -O3 -march=native) and the fairdeck driver (g++ -O3)..." >&2
# The compile fixes of ompeval.sh, on a copy (the checkout is left as it is).
cp -r "$src/omp" "$src/libdivide" "$work/"
sed -i 's/static uint64_t min()/static constexpr uint64_t min()/; s/static uint64_t max()/static constexpr uint64_t max()/' \
  "$work/omp/Random.h"
g++ -O3 -march=native -std=c++11 -include functional -I "$work" -DDRIVER_OMPEVAL "$root/bench/peers/eval_driver.cpp" \
  "$work/omp/HandEvaluator.cpp" -o "$work/ompeval"
g++ -O3 -std=c++20 -I "$root/include" -DDRIVER_FAIRDECK "$root/bench/peers/eval_driver.cpp" "$lib" \
  $("$root/bench/peers/fairdeck_libs.sh") -o "$work/fairdeck"
# fairdeck item : the item it is compared with, and that item's side (kernels the CPU lacks
# print nothing)
pairs=(rand_cards:rand_cards:ompeval rand_hands:rand_hands:ompeval enum_nested:enum_nested:ompeval
       rand_batch_scalar:rand_cards:ompeval rand_batch_avx2:rand_cards:ompeval
       rand_batch_avx512:rand_cards:ompeval rand_bytes_scalar:rand_cards:ompeval rand_bytes_avx2:rand_cards:ompeval
       rand_bytes_avx512:rand_cards:ompeval enum_library:enum_nested:ompeval control:rand_cards:fairdeck)
for ((r = 1; r <= rounds; ++r)); do
  for pair in "${pairs[@]}"; do
    IFS=: read -r f o base <<<"$pair"
    item=$f n=$passes
    [[ $f == control ]] && item=rand_cards
    [[ $f == enum_* ]] && n=$enum_passes
    cmds=("$work/$base $hands $n $o" "$work/fairdeck $hands $n $item")
    sides=(base fairdeck)
    ((r % 2 == 0)) && cmds=("${cmds[1]}" "${cmds[0]}") sides=(fairdeck base)
    out=$(python3 "$root/bench/peers/alternate.py" "${cmds[@]}")
    [[ $(wc -l <<<"$out") == 2 ]] || continue  # a kernel this CPU does not have
    while IFS=$'\t' read -r k _ rate checksum; do
      printf '%s\t%s\t%s\t%s\t%s\n' "${sides[k]}" "$r" "$f" "$rate" "$checksum"
    done <<<"$out" >>"$work/times"
  done
  echo "round $r of $rounds done (load $(cut -d' ' -f1 /proc/loadavg))" >&2
done
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), one thread, CPU time," \
  "$rounds rounds, $hands random hands x $passes passes (enumerations: fastest of $enum_passes), alternated in 10 ms slices, load average $(cut -d' ' -f1-3 /proc/loadavg)"
python3 - "$work/times" <<'PY'
import statistics, sys
t, ck = {}, {}  # per fairdeck item: each side's rates in round order, and checksums
# (side "base" is OMPEval, or fairdeck itself for the control row)
for line in open(sys.argv[1]):
    side, rnd, pair, rate, checksum = line.split()
    t.setdefault(pair, {}).setdefault(side, []).append(float(rate))
    ck.setdefault(pair, {}).setdefault(side, set()).add(checksum)
print(f"{'work':18} {'OMPEval M/s':>12} {'fairdeck M/s':>13} {'ratio':>6}  spread over rounds  checksums agree")
for pair, s in t.items():
    o, f = statistics.median(s["base"]), statistics.median(s["fairdeck"])
    ratios = sorted(b / a for a, b in zip(s["base"], s["fairdeck"]))
    agree = ck[pair]["fairdeck"] == ck[pair]["base"] and len(ck[pair]["fairdeck"]) == 1
    print(f"{pair:18} {o:12.1f} {f:13.1f} {f / o:6.2f}  {ratios[0]:.2f}..{ratios[-1]:.2f}        {'yes' if agree else 'NO'}")
PY
