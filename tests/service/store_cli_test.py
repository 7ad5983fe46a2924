#!/usr/bin/env python3
"""fairdeckd's store administration from the command line (issue #27 items 8 and 9):
`token --list/--revoke`, another key file refused by `serve`, a sealed seed copied between
tables failing alone while the rest of its group commits, and PostgreSQL with the password
in PGPASSWORD / PGPASSFILE (never on the command line, never in an error).

Usage: store_cli_test.py --bin build/release/fairdeckd {sqlite|postgres}
Exit 0 = pass, 1 = fail, 77 = skipped (no PostgreSQL 15 binaries). Reuses e2e_test.py's helpers."""
import json, os, re, shutil, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test as e2e  # noqa: E402
from e2e_test import call, check, open_table  # noqa: E402


def fd(*args, env=None):
    return subprocess.run([e2e.BIN, *args], capture_output=True, text=True, timeout=60, env=env)


def one_line_error(out, what):
    check(out.returncode != 0, f"{what}: exit 0")
    lines = out.stderr.strip().splitlines()
    check(len(lines) == 1 and lines[0].startswith("fairdeckd: "), f"{what}: not one line: {out.stderr!r}")
    return lines[0]


def tokens(db, *extra, env=None):
    """token --list: checks the format, returns [(id, created)]."""
    out = fd("token", "--db", db, "--list", *extra, env=env)
    check(out.returncode == 0, f"token --list: {out.stderr}")
    rows = [line.split("  ") for line in out.stdout.splitlines()]
    for r in rows:
        check(len(r) == 2 and re.fullmatch(r"[0-9a-f]{8,63}", r[0]) and re.fullmatch(r"\d{4}-\d\d-\d\dT[\d:.]+Z", r[1]),
              f"token --list line {r}")
    js = fd("token", "--db", db, "--list", "--json", *extra, env=env)
    check(js.returncode == 0 and json.loads(js.stdout) == [{"id": i, "created": c} for i, c in rows], "--list --json")
    return rows


def token_admin(db, *extra, env=None):
    """Adds, lists and revokes tokens; returns a token that is still valid."""
    out = fd("init", "--db", db, "--json", *extra, env=env)
    check(out.returncode == 0, f"init: {out.stderr}")
    first = json.loads(out.stdout)["token"]
    out = fd("token", "--db", db, "--json", env=env)
    check(out.returncode == 0, f"token: {out.stderr}")
    second = json.loads(out.stdout)["token"]
    rows = tokens(db, env=env)
    check(len(rows) == 2, f"two tokens listed: {rows}")
    listing = fd("token", "--db", db, "--list", env=env).stdout
    for t in (first, second):
        h = e2e.hashlib.sha256(t.encode()).hexdigest()
        check(t not in listing and t[4:] not in listing and h not in listing, "--list shows a token or its whole hash")
    first_id = e2e.hashlib.sha256(first.encode()).hexdigest()[:8]
    check(first_id in [r[0][:8] for r in rows], "ids are hash prefixes")
    out = fd("token", "--db", db, "--revoke", first_id.upper(), env=env)
    check(out.returncode == 0, f"revoke: {out.stderr}")
    left = [r[0] for r in tokens(db, env=env)]
    check(len(left) == 1 and not left[0].startswith(first_id), f"revoked one: {left}")
    err = one_line_error(fd("token", "--db", db, "--revoke", first_id, env=env), "revoke twice")
    check("no token with id" in err, err)
    bad = fd("token", "--db", db, "--revoke", "xyz", env=env)
    check(bad.returncode == 2, f"malformed id: exit {bad.returncode} {bad.stderr}")
    both = fd("token", "--db", db, "--revoke", first_id, "--list", env=env)
    check(both.returncode == 2, f"--revoke with --list: exit {both.returncode}")
    unprinted_token_not_kept(db, env=env)
    return first, second


