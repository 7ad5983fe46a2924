#!/usr/bin/env bash
# A regulator's copy of fairdeckd's logs (docs/ha.md, "A regulator's copy"): a PostgreSQL 15
# instance of the regulator's own that subscribes (logical replication) to the log tables of
# fairdeckd's primary, is read-only for the regulator, and is checked with `fairdeck log verify`.
#   scripts/regulator-copy.sh up --publisher URI [--dir DIR] [--port PORT]
#   scripts/regulator-copy.sh status [--json] | verify --key VKEY [--cli PATH] | resync | drop-stale-slots
#   scripts/regulator-copy.sh down [--keep]
# up      creates the publications on the publisher (as the URI's user: the tables' owner or a
#         superuser), creates or restarts the copy (initdb in DIR, 127.0.0.1:PORT), copies the
#         log tables' definitions (pg_dump --schema-only), the read-only role `regulator`, and the
#         subscription; waits until the initial copy is done. Idempotent.
# status  the copy's postmaster, the subscription's worker, its tables and each table's records
#         and tree size; --json for machines. Exit 1 when the copy is not following.
# verify  exports each table's log and signed checkpoint from one snapshot of the copy and runs
#         `fairdeck log verify` (chain, Merkle root against the checkpoint, the checkpoint
#         accepted by the last verify); exit 0 only when every table verifies.
# resync  after a failover of the publisher (PostgreSQL 15 does not fail replication slots
#         over): keeps the copy's checkpoints, drops the subscription, empties the copy,
#         subscribes again with a full copy (copy_data) and verifies it against them.
# drop-stale-slots  drops the copy's slot left on a node that is now a standby (an old primary
#         that rejoined after a failover keeps it, and it would keep WAL there); status lists them.
# down    drops the subscription (and its slot on the publisher), stops the copy and deletes DIR.
# DIR defaults to $FAIRDECK_REGCOPY_DIR or ${TMPDIR:-/tmp}/fairdeck-regcopy, PORT to
# $FAIRDECK_REGCOPY_PORT or 55440; waits are bounded by $FAIRDECK_REGCOPY_TIMEOUT (120 s). Run as
# root, the copy's server runs as the user `postgres` (PostgreSQL refuses root).
set -euo pipefail

usage() { sed -n '2,26p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "regulator-copy: $*" >&2; exit 1; }
usage_error() { echo "regulator-copy: $*" >&2; exit 2; }

cmd=${1:-}
[[ -n $cmd ]] || { usage >&2; exit 2; }
shift
json=0 keep=0 publisher="" vkey="" cli=${FAIRDECK_CLI:-}
dir=${FAIRDECK_REGCOPY_DIR:-${TMPDIR:-/tmp}/fairdeck-regcopy}
port=${FAIRDECK_REGCOPY_PORT:-}
while [[ $# -gt 0 ]]; do
  case $1 in
    --json) json=1 ;;
    --keep) keep=1 ;;
    --publisher) publisher=${2:?--publisher needs a postgresql:// URI}; shift ;;
    --dir) dir=${2:?--dir needs a directory}; shift ;;
    --port) port=${2:?--port needs a port number}; shift ;;
    --key) vkey=${2:?--key needs the log verifier key or a file holding it}; shift ;;
    --cli) cli=${2:?--cli needs the path of the fairdeck binary}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage_error "unknown argument '$1'" ;;
  esac
  shift
done
case $cmd in up|down|status|verify|resync|drop-stale-slots) ;; -h|--help) usage; exit 0 ;; *) usage_error "unknown command '$cmd'" ;; esac
timeout_s=${FAIRDECK_REGCOPY_TIMEOUT:-120}
deadline=$((SECONDS + timeout_s))

