#!/usr/bin/env python3
"""End-to-end tests of fairdeckd's transparency log (issue #29) against the real binary, cross-
checked with tests/tlog/rfc9162_reference.py (RFC 9162 written from the RFC text with hashlib):
the tree over the served /log equals the signed checkpoint's root, every proof the endpoints
serve is exactly the RFC's PATH/PROOF over those leaves and verifies, every receipt verifies,
and a kill -9 under load keeps the tree and its checkpoints consistent (a consistency proof
from a checkpoint taken before each kill to the one after it verifies).

Usage: tlog_e2e_test.py --bin build/release/fairdeckd {kill9|cosigned|cli|upgrade}"""
import base64, json, os, random, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tlog"))
import e2e_test as e2e  # noqa: E402
import rfc9162_reference as ref  # noqa: E402
from e2e_test import Server, call, check, init, load, log_of, open_table  # noqa: E402


def parse_checkpoint(note):
    """(origin, size, root bytes, signature lines) of a signed checkpoint note."""
    body, sep, sigs = note.partition("\n\n")
    check(sep == "\n\n", f"not a signed note: {note!r}")
    lines = body.split("\n")
    check(len(lines) == 3, f"checkpoint body is origin, size, root: {body!r}")
    return lines[0], int(lines[1]), base64.b64decode(lines[2], validate=True), sigs.splitlines()


def leaves_of(srv, table):
    return [ref.leaf_hash(bytes.fromhex(r["hash"])) for r in log_of(srv, table)]


def check_receipt(receipt, leaves, log_name, table):
    origin, size, root, sigs = parse_checkpoint(receipt["checkpoint"])
    check(origin == f"{log_name}/{table}", f"origin {origin}")
    check(any(s.startswith(f"\u2014 {log_name} ") for s in sigs), "receipt checkpoint not signed by the log")
    check(size > receipt["seq"] and size <= len(leaves), f"receipt tree size {size} for seq {receipt['seq']}")
    check(ref.mth(leaves[:size]) == root, f"receipt checkpoint (size {size}) is not a prefix of the log")
    leaf = ref.leaf_hash(bytes.fromhex(receipt["hash"]))
    check(leaves[receipt["seq"]] == leaf, f"receipt hash differs from record {receipt['seq']}")
    proof = [bytes.fromhex(h) for h in receipt["inclusion"]]
    check(ref.verify_inclusion(receipt["seq"], size, leaf, proof, root), f"receipt {receipt['seq']} does not verify")


def check_tree(srv, table, log_name, samples=12, rng=random.Random(9)):
    """The served checkpoint against the RFC recomputation over the served log, and the proof
    endpoints against the RFC's own PATH and PROOF. Returns (size, root)."""
    leaves = leaves_of(srv, table)
    status, note = call(srv.conn(), "GET", f"/v1/tables/{table}/checkpoint")
    check(status == 200, f"checkpoint: {status} {note}")
    origin, size, root, _ = parse_checkpoint(note)
    check(origin == f"{log_name}/{table}", f"origin {origin}")
    check(size == len(leaves), f"checkpoint size {size}, log has {len(leaves)} records")
    check(root == ref.mth(leaves), "checkpoint root differs from the RFC recomputation over /log")
    for _ in range(samples):
        n = rng.randint(1, size)
        m = rng.randrange(n)
        status, j = call(srv.conn(), "GET", f"/v1/tables/{table}/proof/inclusion?seq={m}&size={n}")
        check(status == 200 and j["seq"] == m and j["tree_size"] == n, f"inclusion: {status} {j}")
        proof = [bytes.fromhex(h) for h in j["hashes"]]
        check(proof == ref.path(m, leaves[:n]), f"inclusion proof ({m}, {n}) is not RFC 9162 PATH")
        check(ref.verify_inclusion(m, n, leaves[m], proof, ref.mth(leaves[:n])), "inclusion does not verify")
        a = rng.randint(1, n)
        status, j = call(srv.conn(), "GET", f"/v1/tables/{table}/proof/consistency?from={a}&to={n}")
        check(status == 200 and j["from"] == a and j["to"] == n, f"consistency: {status} {j}")
        proof = [bytes.fromhex(h) for h in j["hashes"]]
        check(proof == (ref.subproof(a, leaves[:n], True) if a < n else []), f"consistency ({a}, {n}) is not PROOF")
        check(ref.verify_consistency(a, n, ref.mth(leaves[:a]), ref.mth(leaves[:n]), proof), "consistency fails")
    return size, root


