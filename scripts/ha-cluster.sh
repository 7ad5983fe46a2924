#!/usr/bin/env bash
# A replicated PostgreSQL 15 for fairdeckd on this machine (docs/ha.md): a pg_auto_failover
# monitor, a primary and a synchronous standby, each with its keeper, on local ports.
#   scripts/ha-cluster.sh up|down|status [--json] [--dir DIR] [--port BASE] [--standbys N]
# up      creates or restarts the cluster (idempotent) and prints the multi-host URI for
#         fairdeckd on its last line; bounded in time (FAIRDECK_HA_TIMEOUT, default 120 s).
# status  the nodes and their postmasters; --json prints
#         {"primary": {"port", "pid"}, "standbys": [{"port", "pid"}, ...], "monitor": {...}}
# down    stops every keeper and postmaster of the cluster and deletes DIR (--keep keeps it).
# DIR defaults to $FAIRDECK_HA_DIR or ${TMPDIR:-/tmp}/fairdeck-ha; BASE (the monitor's port,
# nodes on BASE+1, BASE+2, ...) to $FAIRDECK_HA_PORT or 55430. Run as root, the servers run as
# the user `postgres` (PostgreSQL refuses root); run as anyone else, as that user.
set -euo pipefail

usage() { sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "ha-cluster: $*" >&2; exit 1; }

cmd=${1:-}
[[ -n $cmd ]] || { usage >&2; exit 2; }
shift
json=0 keep=0
dir=${FAIRDECK_HA_DIR:-${TMPDIR:-/tmp}/fairdeck-ha}
base=${FAIRDECK_HA_PORT:-}
standbys=1
while [[ $# -gt 0 ]]; do
  case $1 in
    --json) json=1 ;;
    --keep) keep=1 ;;
    --dir) dir=${2:?--dir needs a directory}; shift ;;
    --port) base=${2:?--port needs a port number}; shift ;;
    --standbys) standbys=${2:?--standbys needs a number}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ha-cluster: unknown argument '$1'" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
case $cmd in up|down|status) ;; -h|--help) usage; exit 0 ;; *) echo "ha-cluster: unknown command '$cmd'" >&2; exit 2 ;; esac
[[ $standbys =~ ^[1-4]$ ]] || { echo "ha-cluster: --standbys must be 1..4" >&2; exit 2; }
timeout_s=${FAIRDECK_HA_TIMEOUT:-120}
deadline=$((SECONDS + timeout_s))

pgbin=/usr/lib/postgresql/15/bin
dbname=fairdeck
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
# The ports chosen at `up` are remembered: status and down find the cluster by its directory.
if [[ -z $base ]]; then base=$(cat "$dir/base_port" 2>/dev/null || echo 55430); fi
[[ $base =~ ^[0-9]+$ && $base -ge 1024 && $base -le 65000 ]] || { echo "ha-cluster: --port must be 1024..65000" >&2; exit 2; }
monitor_port=$base

