#!/usr/bin/env python3
"""Mental-poker tables (issue #32 item 4, docs/mental-poker.md §10) against the real fairdeckd and
the real `fairdeck mental` CLI: the players build every step with the CLI on the transcript the
server serves, the server verifies, orders and logs it.

Scenarios:
  cli       SQLite: a 3-player hand (3 shuffles, hole cards of every player, the flop) with
            fairdeckd killed -9 in the middle; a stalled hand logged once on stderr; the
            transcript verified by `fairdeck mental verify`, the cards read by `mental open`,
            the log by `fairdeck log verify` and /audit; refusals; no secret key on the server
  postgres  the same hand through two fairdeckd on one PostgreSQL, alternating (77: skipped)
Usage: mental_e2e_test.py --bin build/release/fairdeckd SCENARIO (exit 77: skipped)."""
import json, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test as e2e  # noqa: E402
from e2e_test import Server, call, check, init, log_of  # noqa: E402


def cli(*args, **kw):
    exe = os.path.join(os.path.dirname(e2e.BIN), "fairdeck")
    return subprocess.run([exe, *args], capture_output=True, text=True, timeout=120, **kw)


def keygen(tmp, names):
    pubs = []
    for n in names:
        out = cli("mental", "keygen", "-o", os.path.join(tmp, f"{n}.key"))
        check(out.returncode == 0, f"keygen {n}: {out.stderr}")
        pubs.append(json.loads(out.stdout))
    return pubs


class Table:
    def __init__(self, tmp, token, table):
        self.tmp, self.token, self.table = tmp, token, table
        self.path = f"/v1/tables/{table}/mental/hands/1"

    def fetch(self, srv, name="hand.json"):
        c = srv.conn()  # the raw bytes: they must be the canonical text the CLI accepts unchanged
        c.request("GET", self.path + "/transcript")
        resp = c.getresponse()
        status, text = resp.status, resp.read().decode()
        check(status == 200, f"transcript: {status} {text:.300}")
        f = os.path.join(self.tmp, name)
        with open(f, "w") as out:
            out.write(text)
        return f

    def step(self, srv, player, *cli_args, expect=200):
        """Player `player` (A, B, C) runs the CLI on the server's transcript and posts its new step."""
        f = self.fetch(srv)
        out = cli("mental", *cli_args, "--key", os.path.join(self.tmp, f"{player}.key"), f)
        check(out.returncode == 0, f"{player} {cli_args}: {out.stderr}")
        with open(f) as inp:
            step = json.load(inp)["steps"][-1]
        status, r = call(srv.conn(), "POST", self.path + "/steps", step, self.token)
        check(status == expect, f"{player} {cli_args}: {status} {r}")
        return step, r

    def status(self, srv):
        status, st = call(srv.conn(), "GET", self.path)
        check(status == 200, f"hand: {status} {st}")
        return st


