#!/usr/bin/env bash
# fairdeckd on PostgreSQL against pgbench on the same cluster, in one run (docs/service.md,
# "PostgreSQL"; issue #35 item 3): a PostgreSQL 15 of its own (initdb in a temp dir, TCP on
# loopback, the defaults: fsync on, synchronous_commit on), then for R rounds, alternating:
#   pgbench  — single-row INSERT of a record-sized row (~700 bytes), C clients, autocommit
#     (the TPS the goal's ratio divides by), then the same with N clients, as many as wrk's
#     connections: what PostgreSQL's own client sees at the deals' concurrency (p50/p99 from
#     pgbench's per-transaction log); -p 0: no pgbench phases (a cluster serving fairdeckd
#     alone; no ratio then);
#   each fairdeckd binary given — durable deals on T tables (wrk, N connections, each request
#     picks a table at random) while a probe asks GET /healthz 100 times a second on its own
#     keep-alive connection (its p99 is the "/healthz while deals run at full rate" figure),
#     and a second probe asks the same of an idle fairdeckd (SQLite, no traffic) beside it: the
#     control — what any process waits for the two busy cores, whatever its own work.
# Prints one row per measurement (rate, p50, p99, deals per commit, whether a checkpoint was
# writing, the WAL flushes, the WAL segments PostgreSQL created rather than recycled, load
# average) and per binary the median over rounds of deals/s ÷ the pgbench TPS of the same round.
# -o adds server settings for both sides (e.g. -o '-c max_wal_size=4GB': with the default 1 GB
# a checkpoint can start within a 3-round run at these write rates; the last line counts them).
# -w: seconds of the same load run unmeasured before each measurement, both sides (default 2;
# 0 for none): the measured seconds then start with the connections open and the caches warm,
# not with 256 TCP handshakes and a cold server.
# -l MS: fairdeckd reaches PostgreSQL through delay_proxy.py, which holds each chunk MS ms each
# way (a database across a network; the measured round trip is printed). pgbench stays direct
# (its clients would saturate the proxy), so with -l the ratio to pgbench is not the goal's.
# -P DIR: `perf record -e cpu-clock -g` of the cluster's processes during each fairdeckd
# measurement, into DIR/pg.r<round>.b<binary>.data (where PostgreSQL's CPU goes: `perf report
# --no-children -i FILE`; docs/service.md quotes such profiles).
# The binaries take turns going first after pgbench (round r starts with binary r), so no one
# binary always meets the cluster right after pgbench's inserts.
#   bench/service/pg_bench.sh [-c 256] [-s 10] [-r 3] [-t 8] [-p 32] [-w 2] [-l MS] [-P DIR] [-a 'serve args'] [-o 'postgres options'] fairdeckd [fairdeckd...]
set -euo pipefail
cd "$(dirname "$0")/../.."
conns=256 secs=10 rounds=3 tables=8 pgclients=32 extra="" pgopts="" warm=2 delay="" perfdir=""
while getopts c:s:r:t:p:a:o:w:l:P: o; do
  case $o in
    c) conns=$OPTARG ;; s) secs=$OPTARG ;; r) rounds=$OPTARG ;; t) tables=$OPTARG ;; p) pgclients=$OPTARG ;; a) extra=$OPTARG ;; o) pgopts=$OPTARG ;;
    w) warm=$OPTARG ;; l) delay=$OPTARG ;; P) perfdir=$OPTARG ;;
    *) echo "usage: pg_bench.sh [-c conns] [-s secs] [-r rounds] [-t tables] [-p pgbench clients] [-a serve-args] [-o postgres-options] [-w warm-up secs] [-l link delay ms] [-P perf dir] fairdeckd..." >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ -z $delay || $delay =~ ^[0-9]+([.][0-9]+)?$ ]] || { echo "pg_bench: -l wants a delay in ms (a number), not '$delay'" >&2; exit 2; }