pgbin=/usr/lib/postgresql/15/bin
dbname=fairdeck
sub=fairdeck_regulator              # the subscription, and its replication slot on the publisher
pub_log=fairdeck_regulator_log      # records and tree nodes: appended, never changed (INSERT only)
pub_heads=fairdeck_regulator_heads  # tree heads (signed checkpoints) and cosignatures (upserted)
# What a verifier needs, and nothing secret: fairdeck_tables (sealed server seeds),
# fairdeck_meta (the sealed log signing key), fairdeck_tokens and fairdeck_idempotency stay out.
log_tables=(fairdeck_records fairdeck_tree_nodes)
head_tables=(fairdeck_tree_heads fairdeck_cosignatures)
reader=regulator                    # the regulator's role on the copy: SELECT only, read-only

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
data=$dir/data
# The port and the publisher chosen at `up` are remembered: the other commands find them in DIR.
if [[ -z $port ]]; then port=$(cat "$dir/port" 2>/dev/null || echo 55440); fi
[[ $port =~ ^[0-9]+$ && $port -ge 1024 && $port -le 65535 ]] || usage_error "--port must be 1024..65535"
if [[ -z $publisher && -r $dir/publisher ]]; then publisher=$(cat "$dir/publisher"); fi

wait_hint="copy's log: $dir/copy.log"
# shellcheck source=scripts/pg-common.sh
source "$(dirname "$0")/pg-common.sh"
copy_uri="postgresql://$dbuser@127.0.0.1:$port/$dbname?connect_timeout=5"
# psql on the copy (as its superuser, the server's user) or on the publisher; stops at the first error.
# The copy's own sessions (its superuser: the subscription and the schema) are read-write; the
# regulator's role and every other session start read-only (default_transaction_read_only).
copy_sql() { as_db env PGOPTIONS="-c default_transaction_read_only=off -c client_min_messages=warning" "$pgbin/psql" -X -qAt -v ON_ERROR_STOP=1 "$copy_uri" "$@"; }
server_sql() { as_db "$pgbin/psql" -X -qAt -v ON_ERROR_STOP=1 "postgresql://$dbuser@127.0.0.1:$port/postgres?connect_timeout=5" "$@"; }
pub_sql() { as_db "$pgbin/psql" -X -qAt -v ON_ERROR_STOP=1 "$publisher" "$@"; }
postmaster_pid() { live_pid "$data/postmaster.pid"; }
server_answers() { [[ -n $(server_sql -c "SELECT 1" 2>/dev/null) ]]; }
need_publisher() { [[ -n $publisher ]] || usage_error "--publisher URI is needed (the primary's postgresql:// URI, as fairdeckd's --db)"; }

start_copy() {
  [[ -n $(postmaster_pid) ]] && return 0
  as_db "$pgbin/pg_ctl" -D "$data" -l "$dir/copy.log" -w -t 60 \
    -o "-p $port -k $dir -c listen_addresses=127.0.0.1" start >/dev/null || die "cannot start the copy (see $dir/copy.log)"
}