wait_hint="logs: $dir/*.log"
# shellcheck source=scripts/pg-common.sh
source "$(dirname "$0")/pg-common.sh"
# pg_autoctl keeps its configuration and state under the XDG directories: all of them here.
ctl() {
  as_db env XDG_CONFIG_HOME="$dir/xdg/config" XDG_DATA_HOME="$dir/xdg/data" XDG_RUNTIME_DIR="$dir/xdg/run" \
    PATH="$pgbin:$PATH" PG_CONFIG="$pgbin/pg_config" pg_autoctl "$@"
}
psql_at() {  # port, sql → one value (empty when the server does not answer)
  as_db "$pgbin/psql" -X -qAt "postgresql://$dbuser@127.0.0.1:$1/${3:-postgres}?connect_timeout=2" -c "$2" 2>/dev/null || true
}
node_dirs() { for ((i = 1; i <= standbys + 1; i++)); do echo "$dir/node$i"; done; }
node_port() { echo $((base + ${1#"$dir/node"})); }
postmaster_pid() { live_pid "$1/postmaster.pid"; }  # the live postmaster of a data directory, or nothing
keeper_pid() {  # the live `pg_autoctl run` of a data directory, or nothing
  live_pid "$(find "$dir/xdg/run" -name pg_autoctl.pid -path "*${1}*" 2>/dev/null | head -n1)"
}
start_keeper() {  # pgdata: `pg_autoctl run` in the background, in its own session
  [[ -n $(keeper_pid "$1") ]] && return 0
  local log="$dir/$(basename "$1").log"
  setsid bash -c "$(declare -f ctl as_db); dir='$dir' pgbin='$pgbin' ctl run --pgdata '$1' >>'$log' 2>&1" </dev/null >/dev/null 2>&1 &
  disown
  wait_for "the keeper of $1" has_keeper "$1"
}
# `pg_autoctl show state --json` of the monitor: [{"nodename"/"nodeport", "reported_state", ...}]
node_state() {  # port → the state the monitor last saw
  psql_at "$monitor_port" "SELECT reportedstate FROM pgautofailover.node WHERE nodeport = $1" pg_auto_failover
}

# ---------------------------------------------------------------- status
status() {
  local primary="" standby_list=() d port pid kpid role
  for d in $(node_dirs); do
    [[ -d $d ]] || continue
    port=$(node_port "$d")
    pid=$(postmaster_pid "$d")
    kpid=$(keeper_pid "$d")
    role=$(psql_at "$port" "SELECT CASE WHEN pg_is_in_recovery() THEN 'standby' ELSE 'primary' END")
    local one="{\"port\": $port, \"pid\": ${pid:-null}, \"keeper_pid\": ${kpid:-null}, \"name\": \"$(basename "$d")\", \"state\": \"$(node_state "$port")\"}"
    if [[ $role == primary && -z $primary ]]; then primary=$one; else standby_list+=("$one"); fi
  done
  local mpid mkpid
  mpid=$(postmaster_pid "$dir/monitor")
  mkpid=$(keeper_pid "$dir/monitor")
  if ((json)); then
    local u
    u=$(uri)
    local IFS=,
    echo "{\"primary\": ${primary:-null}, \"standbys\": [${standby_list[*]}], \"monitor\": {\"port\": $monitor_port, \"pid\": ${mpid:-null}, \"keeper_pid\": ${mkpid:-null}}, \"uri\": \"$u\"}"
  else
    echo "monitor  port $monitor_port  postmaster ${mpid:-down}  keeper ${mkpid:-down}"
    echo "primary  ${primary:-none}"
    for d in "${standby_list[@]}"; do echo "standby  $d"; done
    echo "uri      $(uri)"
  fi
  [[ -n $primary ]]
}

uri() {
  local hosts="" d
  for d in $(node_dirs); do hosts+="${hosts:+,}127.0.0.1:$(node_port "$d")"; done
  echo "postgresql://$hosts/$dbname?target_session_attrs=read-write&user=$dbuser&connect_timeout=2"
}

# ---------------------------------------------------------------- up
up() {
  command -v pg_autoctl >/dev/null || die "pg_autoctl not found: install pg-auto-failover-cli and postgresql-15-auto-failover"
  [[ -x $pgbin/pg_ctl ]] || die "PostgreSQL 15 not found in $pgbin: install postgresql-15"
  mkdir -p "$dir/xdg/config" "$dir/xdg/data" "$dir/xdg/run"
  if [[ -f $dir/base_port && $(cat "$dir/base_port") != "$base" ]]; then
    die "$dir holds a cluster on port $(cat "$dir/base_port"), not $base"
  fi
  echo "$base" >"$dir/base_port"
  chmod 700 "$dir/xdg/run"
  if [[ $(id -u) == 0 ]]; then chown -R postgres: "$dir"; fi
  local monitor_uri="postgres://autoctl_node@127.0.0.1:$monitor_port/pg_auto_failover?sslmode=disable"
  if [[ ! -f $dir/monitor/PG_VERSION ]]; then
    ctl create monitor --pgdata "$dir/monitor" --pgport "$monitor_port" --hostname 127.0.0.1 --auth trust --no-ssl \
      --pgctl "$pgbin/pg_ctl" >>"$dir/monitor.log" 2>&1 || die "cannot create the monitor (see $dir/monitor.log)"
    # Fast failure detection (defaults: 5 s checks, 20 s before a node is unhealthy, 30 s
    # before a lost primary counts as demoted): a dead primary is noticed in ~2-4 s and the
    # standby takes writes ~5 s later. The demote timeout stays above the keepers'
    # network_partition_timeout (3 s): an isolated primary demotes itself first. (It could not
    # acknowledge a commit anyway: its synchronous standby is gone.)
    as_db tee -a "$dir/monitor/postgresql.conf" >/dev/null <<EOF
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 2000
pgautofailover.primary_demote_timeout = 5000
EOF
  fi
  start_keeper "$dir/monitor"
  wait_for "the monitor" answers "$monitor_port" "SELECT 1" pg_auto_failover
  local d port n=0 created
  for d in $(node_dirs); do
    n=$((n + 1))
    port=$(node_port "$d")
    created=0
    if [[ ! -f $d/PG_VERSION ]]; then
      created=1
      # The first node creates the database; the others clone it (pg_basebackup) when they run.
      ctl create postgres --pgdata "$d" --pgport "$port" --hostname 127.0.0.1 --name "node$n" --dbname "$dbname" \
        --monitor "$monitor_uri" --auth trust --no-ssl --pgctl "$pgbin/pg_ctl" >>"$d.log" 2>&1 ||
        die "cannot create node$n (see $d.log)"
      # Keeper timeouts (seconds) shortened for a local cluster: promote soon after the monitor decides.
      ctl config set --pgdata "$d" timeout.prepare_promotion_walreceiver 1 >/dev/null
      ctl config set --pgdata "$d" timeout.prepare_promotion_catchup 10 >/dev/null
      ctl config set --pgdata "$d" timeout.network_partition_timeout 3 >/dev/null
      # wal_level = logical (pg_auto_failover sets 'replica'), so a regulator's copy can subscribe
      # (docs/regulator-copy.md) without restarting the cluster. postgresql.auto.conf is read last
      # and is copied by the standbys' pg_basebackup; the keeper (re)starts the postmaster with it.
      if ((n == 1)); then
        echo "wal_level = 'logical'" | as_db tee -a "$d/postgresql.auto.conf" >/dev/null
        if [[ -f $d/postmaster.pid ]]; then as_db "$pgbin/pg_ctl" -D "$d" -m fast -w stop >>"$d.log" 2>&1 || true; fi
      fi
    fi
    start_keeper "$d"
    if ((n == 1 && created)); then
      wait_for "node1 to become primary" is_state "$port" 'single|wait_primary|primary'
    fi
  done
  # Every standby is streaming and the primary runs with synchronous replication.
  for d in $(node_dirs); do
    port=$(node_port "$d")
    wait_for "$(basename "$d") to join" is_state "$port" 'primary|secondary'
  done
  local p
  p=$(primary_port)
  wait_for "synchronous replication" answers "$p" "SELECT 1 FROM pg_stat_replication WHERE sync_state IN ('sync','quorum') LIMIT 1"
  wait_for "the database $dbname" answers "$p" "SELECT 1" "$dbname"
  echo "ha-cluster: up in $dir: monitor on $monitor_port, primary on $p, synchronous_standby_names = $(psql_at "$p" "SHOW synchronous_standby_names")" >&2
  uri
}
has_keeper() { [[ -n $(keeper_pid "$1") ]]; }
answers() { [[ -n $(psql_at "$@") ]]; }  # port, sql[, db]: a non-empty answer
is_state() { [[ $(node_state "$1") =~ ^($2)$ ]]; }
primary_port() {
  local d port
  for d in $(node_dirs); do
    port=$(node_port "$d")
    [[ $(psql_at "$port" "SELECT pg_is_in_recovery()") == f ]] && { echo "$port"; return; }
  done
}

# ---------------------------------------------------------------- down
down() {
  local d pids=() pid
  [[ -d $dir/xdg ]] || { echo "ha-cluster: nothing in $dir" >&2; return 0; }
  for d in $(node_dirs) "$dir/monitor"; do
    [[ -d $d ]] || continue
    pid=$(keeper_pid "$d"); [[ -n $pid ]] && pids+=("$pid")
    pid=$(postmaster_pid "$d"); [[ -n $pid ]] && pids+=("$pid")
  done
  if ((${#pids[@]})); then
    kill -TERM "${pids[@]}" 2>/dev/null || true  # keepers stop their postgres (fast shutdown)
    local until=$((SECONDS + 20))
    while ((SECONDS < until)); do
      local alive=0
      for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
      ((alive)) || break
      sleep 0.3
    done
  fi
  # Each keeper runs in its own session (start_keeper), with its children and the postmaster
  # it started: a keeper killed earlier (a simulated crash) can leave its children behind, and
  # they would restart the postmaster. Every group of a postmaster or keeper still alive is killed.
  local groups=() g
  for d in $(node_dirs) "$dir/monitor"; do
    for pid in $(postmaster_pid "$d") $(keeper_pid "$d"); do
      g=$(ps -o pgid= -p "$pid" 2>/dev/null | tr -d ' ')
      [[ -n $g && $g != "$(ps -o pgid= -p $$ | tr -d ' ')" ]] && groups+=("$g")
      kill -KILL "$pid" 2>/dev/null || true
    done
  done
  for g in "${groups[@]}"; do kill -KILL -- "-$g" 2>/dev/null || true; done
  if ((keep)); then echo "ha-cluster: stopped; data kept in $dir" >&2
  else rm -rf "$dir"; echo "ha-cluster: stopped and removed $dir" >&2; fi
}

case $cmd in
  up) up ;;
  down) down ;;
  status) status ;;
esac