def unprinted_token_not_kept(db, env=None):
    """A token that could not be printed (stdout on a full disk) is an error and is not kept:
    nobody holds it. The same for the other printing commands: an error, not exit 0."""
    before = tokens(db, env=env)
    for args in (("token", "--db", db), ("token", "--db", db, "--json")):
        with open("/dev/full", "w") as full:
            out = subprocess.run([e2e.BIN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60, env=env)
        check(out.returncode == 1, f"{args} to a full disk: exit {out.returncode}")
        err = out.stderr.strip().splitlines()
        check(len(err) == 1 and "cannot write the token to standard output" in err[0] and "revoked" in err[0],
              f"{args} to a full disk: {out.stderr!r}")
        check(tokens(db, env=env) == before, f"{args} to a full disk kept a token")
    for args in (("token", "--db", db, "--list"), ("log-key", "--db", db)):
        with open("/dev/full", "w") as full:
            out = subprocess.run([e2e.BIN, *args], stdout=full, stderr=subprocess.PIPE, text=True, timeout=60, env=env)
        check(out.returncode == 1 and "cannot write" in out.stderr, f"{args} to a full disk: {out.returncode} {out.stderr!r}")


def wrong_key_refused(db, key, *extra, env=None):
    os.rename(key, key + ".right")
    try:
        made = fd("init", "--db", os.path.join(os.path.dirname(key), "other.db"), "--key-file", key, env=env)
        check(made.returncode == 0, f"a second key: {made.stderr}")
        out = fd("serve", "--db", db, "--listen", "127.0.0.1:0", *extra, env=env)
        err = one_line_error(out, "serve with another key file")
        check("is not this store's key" in err and "listening" not in out.stdout, f"serve with another key: {err}")
    finally:
        os.replace(key + ".right", key)


def copied_seed_fails_alone(srv, token, sql):
    """Copies one table's sealed seed into another's row, then deals on both at once."""
    c = srv.conn()
    open_table(c, token, "good", ["a"])
    open_table(c, token, "copy", ["b"])
    sql("UPDATE fairdeck_tables SET sealed_seed = (SELECT sealed_seed FROM fairdeck_tables WHERE id = 'good') "
        "WHERE id = 'copy'")
    results, lock = [], threading.Lock()

    def worker(table):
        conn = srv.conn()
        for _ in range(25):
            status, body = call(conn, "POST", f"/v1/tables/{table}/deals", {}, token)
            with lock:
                results.append((table, status, body))
    threads = [threading.Thread(target=worker, args=(t,)) for t in ("good", "copy") for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    good = [r for r in results if r[0] == "good"]
    check(all(s == 200 for _, s, _ in good), f"healthy table lost deals: {[(s, b) for _, s, b in good if s != 200][:3]}")
    nonces = sorted(b["nonce"] for _, _, b in good)
    check(nonces == list(range(100)), "healthy table nonces")
    copy = [r for r in results if r[0] == "copy"]
    check(all(s == 503 for _, s, _ in copy), f"copied seed dealt: {set(s for _, s, _ in copy)}")
    check(len(e2e.log_of(srv, "good")) == 101 and len(e2e.log_of(srv, "copy")) == 1, "logs")


def revoked_while_serving(db, srv, keep):
    """A token added while the server runs works, and once revoked it is refused within a
    second or so (the token cache is at most a second old, on a hit as on a miss); the other
    token keeps working."""
    c = srv.conn()
    out = fd("token", "--db", db, "--json")
    check(out.returncode == 0, f"token: {out.stderr}")
    extra = json.loads(out.stdout)["token"]
    deadline = time.monotonic() + 5
    while call(c, "POST", "/v1/tables", {"seats": 1}, extra)[0] != 201:
        check(time.monotonic() < deadline, "a token added while serving never worked")
        time.sleep(0.1)
    rows = tokens(db)
    check(len(rows) == 2, f"two tokens listed: {rows}")
    newest = rows[-1][0]  # oldest first: the token just added
    out = fd("token", "--db", db, "--revoke", newest)
    check(out.returncode == 0, f"revoke {newest}: {out.stderr}")
    deadline = time.monotonic() + 3
    while call(c, "POST", "/v1/tables", {"seats": 1}, extra)[0] != 401:
        check(time.monotonic() < deadline, "a token revoked while serving still works after 3 s")
        time.sleep(0.1)
    check(call(c, "POST", "/v1/tables", {"seats": 1}, keep)[0] == 201, "the kept token stopped working")


def sqlite(tmp):
    db = os.path.join(tmp, "t.db")
    first, second = token_admin(db)
    srv = e2e.Server(db)
    try:
        c = srv.conn()
        check(call(c, "POST", "/v1/tables", {"seats": 1, "table": "x"}, first)[0] == 401, "a revoked token works")
        check(call(c, "POST", "/v1/tables", {"seats": 1, "table": "x"}, second)[0] == 201, "the other token fails")
        revoked_while_serving(db, srv, second)
        copied_seed_fails_alone(srv, second, lambda q: subprocess.run(
            [sys.executable, "-c", "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute(sys.argv[2]); c.commit()",
             db, q], check=True))
    finally:
        check(srv.stop() == 0, "clean stop")
    wrong_key_refused(db, db + ".key")
    print("sqlite: ok")


def postgres(tmp):
    pgbin = "/usr/lib/postgresql/15/bin"
    if not os.path.exists(os.path.join(pgbin, "initdb")):
        print("postgres: skipped (PostgreSQL 15 binaries not installed)")
        sys.exit(77)
    pgdir = os.path.join(tmp, "pg")
    os.mkdir(pgdir)
    password = "Pw-" + os.urandom(6).hex()
    with open(os.path.join(tmp, "pwfile"), "w") as f:
        f.write(password + "\n")
    as_pg = []
    if os.getuid() == 0:  # initdb refuses to run as root
        for p in (tmp, pgdir, os.path.join(tmp, "pwfile")):
            shutil.chown(p, "postgres")
        as_pg = ["runuser", "-u", "postgres", "--"]
    env = dict(os.environ, PGPASSWORD=password)
    run = lambda *a: subprocess.run(as_pg + list(a), capture_output=True, text=True, timeout=120, env=env)
    out = run(f"{pgbin}/initdb", "-D", f"{pgdir}/data", "--auth=scram-sha-256", "-U", "postgres",
              f"--pwfile={tmp}/pwfile", "--no-sync")
    check(out.returncode == 0, f"initdb: {out.stderr}")
    port = str(20000 + (os.getpid() + 7919) % 20000)
    opts = f"-k {pgdir} -c listen_addresses='' -p {port}"
    o = run(f"{pgbin}/pg_ctl", "-D", f"{pgdir}/data", "-o", opts, "-l", f"{pgdir}/log", "-w", "start")
    check(o.returncode == 0, f"pg_ctl start: {o.stderr}")
    try:
        check(run(f"{pgbin}/createdb", "-h", pgdir, "-p", port, "-U", "postgres", "fairdeck").returncode == 0, "createdb")
        uri = f"postgresql:///fairdeck?host={pgdir}&port={port}&user=postgres"  # no password in it
        key = os.path.join(tmp, "pg.key")
        no_pw = {k: v for k, v in os.environ.items() if k not in ("PGPASSWORD", "PGPASSFILE")}
        # without a password: refused by the server, one line, exit 1
        err = one_line_error(fd("token", "--db", uri, "--list", env=dict(no_pw, PGPASSFILE=os.path.join(tmp, "none"))), "no password")
        check("password" in err, f"no-password error: {err}")
        # PGPASSWORD
        first, second = token_admin(uri, "--key-file", key, env=env)
        # PGPASSFILE (mode 0600, as libpq requires)
        passfile = os.path.join(tmp, "pgpass")
        with open(os.open(passfile, os.O_WRONLY | os.O_CREAT, 0o600), "w") as f:
            f.write(f"*:*:*:postgres:{password}\n")
        with_file = dict(no_pw, PGPASSFILE=passfile)
        check(len(tokens(uri, env=with_file)) == 1, "PGPASSFILE")
        # a wrong password in the URI: refused, and neither password appears anywhere
        wrong = f"postgresql://postgres:Wr0ng-{password}@/fairdeck?host={pgdir}&port={port}"
        out = fd("token", "--db", wrong, "--list", env=no_pw)
        err = one_line_error_or_warning(out)
        check(out.returncode == 1 and "Wr0ng" not in out.stderr + out.stdout, f"wrong password shown: {out.stderr}")
        # the right password in the URI works, warns, and is masked in the process list
        with_pw = f"postgresql://postgres:{password}@/fairdeck?host={pgdir}&port={port}"
        srv = e2e.Server(with_pw, "--key-file", key, "--writers", "1")  # good and copy share batches
        try:
            cmdline = open(f"/proc/{srv.proc.pid}/cmdline", "rb").read().decode()
            check(password not in cmdline and "postgres:" in cmdline, f"password visible in ps: {cmdline!r}")
            c = srv.conn()
            check(call(c, "POST", "/v1/tables", {"seats": 1, "table": "x"}, first)[0] == 401, "a revoked token works")
            psql = lambda q: check(run(f"{pgbin}/psql", "-h", pgdir, "-p", port, "-U", "postgres", "-d", "fairdeck",
                                       "-v", "ON_ERROR_STOP=1", "-c", q).returncode == 0, f"psql {q}")
            copied_seed_fails_alone(srv, second, psql)
        finally:
            check(srv.stop() == 0, "clean stop")
            check("PGPASSFILE" in srv.err and password not in srv.err, f"warning / password on stderr: {srv.err[-500:]}")
        wrong_key_refused(uri, key, "--key-file", key, env=env)
        print("postgres: ok")
    finally:
        run(f"{pgbin}/pg_ctl", "-D", f"{pgdir}/data", "-m", "immediate", "-w", "stop")


def one_line_error_or_warning(out):
    """The error line of a run that may also print the --db password warning first."""
    lines = [l for l in out.stderr.strip().splitlines() if "warning:" not in l]
    check(len(lines) == 1 and lines[0].startswith("fairdeckd: "), f"not one error line: {out.stderr!r}")
    return lines[0]


if __name__ == "__main__":
    e2e.run_scenario({f.__name__: f for f in (sqlite, postgres)}, "fairdeckd-store-cli-")