def kill9(tmp, rounds=6):
    db = os.path.join(tmp, "t.db")
    log_name = "casino.example/fairdeck"
    token = init(db, "--log-name", log_name)
    out = subprocess.run([e2e.BIN, "log-key", "--db", db], capture_output=True, text=True, timeout=60)
    check(out.returncode == 0 and out.stdout.startswith(log_name + "+"), f"log-key: {out.stdout} {out.stderr}")
    srv = Server(db)
    status, served = call(srv.conn(), "GET", "/v1/log-key")
    check(status == 200 and served == out.stdout, f"GET /v1/log-key {served!r} vs {out.stdout!r}")
    tables = ["a", "b"]
    for t in tables:
        open_table(srv.conn(), token, t, ["p1", "p2"])
    acked, errors_seen, lock = [], [], threading.Lock()
    rng = random.Random(29)
    before = {}
    for rnd in range(rounds):
        stop = threading.Event()
        workers = [threading.Thread(target=load, args=(srv, token, tables, stop, acked, errors_seen, lock))
                   for _ in range(12)]
        for w in workers:
            w.start()
        time.sleep(0.3 + rng.random() * 0.5)
        with lock:  # checkpoints a player holds from before the kill: the last receipts
            for t in tables:
                mine = [a for a in acked if a["table"] == t]
                if mine:
                    before[t] = mine[-1]["receipt"]["checkpoint"]
        srv.kill()  # kill -9 mid-load
        stop.set()
        for w in workers:
            w.join()
        srv = Server(db)
        for t, note in before.items():  # the tree after the restart extends every pre-kill checkpoint
            _, old_size, old_root, _ = parse_checkpoint(note)
            size, root = check_tree(srv, t, log_name, samples=3)
            status, j = call(srv.conn(), "GET", f"/v1/tables/{t}/proof/consistency?from={old_size}&to={size}")
            check(status == 200, f"consistency after restart: {status} {j}")
            proof = [bytes.fromhex(h) for h in j["hashes"]]
            check(ref.verify_consistency(old_size, size, old_root, root, proof),
                  f"round {rnd}: checkpoint before the kill ({old_size}) not consistent with after ({size})")
    check(not errors_seen, f"errors under load: {sorted(set(errors_seen))}")
    check(len(acked) > rounds * 10, f"too few deals acknowledged ({len(acked)})")
    for t in tables:
        leaves = leaves_of(srv, t)
        check_tree(srv, t, log_name)
        for a in (x for x in acked if x["table"] == t):
            check_receipt(a["receipt"], leaves, log_name, t)
    check(srv.stop() == 0, "clean stop")
    print(f"tlog kill9: ok ({rounds} kills, {len(acked)} receipts verified, trees equal the RFC recomputation)")