def play(tmp, token, servers, table, restart=None):
    """The whole hand; servers() gives the instance for each request (alternating on PostgreSQL)."""
    pubs = keygen(tmp, "ABC")
    srv = servers()
    status, j = call(srv.conn(), "POST", "/v1/tables",
                     {"seats": 3, "table": table, "mode": "mental", "players": pubs, "timeout": 1}, token)
    check(status == 201, f"open: {status} {j}")
    status, h = call(servers().conn(), "POST", f"/v1/tables/{table}/mental/hands", None, token)
    check(status == 201 and h["hand"] == 1 and h["receipt"] is not None, f"hand: {status} {h}")
    t = Table(tmp, token, table)
    shuffle_a, _ = t.step(servers(), "A", "shuffle")
    # Refused, and not stored: a replay, a shuffle out of turn (B's own step sent as C's), a forged proof.
    status, r = call(servers().conn(), "POST", t.path + "/steps", shuffle_a, token)
    check(status == 409, f"replayed shuffle: {status} {r}")
    f = t.fetch(servers())
    out = cli("mental", "shuffle", "--key", os.path.join(tmp, "B.key"), f)
    check(out.returncode == 0, out.stderr)
    with open(f) as inp:
        b_step = json.load(inp)["steps"][-1]
    status, r = call(servers().conn(), "POST", t.path + "/steps", dict(b_step, player=3), token)
    check(status == 409, f"out of turn: {status} {r}")
    forged = dict(b_step, key_proof=shuffle_a["key_proof"])
    status, r = call(servers().conn(), "POST", t.path + "/steps", forged, token)
    check(status == 400 and "does not verify" in r["error"], f"forged key proof: {status} {r}")
    check(call(servers().conn(), "POST", t.path + "/steps", b_step, None)[0] == 401, "a step without the token")
    check(t.status(servers())["steps"] == 1, "a refused step was stored")
    status, r = call(servers().conn(), "POST", t.path + "/steps", b_step, token)
    check(status == 200 and r["step"] == 1, f"B's shuffle: {status} {r}")
    if restart:
        restart()
    time.sleep(2.2)  # longer than the table's 1 s timeout: the hand waits for C
    st = t.status(servers())
    check(st["stalled"] is True and st["awaited"] == [3] and st["next"] == "shuffle", f"stall: {st}")
    t.step(servers(), "C", "shuffle")
    check(t.status(servers())["stalled"] is False, "still stalled after C acted")
    # Hole cards: positions 2p-2, 2p-1 to player p, revealed by the two others; then the flop.
    for p, owner in enumerate("ABC", 1):
        for other in "ABC":
            if other != owner:
                t.step(servers(), other, "reveal", "--positions", f"{2 * p - 2},{2 * p - 1}", "--to", str(p))
    _, last = None, None
    for p in "ABC":
        _, last = t.step(servers(), p, "reveal", "--positions", "6,7,8", "--to", "all")
    check(last["status"]["next"] is None and last["status"]["awaited"] == [], f"after the flop: {last}")
    f = t.fetch(servers(), "final.json")
    out = cli("mental", "verify", f)
    check(out.returncode == 0, f"mental verify: {out.stdout} {out.stderr}")
    check(t.status(servers())["head"] in out.stdout, f"the final h differs: {out.stdout}")
    seen = {}
    for p in "ABC":
        out = cli("mental", "open", "--key", os.path.join(tmp, f"{p}.key"), f, "--json")
        check(out.returncode == 0, f"open {p}: {out.stderr}")
        seen[p] = json.loads(out.stdout)["cards"]
        check(len(seen[p]) == 5, f"{p} sees {seen[p]}")
    check(seen["A"]["6"] == seen["B"]["6"] == seen["C"]["6"], "the flop differs between players")
    cards = [c for p in "ABC" for k, c in seen[p].items() if int(k) < 6]
    check(len(set(cards + [seen["A"][k] for k in "678"])) == 9, f"a card twice: {seen}")
    # The log: mental records, checked by /audit and by the CLI (chain and every transcript).
    # (/audit first: a fairdeckd stopped right after answering an audit can crash or hang on
    # exit -- seen with main's binary too, on a standing-seed table; reported, not fixed here.)
    status, audit = call(servers().conn(), "GET", f"/v1/tables/{table}/audit")
    check(status == 200 and audit["chain"]["verified"], f"audit: {status} {audit}")
    records = log_of(servers(), table)
    types = [r["type"] for r in records]
    check(types.count("mental_hand") == 1 and types.count("mental_step") == 3 + 6 + 3, f"records: {types}")
    logf = os.path.join(tmp, "log.json")
    with open(logf, "w") as out:
        json.dump({"table": table, "records": records}, out)
    status, vkey = call(servers().conn(), "GET", "/v1/log-key")
    keyf = os.path.join(tmp, "log.vkey")
    with open(keyf, "w") as out:
        out.write(vkey if isinstance(vkey, str) else vkey["key"])
    out = cli("log", "verify", "--key", keyf, "--log", logf, "--json")
    check(out.returncode == 0, f"log verify: {out.stdout} {out.stderr}")
    chain = json.loads(out.stdout)["chain"]
    check(chain["verified"] and chain["mental_hands_verified"] == 1 and chain["mental_steps"] == 12, f"chain: {chain}")
    secrets = []
    for p in "ABC":
        with open(os.path.join(tmp, f"{p}.key")) as k:
            secrets.append(json.load(k)["secret"])
    time.sleep(1)  # see the note on /audit above
    return secrets


def cli_scenario(tmp):
    db = os.path.join(tmp, "m.db")
    token = init(db)
    box = {"srv": Server(db)}

    def restart():
        box["srv"].kill()
        box["srv"] = Server(db)

    try:
        secrets = play(tmp, token, lambda: box["srv"], "m", restart)
        check(box["srv"].stop() == 0, "clean stop")
        err = box["srv"].err
        line = "mental hand stalled: table m hand 1 step 2: waiting for seat 3 to shuffle"
        check(err.count(line) == 1, f"the stall is not logged once: {err[-2000:]}")
        with open(db, "rb") as f:
            data = f.read()
        for s in secrets:
            check(s not in err and s.encode() not in data and bytes.fromhex(s) not in data, "a secret key on the server")
        print("cli: ok")
    finally:
        if box["srv"].proc.poll() is None:
            box["srv"].kill()


def postgres(tmp):
    with e2e.pg_cluster(tmp) as (uri, _start, _stop, psql):
        key = os.path.join(tmp, "pg.key")
        token = init(uri, "--key-file", key)
        a = Server(uri, "--key-file", key)
        b = Server(uri, "--key-file", key)
        turn = [0]

        def servers():
            turn[0] += 1
            return (a, b)[turn[0] % 2]

        try:
            secrets = play(tmp, token, servers, "p")
            dump = psql("SELECT string_agg(body, '') FROM fairdeck_records") + psql("SELECT string_agg(hands, '') FROM fairdeck_tables")
            check(not any(s in dump for s in secrets), "a secret key in the database")
            check(a.stop() == 0 and b.stop() == 0, "clean stop")
            print("postgres: ok (one mental hand through two instances)")
        finally:
            for s in (a, b):
                if s.proc.poll() is None:
                    s.kill()


if __name__ == "__main__":
    e2e.run_scenario({"cli": cli_scenario, "postgres": postgres}, "fairdeckd-mental-")
