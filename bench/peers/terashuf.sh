#!/usr/bin/env bash
# fairdeck shuffle-file against terashuf (alexandres/terashuf) beyond RAM at the same memory
# budget, side by side on this machine. Fetches nothing: give it a checkout of terashuf.
#   bench/peers/terashuf.sh TERASHUF_SRC [INPUT] [MEMORY_GB=0.25] [ROUNDS=3]
# Env: FAIRDECK (binary, default build/release/fairdeck), WORK (folder for the input, the
# outputs and both sides' temporary files; default /tmp/fairdeck-terashuf-bench), THREADS
# (fairdeck --threads, default 0 = all cores), KEEP=1 keeps the generated input.
#
# Builds terashuf.cc as its Makefile does, with the machine's best flags (g++ -std=c++11 -O3
# -march=native). Without INPUT it makes a 2.5 GB file of 57 M distinct 44-byte lines.
# The budget is the same number for both: terashuf's MEMORY (GiB: its read buffer, plus its
# 8-byte line index on top) and fairdeck's --memory (MEMORY GiB in MiB, covering everything
# fairdeck holds). Both put their temporary files in WORK. Peak resident memory of both sides
# is printed (/usr/bin/time %M) so the budgets can be compared.
#
# Durability, the user's view ("until the output is durably on disk"), counted the same way
# for both: each timed command is the shuffle writing OUT, then `sync OUT` (coreutils: fsync
# of that file alone, not the file system, so other jobs' dirty pages are not paid for).
# terashuf writes through stdio and the page cache, so its fsync pays the whole output;
# fairdeck -o already fsyncs its output (and renames it into place), so its `sync OUT` finds
# nothing left to write — the same command is run on both sides anyway. Temporary files are
# not made durable by either side (they are deleted at the end).
#
# The input is read once before the rounds (both sides read it from the page cache). Sides
# alternate (odd rounds terashuf first, even rounds fairdeck first); each round prints both
# times and the load average. At the end: the median of each side, the ratio of the medians
# (terashuf / fairdeck, > 1 = fairdeck faster), the ratio's spread over rounds (min..max of
# the per-round ratios) and the load. Outputs are checked to hold the input's bytes and lines.
set -euo pipefail
src=${1:?usage: bench/peers/terashuf.sh TERASHUF_SRC [INPUT] [MEMORY_GB] [ROUNDS]}
input=${2:-}
mem_gb=${3:-0.25}
rounds=${4:-3}
root=$(cd "$(dirname "$0")/../.." && pwd)
fd=$(realpath "${FAIRDECK:-$root/build/release/fairdeck}")
work=${WORK:-/tmp/fairdeck-terashuf-bench}
threads=${THREADS:-0}
[[ -f $src/terashuf.cc ]] || { echo "terashuf.sh: $src is not a terashuf checkout (no terashuf.cc)" >&2; exit 2; }
[[ -x $fd ]] || { echo "terashuf.sh: $fd missing: build the release preset first" >&2; exit 2; }
[[ -x /usr/bin/time ]] || { echo "terashuf.sh: needs /usr/bin/time (GNU time) for the peak memory" >&2; exit 2; }
mkdir -p "$work"
work=$(realpath "$work")
tmp=$(mktemp -d "$work/run.XXXXXX")
generated=""
cleanup() {
  rm -rf "$tmp"
  if [[ -n $generated && ${KEEP:-0} != 1 ]]; then rm -f "$generated"; fi
}
trap cleanup EXIT

echo "building terashuf (g++ -std=c++11 -O3 -march=native, as its Makefile)..." >&2
g++ -std=c++11 -Dhome -O3 -march=native "$src/terashuf.cc" -o "$tmp/terashuf"

if [[ -z $input ]]; then
  input=$work/tera_input.txt
  if [[ ! -f $input ]]; then
    echo "making $input (57 M lines, 2.5 GB)..." >&2
    awk 'BEGIN{for(i=0;i<57000000;i++) printf "record %09d some payload text %d\n", i, i*7}' >"$input.part"
    mv "$input.part" "$input"
    generated=$input
  fi
fi
input=$(realpath "$input")
bytes=$(stat -c %s "$input")
lines=$(wc -l <"$input")
mem_mib=$(awk "BEGIN{printf \"%d\", $mem_gb * 1024}")
cat "$input" >/dev/null  # into the page cache, for both sides

# run SIDE OUT: one timed run, durable; prints "seconds peak_kib"
run() {
  local side=$1 out=$2 s e rss
  rm -f "$out"
  s=$(date +%s.%N)
  if [[ $side == terashuf ]]; then
    TMPDIR=$tmp MEMORY=$mem_gb SEED=1 /usr/bin/time -f %M -o "$tmp/rss" "$tmp/terashuf" <"$input" >"$out" 2>"$tmp/err" ||
      { echo "terashuf failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  else
    /usr/bin/time -f %M -o "$tmp/rss" "$fd" shuffle-file "$input" --seed 1 --memory "${mem_mib}M" --temp-dir "$tmp" \
      --threads "$threads" --quiet -o "$out" 2>"$tmp/err" || { echo "fairdeck failed:" >&2; cat "$tmp/err" >&2; exit 1; }
  fi
  sync "$out"
  e=$(date +%s.%N)
  rss=$(tail -1 "$tmp/rss")
  awk "BEGIN{printf \"%.3f %d\\n\", $e - $s, $rss}"
}

echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores," \
  "$(awk '/MemTotal/{printf "%.0f GiB", $2/1048576}' /proc/meminfo) RAM; input $input: $bytes bytes, $lines lines;" \
  "MEMORY=$mem_gb / --memory ${mem_mib}M; temp files in $tmp; $rounds rounds"
: >"$tmp/times"
for ((r = 1; r <= rounds; ++r)); do
  if ((r % 2)); then order="terashuf fairdeck"; else order="fairdeck terashuf"; fi
  for side in $order; do
    load=$(cut -d' ' -f1 /proc/loadavg)
    read -r secs rss < <(run "$side" "$tmp/out_$side")
    o_bytes=$(stat -c %s "$tmp/out_$side")
    o_lines=$(wc -l <"$tmp/out_$side")
    [[ $o_bytes == "$bytes" && $o_lines == "$lines" ]] ||
      { echo "$side: output has $o_bytes bytes and $o_lines lines, the input $bytes and $lines" >&2; exit 1; }
    rm -f "$tmp/out_$side"
    printf '%s\t%d\t%s\t%s\t%s\n' "$side" "$r" "$secs" "$rss" "$load" >>"$tmp/times"
    printf 'round %d %-9s %8.2f s  peak RSS %5d MiB  load %s\n' "$r" "$side" "$secs" $((rss / 1024)) "$load"
  done
done
python3 - "$tmp/times" <<'PY'
import statistics, sys
t, rss = {}, {}
for line in open(sys.argv[1]):
    side, rnd, secs, kib, load = line.split("\t")
    t.setdefault(side, {})[int(rnd)] = float(secs)
    rss.setdefault(side, []).append(int(kib))
ts, fd = t["terashuf"], t["fairdeck"]
ratios = sorted(ts[r] / fd[r] for r in ts)
mt, mf = statistics.median(ts.values()), statistics.median(fd.values())
print(f"terashuf median {mt:.2f} s (peak RSS {max(rss['terashuf']) / 1024:.0f} MiB), "
      f"fairdeck median {mf:.2f} s (peak RSS {max(rss['fairdeck']) / 1024:.0f} MiB)")
print(f"ratio terashuf / fairdeck: {mt / mf:.2f} (per round {ratios[0]:.2f}..{ratios[-1]:.2f})")
PY
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
