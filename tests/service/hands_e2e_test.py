#!/usr/bin/env python3
"""Hands with seat commitments (issue #30) against the real fairdeckd, over HTTP.

The log checker here is an independent re-implementation of docs/log-format.md (rule 6 for
hands included), so it cross-checks the C++ verifier. The fairdeckd driver is e2e_test's.

Scenarios:
  flow      a hand over HTTP: refusals, the deal re-derived, `fairdeck fair verify --hand`
  kill9     fairdeckd killed -9 again and again while tables run hands: no acknowledged
            commitment (or reveal, or deal) is lost, and every hand completes after restart
  postgres  two fairdeckd on one PostgreSQL: one hand driven through both; a database from
            before hands (no `hands` column) gets it on open
Usage: hands_e2e_test.py --bin build/release/fairdeckd SCENARIO (exit 77: skipped)."""
import hashlib, json, os, random, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test as e2e  # noqa: E402
from e2e_test import Server, call, check, combine, deck, init, log_of  # noqa: E402

FIELDS = {"open": ["seats", "decks", "jokers", "commitment"],
          "deal": ["nonce", "commitment", "seat_seeds", "client_seed", "decks", "jokers", "cards"],
          "rotate": ["revealed_seed", "commitment", "next_commitment"],
          "hand_open": ["hand", "nonce", "commitment", "seats"],
          "commit": ["hand", "seat", "seat_commitment"],
          "reveal": ["hand", "seat", "client_seed"],
          "hand_deal": ["hand", "nonce", "commitment", "seat_seeds", "client_seed", "decks", "jokers", "cards"],
          "abort": ["hand", "nonce", "uncommitted", "unrevealed"]}


def sha(text):
    return hashlib.sha256(text.encode()).hexdigest()


def record_hash(r):
    lines = ["fairdeck-log-v1"] + [f"{k}={r[k]}" for k in ("seq", "prev_hash", "type", "table", "time")]
    for k in FIELDS[r["type"]]:
        if k == "seat_seeds":
            lines += [f"seat_seed={s}" for s in r[k]]
        elif k in ("uncommitted", "unrevealed"):
            lines.append(f"{k}=" + " ".join(str(s) for s in r[k]))
        else:
            lines.append(f"{k}={r[k]}")
    return sha("\n".join(lines) + "\n")


