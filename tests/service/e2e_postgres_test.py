#!/usr/bin/env python3
"""Two fairdeckd on one PostgreSQL 15 (a cluster of its own: e2e_test.pg_cluster), over HTTP.

The postgres scenario: both instances deal on shared tables under load (no nonce reused, every
deal stored and verified, every receipt in the transparency log); a writer's kept rows checked
when another instance changed them; a row PostgreSQL refuses fails only its own deal; the
records' disk fills and is freed again; the database goes away and comes back; trees rebuilt on open while another instance holds a node.
Usage: e2e_postgres_test.py --bin build/release/fairdeckd postgres (exit 77: skipped)."""
import json, os, pwd, re, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test as e2e  # noqa: E402
from e2e_test import Server, call, check, init, load, log_of, open_table, pg_cluster, verify_log  # noqa: E402


def store_counter(srv, name):
    """fairdeck_store_<name>_total from the instance's /metrics."""
    status, metrics = call(srv.conn(), "GET", "/metrics")
    check(status == 200, f"metrics: {status}")
    return int(re.search(rf"^fairdeck_store_{name}_total (\d+)$", metrics, re.M).group(1))


def deal(srv, token, table, key=None):
    """POST a deal, with an Idempotency-Key when `key` is given; (status, answer)."""
    c = srv.conn()
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    if key:
        headers["Idempotency-Key"] = key
    c.request("POST", f"/v1/tables/{table}/deals", body="{}", headers=headers)
    r = c.getresponse()
    return r.status, json.loads(r.read())


def errors_in(pg_log):
    with open(pg_log, errors="replace") as f:
        return sum(1 for line in f if "ERROR:" in line)


def no_checkpoint_logged(pg_log, start, log_name, cause, what):
    """PostgreSQL's log from byte `start` on names the refusal (`cause`) and holds no line with
    the log key's name `log_name`, which every signed checkpoint carries."""
    with open(pg_log, "rb") as f:
        f.seek(start)
        logged = f.read().decode(errors="replace")
    check(cause in logged, f"{what}: PostgreSQL logged no {cause!r}")
    leaked = [line for line in logged.splitlines() if log_name in line]
    check(not leaked, f"{what}: a signed checkpoint in PostgreSQL's log: {leaked[:2]}")


def kept_rows_are_checked(a, b, token, pg_log):
    """A writer keeps the rows its last commits left and runs its next batch on them in one round
    trip, locking and checking them with COMMIT (pg_batch.cpp). Another instance's deal in between
    changes the row: the check finds it, nothing is written, the batch reruns on the row read
    locked, and the deal takes the next nonce; kept rows then rest (1 s, then 2 s). A batch that
    reads before its COMMIT (an Idempotency-Key) sends the check first: a stale key lookup never
    writes the key. No stale batch raises an error in PostgreSQL (whose log would keep the
    query's text: a signed checkpoint that never committed)."""
    open_table(a.conn(), token, "kept", ["k1"])
    before = {id(s): (store_counter(s, "optimistic_batches"), store_counter(s, "retried_batches")) for s in (a, b)}
    errors_before = errors_in(pg_log)

    def counts(srv):
        o, r = before[id(srv)]
        return store_counter(srv, "optimistic_batches") - o, store_counter(srv, "retried_batches") - r

    answers = []
    # step: 0, 1 a (the second on kept rows); 2 b; 3 a (stale: rerun); 4 a (resting); 5 a after the
    # rest (kept rows again); 6 b; 7 a with a key (stale at the check before the key lookup);
    # 8 a with the same key (the same deal, answered again)
    for step, srv in enumerate((a, a, b, a, a, a, b, a, a)):
        if step == 5:
            time.sleep(1.2)  # past the rest after a stale batch
        status, d = deal(srv, token, "kept", "kept-key-7" if step >= 7 else None)
        check(status == 200, f"kept rows: deal {step}: {status} {d}")
        answers.append(d)
        if step == 1:
            check(counts(a)[0] >= 1, f"kept rows: a second deal in a row was not optimistic: {counts(a)}")
            opt = counts(a)[0]
        if step in (3, 4):
            check(counts(a) == (opt, 1), f"kept rows: step {step}: a changed row not caught, or no rest: {counts(a)}")
        if step == 5:
            check(counts(a) == (opt + 1, 1), f"kept rows: not used again after the rest: {counts(a)}")
        if step == 7:
            check(counts(a) == (opt + 1, 2), f"kept rows: a stale key lookup was not caught: {counts(a)}")
    # b kept its row from step 2; a changed it since, so b's step 6 was stale and rerun
    check(counts(b) == (0, 1), f"kept rows: the other instance: {counts(b)}")
    nonces = [d["nonce"] for d in answers]
    check(nonces == list(range(8)) + [7], f"kept rows: nonces {nonces}")
    check(answers[8]["cards"] == answers[7]["cards"], "kept rows: the key's deal answered differently")
    records = log_of(b, "kept")
    verify_log(records)
    stored = {r["nonce"]: r["cards"] for r in records if r["type"] == "deal"}
    check(len(stored) == 8 and all(stored.get(d["nonce"]) == d["cards"] for d in answers),
          "kept rows: a deal's stored cards differ")
    check(errors_in(pg_log) == errors_before, "kept rows: PostgreSQL logged an error (a stale batch's query text)")