def cosigned(tmp):
    """A player's receipt linked to a witnessed checkpoint, with the real binaries: a witness
    (fairdeck witness) cosigns and posts, 100 more deals follow, GET .../checkpoint/cosigned still
    serves the cosigned checkpoint, and `fairdeck log verify --checkpoint COSIGNED --receipt LATER
    --proof P` verifies without the log (P from GET .../proof/consistency, hex and base64); an
    altered proof makes it exit 1. The witness's second step fetches the raw proof (Accept:
    application/octet-stream) and accepts the growth; the sizes and the hashes are the RFC's."""
    cli_bin = os.path.join(os.path.dirname(e2e.BIN), "fairdeck")
    check(os.access(cli_bin, os.X_OK), f"the fairdeck CLI is not built next to fairdeckd ({cli_bin})")

    def fairdeck(*args):
        return subprocess.run([cli_bin, *args], capture_output=True, text=True, timeout=120)

    db = os.path.join(tmp, "t.db")
    token = init(db, "--log-name", "casino.example/fairdeck")
    wkey = os.path.join(tmp, "witness.key")
    gen = fairdeck("witness", "--generate-key", "regulator.example", "--witness-key", wkey)
    check(gen.returncode == 0, f"witness --generate-key: {gen.stdout} {gen.stderr}")
    srv = Server(db, "--witness-key", gen.stdout.strip())
    c = srv.conn()
    _, vkey = call(c, "GET", "/v1/log-key")
    vkey = vkey.strip()
    open_table(c, token, "demo", ["alice", "bob"])
    status, j = call(c, "GET", "/v1/tables/demo/checkpoint/cosigned")
    check(status == 404 and "cosigned yet" in j["error"], f"cosigned before any witness: {status} {j}")
    for _ in range(5):
        check(call(c, "POST", "/v1/tables/demo/deals", {}, token)[0] == 200, "deal")
    base = f"http://{srv.host}:{srv.port}"
    state = os.path.join(tmp, "state")
    w = fairdeck("witness", "--url", base, "--table", "demo", "--key", vkey, "--state", state, "--witness-key", wkey,
                 "--post")
    check(w.returncode == 0 and w.stdout.startswith("accepted: first checkpoint"), f"witness: {w.stdout} {w.stderr}")
    _, witnessed = call(c, "GET", "/v1/tables/demo/checkpoint")
    check("\u2014 regulator.example " in witnessed, f"the cosignature is served on its checkpoint: {witnessed}")
    for _ in range(100):
        status, later = call(c, "POST", "/v1/tables/demo/deals", {}, token)
        check(status == 200, f"deal: {status} {later}")
    _, latest = call(c, "GET", "/v1/tables/demo/checkpoint")
    check("regulator.example" not in latest, "the latest checkpoint is a newer one, not cosigned")
    status, served = call(c, "GET", "/v1/tables/demo/checkpoint/cosigned")
    check(status == 200 and served == witnessed, f"cosigned checkpoint after 100 deals: {status} {served!r}")
    _, old_size, old_root, _ = parse_checkpoint(served)
    _, new_size, new_root, _ = parse_checkpoint(later["receipt"]["checkpoint"])
    check(new_size == old_size + 100, f"sizes {old_size} -> {new_size}")
    files = {"cosigned.note": served, "later.json": json.dumps(later)}
    for enc in ("hex", "base64"):
        status, p = call(c, "GET", f"/v1/tables/demo/proof/consistency?from={old_size}&to={new_size}&encoding={enc}")
        check(status == 200, f"proof {enc}: {status} {p}")
        decode = bytes.fromhex if enc == "hex" else base64.b64decode
        proof = [decode(h) for h in p["hashes"]]
        check(ref.verify_consistency(old_size, new_size, old_root, new_root, proof), f"RFC check of the {enc} proof")
        files[f"proof-{enc}.json"] = json.dumps(p)
    altered = json.loads(files["proof-base64.json"])
    altered["hashes"][-1] = base64.b64encode(bytes(32)).decode()
    files["altered.json"] = json.dumps(altered)
    for name, text in files.items():
        with open(os.path.join(tmp, name), "w") as f:
            f.write(text)
    path = lambda name: os.path.join(tmp, name)  # noqa: E731
    for enc in ("hex", "base64"):
        v = fairdeck("log", "verify", "--key", vkey, "--checkpoint", path("cosigned.note"), "--receipt",
                     path("later.json"), "--proof", path(f"proof-{enc}.json"))
        check(v.returncode == 0 and "verified without the log" in v.stdout and
              f"the checkpoint of size {old_size} is a prefix of the one of size {new_size}" in v.stdout,
              f"log verify with the {enc} proof: {v.returncode} {v.stdout} {v.stderr}")
    v = fairdeck("log", "verify", "--key", vkey, "--checkpoint", path("cosigned.note"), "--receipt", path("later.json"),
                 "--proof", path("altered.json"))
    check(v.returncode == 1 and "rewritten or forked" in v.stdout, f"altered proof: {v.returncode} {v.stdout}")
    # The witness's next step: the raw proof from the real service, accepted.
    w = fairdeck("witness", "--url", base, "--table", "demo", "--key", vkey, "--state", state)
    check(w.returncode == 0 and f"grew from {old_size} to" in w.stdout, f"witness step 2: {w.stdout} {w.stderr}")
    c.request("GET", f"/v1/tables/demo/proof/consistency?from={old_size}&to={new_size}",
              headers={"Accept": "application/octet-stream"})
    r = c.getresponse()
    raw = r.read()
    check(r.status == 200 and r.getheader("Content-Type") == "application/octet-stream" and
          r.getheader("Fairdeck-From") == str(old_size) and r.getheader("Fairdeck-To") == str(new_size),
          f"raw proof: {r.status} {r.getheaders()}")
    check(ref.verify_consistency(old_size, new_size, old_root, new_root, [raw[i:i + 32] for i in range(0, len(raw), 32)]),
          "RFC check of the raw proof")
    check(srv.stop() == 0, "clean stop")
    print(f"tlog cosigned: ok (cosigned size {old_size} served after 100 deals; a receipt at {new_size} linked to it)")


def stored_hash_index(level, index):
    """Cox's stored hash index, written here from "Transparent Logs for Skeptical Clients"
    (leaves and nodes numbered in the order appends create them), not from fairdeck's code."""
    n = index
    for _ in range(level):
        n = 2 * n + 1
    i = 0
    while n > 0:
        i += n
        n >>= 1
    return i + level