def verify_log(records):
    """Every rule of docs/log-format.md; returns a summary dict, fails loudly."""
    prev, in_force, nonce, pending, seats = e2e.ZERO, None, 0, [], None
    hand, last_hand = None, 0
    out = {"verified": 0, "unrevealed": 0, "dealt": 0, "aborted": 0, "aborts": [], "missed": []}
    for i, r in enumerate(records):
        t = r["type"]
        check(r["seq"] == i and (i == 0) == (t == "open"), f"record {i}: seq/type")
        check(r["hash"] == record_hash(r) and r["prev_hash"] == prev, f"record {i}: hash chain")
        prev = r["hash"]
        if t == "open":
            in_force, seats = r["commitment"], r["seats"]
            out["aborts"], out["missed"] = [0] * seats, [0] * seats
        elif t in ("deal", "hand_open"):
            check(hand is None, f"record {i}: {t} while hand {hand and hand['hand']} is in progress")
            check(r["nonce"] == nonce and r["commitment"] == in_force, f"record {i}: nonce/commitment")
            nonce += 1
            if t == "deal":
                check(r["client_seed"] == combine(r["seat_seeds"]), f"record {i}: derivation")
                pending.append(r)
            else:
                check(r["hand"] == last_hand + 1 and r["seats"] == seats, f"record {i}: hand number/seats")
                last_hand = r["hand"]
                hand = {"hand": r["hand"], "nonce": r["nonce"], "c": [None] * seats, "s": [None] * seats}
        elif t == "rotate":
            check(hand is None, f"record {i}: rotation during a hand")
            check(r["commitment"] == in_force and sha_bytes(r["revealed_seed"]) == in_force, f"record {i}: reveal")
            for d in pending:
                check(deck(r["revealed_seed"], d["client_seed"], d["nonce"], d["decks"], d["jokers"]) == d["cards"],
                      f"deal {d['seq']}: cards")
                out["verified"] += 1
            pending, in_force = [], r["next_commitment"]
        else:
            check(hand is not None and r["hand"] == hand["hand"], f"record {i}: {t} outside its hand")
            if t == "commit":
                s = r["seat"] - 1
                check(hand["c"][s] is None and not any(hand["s"]), f"record {i}: commit twice or after a reveal")
                hand["c"][s] = r["seat_commitment"]
            elif t == "reveal":
                s = r["seat"] - 1
                check(all(hand["c"]), f"record {i}: reveal before every commit")
                check(hand["s"][s] is None and sha(r["client_seed"]) == hand["c"][s], f"record {i}: reveal mismatch")
                hand["s"][s] = r["client_seed"]
            elif t == "hand_deal":
                check(all(x is not None for x in hand["s"]) and r["seat_seeds"] == hand["s"], f"record {i}: seeds")
                check(r["nonce"] == hand["nonce"] and r["commitment"] == in_force, f"record {i}: nonce/commitment")
                check(r["client_seed"] == combine(r["seat_seeds"]), f"record {i}: derivation")
                pending.append(r)
                out["dealt"] += 1
                hand = None
            else:  # abort
                unc = [k + 1 for k, c in enumerate(hand["c"]) if c is None]
                unr = [k + 1 for k, x in enumerate(hand["s"]) if x is None]
                check(r["uncommitted"] == unc and r["unrevealed"] == unr and unr, f"record {i}: abort seats")
                for k in (unr if not unc else unc):
                    (out["aborts"] if not unc else out["missed"])[k - 1] += 1
                out["aborted"] += 1
                hand = None
    out["unrevealed"] = len(pending)
    return out


def sha_bytes(hex_seed):
    return hashlib.sha256(bytes.fromhex(hex_seed)).hexdigest()


def seed_of(table, hand, seat):
    return f"{table}/{hand}/{seat}/" + sha(f"secret {table} {hand} {seat}")[:32]


def hand_path(t, h, rest=""):
    return f"/v1/tables/{t}/hands/{h}{rest}"


def open_table(srv, token, table, seats):
    status, j = call(srv.conn(), "POST", "/v1/tables", {"seats": seats, "table": table}, token)
    check(status == 201, f"open {table}: {status} {j}")


# ---- scenarios ----

