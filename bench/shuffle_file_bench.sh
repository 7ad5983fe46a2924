#!/bin/bash
# shuffle-file against its baselines, measured in the same run (ratios are what count):
#   in memory  — GNU shuf on the same ~400 MB file (issue goal: >= 3x faster until the output
#                is durably on disk: both sides write a file and `sync FILE` (fsync of that
#                file alone) is part of the time; fairdeck -o fsyncs already, so its sync
#                finds nothing left; sides alternated, per-round ratios, load recorded);
#   external   — the disk limit: the time to read the data twice and write it twice with
#                cat and sync (issue goal: >= 70 % of it under --memory).
# Each case runs ROUNDS times (default 3) after one warm-up read of the input; medians are
# printed. HUGE=1 adds the 10.5 GB file under --memory 1G (needs ~45 GB free); EXTERNAL=0 skips
# the external part. Against terashuf beyond RAM: bench/peers/terashuf.sh.
# Usage: bench/shuffle_file_bench.sh [fairdeck binary] [work dir]
set -eu
F=$(realpath "${1:-build/release/fairdeck}")
W=${2:-/tmp/fairdeck-shuffle-bench}
ROUNDS=${ROUNDS:-3}
mkdir -p "$W" && cd "$W"
# DROP_CACHES=1 (root): start from an empty page cache. A cache filled by earlier runs makes
# every large allocation reclaim pages first, which slows both sides by up to 2x.
if [ "${DROP_CACHES:-0}" = 1 ]; then sync; echo 1 > /proc/sys/vm/drop_caches; fi
[ -f small.txt ] || awk 'BEGIN{for(i=0;i<9000000;i++) printf "record %09d some payload text %d\n", i, i*7}' > small.txt
[ "${EXTERNAL:-1}" = 0 ] || [ -f big.txt ] || (for k in 1 2 3 4 5; do cat small.txt; done) > big.txt
if [ "${HUGE:-0}" = 1 ] && [ ! -f huge.txt ]; then (for k in 1 2 3 4 5 6; do cat big.txt; done) > huge.txt; fi

# seconds of one run of "$@" (stdout discarded, stderr kept quiet); fails loudly
t() {
  local s e
  s=$(date +%s.%N)
  "$@" >/dev/null 2>&1 || { echo "FAILED: $*" >&2; exit 1; }
  e=$(date +%s.%N)
  awk "BEGIN{printf \"%.2f\", $e - $s}"
}
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END{print a[int((NR+1)/2)]}'; }
# case NAME CMD...: ROUNDS runs, prints the runs and the median, stores it in M_<name>
case_() {
  local name=$1 runs="" r
  shift
  for r in $(seq "$ROUNDS"); do runs="$runs $(t "$@")"; done
  local m
  m=$(echo "$runs" | median)
  printf '%-58s runs:%s  median %s s\n' "$name" "$runs" "$m"
  eval "M_$(echo "$name" | tr -c 'a-zA-Z0-9\n' '_')=$m"
}
ratio() { awk "BEGIN{printf \"%.2f\", $1 / $2}"; }
# alternate NAME_A "CMD_A" NAME_B "CMD_B": ROUNDS rounds, A first in odd rounds and B first in
# even ones; prints each round's times, the ratio A / B of that round and the load average, then
# the medians, the ratio of the medians and the spread (min..max) of the per-round ratios.
alternate() {
  local na=$1 ca=$2 nb=$3 cb=$4 r ta tb ratios="" as="" bs=""
  for r in $(seq "$ROUNDS"); do
    if [ $((r % 2)) = 1 ]; then ta=$(t sh -c "$ca"); tb=$(t sh -c "$cb"); else tb=$(t sh -c "$cb"); ta=$(t sh -c "$ca"); fi
    as="$as $ta"; bs="$bs $tb"; ratios="$ratios $(ratio "$ta" "$tb")"
    printf '  round %d: %s %s s, %s %s s, ratio %s (load %s)\n' "$r" "$na" "$ta" "$nb" "$tb" "$(ratio "$ta" "$tb")" "$(cut -d' ' -f1 /proc/loadavg)"
  done
  local ma mb lo hi
  ma=$(echo "$as" | median); mb=$(echo "$bs" | median)
  lo=$(echo "$ratios" | tr ' ' '\n' | grep . | sort -n | head -1); hi=$(echo "$ratios" | tr ' ' '\n' | grep . | sort -n | tail -1)
  printf '%s median %s s, %s median %s s: ratio %s (per round %s..%s)\n' "$na" "$ma" "$nb" "$mb" "$(ratio "$ma" "$mb")" "$lo" "$hi"
}
disk() { cat "$1" > c1 && sync c1 && cat c1 > c2 && sync c2; rm -f c1 c2; }
# The issue's definition, literally: the disk's own sequential speeds, without the page cache
# (O_DIRECT): one direct read of the file and one direct, fsync'd write of as many bytes;
# the limit is twice each.
direct_read() { dd if="$1" of=/dev/null bs=8M iflag=direct status=none; }
direct_write() { dd if=/dev/zero of=dw bs=8M count=$(( $(stat -c %s "$1") / 8388608 )) oflag=direct conv=fsync status=none; rm -f dw; }
# direct_limit NAME FILE: stores 2 x (read + write) in M_<NAME>
direct_limit() {
  case_ "$1_read" direct_read "$2"
  case_ "$1_write" direct_write "$2"
  local r=M_$1_read w=M_$1_write v
  v=$(awk "BEGIN{printf \"%.2f\", 2 * (${!r} + ${!w})}")
  eval "M_$1=$v"
  echo "disk limit at the disk's own speeds (2 x direct read + 2 x direct write): $v s"
}