bins=()
for b in "${@:-build/release/fairdeckd}"; do
  [[ -x $b ]] || { echo "pg_bench: $b not built" >&2; exit 2; }
  bins+=("$(realpath "$b")")
done
pgbin=/usr/lib/postgresql/15/bin
if [[ -n $perfdir ]]; then
  command -v perf >/dev/null || { echo "pg_bench: -P needs perf (linux-perf)" >&2; exit 2; }
  mkdir -p "$perfdir" || exit 2
  perfdir=$(realpath "$perfdir")
fi
for t in wrk pgbench python3 curl; do
  command -v $t >/dev/null || { echo "pg_bench: $t is not installed (scripts/setup.sh --with-ci-tools)" >&2; exit 2; }
done
[[ -x $pgbin/initdb ]] || { echo "pg_bench: PostgreSQL 15 is not installed" >&2; exit 2; }

work=$(mktemp -d)
chmod 755 "$work"
server="" proxy="" idle=""
as_pg=()
[[ $(id -u) == 0 ]] && as_pg=(runuser -u postgres --)
cleanup() {
  [[ -n $server ]] && kill "$server" 2>/dev/null
  [[ -n $proxy ]] && kill "$proxy" 2>/dev/null
  [[ -n $idle ]] && kill "$idle" 2>/dev/null
  wait 2>/dev/null || true
  [[ -d $work/pg/data ]] && "${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -m immediate -w stop >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/pg"; [[ $(id -u) == 0 ]] && chown postgres: "$work/pg"
"${as_pg[@]}" "$pgbin/initdb" -D "$work/pg/data" --auth=trust -U postgres >/dev/null
pgport=${FAIRDECK_PG_BENCH_PORT:-46450}
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$work/pg/data" -o "-p $pgport -c listen_addresses=127.0.0.1 -c max_connections=$((conns > pgclients ? conns + 64 : pgclients + 64)) -k $work/pg $pgopts" \
  -l "$work/pg/log" -w start >/dev/null || { tail -5 "$work/pg/log" >&2; exit 1; }
psql() { command psql -q -X -h 127.0.0.1 -p "$pgport" -U postgres "$@"; }
psql -c "CREATE DATABASE pgb" postgres
fdport=$pgport  # fairdeckd's way to the cluster: direct, or through the delay proxy (-l)
if [[ -n $delay ]]; then
  fdport=$((pgport + 1))
  python3 bench/service/delay_proxy.py "$fdport" "$pgport" "$delay" &
  proxy=$!
  for _ in $(seq 100); do pg_isready -q -h 127.0.0.1 -p "$fdport" && break; sleep 0.05; done
  pg_isready -q -h 127.0.0.1 -p "$fdport" || { echo "pg_bench: the delay proxy did not start on port $fdport" >&2; exit 1; }
  echo "SELECT 1;" >"$work/select1.sql"
  link_rtt=$(pgbench -n -h 127.0.0.1 -p "$fdport" -U postgres -c 1 -T 2 -f "$work/select1.sql" pgb 2>&1 | awk '/^latency average/ {print $4}')
fi
psql -d pgb -c "CREATE TABLE ins(table_id TEXT NOT NULL, seq BIGSERIAL PRIMARY KEY, body TEXT NOT NULL, hash TEXT NOT NULL)"
# A row like a deal's record: table id, seq, ~600-byte canonical body, 64-hex hash.
echo "INSERT INTO ins(table_id, body, hash) VALUES ('bench', repeat('x', 600), md5(random()::text) || md5(random()::text));" \
  >"$work/insert.sql"

cat >"$work/probe.py" <<'PY'
# GET /healthz every 10 ms on one keep-alive connection until killed; prints p50 p99 max (ms).
import http.client, signal, sys, time
host, port = sys.argv[1].rsplit(":", 1)
lat, bad = [], 0
def done(*_):
    lat.sort()
    q = lambda p: lat[min(len(lat) - 1, int(p * len(lat)))] if lat else float("nan")
    print(f"{q(0.5):.2f} {q(0.99):.2f} {lat[-1] if lat else float('nan'):.2f} {len(lat)} {bad}")
    sys.exit(0)
signal.signal(signal.SIGTERM, done)
c = http.client.HTTPConnection(host, int(port), timeout=10)
nxt = time.monotonic()
while True:
    t0 = time.monotonic()
    try:
        c.request("GET", "/healthz")
        r = c.getresponse(); r.read()
        if r.status != 200: bad += 1
    except Exception:
        bad += 1
        c = http.client.HTTPConnection(host, int(port), timeout=10)
    lat.append((time.monotonic() - t0) * 1000)
    nxt += 0.01
    time.sleep(max(0.0, nxt - time.monotonic()))
PY

# The control: an idle fairdeckd (the first binary, on SQLite) that only the second probe asks.
"${bins[0]}" init --db "$work/idle.db" >/dev/null 2>&1
"${bins[0]}" serve --db "$work/idle.db" --listen 127.0.0.1:0 >"$work/idle.out" 2>>"$work/err" &
idle=$!
for _ in $(seq 200); do grep -q listening "$work/idle.out" && break; sleep 0.05; done
idle_addr=$(sed -n 's|^fairdeckd listening on http://||p' "$work/idle.out")
[[ -n $idle_addr ]] || { echo "pg_bench: the idle fairdeckd did not start" >&2; tail -5 "$work/err" >&2; exit 1; }

# CPU ticks (1/CLK_TCK s) used by the cluster so far: the postmaster with its reaped children
# (backends that exited) plus every live child. Robust under load, unlike rates.
pg_ticks() {
  local pm t=0 f g c
  pm=$(head -1 "$work/pg/data/postmaster.pid")
  read -r -a f < <(sed 's/.*) //' "/proc/$pm/stat")
  t=$((f[11] + f[12] + f[13] + f[14]))
  for c in $(pgrep -P "$pm"); do
    read -r -a g < <(sed 's/.*) //' "/proc/$c/stat" 2>/dev/null) && t=$((t + g[11] + g[12]))
  done
  echo "$t"
}
proc_ticks() { local f; read -r -a f < <(sed 's/.*) //' "/proc/$1/stat"); echo $((f[11] + f[12])); }
tick_us=$((1000000 / $(getconf CLK_TCK)))
per() { awk -v t="$1" -v n="$2" -v u="$tick_us" 'BEGIN {printf "%.0f", (n > 0 ? t * u / n : 0)}'; }

# Whether a checkpoint was writing during a measurement: one in progress when it began (a
# "checkpoint starting" line without its "checkpoint complete" yet; with the default
# checkpoint_completion_target, 0.9, its writes spread over most of the time to the next one) or
# one started during it. PostgreSQL 15 logs both lines by default (log_checkpoints = on).
ckpt_counts() { echo "$(grep -c 'checkpoint starting' "$work/pg/log" || true) $(grep -c 'checkpoint complete' "$work/pg/log" || true)"; }
# WAL flushes so far: "count ms" (pg_stat_wal: the flushes' fdatasync calls and their time, the
# time only with -o '-c track_wal_io_timing=on', else 0). A deal's and an INSERT's commit waits
# for one. Not counted: creating a new WAL segment (zero-filled and synced by the process that
# needs it, often a committing backend): wal_created below counts those.
wal_syncs() { psql -At -F' ' -d postgres -c "SELECT wal_sync, round(wal_sync_time::numeric, 1) FROM pg_stat_wal"; }
# WAL segments created so far: files in pg_wal whose inode was never seen there before (a
# recycled segment keeps its inode under a new name; a created one is new, and was zero-filled
# and synced unless wal_init_zero is off). Keeps its tally in $work/wal.*.
wal_created() {
  local d=$work/pg/data/pg_wal n
  [[ -f $work/wal.seen ]] || { : >"$work/wal.seen"; echo 0 >"$work/wal.count"; }
  find "$d" -maxdepth 1 -type f -regextype posix-extended -regex '.*/[0-9A-F]{24}' -printf '%i\n' | sort -u >"$work/wal.now"
  n=$(($(cat "$work/wal.count") + $(comm -13 "$work/wal.seen" "$work/wal.now" | wc -l)))
  sort -u -o "$work/wal.seen" "$work/wal.seen" "$work/wal.now"
  echo "$n" | tee "$work/wal.count"
}
# The cluster's background state, taken before and after a measurement: "starts completes
# flushes ms created".
bg_state() { echo "$(ckpt_counts) $(wal_syncs) $(wal_created)"; }
bg_since() {  # state0 state1 → "checkpoint(yes/no) flushes/s,mean_ms segments_created" over $secs
  local s0 c0 n0 t0 w0 s1 n1 t1 w1
  read -r s0 c0 n0 t0 w0 <<<"$1"
  read -r s1 _ n1 t1 w1 <<<"$2"
  if ((s0 > c0 || s1 > s0)); then echo -n "yes "; else echo -n "no "; fi
  awk -v n=$((n1 - n0)) -v t0="$t0" -v t1="$t1" -v s="$secs" 'BEGIN {printf "%.0f/s,%.2f", n / s, (n > 0 ? (t1 - t0) / n : 0)}'
  echo " $((w1 - w0))"
}

ms() { awk -v p="$1" 'BEGIN {u = p; v = p + 0; if (u ~ /us$/) v /= 1000; else if (u ~ /[0-9]s$/ && u !~ /ms$/) v *= 1000; printf "%.1f", v}'; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

run_pgbench() {  # clients → "tps pg_cpu_us_per_insert p50_ms p99_ms checkpoint wal_flushes segments_created" (latencies from pgbench's per-transaction log)
  local c=$1 out t0 t1 n g0 g1
  if ((warm > 0)); then
    pgbench -n -h 127.0.0.1 -p "$pgport" -U postgres -c "$c" -j 2 -T "$warm" -f "$work/insert.sql" pgb >/dev/null 2>&1
  fi
  psql -d pgb -c "TRUNCATE ins" >/dev/null
  rm -f "$work"/pgblog.*
  t0=$(pg_ticks)
  g0=$(bg_state)
  out=$(pgbench -n -h 127.0.0.1 -p "$pgport" -U postgres -c "$c" -j 2 -T "$secs" -l --log-prefix="$work/pgblog" -f "$work/insert.sql" pgb 2>&1)
  sleep 1  # the postmaster reaps the clients' backends: their CPU then counts in its children's
  t1=$(pg_ticks)
  g1=$(bg_state)
  n=$(awk '/number of transactions actually processed/ {print $NF; exit}' <<<"$out")
  # Each log line: client, transaction, latency in µs, script, epoch s, µs.
  echo "$(awk '/^tps/ {print $3; exit}' <<<"$out") $(per $((t1 - t0)) "$n") $(cat "$work"/pgblog.* | awk '{print $3}' | sort -n |
    awk '{a[NR] = $1} END {q = int(NR * 0.5); if (q < 1) q = 1; r = int(NR * 0.99); if (r < 1) r = 1; printf "%.1f %.1f", a[q] / 1000, a[r] / 1000}') $(bg_since "$g0" "$g1")"
}

run_fairdeckd() {  # bin round index → "rate p50 p99 hz_p50 hz_p99 per_commit bad hz_bad pg_cpu fd_cpu idle_p50 idle_p99 checkpoint wal_flushes segments_created"
  local bin=$1 db=fd_$2_$RANDOM out token addr
  psql -c "CREATE DATABASE $db" postgres
  local uri="postgresql://127.0.0.1:$fdport/$db?user=postgres"
  token=$("$bin" init --db "$uri" --key-file "$work/$db.key" 2>/dev/null)
  out=$work/out.$db
  "$bin" serve --db "$uri" --key-file "$work/$db.key" --listen 127.0.0.1:0 --max-connections-per-client "$((conns + 8))" $extra \
    >"$out" 2>>"$work/err" &
  server=$!
  for _ in $(seq 200); do grep -q listening "$out" && break; sleep 0.05; done
  addr=$(sed -n 's|^fairdeckd listening on http://||p' "$out")
  [[ -n $addr ]] || { tail -5 "$work/err" >&2; exit 1; }
  # With -a '--operator-listen HOST:PORT' the deals go to the operator listener and the probe
  # asks the public one (the load balancer's view of a split deployment).
  local op
  op=$(sed -n 's|^fairdeckd operator listener on http://||p' "$out")
  [[ -n $op ]] || op=$addr
  local i
  for ((i = 0; i < tables; i++)); do
    curl -sf -X POST -H "Authorization: Bearer $token" "http://$op/v1/tables" -d "{\"seats\": 1, \"table\": \"b$i\"}" >/dev/null
    curl -sf -X PUT -H "Authorization: Bearer $token" "http://$op/v1/tables/b$i/seats/1/client-seed" -d '{"client_seed": "s"}' >/dev/null
  done
  cat >"$work/deal.lua" <<LUA
wrk.method = "POST"
wrk.body = "{}"
wrk.headers["Authorization"] = "Bearer $token"
wrk.headers["Content-Type"] = "application/json"
request = function() return wrk.format(nil, "/v1/tables/b" .. math.random(0, $((tables - 1))) .. "/deals") end
LUA
  # The warm-up keeps its connections to itself: the measured wrk opens its own 256.
  ((warm > 0)) && wrk -t1 -c"$conns" -d"${warm}s" -s "$work/deal.lua" "http://$op/" >/dev/null
  local m0 b0 w0
  m0=$(curl -sf "http://$addr/metrics")
  b0=$(awk '$1 == "fairdeck_store_batches_total" {print $2}' <<<"$m0")
  w0=$(awk '$1 == "fairdeck_store_writes_total" {print $2}' <<<"$m0")
  local pt0 ft0 pt1 ft1 g0 g1
  pt0=$(pg_ticks); ft0=$(proc_ticks "$server")
  g0=$(bg_state)
  python3 "$work/probe.py" "$addr" >"$work/probe.out" &
  local probe=$!
  python3 "$work/probe.py" "$idle_addr" >"$work/probe_idle.out" &
  local probe_idle=$!
  local wout perf=""
  if [[ -n $perfdir ]]; then
    perf record -q -e cpu-clock -g -o "$perfdir/pg.r$2.b$3.data" -p "$(pgrep -d, -P "$(head -1 "$work/pg/data/postmaster.pid")")" \
      >/dev/null 2>&1 &
    perf=$!
  fi
  wout=$(wrk -t1 -c"$conns" -d"${secs}s" --latency -s "$work/deal.lua" "http://$op/")
  [[ -n $perf ]] && { kill -INT "$perf"; wait "$perf" || true; }
  kill -TERM "$probe" "$probe_idle"; wait "$probe" "$probe_idle" || true
  pt1=$(pg_ticks); ft1=$(proc_ticks "$server")
  g1=$(bg_state)
  local m1 b1 w1
  m1=$(curl -sf "http://$addr/metrics")
  b1=$(awk '$1 == "fairdeck_store_batches_total" {print $2}' <<<"$m1")
  w1=$(awk '$1 == "fairdeck_store_writes_total" {print $2}' <<<"$m1")
  kill "$server"; wait "$server" 2>/dev/null || true
  server=""
  local rate p50 p99 bad
  rate=$(awk '/^Requests\/sec/ {print $2}' <<<"$wout")
  p50=$(ms "$(awk '$1 == "50%" {print $2}' <<<"$wout")")
  p99=$(ms "$(awk '$1 == "99%" {print $2}' <<<"$wout")")
  bad=$(awk '/Non-2xx/ {print $5}' <<<"$wout")
  read -r hp50 hp99 hmax hn hbad <"$work/probe.out"
  local ip50 ip99 _
  read -r ip50 ip99 _ <"$work/probe_idle.out"
  echo "$rate $p50 $p99 $hp50 $hp99 $(awk -v w=$((w1 - w0)) -v b=$((b1 - b0)) 'BEGIN {printf "%.1f", b ? w / b : 0}') ${bad:-0} $hbad $(per $((pt1 - pt0)) $((w1 - w0))) $(per $((ft1 - ft0)) $((w1 - w0))) $ip50 $ip99 $(bg_since "$g0" "$g1")"
}

echo "PostgreSQL 15 (fsync on, synchronous_commit on${pgopts:+; $pgopts}) on $(nproc) cores; $( ((pgclients > 0)) && echo "pgbench -c $pgclients single-row INSERT" || echo "no pgbench phases (-p 0)");"
[[ -n $delay ]] && echo "fairdeckd reaches PostgreSQL through delay_proxy.py, $delay ms each way: a SELECT 1 round trip through it averages $link_rtt ms (pgbench -c 1); pgbench itself connects directly;"
echo "fairdeckd ${extra:+($extra) }: wrk -t1 -c$conns -d${secs}s durable deals on $tables tables + GET /healthz every 10 ms (and of an idle fairdeckd beside it, the control), after ${warm}s of the same load unmeasured (both sides); $(date -u '+%F %H:%M') UTC"
echo
echo "| round | what | rate/s | p50 ms | p99 ms | /healthz p50 ms | /healthz p99 ms | idle server's /healthz p50 / p99 ms | per commit | PostgreSQL CPU µs each | fairdeckd CPU µs each | non-2xx | checkpoint writing | WAL flushes, mean ms | WAL segments created | load average |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---:|---|"
declare -A ratios
for ((r = 1; r <= rounds; r++)); do
  if ((pgclients > 0)); then
    l=$(load)
    read -r tps pgus bp50 bp99 bck bws bwc < <(run_pgbench "$pgclients")
    echo "| $r | pgbench INSERT, $pgclients clients | $tps | $bp50 | $bp99 | | | | 1 | $pgus | | | $bck | $bws | $bwc | $l |"
  fi
  if ((pgclients > 0 && pgclients != conns)); then  # the database's own client at the deals' concurrency: its latency is the floor's
    l=$(load)
    read -r ctps cpgus cp50 cp99 cck cws cwc < <(run_pgbench "$conns")
    echo "| $r | pgbench INSERT, $conns clients | $ctps | $cp50 | $cp99 | | | | 1 | $cpgus | | | $cck | $cws | $cwc | $l |"
  fi
  for ((j = 0; j < ${#bins[@]}; j++)); do
    k=$(((j + r - 1) % ${#bins[@]}))
    l=$(load)
    read -r rate p50 p99 hp50 hp99 pc bad hbad pgc fdc ip50 ip99 fck fws fwc < <(run_fairdeckd "${bins[$k]}" "$r" "$((k + 1))")
    echo "| $r | fairdeckd #$((k + 1)) deals | $rate | $p50 | $p99 | $hp50 | $hp99 | $ip50 / $ip99 | $pc | $pgc | $fdc | $((bad + hbad)) | $fck | $fws | $fwc | $l |"
    ((pgclients > 0)) && ratios[$k]+="$(awk -v a="$rate" -v b="$tps" 'BEGIN {printf "%.3f", a / b}') "
  done
done
echo
for ((k = 0; k < ${#bins[@]} && pgclients > 0; k++)); do
  echo "fairdeckd #$((k + 1)) (${bins[$k]}): deals/s ÷ pgbench TPS per round: ${ratios[$k]}→ median $(tr ' ' '\n' <<<"${ratios[$k]}" | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')"
done
# PostgreSQL 15 logs every checkpoint: one writing during a measurement shows in its tail
# latency (the rows' "checkpoint writing" column says which).
echo "PostgreSQL checkpoints during the run (${pgopts:-default settings}): $(grep -c 'checkpoint starting' "$work/pg/log" || true)"
