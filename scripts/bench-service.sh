#!/usr/bin/env bash
# Load test of fairdeckd with wrk on loopback, same server and same run for both rows:
#   GET /healthz (no store work)  vs  POST /v1/tables/bench/deals (durable deals: SQLite
#   WAL + fsync, group commit). Prints a Markdown table (rate, p50, p99, errors) and the
#   durable/healthz ratio, then checks that every answered deal is stored and the chain verifies.
#   Each row also has fairdeckd's CPU time per request (utime + stime from /proc over the run,
#   divided by the requests wrk counted): unlike rates, it barely moves with the machine's load,
#   so on a shared machine compare builds by it (and by rates only within one run).
#   The deals row also has what fairdeckd wrote to disk per deal (write_bytes of /proc/PID/io
#   over the run, divided by the deals answered: the WAL and the checkpoints' copies).
#   scripts/bench-service.sh [build/release/fairdeckd[,other/fairdeckd…]] [connections=256] [seconds=10] [wrk threads=2]
# Several builds (comma-separated) and ROUNDS=n (default 1): each round runs every build once,
# each on a fresh server, in turn (the order reversed every other round, so the machine's drift
# over a round does not favour one side); after the rounds, one summary row per build: the
# median and the range over rounds of each figure. Any failed check (non-2xx, a deal missing,
# a broken chain) makes the exit status 1.
set -euo pipefail
cd "$(dirname "$0")/.."
IFS=, read -r -a bins <<<"${1:-build/release/fairdeckd}"
conns=${2:-256}
secs=${3:-10}
wthreads=${4:-2}
rounds=${ROUNDS:-1}
command -v wrk >/dev/null || { echo "bench-service: wrk is not installed (scripts/setup.sh --with-ci-tools)" >&2; exit 2; }
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "bench-service: ROUNDS must be a positive integer, got '$rounds'" >&2; exit 2; }
for bin in "${bins[@]}"; do
  [[ -x $bin ]] || { echo "bench-service: $bin not built" >&2; exit 2; }
done

top=$(mktemp -d)
server=""
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$top"; }
trap cleanup EXIT

cpu_ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
run() {  # name url [script] -> "rate p50 p99 non2xx cpu_us_per_request"
  local name=$1 url=$2 script=${3:-}
  local out t0 t1
  t0=$(cpu_ticks)
  out=$(wrk -t"$wthreads" -c"$conns" -d"${secs}s" --latency ${script:+-s "$script"} "$url")
  t1=$(cpu_ticks)
  echo "$out" >"$work/$name.txt"
  local rate p50 p99 bad
  rate=$(awk '/^Requests\/sec/ {print $2}' <<<"$out")
  p50=$(awk '$1 == "50%" {print $2}' <<<"$out")
  p99=$(awk '$1 == "99%" {print $2}' <<<"$out")
  bad=$(awk '/Non-2xx/ {print $5}' <<<"$out")
  errs=$(awk '/Socket errors/ {print $0}' <<<"$out")
  n=$(awk '/requests in/ {print $1}' <<<"$out")
  cpu=$(awk -v t="$((t1 - t0))" -v hz="$(getconf CLK_TCK)" -v n="${n:-0}" 'BEGIN { if (n > 0) printf "%.1f", t * 1e6 / hz / n; else print "?" }')
  echo "$rate ${p50:-?} ${p99:-?} ${bad:-0} $cpu ${errs:+($errs)}"
}