# ---------------------------------------------------------------- up
up() {
  need_publisher
  [[ -x $pgbin/pg_ctl ]] || die "PostgreSQL 15 not found in $pgbin: install postgresql-15"
  [[ $publisher == postgres://* || $publisher == postgresql://* ]] || usage_error "--publisher must be a postgresql:// URI"
  [[ ! -f $dir/port || $(cat "$dir/port") == "$port" ]] || die "$dir holds a copy on port $(cat "$dir/port"), not $port"
  # The publisher: logical decoding, and the two publications (created once; the catalog is
  # replicated physically, so a promoted standby has them too).
  local wal
  wal=$(pub_sql -c "SHOW wal_level") || die "cannot reach the publisher $(redacted "$publisher")"
  [[ $wal == logical ]] || die "the publisher runs wal_level = $wal; logical replication needs wal_level = logical \
(ALTER SYSTEM SET wal_level = logical, then restart it; on an ha-cluster.sh cluster every node needs it)"
  local u w
  while read -r u; do  # the standbys of a multi-host URI: after a failover one of them publishes
    w=$(as_db "$pgbin/psql" -X -qAt "$u" -c "SHOW wal_level" 2>/dev/null || true)
    [[ -z $w || $w == logical ]] ||
      echo "regulator-copy: warning: $(redacted "$u") runs wal_level = $w: promoted, it could not feed the copy" >&2
  done < <(node_uris)
  [[ $(pub_sql -c "SELECT pg_is_in_recovery()") == f ]] || die "the publisher is a standby; give the primary (or a multi-host URI with target_session_attrs=read-write)"
  pub_sql -c "SELECT 1 FROM fairdeck_records LIMIT 0" >/dev/null 2>&1 || die "the publisher has no fairdeckd store (run fairdeckd init first)"
  pub_sql >/dev/null <<EOF || die "cannot create the publications on the publisher (as the tables' owner or a superuser)"
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '$pub_log') THEN
    CREATE PUBLICATION $pub_log FOR TABLE $(IFS=,; echo "${log_tables[*]}") WITH (publish = 'insert');
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_publication WHERE pubname = '$pub_heads') THEN
    CREATE PUBLICATION $pub_heads FOR TABLE $(IFS=,; echo "${head_tables[*]}") WITH (publish = 'insert, update');
  END IF;
END \$\$;
EOF
  chmod 755 "$dir"
  if [[ $(id -u) == 0 ]]; then chown postgres: "$dir"; fi
  echo "$port" >"$dir/port"
  (umask 077; echo "$publisher" >"$dir/publisher")
  if [[ ! -f $data/PG_VERSION ]]; then
    as_db "$pgbin/initdb" -D "$data" --auth=trust -U "$dbuser" >"$dir/initdb.log" 2>&1 || die "initdb failed (see $dir/initdb.log)"
  fi
  start_copy
  wait_for "the copy to accept connections" server_answers
  if [[ -z $(server_sql -c "SELECT 1 FROM pg_database WHERE datname = '$dbname'") ]]; then
    as_db "$pgbin/createdb" -h 127.0.0.1 -p "$port" -U "$dbuser" "$dbname"
  fi
  if [[ -z $(copy_sql -c "SELECT 1 FROM pg_class WHERE relname = 'fairdeck_records'") ]]; then
    # DDL is not replicated: the tables are created from the publisher's own definitions.
    local t args=()
    for t in "${log_tables[@]}" "${head_tables[@]}"; do args+=(-t "$t"); done
    as_db "$pgbin/pg_dump" --schema-only --no-owner --no-privileges "${args[@]}" "$publisher" >"$dir/schema.sql" ||
      die "cannot read the log tables' definitions from the publisher"
    copy_sql -f "$dir/schema.sql" >/dev/null || die "cannot create the log tables on the copy"
  fi
  # The regulator's role: SELECT on the log tables and nothing else; its sessions are read-only.
  copy_sql >/dev/null <<EOF
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '$reader') THEN CREATE ROLE $reader LOGIN; END IF;
END \$\$;
REVOKE ALL ON DATABASE $dbname FROM PUBLIC;
GRANT CONNECT ON DATABASE $dbname TO $reader;
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE ON SCHEMA public TO $reader;
GRANT SELECT ON $(IFS=,; echo "${log_tables[*]},${head_tables[*]}") TO $reader;
ALTER ROLE $reader SET default_transaction_read_only = on;
ALTER DATABASE $dbname SET default_transaction_read_only = on;
EOF
  if [[ -z $(copy_sql -c "SELECT 1 FROM pg_subscription WHERE subname = '$sub'") ]]; then
    subscribe
  else
    copy_sql -c "ALTER SUBSCRIPTION $sub ENABLE" >/dev/null
  fi
  wait_for "the initial copy of the log tables" copy_ready
  echo "regulator-copy: up in $dir: the copy on 127.0.0.1:$port follows $(redacted "$publisher")" >&2
  echo "postgresql://$reader@127.0.0.1:$port/$dbname"
}
# The subscription (owned by the copy's superuser) with a full initial copy; its slot is created
# on the publisher. The copy is asynchronous: it is not in synchronous_standby_names.
subscribe() {
  local conninfo=${publisher//\'/\'\'}
  copy_sql -c "CREATE SUBSCRIPTION $sub CONNECTION '$conninfo' PUBLICATION $pub_log, $pub_heads WITH (copy_data = true)" \
    >/dev/null || die "cannot subscribe to the publisher (see $dir/copy.log)"
}
redacted() { sed -E 's#(://[^:/@]*:)[^@]*@#\1***@#' <<<"$1"; }  # never print a password of the URI

# ---------------------------------------------------------------- slots on every node
# Each host of a multi-host publisher URI as a URI of its own (target_session_attrs dropped): a
# slot of the copy on a node that is now a standby is stale. A single-host URI is itself.
node_uris() {
  local scheme=${publisher%%://*} rest=${publisher#*://} hosts path userinfo="" h
  hosts=${rest%%/*}
  path=${rest#"$hosts"}
  if [[ $hosts == *@* ]]; then userinfo=${hosts%@*}@; hosts=${hosts##*@}; fi
  path=$(sed -E 's/([?&])target_session_attrs=[^&]*&?/\1/; s/[?&]$//' <<<"$path")
  if [[ -z $hosts ]]; then echo "$publisher"; return; fi
  local IFS=,
  for h in $hosts; do echo "$scheme://$userinfo$h$path"; done
}
stale_slots() {  # "host:port" of each standby that holds a slot named like the subscription
  [[ -n $publisher ]] || return 0
  local u
  while read -r u; do
    [[ $(as_db "$pgbin/psql" -X -qAt "$u" -c "SELECT pg_is_in_recovery() AND EXISTS (SELECT 1 FROM pg_replication_slots
      WHERE slot_name = '$sub')" 2>/dev/null) == t ]] && sed -E 's#^[a-z]+://([^@/]*@)?([^/?]*).*#\2#' <<<"$u"
  done < <(node_uris)
  return 0
}
drop_stale_slots() {
  need_publisher
  local u n=0
  while read -r u; do
    if [[ $(as_db "$pgbin/psql" -X -qAt "$u" -c "SELECT pg_is_in_recovery()" 2>/dev/null) == t ]] &&
       [[ $(as_db "$pgbin/psql" -X -qAt "$u" -c "SELECT count(*) FROM (SELECT pg_drop_replication_slot(slot_name)
           FROM pg_replication_slots WHERE slot_name = '$sub' AND NOT active) AS dropped" 2>/dev/null) == 1 ]]; then
      n=$((n + 1))
      echo "regulator-copy: dropped the stale slot $sub on $(redacted "$u")" >&2
    fi
  done < <(node_uris)
  echo "regulator-copy: $n stale slot(s) dropped" >&2
}

# ---------------------------------------------------------------- status
# Is the copy following? The subscription is enabled, its apply worker runs, and its four
# tables have finished their initial copy (pg_subscription_rel state 'r').
following_sql="(SELECT s.subenabled AND EXISTS (SELECT 1 FROM pg_stat_subscription w WHERE w.subid = s.oid
    AND w.relid IS NULL AND w.pid IS NOT NULL) AND (SELECT count(*) FILTER (WHERE r.srsubstate = 'r') = 4
    FROM pg_subscription_rel r WHERE r.srsubid = s.oid) FROM pg_subscription s WHERE s.subname = '$sub')"
copy_ready() { [[ $(copy_sql -c "SELECT coalesce($following_sql, false)" 2>/dev/null) == t ]]; }
status() {
  local pid
  pid=$(postmaster_pid)
  if [[ -z $pid ]]; then
    if ((json)); then echo '{"copy": null, "following": false}'; else echo "copy: down ($dir)"; fi
    return 1
  fi
  local out
  if ((json)); then
    # The subscription's worker and tables, each fairdeck table's records and signed tree size.
    out=$(copy_sql -c "SELECT json_build_object(
      'copy', json_build_object('port', $port, 'pid', $pid, 'uri', 'postgresql://$reader@127.0.0.1:$port/$dbname'),
      'following', coalesce($following_sql, false),
      'subscription', (SELECT json_build_object('name', s.subname, 'enabled', s.subenabled,
          'worker_pid', w.pid, 'received_lsn', w.received_lsn, 'last_message', w.last_msg_receipt_time,
          'apply_errors', st.apply_error_count, 'sync_errors', st.sync_error_count,
          'tables', (SELECT json_object_agg(r.srrelid::regclass, r.srsubstate) FROM pg_subscription_rel r WHERE r.srsubid = s.oid))
        FROM pg_subscription s LEFT JOIN pg_stat_subscription w ON w.subid = s.oid AND w.relid IS NULL
        LEFT JOIN pg_stat_subscription_stats st ON st.subid = s.oid WHERE s.subname = '$sub'),
      'tables', (SELECT coalesce(json_agg(json_build_object('table', h.table_id, 'tree_size', h.size,
          'records', (SELECT count(*) FROM fairdeck_records r WHERE r.table_id = h.table_id)) ORDER BY h.table_id), '[]')
        FROM fairdeck_tree_heads h))") || die "the copy does not answer"
  else
    out=$(copy_sql -c "SELECT 'copy: 127.0.0.1:$port, postmaster $pid (the regulator connects as postgresql://$reader@127.0.0.1:$port/$dbname)'
      UNION ALL (SELECT format('subscription %s: %s, worker %s, received up to %s at %s, %s apply errors', s.subname,
          CASE WHEN s.subenabled THEN 'enabled' ELSE 'DISABLED' END, coalesce(w.pid::text, 'NOT RUNNING'),
          coalesce(w.received_lsn::text, '-'), coalesce(w.last_msg_receipt_time::text, '-'), coalesce(st.apply_error_count, 0))
        FROM pg_subscription s LEFT JOIN pg_stat_subscription w ON w.subid = s.oid AND w.relid IS NULL
        LEFT JOIN pg_stat_subscription_stats st ON st.subid = s.oid WHERE s.subname = '$sub')
      UNION ALL (SELECT format('  %s: %s', r.srrelid::regclass, CASE r.srsubstate WHEN 'r' THEN 'following'
          ELSE 'initial copy (state ' || r.srsubstate::text || ')' END)
        FROM pg_subscription_rel r JOIN pg_subscription s ON s.oid = r.srsubid WHERE s.subname = '$sub' ORDER BY 1)
      UNION ALL (SELECT format('table %s: %s records, signed tree size %s', h.table_id,
          (SELECT count(*) FROM fairdeck_records r WHERE r.table_id = h.table_id), h.size) FROM fairdeck_tree_heads h ORDER BY 1)
      UNION ALL SELECT 'following: ' || coalesce($following_sql, false)") || die "the copy does not answer"
  fi
  local stale
  stale=$(stale_slots)
  if ((json)); then
    local list=""
    for h in $stale; do list+="${list:+, }\"$h\""; done
    echo "${out%\}}, \"stale_slots\": [$list]}"
  else
    echo "$out"
    for h in $stale; do echo "stale slot: $sub on $h, a standby now (left by a failover; it keeps WAL there): drop-stale-slots"; done
  fi
  [[ $out == *'"following" : true'* || $out == *'following: true' ]]
}

# ---------------------------------------------------------------- verify
# The log of one table in the GET /v1/tables/{t}/log answer format, from the stored canonical
# text (docs/log-format.md: "fairdeck-log-v1" then key=value lines; `seat_seed` lines make the
# `seat_seeds` array, numbers are numbers, seat lists are arrays). `fairdeck log verify`
# recomputes every hash from these fields, so a field exported wrongly cannot pass.
log_json_sql() {
  cat <<'EOF'
SELECT json_build_object('table', :'t', 'records', coalesce(json_agg(j ORDER BY seq), '[]'))
FROM (SELECT rec.seq, (
        SELECT jsonb_object_agg(k, v) FROM (
          SELECT CASE WHEN k = 'seat_seed' THEN 'seat_seeds' ELSE k END AS k,
                 CASE WHEN k = 'seat_seed' THEN jsonb_agg(val ORDER BY n)
                      WHEN k IN ('seq', 'seats', 'decks', 'jokers', 'nonce', 'hand', 'seat') THEN to_jsonb(min(val)::numeric)
                      WHEN k IN ('uncommitted', 'unrevealed') THEN coalesce((SELECT jsonb_agg(x::numeric)
                        FROM unnest(string_to_array(nullif(min(val), ''), ' ')) AS x), '[]')
                      ELSE to_jsonb(min(val)) END AS v
          FROM (SELECT n, split_part(l, '=', 1) AS k, substr(l, strpos(l, '=') + 1) AS val
                FROM unnest(string_to_array(rtrim(rec.body, E'\n'), E'\n')) WITH ORDINALITY AS u(l, n) WHERE n > 1) AS kv
          GROUP BY k) AS fields
        ) || jsonb_build_object('hash', rec.hash) AS j
      FROM fairdeck_records rec WHERE rec.table_id = :'t') AS r;
EOF
}
# The table's signed checkpoint with its cosignatures, as GET /v1/tables/{t}/checkpoint serves it.
checkpoint_sql() {
  cat <<'EOF'
SELECT rtrim(h.checkpoint || coalesce((SELECT string_agg(c.line, '' ORDER BY c.witness) FROM fairdeck_cosignatures c
         WHERE c.table_id = h.table_id AND c.size = h.size
           AND c.root = encode(decode(split_part(h.checkpoint, E'\n', 3), 'base64'), 'hex')), ''), E'\n')
FROM fairdeck_tree_heads h WHERE h.table_id = :'t';
EOF
}
verify() {
  [[ -n $vkey ]] || usage_error "verify needs --key VKEY (the log's verifier key, e.g. from fairdeckd log-key or GET /v1/log-key)"
  if [[ -z $cli ]]; then cli=$(command -v fairdeck || true); fi
  [[ -n $cli && -x $cli ]] || usage_error "the fairdeck binary was not found: give --cli PATH (or FAIRDECK_CLI)"
  [[ -n $(postmaster_pid) ]] || die "the copy is not running (scripts/regulator-copy.sh up)"
  copy_ready || die "the copy is not following its publisher (scripts/regulator-copy.sh status)"
  local out=$dir/verify
  rm -rf "$out"; mkdir -p "$out" "$dir/accepted"
  if [[ $(id -u) == 0 ]]; then chown postgres: "$out"; fi
  local tables
  tables=$(copy_sql -c "SELECT table_id FROM fairdeck_tree_heads ORDER BY 1")
  [[ -n $tables ]] || die "the copy holds no table yet"
  # One snapshot for every table's log and checkpoint (REPEATABLE READ): the checkpoint and the
  # records it signs come from the same committed state of the copy.
  {
    echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;"
    local t
    for t in $tables; do
      echo "\\set t '$t'"
      echo "\\o $out/$t.log.json"
      log_json_sql
      echo "\\o $out/$t.checkpoint.note"
      checkpoint_sql
    done
    echo "\\o"
    echo "COMMIT;"
  } | copy_sql -f - >/dev/null || die "cannot read the logs from the copy"
  local failed=0 t args
  for t in $tables; do
    args=(log verify --key "$vkey" --log "$out/$t.log.json" --checkpoint "$out/$t.checkpoint.note")
    # The checkpoint the last verify accepted, and the copy's last one before a resync: the
    # copy must still hold the history they signed.
    [[ -s $dir/accepted/$t.note ]] && args+=(--checkpoint "$dir/accepted/$t.note")
    [[ -s $dir/accepted/$t.before-resync.note ]] && args+=(--checkpoint "$dir/accepted/$t.before-resync.note")
    echo "== table $t"
    if "$cli" "${args[@]}"; then
      cp "$out/$t.checkpoint.note" "$dir/accepted/$t.note"
      rm -f "$dir/accepted/$t.before-resync.note"  # checked: the new accepted checkpoint extends it
    else
      failed=1
    fi
  done
  if ((failed)); then echo "regulator-copy: NOT verified (see above)"; return 1; fi
  echo "regulator-copy: every table of the copy verified: $(wc -w <<<"$tables") table(s)"
}

# ---------------------------------------------------------------- resync
# After a failover the new primary has no replication slot for the copy (PostgreSQL 15 does not
# fail logical slots over): what the old primary committed after the copy's last received
# position can only be fetched by copying again. The copy's checkpoints are kept first and the
# new copy must verify against them (verify --key), so a history changed across the failover
# does not pass.
resync() {
  need_publisher
  [[ -n $(postmaster_pid) ]] || die "the copy is not running (scripts/regulator-copy.sh up)"
  local keep_dir=$dir/accepted t
  mkdir -p "$keep_dir"
  for t in $(copy_sql -c "SELECT table_id FROM fairdeck_tree_heads ORDER BY 1"); do
    # A checkpoint a verify accepted stays; a newer one from the copy is kept beside it.
    copy_sql -c "SELECT rtrim(checkpoint, E'\n') FROM fairdeck_tree_heads WHERE table_id = '$t'" >"$keep_dir/$t.before-resync.note"
  done
  drop_subscription
  copy_sql -c "BEGIN READ WRITE; TRUNCATE $(IFS=,; echo "${log_tables[*]},${head_tables[*]}"); COMMIT" >/dev/null
  subscribe
  wait_for "the new initial copy of the log tables" copy_ready
  echo "regulator-copy: copied again from $(redacted "$publisher"); run verify to check it against the kept checkpoints" >&2
}
# Drops the subscription; its slot on the publisher too when the publisher answers and has it,
# else the slot is detached first (a slot left on a publisher keeps its WAL: drop it there with
# SELECT pg_drop_replication_slot('fairdeck_regulator')).
drop_subscription() {
  [[ -n $(copy_sql -c "SELECT 1 FROM pg_subscription WHERE subname = '$sub'") ]] || return 0
  copy_sql -c "ALTER SUBSCRIPTION $sub DISABLE" >/dev/null
  local slot until=$((SECONDS + 15))
  slot=$(pub_sql -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$sub'" 2>/dev/null || true)
  while [[ $slot == t ]] && ((SECONDS < until)); do  # the walsender stops soon after DISABLE
    sleep 0.3
    slot=$(pub_sql -c "SELECT active FROM pg_replication_slots WHERE slot_name = '$sub'" 2>/dev/null || true)
  done
  if [[ $slot != f ]]; then
    # No slot of ours on the publisher (lost in a failover), or the publisher is away: detach it.
    copy_sql -c "ALTER SUBSCRIPTION $sub SET (slot_name = NONE)" >/dev/null
    [[ -z $slot && -n $(pub_sql -c "SELECT 1" 2>/dev/null) ]] ||
      echo "regulator-copy: the slot $sub on the publisher was not dropped (publisher away or slot busy): drop it there with SELECT pg_drop_replication_slot('$sub')" >&2
  fi
  copy_sql -c "DROP SUBSCRIPTION $sub" >/dev/null
}

# ---------------------------------------------------------------- down
down() {
  [[ -f $dir/port ]] || { rmdir "$dir" 2>/dev/null || true; echo "regulator-copy: nothing in $dir" >&2; return 0; }
  if [[ -n $(postmaster_pid) ]]; then
    drop_subscription || echo "regulator-copy: could not drop the subscription cleanly" >&2
    as_db "$pgbin/pg_ctl" -D "$data" -m fast -w -t 30 stop >/dev/null 2>&1 ||
      as_db "$pgbin/pg_ctl" -D "$data" -m immediate -w stop >/dev/null 2>&1 || true
  fi
  local pid
  pid=$(postmaster_pid)
  [[ -z $pid ]] || kill -KILL "$pid" 2>/dev/null || true
  if ((keep)); then echo "regulator-copy: stopped; data kept in $dir" >&2
  else rm -rf "$dir"; echo "regulator-copy: stopped and removed $dir" >&2; fi
}

case $cmd in
  up) up ;;
  status) status ;;
  verify) verify ;;
  resync) resync ;;
  drop-stale-slots) drop_stale_slots ;;
  down) down ;;
esac