def flow(tmp):
    db = os.path.join(tmp, "t.db")
    token = init(db)
    srv = Server(db)
    try:
        open_table(srv, token, "t", 3)
        c = srv.conn()
        status, h = call(c, "POST", "/v1/tables/t/hands", None, token)
        check(status == 201 and h["hand"] == 1 and h["nonce"] == 0, f"open hand: {status} {h}")
        check(call(c, "POST", "/v1/tables/t/hands", None, token)[0] == 409, "a second hand")
        check(call(c, "POST", "/v1/tables/t/rotate", None, token)[0] == 409, "rotate during a hand")
        seeds = [seed_of("t", 1, s) for s in (1, 2, 3)]
        check(call(c, "PUT", hand_path("t", 1, "/seats/1/commit"), {"commitment": sha(seeds[0])}, token)[0] == 200, "c1")
        check(call(c, "PUT", hand_path("t", 1, "/seats/1/reveal"), {"client_seed": seeds[0]}, token)[0] == 409,
              "reveal before every commit")
        for s in (2, 3):
            check(call(c, "PUT", hand_path("t", 1, f"/seats/{s}/commit"), {"commitment": sha(seeds[s - 1])}, token)[0]
                  == 200, f"commit {s}")
        status, table = call(c, "GET", "/v1/tables/t")
        check(table["hand"]["committed"] == [True] * 3 and table["hand"]["seat_commitments"][0] == sha(seeds[0]),
              f"public state: {table}")
        check(call(c, "POST", hand_path("t", 1, "/deal"), {}, token)[0] == 409, "deal before the reveals")
        check(call(c, "PUT", hand_path("t", 1, "/seats/2/reveal"), {"client_seed": "ground"}, token)[0] == 409,
              "a changed reveal")
        for s in (1, 2, 3):
            check(call(c, "PUT", hand_path("t", 1, f"/seats/{s}/reveal"), {"client_seed": seeds[s - 1]}, token)[0]
                  == 200, f"reveal {s}")
        status, d = call(c, "POST", hand_path("t", 1, "/deal"), {"game": "holdem"}, token)
        check(status == 200 and d["hand"] == 1 and d["mode"] == "hand" and "flop" in d, f"deal: {status} {d}")
        check(call(c, "POST", hand_path("t", 1, "/deal"), {}, token)[0] == 409, "dealt twice")
        status, rot = call(c, "POST", "/v1/tables/t/rotate", None, token)
        check(status == 200, "rotate")
        check(deck(rot["revealed_seed"], combine(seeds), 0) == d["cards"], "the deal re-derives (Python)")
        # Hand 2 is aborted after seat 3 withheld its reveal; hand 3 after seat 2 never committed.
        check(call(c, "POST", "/v1/tables/t/hands", None, token)[0] == 201, "hand 2")
        for s in (1, 2, 3):
            call(c, "PUT", hand_path("t", 2, f"/seats/{s}/commit"), {"commitment": sha(seed_of("t", 2, s))}, token)
        for s in (1, 2):
            call(c, "PUT", hand_path("t", 2, f"/seats/{s}/reveal"), {"client_seed": seed_of("t", 2, s)}, token)
        status, ab = call(c, "POST", hand_path("t", 2, "/abort"), None, token)
        check(status == 200 and ab["unrevealed"] == [3] and ab["uncommitted"] == [], f"abort: {ab}")
        check(call(c, "POST", "/v1/tables/t/hands", None, token)[0] == 201, "hand 3")
        call(c, "PUT", hand_path("t", 3, "/seats/1/commit"), {"commitment": sha("x")}, token)
        call(c, "PUT", hand_path("t", 3, "/seats/3/commit"), {"commitment": sha("y")}, token)
        status, ab = call(c, "POST", hand_path("t", 3, "/abort"), None, token)
        check(status == 200 and ab["uncommitted"] == [2] and ab["unrevealed"] == [1, 2, 3], f"abort: {ab}")
        summary = verify_log(log_of(srv, "t"))
        check(summary["verified"] == 1 and summary["dealt"] == 1 and summary["aborted"] == 2, f"log: {summary}")
        check(summary["aborts"] == [0, 0, 1] and summary["missed"] == [0, 1, 0], f"abort counts: {summary}")
        status, table = call(c, "GET", "/v1/tables/t")
        check(table["aborts"] == [0, 0, 1] and table["missed_commits"] == [0, 1, 0], f"public counts: {table}")
        status, audit = call(c, "GET", "/v1/tables/t/audit")
        check(status == 200 and audit["chain"]["verified"] and audit["chain"]["hands_dealt"] == 1
              and audit["chain"]["aborts"] == [0, 0, 1], f"audit: {audit}")
        # The player's CLI check, from seat 2.
        cli = os.path.join(os.path.dirname(e2e.BIN), "fairdeck")
        if os.path.exists(cli):
            args = [cli, "fair", "verify", "--hand", "-", "--seat", "2", "--my-seed", seeds[1], "--my-commitment",
                    sha(seeds[1]), "--server-seed", rot["revealed_seed"], "--commitment", h["commitment"]]
            out = subprocess.run(args, input=json.dumps(d), capture_output=True, text=True, timeout=60)
            check(out.returncode == 0 and out.stdout.startswith("verified"), f"fair verify --hand: {out}")
            args[args.index("--my-seed") + 1] = seeds[0]  # seat 1's seed is not seat 2's
            out = subprocess.run(args, input=json.dumps(d), capture_output=True, text=True, timeout=60)
            check(out.returncode == 1 and "not my seed" in out.stdout, f"fair verify --hand, wrong seat: {out}")
        check(srv.stop() == 0, "clean stop")
        check(not any(x in srv.err for x in seeds[:1] + [rot["revealed_seed"]]), "a secret on stderr")
        print("flow: ok")
    finally:
        if srv.proc.poll() is None:
            srv.kill()