def refused_row_fails_only_its_deal(uri, key, token, psql, pg_log):
    """A record row PostgreSQL refuses (here: a CHECK on one table's records) fails only its own
    deal. A batch's records travel with its COMMIT; a refused COMMIT reruns the batch with a
    savepoint per write, so another table's deals in the same batches still commit. One writer
    connection, so both tables' deals share batches. PostgreSQL logs each refusal with its
    statement, and the statement's values travel apart from its text (pg_pipeline.hpp): the
    batch's signed checkpoints — over trees that never committed — are not in the log."""
    srv = Server(uri, "--key-file", key, "--writers", "1")
    log_name = call(srv.conn(), "GET", "/v1/log-key")[1].split("+")[0]
    log_start = os.path.getsize(pg_log)
    open_table(srv.conn(), token, "clean", ["p1"])
    open_table(srv.conn(), token, "poisoned", ["poison-seed"])
    psql("ALTER TABLE fairdeck_records ADD CONSTRAINT fd_test_poison CHECK (body NOT LIKE '%seat_seed=poison-seed%')")
    before = store_counter(srv, "isolated_batches")
    statuses, lock = {"clean": [], "poisoned": []}, threading.Lock()

    def deal(table):
        c = srv.conn(timeout=10)
        for _ in range(15):
            status, _ = call(c, "POST", f"/v1/tables/{table}/deals", {}, token)
            with lock:
                statuses[table].append(status)

    workers = [threading.Thread(target=deal, args=(t,)) for t in ("clean", "poisoned") for _ in range(6)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    psql("ALTER TABLE fairdeck_records DROP CONSTRAINT fd_test_poison")
    no_checkpoint_logged(pg_log, log_start, log_name, "fd_test_poison", "refused row")
    check(statuses["clean"] == [200] * 90, f"deals beside a refused row: {sorted(set(statuses['clean']))}")
    check(statuses["poisoned"] == [503] * 90, f"deals whose row is refused: {sorted(set(statuses['poisoned']))}")
    check(store_counter(srv, "isolated_batches") > before, "no batch was rerun with a savepoint per write")
    status, info = call(srv.conn(), "GET", "/v1/tables/poisoned")
    check(status == 200 and info["next_nonce"] == 0, f"a refused deal advanced its table: {info}")
    status, d = call(srv.conn(), "POST", "/v1/tables/poisoned/deals", {}, token)
    check(status == 200 and d["nonce"] == 0, f"deal once the row is accepted: {status} {d}")
    check(srv.stop() == 0, "clean stop")


def full_disk_fails_deals_not_data(tmp, uri, key, token, psql, pg_log):
    """The disk under the records fills (their tablespace on a tmpfs, filled by another file):
    PostgreSQL refuses to extend the table (53100), deals answer 503, no acknowledged deal is
    lost or half-written, deals resume with the next nonce once space is freed, and PostgreSQL's
    log names the full disk but holds no signed checkpoint. Skipped (with a note) where
    mounting is not allowed."""
    mnt = os.path.join(tmp, "small")  # run_scenario unmounts it whatever happens
    os.mkdir(mnt)
    opts = "size=64m,mode=0700"
    if os.getuid() == 0:  # the tablespace's directory belongs to PostgreSQL's user
        pg = pwd.getpwnam("postgres")
        opts += f",uid={pg.pw_uid},gid={pg.pw_gid}"
    if subprocess.run(["mount", "-t", "tmpfs", "-o", opts, "tmpfs", mnt], capture_output=True).returncode != 0:
        print("postgres: full-disk part skipped (cannot mount a tmpfs here)")
        return
    psql(f"CREATE TABLESPACE small LOCATION '{mnt}'")
    psql("ALTER TABLE fairdeck_records SET TABLESPACE small")
    srv = Server(uri, "--key-file", key)
    log_name = call(srv.conn(), "GET", "/v1/log-key")[1].split("+")[0]
    log_start = os.path.getsize(pg_log)
    open_table(srv.conn(), token, "disk", ["d1"])
    acked = []
    c = srv.conn()
    for _ in range(20):
        status, d = call(c, "POST", "/v1/tables/disk/deals", {}, token)
        check(status == 200, f"full disk: deal before the disk fills: {status} {d}")
        acked.append(d)
    filler = e2e.fill_disk(mnt)
    refused = 0
    for _ in range(2000):  # until the table's last page is full and it must grow
        status, d = call(c, "POST", "/v1/tables/disk/deals", {}, token)
        if status == 503:
            check("error" in d, f"full disk: 503 body {d}")
            refused += 1
            if refused == 5:
                break
            continue
        check(status == 200 and refused == 0, f"full disk: {status} after {refused} refusals: {d}")
        acked.append(d)
    check(refused == 5, "full disk: no 503 while the disk was full")
    os.remove(filler)
    status, d = call(c, "POST", "/v1/tables/disk/deals", {}, token)
    check(status == 200, f"full disk: no recovery after freeing space: {status} {d}")
    acked.append(d)
    check([a["nonce"] for a in acked] == list(range(len(acked))), "full disk: a refused deal used a nonce")
    records = log_of(srv, "disk")
    verify_log(records)
    by_nonce = {r["nonce"]: r for r in records if r["type"] == "deal"}
    check(len(by_nonce) == len(acked) and all(by_nonce[a["nonce"]]["cards"] == a["cards"] for a in acked),
          "full disk: an acknowledged deal was lost or differs")
    check(srv.stop() == 0, "full disk: clean stop")
    no_checkpoint_logged(pg_log, log_start, log_name, "No space left on device", "full disk")
    psql("ALTER TABLE fairdeck_records SET TABLESPACE pg_default")
    psql("DROP TABLESPACE small")
    subprocess.run(["umount", mnt], check=True)
    print(f"postgres: full disk ok ({len(acked)} deals acknowledged, {refused} refused while full)")


def postgres(tmp):
    with pg_cluster(tmp) as (uri, pg_start, pg_stop, psql):
        key = os.path.join(tmp, "pg.key")
        token = init(uri, "--key-file", key)
        a = Server(uri, "--key-file", key)
        b = Server(uri, "--key-file", key)
        open_table(a.conn(), token, "shared", ["p1", "p2"])
        # A seed with a quote, a backslash and a non-ASCII letter: records and table rows reach
        # PostgreSQL inside array literals, whose escaping this exercises.
        open_table(b.conn(), token, "other", ['q "x" \\ y\\ \u00e9'])
        kept_rows_are_checked(a, b, token, os.path.join(tmp, "pg", "log"))
        acked, errors_seen, lock, stop = [], [], threading.Lock(), threading.Event()
        workers = [threading.Thread(target=load, args=(srv, token, ["shared", "other"], stop, acked, errors_seen, lock))
                   for srv in (a, b) for _ in range(8)]
        for w in workers:
            w.start()
        time.sleep(4)
        stop.set()
        for w in workers:
            w.join()
        check(not errors_seen, f"errors under load: {sorted(set(errors_seen))}")
        per = {}
        for d in acked:
            per.setdefault(d["table"], []).append(d["nonce"])
        for t, nonces in per.items():
            check(len(nonces) == len(set(nonces)), f"{t}: a nonce was used twice across instances")
        refused_row_fails_only_its_deal(uri, key, token, psql, os.path.join(tmp, "pg", "log"))
        full_disk_fails_deals_not_data(tmp, uri, key, token, psql, os.path.join(tmp, "pg", "log"))
        # the database goes away: 503, and both instances recover when it returns
        pg_stop()
        status, _ = call(a.conn(), "POST", "/v1/tables/shared/deals", {}, token)
        check(status == 503, f"database gone: {status}")
        check(call(a.conn(), "GET", "/healthz")[0] == 503, "healthz with the database gone")
        pg_start()
        for srv in (a, b):
            status, d = call(srv.conn(), "POST", "/v1/tables/shared/deals", {}, token)
            check(status == 200, f"no recovery: {status} {d}")
            acked.append(d)
        for t in ("shared", "other"):
            status, info = call(b.conn(), "GET", f"/v1/tables/{t}")
            top = max(d["nonce"] for d in acked if d["table"] == t)
            check(status == 200 and info["next_nonce"] == top + 1, f"{t}: next_nonce {info}")
            call(a.conn(), "POST", f"/v1/tables/{t}/rotate", None, token)
            records = log_of(b, t)
            verified, unrevealed = verify_log(records)
            stored = {r["nonce"]: r for r in records if r["type"] == "deal"}
            for d in (x for x in acked if x["table"] == t):
                check(stored.get(d["nonce"], {}).get("cards") == d["cards"], f"{t}: nonce {d['nonce']} lost")
        # The transparency log on PostgreSQL (issue #29): both instances serve one tree per table,
        # equal to the RFC 9162 recomputation, and every receipt from either instance verifies.
        import tlog_e2e_test
        log_name = call(a.conn(), "GET", "/v1/log-key")[1].split("+")[0]
        for t in ("shared", "other"):
            for srv in (a, b):
                tlog_e2e_test.check_tree(srv, t, log_name, samples=4)
            leaves = tlog_e2e_test.leaves_of(a, t)
            for d in (x for x in acked if x["table"] == t):
                tlog_e2e_test.check_receipt(d["receipt"], leaves, log_name, t)
        check(a.stop() == 0 and b.stop() == 0, "clean stop of both instances")
        # Trees rebuilt on open (a store from before the log, or lost trees) while another
        # instance's identical rebuild holds one of the nodes uncommitted: the rebuild waits for
        # it, then skips the identical node instead of failing on the duplicate key.
        nodes = psql("SELECT count(*) FROM fairdeck_tree_nodes")
        first = psql("SELECT encode(hash, 'hex') FROM fairdeck_tree_nodes WHERE table_id = 'other' AND level = 1 AND idx = 0")
        check(int(nodes) > 0 and len(first) == 64, f"nodes stored: {nodes} {first!r}")
        psql("DELETE FROM fairdeck_tree_heads; DELETE FROM fairdeck_tree_nodes")
        holder = psql.session()
        holder.stdin.write("BEGIN;\nINSERT INTO fairdeck_tree_nodes(table_id, level, idx, hash) "
                           f"VALUES('other', 1, 0, decode('{first}', 'hex'));\nSELECT 'held';\n")
        holder.stdin.flush()
        check(holder.stdout.readline().strip() == "held", f"the node held: {holder.stderr.read() if holder.poll() else ''}")
        started = []
        opener = threading.Thread(target=lambda: started.append(Server(uri, "--key-file", key)))
        opener.start()
        time.sleep(1.5)  # the rebuild reaches the held node and waits for its transaction
        holder.stdin.write("COMMIT;\n")
        holder.stdin.close()
        check(holder.wait(timeout=60) == 0, f"holder: {holder.stderr.read()}")
        opener.join(timeout=120)
        check(len(started) == 1, "the instance rebuilding the trees did not start")
        c = started[0]
        check(psql("SELECT count(*) FROM fairdeck_tree_nodes") == nodes, "rebuilt trees have other nodes")
        for t in ("shared", "other"):
            tlog_e2e_test.check_tree(c, t, log_name, samples=4)
        status, d = call(c.conn(), "POST", "/v1/tables/other/deals", {}, token)
        check(status == 200, f"deal after the rebuild: {status} {d}")
        tlog_e2e_test.check_receipt(d["receipt"], tlog_e2e_test.leaves_of(c, "other"), log_name, "other")
        check(c.stop() == 0, "clean stop after the rebuild")
        print(f"postgres: ok ({len(acked)} deals from two instances, no nonce reused; trees rebuilt)")


if __name__ == "__main__":
    e2e.run_scenario({"postgres": postgres}, "fairdeckd-e2e-pg-")