def upgrade(tmp):
    """A SQLite store of schema 1 (tree nodes keyed (level, idx)) on a full disk: opening it
    fails in one line and leaves the file byte for byte as it was; with space freed, it is
    re-keyed, serves the same checkpoint and RFC-exact proofs, and goes on dealing."""
    import hashlib, sqlite3
    mnt = os.path.join(tmp, "small")
    os.mkdir(mnt)
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", mnt], capture_output=True).returncode != 0:
        print("tlog upgrade: skipped (cannot mount a tmpfs here)")
        return
    db = os.path.join(mnt, "t.db")
    log_name = "casino.example/fairdeck"
    token = init(db, "--log-name", log_name)
    srv = Server(db)
    open_table(srv.conn(), token, "t", ["p1", "p2"])
    for _ in range(150):
        status, _ = call(srv.conn(), "POST", "/v1/tables/t/deals", {}, token)
        check(status == 200, f"deal: {status}")
    size, root = check_tree(srv, "t", log_name)
    check(srv.stop() == 0, "clean stop")
    # Rewrite the nodes as schema 1 kept them (the new key checked against this file's formula).
    c = sqlite3.connect(db)
    nodes = c.execute("SELECT count(*) FROM fairdeck_tree_nodes").fetchone()[0]
    c.execute("CREATE TABLE old(table_id TEXT NOT NULL, level INTEGER NOT NULL, idx INTEGER NOT NULL, "
              "hash BLOB NOT NULL, PRIMARY KEY(table_id, level, idx)) WITHOUT ROWID")
    level = 1
    while size >> level:
        for i in range(size >> level):
            row = c.execute("SELECT hash FROM fairdeck_tree_nodes WHERE table_id = 't' AND pos = ?",
                            (stored_hash_index(level, i),)).fetchone()
            check(row is not None, f"node ({level}, {i}) not at its stored hash index")
            c.execute("INSERT INTO old VALUES('t', ?, ?, ?)", (level, i, row[0]))
        level += 1
    # Enough more schema-1 nodes (of a table id no table has; nothing reads them) that the
    # re-keying needs more than the space left below.
    c.executemany("INSERT INTO old VALUES('padding', 1, ?, randomblob(32))", ((i,) for i in range(40000)))
    nodes += 40000
    c.executescript("DROP TABLE fairdeck_tree_nodes; ALTER TABLE old RENAME TO fairdeck_tree_nodes; "
                    "UPDATE fairdeck_meta SET value = '1' WHERE key = 'schema';")
    c.commit()
    check(c.execute("SELECT count(*) FROM fairdeck_tree_nodes").fetchone()[0] == nodes, "schema-1 copy lost nodes")
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.close()
    with open(db, "rb") as f:
        digest = hashlib.sha256(f.read()).hexdigest()
    filler = e2e.fill_disk(mnt)
    os.truncate(filler, os.path.getsize(filler) - (256 << 10))  # room to open the store, not to re-key it
    out = subprocess.run([e2e.BIN, "token", "--list", "--db", db], capture_output=True, text=True, timeout=60)
    check(out.returncode != 0, "opened (and re-keyed) a store on a full disk")
    check(len(out.stderr.strip().splitlines()) == 1 and "full" in out.stderr, f"not one line: {out.stderr!r}")
    with open(db, "rb") as f:
        check(hashlib.sha256(f.read()).hexdigest() == digest, "the store changed after a failed upgrade")
    os.remove(filler)
    srv = Server(db)
    check(check_tree(srv, "t", log_name) == (size, root), "another tree after the upgrade")
    for _ in range(20):
        status, d = call(srv.conn(), "POST", "/v1/tables/t/deals", {}, token)
        check(status == 200, f"deal after the upgrade: {status}")
        check_receipt(d["receipt"], leaves_of(srv, "t"), log_name, "t")
    new_size, new_root = check_tree(srv, "t", log_name)
    status, j = call(srv.conn(), "GET", f"/v1/tables/t/proof/consistency?from={size}&to={new_size}")
    proof = [bytes.fromhex(h) for h in j["hashes"]] if status == 200 else []
    check(status == 200 and ref.verify_consistency(size, new_size, root, new_root, proof),
          "the tree after the upgrade does not extend the one before")
    check(srv.stop() == 0, "clean stop")
    c = sqlite3.connect(db)
    check(c.execute("SELECT value FROM fairdeck_meta WHERE key = 'schema'").fetchone()[0] == "2", "schema not 2")
    c.close()
    print(f"tlog upgrade: ok ({nodes} nodes re-keyed, full disk refused cleanly, {new_size} records proved)")


def cli(tmp):
    """The options: a bad --log-name and --witness-key are usage errors; log-key on a store
    that has none yet says so."""
    db = os.path.join(tmp, "t.db")
    bad = subprocess.run([e2e.BIN, "init", "--db", db, "--log-name", "has space"], capture_output=True, text=True)
    check(bad.returncode == 2 and not os.path.exists(db), f"bad --log-name: {bad.returncode} {bad.stderr}")
    init(db)
    bad = subprocess.run([e2e.BIN, "serve", "--db", db, "--witness-key", "nope"], capture_output=True, text=True)
    check(bad.returncode == 2, f"bad --witness-key: {bad.returncode} {bad.stderr}")
    print("tlog cli: ok")


if __name__ == "__main__":
    e2e.run_scenario({f.__name__: f for f in (kill9, cosigned, cli, upgrade)}, "fairdeckd-tlog-")