# One measurement of one build on a fresh server: prints the Markdown table, and appends a
# tab-separated line to $top/results: build, healthz rate, healthz CPU, deals rate, deals p99,
# deals CPU, ratio, ok (1 when every check passed).
measure() {
  local bin=$1
  work=$(mktemp -d -p "$top")
  local token addr auth
  token=$("$bin" init --db "$work/bench.db" 2>/dev/null)
  "$bin" serve --db "$work/bench.db" --listen 127.0.0.1:0 --max-connections-per-client "$((conns + 8))" >"$work/out" 2>"$work/err" &
  server=$!
  for _ in $(seq 100); do grep -q listening "$work/out" && break; sleep 0.05; done
  addr=$(sed -n 's|.*http://||p' "$work/out")
  [[ -n $addr ]] || { cat "$work/err"; exit 1; }
  auth="Authorization: Bearer $token"
  curl -sf -X POST -H "$auth" "http://$addr/v1/tables" -d '{"seats": 2, "table": "bench"}' >/dev/null
  curl -sf -X PUT -H "$auth" "http://$addr/v1/tables/bench/seats/1/client-seed" -d '{"client_seed": "alice"}' >/dev/null
  curl -sf -X PUT -H "$auth" "http://$addr/v1/tables/bench/seats/2/client-seed" -d '{"client_seed": "bob"}' >/dev/null

  cat >"$work/deal.lua" <<LUA
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Authorization"] = "Bearer $token"
wrk.headers["Content-Type"] = "application/json"
LUA

  local h_rate h_p50 h_p99 h_bad h_cpu h_err d_rate d_p50 d_p99 d_bad d_cpu d_err
  read -r h_rate h_p50 h_p99 h_bad h_cpu h_err < <(run healthz "http://$addr/healthz")
  local io0 io1
  io0=$(awk '$1 == "write_bytes:" {print $2}' "/proc/$server/io")
  read -r d_rate d_p50 d_p99 d_bad d_cpu d_err < <(run deals "http://$addr/v1/tables/bench/deals" "$work/deal.lua")
  io1=$(awk '$1 == "write_bytes:" {print $2}' "/proc/$server/io")
  local metrics deals batches writes chain
  metrics=$(curl -sf "http://$addr/metrics")
  deals=$(awk '$1 == "fairdeck_deals_total" {print $2}' <<<"$metrics")
  batches=$(awk '$1 == "fairdeck_store_batches_total" {print $2}' <<<"$metrics")
  writes=$(awk '$1 == "fairdeck_store_writes_total" {print $2}' <<<"$metrics")
  curl -sf -X POST -H "$auth" "http://$addr/v1/tables/bench/rotate" >/dev/null
  curl -sf "http://$addr/v1/tables/bench/audit" >"$work/audit.json"
  chain=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["chain"]; print("verified" if c["verified"] else "BROKEN", c["deals_verified"])' "$work/audit.json" 2>/dev/null || echo "unchecked")
  kill "$server" 2>/dev/null
  wait "$server" 2>/dev/null || true
  server=""

  echo "$bin on $(nproc) cores, wrk -t$wthreads -c$conns -d${secs}s, loopback, $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo
  echo "| endpoint | requests/s | p50 | p99 | non-2xx | fairdeckd CPU µs/request |"
  echo "|---|---:|---:|---:|---:|---:|"
  echo "| GET /healthz | $h_rate | $h_p50 | $h_p99 | $h_bad | $h_cpu |"
  echo "| POST /v1/tables/bench/deals (durable) | $d_rate | $d_p50 | $d_p99 | $d_bad | $d_cpu |"
  echo
  awk -v d="$d_rate" -v h="$h_rate" 'BEGIN { printf "durable deals / healthz = %.2f\n", d / h }'
  awk -v d="$d_cpu" -v h="$h_cpu" 'BEGIN { if (d > 0) printf "fairdeckd CPU per healthz / per deal = %.2f (the rate ratio if fairdeckd alone were CPU-bound)\n", h / d }'
  awk -v w="$writes" -v b="$batches" 'BEGIN { if (b > 0) printf "group commit: %d writes in %d transactions (%.1f per commit)\n", w, b, w / b }'
  local disk_kb
  disk_kb=$(awk -v a="$io0" -v b="$io1" -v n="${deals:-0}" 'BEGIN { if (n > 0 && a != "" && b != "") printf "%.2f", (b - a) / 1024 / n; else print "nan" }')
  echo "written to disk per deal: $disk_kb KB (WAL and checkpoints, /proc/PID/io)"
  echo "deals answered: $deals; chain after reveal: $chain"
  local ok=1
  [[ $h_bad == 0 && $d_bad == 0 && $chain == "verified $deals" ]] || ok=0
  ((ok)) || echo "CHECK FAILED: non-2xx $h_bad / $d_bad, chain '$chain' for $deals deals"
  # wrk prints p99 with its unit (us, ms, s): kept in ms for the summary
  local p99_ms
  p99_ms=$(awk -v v="$d_p99" 'BEGIN { u = v; sub(/^[0-9.]+/, "", u); x = v + 0; if (u == "us") x /= 1000; else if (u == "s") x *= 1000; printf "%.2f", x }')
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$bin" "$h_rate" "$h_cpu" "$d_rate" "$p99_ms" "$d_cpu" \
    "$(awk -v d="$d_rate" -v h="$h_rate" 'BEGIN { printf "%.3f", d / h }')" "$ok" "$disk_kb" >>"$top/results"
}

for ((r = 1; r <= rounds; ++r)); do
  order=("${bins[@]}")
  if ((r % 2 == 0)); then
    order=()
    for ((i = ${#bins[@]} - 1; i >= 0; --i)); do order+=("${bins[i]}"); done
  fi
  for bin in "${order[@]}"; do
    ((rounds > 1 || ${#bins[@]} > 1)) && echo && echo "### round $r of $rounds: $bin"
    measure "$bin"
  done
done

if ((rounds > 1 || ${#bins[@]} > 1)); then
  echo
  echo "Summary over $rounds round(s): median (min–max)"
  echo
  python3 - "$top/results" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    b, *v = line.rstrip("\n").split("\t")
    rows.setdefault(b, []).append([float(x) for x in v])
FMT = ["{:,.0f}", "{:.1f}", "{:,.0f}", "{:.1f}", "{:.1f}", "{:.2f}", None, "{:.2f}"]  # per column (6: ok)
def col(rs, i):
    xs = [r[i] for r in rs]
    f = FMT[i].format
    return f"{f(statistics.median(xs))} ({f(min(xs))}–{f(max(xs))})"
print("| build | /healthz req/s | /healthz CPU µs | deals/s | deals p99 ms | deal CPU µs | deals / healthz | disk KB/deal | checks |")
print("|---|---:|---:|---:|---:|---:|---:|---:|---|")
for b, rs in rows.items():
    ok = sum(int(r[6]) for r in rs)
    print(f"| {b} | {col(rs, 0)} | {col(rs, 1)} | {col(rs, 2)} | {col(rs, 3)} | {col(rs, 4)} | {col(rs, 5)} | {col(rs, 7)} | {ok} of {len(rs)} passed |")
PY
fi
if awk -F'\t' '$8 != 1 {bad = 1} END {exit !bad}' "$top/results"; then exit 1; fi