def hands_worker(srv, token, table, seats, stop, acked, lock):
    """Runs hands on `table` until stopped or the server dies; records every acknowledged step."""
    try:
        c = srv.conn(timeout=10)
        while not stop.is_set():
            status, j = call(c, "POST", "/v1/tables/" + table + "/hands", None, token)
            if status != 201:
                return
            h = j["hand"]
            for step in ("commit", "reveal"):
                for s in range(1, seats + 1):
                    seed = seed_of(table, h, s)
                    body = {"commitment": sha(seed)} if step == "commit" else {"client_seed": seed}
                    status, r = call(c, "PUT", hand_path(table, h, f"/seats/{s}/{step}"), body, token)
                    if status != 200:
                        return
                    with lock:
                        acked.append((table, h, step, s, r.get("seq"), r.get("hash")))
            status, d = call(c, "POST", hand_path(table, h, "/deal"), {}, token)
            if status != 200:
                return
            with lock:
                acked.append((table, h, "deal", 0, d["seq"], d["hash"]))
    except Exception:  # the server was killed mid-request
        return


def finish_hand(srv, token, table, seats, acked):
    """After a restart: the hand in progress still holds every acknowledged commitment and
    reveal; then it is completed with the same seeds."""
    status, info = call(srv.conn(), "GET", f"/v1/tables/{table}")
    check(status == 200, f"table {table}: {status}")
    if info["hand"] is None:
        return 0
    h = info["hand"]
    for (t, hand, step, s, _, _) in acked:
        if t == table and hand == h["hand"]:
            if step == "commit":
                check(h["seat_commitments"][s - 1] == sha(seed_of(t, hand, s)),
                      f"{t} hand {hand}: acknowledged commitment of seat {s} lost")
            elif step == "reveal":
                check(h["revealed"][s - 1], f"{t} hand {hand}: acknowledged reveal of seat {s} lost")
    c = srv.conn()
    for s in range(1, seats + 1):
        if not h["committed"][s - 1]:
            check(call(c, "PUT", hand_path(table, h["hand"], f"/seats/{s}/commit"),
                       {"commitment": sha(seed_of(table, h["hand"], s))}, token)[0] == 200, "finish: commit")
    for s in range(1, seats + 1):
        if not h["revealed"][s - 1]:
            check(call(c, "PUT", hand_path(table, h["hand"], f"/seats/{s}/reveal"),
                       {"client_seed": seed_of(table, h["hand"], s)}, token)[0] == 200, "finish: reveal")
    check(call(c, "POST", hand_path(table, h["hand"], "/deal"), {}, token)[0] == 200, "finish: deal")
    return 1


def kill9(tmp, rounds=8):
    db = os.path.join(tmp, "t.db")
    token = init(db)
    tables, seats = ["h1", "h2", "h3"], 3
    srv = Server(db)
    for t in tables:
        open_table(srv, token, t, seats)
    acked, lock, rng, interrupted = [], threading.Lock(), random.Random(30), 0
    try:
        for _ in range(rounds):
            stop = threading.Event()
            workers = [threading.Thread(target=hands_worker, args=(srv, token, t, seats, stop, acked, lock))
                       for t in tables]
            for w in workers:
                w.start()
            time.sleep(0.2 + rng.random() * 0.5)
            srv.kill()  # kill -9, typically between a hand's commits and its reveals
            stop.set()
            for w in workers:
                w.join()
            srv = Server(db)
            for t in tables:
                interrupted += finish_hand(srv, token, t, seats, acked)
        commits = sum(1 for a in acked if a[2] == "commit")
        check(commits > rounds * 10, f"too few commitments acknowledged ({commits})")
        check(interrupted > 0, "no hand was interrupted by a kill")
        for t in tables:
            check(call(srv.conn(), "POST", f"/v1/tables/{t}/rotate", None, token)[0] == 200, "rotate")
            records = log_of(srv, t)
            summary = verify_log(records)
            check(summary["unrevealed"] == 0 and summary["verified"] == summary["dealt"], f"{t}: {summary}")
            stored = {(r["seq"], r["hash"]) for r in records}
            for a in (x for x in acked if x[0] == t):
                check((a[4], a[5]) in stored, f"{t}: acknowledged {a[2]} of hand {a[1]} seat {a[3]} not in the log")
        check(srv.stop() == 0, "clean stop")
        print(f"kill9: ok ({rounds} kills, {commits} acknowledged commitments, {interrupted} hands finished after "
              f"a kill, every acknowledged record in a verified log)")
    finally:
        if srv.proc.poll() is None:
            srv.kill()