echo "== in memory: small.txt ($(du -h small.txt | cut -f1)), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
cat small.txt > /dev/null
echo "durable (the user's view): each side writes a file, then sync FILE, in the time"
alternate shuf "shuf small.txt > out_shuf.txt && sync out_shuf.txt" fairdeck \
  "$F shuffle-file small.txt --seed 1 -o out_fd0.txt && sync out_fd0.txt"
case_ shuf sh -c "shuf small.txt > out_shuf.txt"
case_ fd_stdout sh -c "$F shuffle-file small.txt --seed 1 > out_fd.txt"
case_ fd_o "$F" shuffle-file small.txt --seed 1 -o out_fd1.txt
case_ fd_threads1 "$F" shuffle-file small.txt --seed 1 --threads 1 -o out_fd2.txt
case_ fd_64M "$F" shuffle-file small.txt --seed 1 --memory 64M -o out_fd3.txt
cmp out_fd.txt out_fd1.txt && cmp out_fd.txt out_fd2.txt && cmp out_fd.txt out_fd3.txt && echo "same output for every mode"
echo "shuf / fairdeck (> file): $(ratio "$M_shuf" "$M_fd_stdout")x   (-o, fsync'd): $(ratio "$M_shuf" "$M_fd_o")x"

# EXTERNAL=0: the in-memory part only
[ "${EXTERNAL:-1}" = 1 ] || exit 0
echo "== external: big.txt ($(du -h big.txt | cut -f1))"
cat big.txt > /dev/null
case_ disk_big disk big.txt
direct_limit direct_big big.txt
case_ fd_big_256M "$F" shuffle-file big.txt --seed 1 --memory 256M -o out_big.txt
echo "fairdeck --memory 256M at $(awk "BEGIN{printf \"%.0f\", 100 * $M_disk_big / $M_fd_big_256M}") % of the cat/sync limit, $(awk "BEGIN{printf \"%.0f\", 100 * $M_direct_big / $M_fd_big_256M}") % of the direct limit"

if [ "${HUGE:-0}" = 1 ]; then
  echo "== external: huge.txt ($(du -h huge.txt | cut -f1))"
  case_ disk_huge disk huge.txt
  direct_limit direct_huge huge.txt
  case_ fd_huge_1G "$F" shuffle-file huge.txt --seed 1 --memory 1G -o out_huge.txt
  echo "fairdeck --memory 1G at $(awk "BEGIN{printf \"%.0f\", 100 * $M_disk_huge / $M_fd_huge_1G}") % of the cat/sync limit, $(awk "BEGIN{printf \"%.0f\", 100 * $M_direct_huge / $M_fd_huge_1G}") % of the direct limit"
  rm -f out_huge.txt
fi
