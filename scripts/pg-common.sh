# Shared by scripts/ha-cluster.sh and scripts/regulator-copy.sh (sourced, not run): who runs the
# PostgreSQL servers, live process ids from pid files, and bounded waits.
# The caller sets `deadline` (a $SECONDS value), `timeout_s` and `wait_hint` (where the logs are),
# and defines die().

# Run as root, the servers run as the user `postgres` (PostgreSQL refuses root); run as anyone
# else, as that user.
if [[ $(id -u) == 0 ]]; then
  dbuser=postgres
  as_db() { runuser -u postgres -- "$@"; }
else
  dbuser=$(id -un)
  as_db() { "$@"; }
fi
live_pid() {  # pid file → its first line when that process is alive, or nothing
  local pid
  [[ -n $1 && -r $1 ]] || return 0
  pid=$(head -n1 "$1")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid" || true
}
wait_for() {  # description, command...: polls until the command succeeds or the deadline passes
  local what=$1; shift
  until "$@"; do
    ((SECONDS < deadline)) || die "timed out after ${timeout_s}s waiting for $what ($wait_hint)"
    sleep 0.5
  done
}
