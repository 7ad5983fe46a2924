#!/usr/bin/env bash
# Durable deals/s and latency of fairdeckd on three stores in one run (docs/service.md, "A
# replicated PostgreSQL"): SQLite, a single PostgreSQL 15 and the replicated cluster of
# scripts/ha-cluster.sh (primary + synchronous standby), with 1 and 2 fairdeckd instances on
# the PostgreSQL stores. wrk on loopback, 8 tables (each request picks one at random). Every
# PostgreSQL server runs with the same settings as ha-cluster.sh's nodes' defaults (fsync on,
# synchronous_commit on). Then one failover (kill -9 of the primary's postmaster and keeper)
# timed from the kill to the first acknowledged deal.
#   bench/service/ha_bench.sh [build/release/fairdeckd] [connections=64] [seconds=8]
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=$(realpath "${1:-build/release/fairdeckd}")
conns=${2:-64}
secs=${3:-8}
pgbin=/usr/lib/postgresql/15/bin
command -v wrk >/dev/null || { echo "ha_bench: wrk is not installed (scripts/setup.sh --with-ci-tools)" >&2; exit 2; }
command -v pg_autoctl >/dev/null || { echo "ha_bench: pg_autoctl is not installed (scripts/setup.sh --with-ci-tools)" >&2; exit 2; }
[[ -x $bin ]] || { echo "ha_bench: $bin not built" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
servers=()
export FAIRDECK_HA_DIR=$work/ha FAIRDECK_HA_PORT=${FAIRDECK_HA_PORT:-46430}
as_pg=()
[[ $(id -u) == 0 ]] && as_pg=(runuser -u postgres --)
cleanup() {
  for s in "${servers[@]}"; do kill "$s" 2>/dev/null || true; done
  wait 2>/dev/null || true
  [[ -d $work/pg/data ]] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  scripts/ha-cluster.sh down >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

start() {  # db key-file-args... → sets $addr; appends the pid to servers (not in a subshell)
  local out=$work/out.$RANDOM
  : >"$out"
  "$bin" serve --db "$@" --listen 127.0.0.1:0 --max-connections-per-client "$((conns + 8))" >"$out" 2>>"$work/err" &
  servers+=($!)
  for _ in $(seq 200); do grep -q listening "$out" && break; sleep 0.05; done
  addr=$(sed -n 's|.*http://||p' "$out")
}
stop_all() {
  for s in "${servers[@]}"; do kill "$s" 2>/dev/null || true; done
  wait 2>/dev/null || true
  servers=()
}
setup_tables() {  # addr token
  local t i
  for i in $(seq 0 7); do
    t=b$i
    curl -sf -X POST -H "Authorization: Bearer $2" "http://$1/v1/tables" -d "{\"seats\": 1, \"table\": \"$t\"}" >/dev/null
    curl -sf -X PUT -H "Authorization: Bearer $2" "http://$1/v1/tables/$t/seats/1/client-seed" -d '{"client_seed": "s"}' >/dev/null
  done
}
lua() {
  cat >"$work/deal.lua" <<LUA
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Authorization"] = "Bearer $1"
wrk.headers["Content-Type"] = "application/json"
request = function() return wrk.format(nil, "/v1/tables/b" .. math.random(0, 7) .. "/deals") end
LUA
}
wrk_run() {  # addr → "rate p99_ms non2xx"
  local out
  out=$(wrk -t1 -c"$1" -d"${secs}s" --latency -s "$work/deal.lua" "http://$2/")
  awk '/^Requests\/sec/ {r=$2} $1 == "99%" {p=$2} /Non-2xx/ {b=$5}
       END {u=substr(p, length(p)-1); v=p+0; if (u=="us") v/=1000; else if (p ~ /[0-9]s$/) v*=1000;
            printf "%s %.1f %d\n", r, v, b+0}' <<<"$out"
}
measure() {  # name addr... : wrk on each address at once (connections split between them)
  local name=$1; shift
  local n=$# each=$((conns / $#)) i=0 pids=()
  for a in "$@"; do wrk_run "$each" "$a" >"$work/r.$i" & pids+=($!); i=$((i + 1)); done
  local load; load=$(cut -d' ' -f1 /proc/loadavg)
  wait "${pids[@]}"
  local rate=0 p99=0 bad=0
  for ((i = 0; i < n; i++)); do
    read -r r p b <"$work/r.$i"
    rate=$(awk -v a="$rate" -v b="$r" 'BEGIN {printf "%.0f", a + b}')
    p99=$(awk -v a="$p99" -v b="$p" 'BEGIN {print (b > a ? b : a)}')
    bad=$((bad + b))
  done
  printf '| %-36s | %9s | %8s | %6s | %s |\n' "$name" "$rate" "$p99" "$bad" "$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "$rate" >"$work/rate.$(echo "$name" | tr 'A-Z' 'a-z' | tr -c 'a-z0-9' _)"
}

echo "| store, instances ($conns connections, ${secs}s each) | deals/s | p99 (ms) | non-2xx | load average (1, 5, 15 min) |"
echo "|---|---:|---:|---:|---|"
# SQLite
token=$("$bin" init --db "$work/s.db" 2>/dev/null)
start "$work/s.db"; a=$addr; setup_tables "$a" "$token"; lua "$token"
measure "SQLite, 1 instance" "$a"
stop_all
# one PostgreSQL (same version and defaults as the cluster's nodes), over TCP on loopback
mkdir -p "$work/pg"; [[ $(id -u) == 0 ]] && chown postgres: "$work/pg"
"${as_pg[@]}" "$pgbin/initdb" -D "$work/pg/data" --auth=trust -U postgres >/dev/null
pgport=$((FAIRDECK_HA_PORT + 10))
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -o "-p $pgport -c listen_addresses=127.0.0.1 -k $work/pg" -l "$work/pg/log" -w start >/dev/null || { tail -5 "$work/pg/log" >&2; exit 1; }
"${as_pg[@]}" "$pgbin/createdb" -h 127.0.0.1 -p "$pgport" -U postgres fairdeck
uri="postgresql://127.0.0.1:$pgport/fairdeck?user=postgres"
token=$("$bin" init --db "$uri" --key-file "$work/pg.key" 2>/dev/null)
start "$uri" --key-file "$work/pg.key"; a=$addr; setup_tables "$a" "$token"; lua "$token"
measure "PostgreSQL, 1 instance" "$a"
start "$uri" --key-file "$work/pg.key"; b=$addr
measure "PostgreSQL, 2 instances" "$a" "$b"
stop_all
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -m fast -w stop >/dev/null
# the replicated cluster
uri=$(scripts/ha-cluster.sh up 2>/dev/null | tail -n1)
token=$("$bin" init --db "$uri" --key-file "$work/ha.key" 2>/dev/null)
start "$uri" --key-file "$work/ha.key"; a=$addr; setup_tables "$a" "$token"; lua "$token"
measure "replicated (sync standby), 1 instance" "$a"
start "$uri" --key-file "$work/ha.key"; b=$addr
measure "replicated (sync standby), 2 instances" "$a" "$b"
r1=$(cat "$work"/rate.postgresql__1_instance*) r2=$(cat "$work"/rate.replicated__sync_standby___1_instance*)
echo
echo "synchronous replication keeps $(awk -v a="$r2" -v b="$r1" 'BEGIN {printf "%.2f", a / b}') of the single server's rate (1 instance)"

# one failover under light load: kill -9 the primary's keeper and postmaster
json=$(scripts/ha-cluster.sh status --json)
read -r kpid ppid < <(python3 -c 'import json,sys; p=json.loads(sys.argv[1])["primary"]; print(p["keeper_pid"], p["pid"])' "$json")
t0=$(date +%s.%N)
kill -9 -- "-$(ps -o pgid= -p "$kpid" | tr -d " ")" "-$(ps -o pgid= -p "$ppid" | tr -d " ")" 2>/dev/null || true
until curl -sf -m 2 -X POST -H "Authorization: Bearer $token" "http://$a/v1/tables/b0/deals" -d '{}' >/dev/null; do sleep 0.05; done
echo "failover: first acknowledged deal $(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN {printf "%.2f", b - a}') s after the kill"
