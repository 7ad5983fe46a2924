#!/usr/bin/env bash
# Load test of fairdeckd with wrk on loopback, same server and same run for both rows:
#   GET /healthz (no store work)  vs  POST /v1/tables/bench/deals (durable deals: SQLite
#   WAL + fsync, group commit). Prints a Markdown table (rate, p50, p99, errors) and the
#   durable/healthz ratio, then checks that every answered deal is stored and the chain verifies.
#   Each row also has fairdeckd's CPU time per request (utime + stime from /proc over the run,
#   divided by the requests wrk counted): unlike rates, it barely moves with the machine's load,
#   so on a shared machine compare builds by it (and by rates only within one run).
#   scripts/bench-service.sh [build/release/fairdeckd] [connections=256] [seconds=10] [wrk threads=2]
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${1:-build/release/fairdeckd}
conns=${2:-256}
secs=${3:-10}
wthreads=${4:-2}
command -v wrk >/dev/null || { echo "bench-service: wrk is not installed (scripts/setup.sh --with-ci-tools)" >&2; exit 2; }
[[ -x $bin ]] || { echo "bench-service: $bin not built" >&2; exit 2; }

work=$(mktemp -d)
server=""
cleanup() { [[ -n $server ]] && kill "$server" 2>/dev/null; wait 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

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

read -r h_rate h_p50 h_p99 h_bad h_cpu h_err < <(run healthz "http://$addr/healthz")
read -r d_rate d_p50 d_p99 d_bad d_cpu d_err < <(run deals "http://$addr/v1/tables/bench/deals" "$work/deal.lua")
metrics=$(curl -sf "http://$addr/metrics")
deals=$(awk '$1 == "fairdeck_deals_total" {print $2}' <<<"$metrics")
batches=$(awk '$1 == "fairdeck_store_batches_total" {print $2}' <<<"$metrics")
writes=$(awk '$1 == "fairdeck_store_writes_total" {print $2}' <<<"$metrics")
curl -sf -X POST -H "$auth" "http://$addr/v1/tables/bench/rotate" >/dev/null
curl -sf "http://$addr/v1/tables/bench/audit" >"$work/audit.json"
chain=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["chain"]; print("verified" if c["verified"] else "BROKEN", c["deals_verified"])' "$work/audit.json" 2>/dev/null || echo "unchecked")

echo "fairdeckd on $(nproc) cores, wrk -t$wthreads -c$conns -d${secs}s, loopback, $(date -u '+%F %H:%M UTC'), load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| endpoint | requests/s | p50 | p99 | non-2xx | fairdeckd CPU µs/request |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| GET /healthz | $h_rate | $h_p50 | $h_p99 | $h_bad | $h_cpu |"
echo "| POST /v1/tables/bench/deals (durable) | $d_rate | $d_p50 | $d_p99 | $d_bad | $d_cpu |"
echo
awk -v d="$d_rate" -v h="$h_rate" 'BEGIN { printf "durable deals / healthz = %.2f\n", d / h }'
awk -v d="$d_cpu" -v h="$h_cpu" 'BEGIN { if (d > 0) printf "fairdeckd CPU per healthz / per deal = %.2f (the rate ratio if fairdeckd alone were CPU-bound)\n", h / d }'
awk -v w="$writes" -v b="$batches" 'BEGIN { if (b > 0) printf "group commit: %d writes in %d transactions (%.1f per commit)\n", w, b, w / b }'
echo "deals answered: $deals; chain after reveal: $chain"
