#!/usr/bin/env bash
# The fairdeck side of the peer comparisons (bench/peers/ompeval.sh, ompeval_eval.sh) builds
# against the library as the scripts build it (bench/peers/fairdeck_libs.sh) and runs: a tiny
# evaluation and a tiny exact equity, whose answers are checked. OMPEval itself is not needed.
#   tests/peers_link_test.sh SOURCE_DIR LIBFAIRDECK_A
set -euo pipefail
root=$1 lib=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for d in eval_driver equity_driver; do
  # shellcheck disable=SC2046  # the flags are words
  g++ -O1 -std=c++20 -pthread -I "$root/include" -DDRIVER_FAIRDECK "$root/bench/peers/$d.cpp" "$lib" \
    $("$root/bench/peers/fairdeck_libs.sh") -o "$work/$d"
done
# 1,000 random hands, one pass, the per-call item: a line naming it and a checksum.
out=$("$work/eval_driver" 1000 1 rand_cards)
grep -q '^rand_cards' <<<"$out" || { echo "eval_driver printed no rand_cards line: $out" >&2; exit 1; }
# AhKh against QsQd preflop, exact: AhKh wins about 46 %.
out=$("$work/equity_driver" 1 1 'AhKh,QsQd')
echo "$out"
awk -F'\t' '{if ($3 < 0.45 || $3 > 0.47) exit 1}' <<<"$out" ||
  { echo "unexpected equity: $out" >&2; exit 1; }