def postgres(tmp):
    with e2e.pg_cluster(tmp) as (uri, _start, _stop, psql):
        key = os.path.join(tmp, "pg.key")
        token = init(uri, "--key-file", key)
        # A database from before hands: the column is not there; fairdeckd adds it on open.
        psql("ALTER TABLE fairdeck_tables DROP COLUMN hands")
        a = Server(uri, "--key-file", key)
        b = Server(uri, "--key-file", key)
        try:
            check(psql("SELECT count(*) FROM information_schema.columns WHERE table_name = 'fairdeck_tables' "
                       "AND column_name = 'hands'") == "1", "the hands column was not added")
            open_table(a, token, "p", 2)
            for hand in (1, 2):
                first, second = (a, b) if hand == 1 else (b, a)
                status, h = call(first.conn(), "POST", "/v1/tables/p/hands", None, token)
                check(status == 201 and h["hand"] == hand, f"open hand {hand}: {status} {h}")
                check(call(second.conn(), "POST", "/v1/tables/p/hands", None, token)[0] == 409, "second open")
                seeds = [seed_of("p", hand, s) for s in (1, 2)]
                check(call(first.conn(), "PUT", hand_path("p", hand, "/seats/1/commit"), {"commitment": sha(seeds[0])},
                           token)[0] == 200, "commit 1")
                check(call(second.conn(), "PUT", hand_path("p", hand, "/seats/1/reveal"), {"client_seed": seeds[0]},
                           token)[0] == 409, "reveal before every commit, other instance")
                check(call(second.conn(), "PUT", hand_path("p", hand, "/seats/2/commit"), {"commitment": sha(seeds[1])},
                           token)[0] == 200, "commit 2")
                check(call(first.conn(), "PUT", hand_path("p", hand, "/seats/1/commit"), {"commitment": sha("late")},
                           token)[0] == 409, "changed commitment")
                for s, srv in ((1, first), (2, second)):
                    check(call(srv.conn(), "PUT", hand_path("p", hand, f"/seats/{s}/reveal"),
                               {"client_seed": seeds[s - 1]}, token)[0] == 200, f"reveal {s}")
                if hand == 1:
                    check(call(second.conn(), "POST", hand_path("p", 1, "/deal"), {}, token)[0] == 200, "deal")
                    check(call(first.conn(), "POST", hand_path("p", 1, "/deal"), {}, token)[0] == 409, "dealt twice")
                else:
                    check(call(first.conn(), "POST", hand_path("p", 2, "/abort"), {}, token)[0] == 409,
                          "abort after every reveal")
                    check(call(first.conn(), "POST", hand_path("p", 2, "/deal"), {}, token)[0] == 200, "deal")
            check(call(a.conn(), "POST", "/v1/tables/p/rotate", None, token)[0] == 200, "rotate")
            summary = verify_log(log_of(b, "p"))
            check(summary["dealt"] == 2 and summary["verified"] == 2, f"log: {summary}")
            check(a.stop() == 0 and b.stop() == 0, "clean stop")
            print("postgres: ok (two hands through two instances; an old schema got its column)")
        finally:
            for srv in (a, b):
                if srv.proc.poll() is None:
                    srv.kill()


if __name__ == "__main__":
    e2e.run_scenario({f.__name__: f for f in (flow, kill9, postgres)}, "fairdeckd-hands-")
