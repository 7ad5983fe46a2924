#!/usr/bin/env python3
"""fairdeckd on a replicated PostgreSQL (docs/ha.md) and idempotent deals.

  idempotency  (SQLite) a deal retried with the same Idempotency-Key answers the same deal;
               the same key with another request is 409; keys are per table; bad keys 400;
               the keys survive a restart.
  failover     scripts/ha-cluster.sh up (pg_auto_failover: monitor, primary, synchronous
               standby); 2 fairdeckd instances deal under load; the primary node is killed
               (kill -9 of its postmaster and its keeper: the machine is gone — with its keeper
               alive pg_auto_failover would just restart the postmaster in place); the monitor
               promotes the standby; load continues; the old node rejoins as a standby. Three
               rounds. Then every acknowledged deal is in the log with the same cards, no nonce
               was answered twice, every retry of a key got the same deal, the log verifies
               (independent checker and GET .../audit), and the time from each kill to the first
               acknowledged deal is printed. FAIRDECK_HA_ROUNDS=N runs N rounds instead of three
               (the sanitizer build: one).

Usage: ha_test.py --bin build/release/fairdeckd {idempotency|failover}
Exit 0 = pass, 1 = fail, 77 = skipped (pg_auto_failover or PostgreSQL 15 not installed)."""
import base64, collections, http.client, json, os, random, shutil, signal, socket, statistics, subprocess, sys, threading, time, uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test as e2e  # noqa: E402
from e2e_test import call, check, log_of, open_table, verify_log  # noqa: E402

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts", "ha-cluster.sh")


def deal(srv, table, token, key, body=None, timeout=10):
    c = srv.conn(timeout=timeout)
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
    if key is not None:
        headers["Idempotency-Key"] = key
    c.request("POST", f"/v1/tables/{table}/deals", body=json.dumps(body or {}), headers=headers)
    r = c.getresponse()
    text = r.read().decode()
    c.close()
    return r.status, json.loads(text), r.getheader("Retry-After")


def without_receipt(d):
    return {k: v for k, v in d.items() if k != "receipt"}


def check_receipt(answer, original):
    """The receipt of `answer` names `original`'s record and its inclusion proof verifies
    against its checkpoint's root (RFC 9162, tests/tlog/rfc9162_reference.py)."""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tlog"))
    import rfc9162_reference as rfc
    r = answer["receipt"]
    check(r["seq"] == original["seq"] and r["hash"] == original["hash"], f"receipt names another record: {r}")
    lines = r["checkpoint"].split("\n")
    size, root = int(lines[1]), base64.b64decode(lines[2])
    first_size = int(original["receipt"]["checkpoint"].split("\n")[1])
    check(size >= first_size and size > r["seq"], f"receipt tree size {size} (first answer's {first_size})")
    leaf = rfc.leaf_hash(bytes.fromhex(r["hash"]))
    proof = [bytes.fromhex(h) for h in r["inclusion"]]
    check(rfc.verify_inclusion(r["seq"], size, leaf, proof, root), "the replay's receipt verifies")


def idempotency(tmp):
    db = os.path.join(tmp, "t.db")
    token = e2e.init(db)
    srv = e2e.Server(db)
    c = srv.conn()
    open_table(c, token, "one", ["a", "b"])
    open_table(c, token, "two", ["c"])
    s1, d1, _ = deal(srv, "one", token, "k-1", {"game": "holdem"})
    check(s1 == 200 and d1["nonce"] == 0, f"first deal {s1} {d1}")
    s2, d2, _ = deal(srv, "one", token, "k-1", {"game": "holdem"})
    check(s2 == 200 and d2 == d1, f"a retry must answer the same deal: {d1} vs {d2}")
    s3, d3, _ = deal(srv, "one", token, "k-1", {"hands": 2, "cards": 5})
    check(s3 == 409 and "Idempotency-Key" in d3["error"], f"same key, other request: {s3} {d3}")
    s4, d4, _ = deal(srv, "two", token, "k-1")
    check(s4 == 200 and d4["table"] == "two" and d4["nonce"] == 0, f"keys are per table: {s4} {d4}")
    s5, d5, _ = deal(srv, "one", token, None)
    check(s5 == 200 and d5["nonce"] == 1, f"a deal without a key is a new deal: {d5}")
    for bad in ("", "x" * 129, "has space"):
        s, j, _ = deal(srv, "one", token, bad)
        check(s == 400 and "Idempotency-Key" in j["error"], f"key {bad!r}: {s} {j}")
    check(srv.stop() == 0, "clean stop")
    srv = e2e.Server(db)
    s6, d6, _ = deal(srv, "one", token, "k-1", {"game": "holdem"})
    check(s6 == 200 and without_receipt(d6) == without_receipt(d1), "the key survives a restart")
    # The replay's receipt proves the same record against the latest checkpoint (later deals
    # made the tree bigger than the one in the first answer's receipt).
    check_receipt(d6, d1)
    records = log_of(srv, "one")
    check(sum(r["type"] == "deal" for r in records) == 2, "retries wrote no record")
    check(srv.stop() == 0, "clean stop")
    print("idempotency: ok")


# ---- the replicated cluster ----

def listen_port_range():
    """Ports for servers to listen on: below the kernel's ephemeral range, which the tests' own
    client connections draw from (a port free when checked can be taken by an outgoing
    connection before the server binds it)."""
    try:
        low = int(open("/proc/sys/net/ipv4/ip_local_port_range").read().split()[0])
    except (OSError, ValueError, IndexError):
        low = 32768
    return max(1024, low - 12000), max(1100, low - 4)


def free_base():
    """A port p with p..p+2 free (monitor, node1, node2)."""
    for _ in range(200):
        base = random.randrange(*listen_port_range())
        try:
            socks = []
            for p in range(base, base + 3):
                s = socket.socket()
                socks.append(s)
                s.bind(("127.0.0.1", p))
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    e2e.fail("no free ports")


def processes():
    """(pid, state, ppid, process group) of every process."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue  # exited meanwhile
        out.append((int(entry), fields[0], int(fields[1]), int(fields[2])))
    return out


def descendants(roots):
    """Every process below these (PostgreSQL's backends call setsid(): they are not in the
    postmaster's process group, and a kill -9 of that group leaves them running)."""
    children = {}
    for pid, _, ppid, _ in processes():
        children.setdefault(ppid, []).append(pid)
    found, todo = set(), list(roots)
    while todo:
        for c in children.get(todo.pop(), []):
            if c not in found:
                found.add(c)
                todo.append(c)
    return found


def any_alive(groups, pids):
    """Whether a process of these groups, or one of these pids, still runs (zombies, already
    dead, do not count: the kernel has closed their sockets and files)."""
    return any(state != "Z" and (pgrp in groups or pid in pids) for pid, state, _, pgrp in processes())


def lose_machine(node):
    """kill -9 of everything a node runs, as if its machine were gone: its keeper's and
    postmaster's process groups and every process below them (a stopped postmaster forks no new
    backend while they are listed); returns once none runs (zombies excepted)."""
    groups = {os.getpgid(node["keeper_pid"]), os.getpgid(node["pid"])}
    os.kill(node["pid"], signal.SIGSTOP)
    pids = descendants([node["keeper_pid"], node["pid"]])
    for g in groups:
        os.killpg(g, 9)
    for pid in pids:
        try:
            os.kill(pid, 9)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + 30
    while any_alive(groups, pids):
        e2e.check(time.monotonic() < deadline, f"{node['name']}: processes outlived kill -9 by 30 s")
        time.sleep(0.05)


class Cluster:
    def __init__(self, tmp):
        self.env = dict(os.environ, FAIRDECK_HA_DIR=os.path.join(tmp, "ha"), FAIRDECK_HA_PORT=str(free_base()),
                        FAIRDECK_HA_TIMEOUT="90")

    def run(self, *args, timeout=120):
        out = subprocess.run(["bash", SCRIPT, *args], env=self.env, capture_output=True, text=True, timeout=timeout)
        return out

    def up(self):
        out = self.run("up")
        check(out.returncode == 0, f"ha-cluster.sh up: {out.stderr[-3000:]}")
        return out.stdout.strip().splitlines()[-1]

    def status(self):
        out = self.run("status", "--json", timeout=30)
        return json.loads(out.stdout)

    def log(self, name):
        try:
            with open(os.path.join(self.env["FAIRDECK_HA_DIR"], f"{name}.log"), errors="replace") as f:
                return f.read()
        except OSError:
            return ""

    def down(self):
        self.run("down", timeout=60)


class Load:
    """Worker threads dealing on both instances. Each logical deal has an Idempotency-Key and
    is retried with that key until it is acknowledged (503, 429 and lost connections)."""

    def __init__(self, servers, tables, token, threads_per_server=4):
        self.acks = []  # (time the request was sent, key, answer, time it was answered)
        self.answers = {}  # key -> every 200 answer body for it
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.unexpected = []
        self.threads = [threading.Thread(target=self.work, args=(srv, tables, token), daemon=True)
                        for srv in servers for _ in range(threads_per_server)]
        for t in self.threads:
            t.start()

    def work(self, srv, tables, token):
        while not self.stop.is_set():
            table, key = random.choice(tables), uuid.uuid4().hex
            while not self.stop.is_set():
                sent = time.monotonic()
                try:
                    status, j, _ = deal(srv, table, token, key)
                except (OSError, http.client.HTTPException):
                    time.sleep(0.05)
                    continue
                if status == 200:
                    with self.lock:
                        self.acks.append((sent, key, j, time.monotonic()))
                        self.answers.setdefault(key, []).append(j)
                    break
                if status not in (503, 429):
                    with self.lock:
                        self.unexpected.append((status, j))
                    break
                time.sleep(0.05)  # Retry-After says 1 s; the test retries sooner to time the outage

    def first_ack_after(self, t0, limit):
        """Seconds from t0 to the first answer of a deal sent after t0 (an answer to a deal
        committed before the kill does not count)."""
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            with self.lock:
                later = [done for sent, _, _, done in self.acks if sent > t0]
            if later:
                return min(later) - t0
            time.sleep(0.05)
        return None

    def finish(self):
        self.stop.set()
        for t in self.threads:
            t.join(timeout=30)


def failover(tmp):
    if shutil.which("pg_autoctl") is None or not os.path.exists("/usr/lib/postgresql/15/bin/pg_ctl"):
        print("failover: skipped (pg_auto_failover (pg-auto-failover-cli, postgresql-15-auto-failover) or "
              "PostgreSQL 15 not installed)")
        sys.exit(77)
    os.chmod(tmp, 0o755)  # the cluster's directory is inside; run as root, its servers run as `postgres`
    cluster = Cluster(tmp)
    servers, load = [], None
    started = time.monotonic()
    try:
        uri = cluster.up()
        check(uri.startswith("postgresql://127.0.0.1:") and "target_session_attrs=read-write" in uri, f"uri {uri}")
        st = cluster.status()
        check(st["primary"] and st["primary"]["pid"] and len(st["standbys"]) == 1 and st["standbys"][0]["pid"],
              f"status --json: {st}")
        key = os.path.join(tmp, "ha.key")
        token = e2e.init(uri, "--key-file", key)
        servers = [e2e.Server(uri, "--key-file", key) for _ in range(2)]
        # fairdeckd logs every failed write during a failover: drain stderr (a full pipe would
        # block its log writes and so its answers), keeping the tail for a failure message.
        tails = []
        for srv in servers:
            tail = collections.deque(maxlen=40)
            tails.append(tail)
            threading.Thread(target=lambda f, t: [t.append(line) for line in f], args=(srv.proc.stderr, tail),
                             daemon=True).start()
        tables = ["east", "west"]
        open_table(servers[0].conn(), token, "east", ["p1", "p2"])
        open_table(servers[1].conn(), token, "west", ["q"])
        load = Load(servers, tables, token)
        downtimes = []
        # Three rounds; the sanitizer build runs one (FAIRDECK_HA_ROUNDS, tests/service/CMakeLists.txt):
        # fairdeckd's code through a failover is the same in every round.
        rounds = int(os.environ.get("FAIRDECK_HA_ROUNDS", "3"))
        check(rounds >= 1, f"FAIRDECK_HA_ROUNDS={rounds}")
        for rnd in range(rounds):
            time.sleep(2.5)
            st = cluster.status()
            primary = st["primary"]
            check(primary and primary["pid"] and primary["keeper_pid"], f"round {rnd + 1}: no primary: {st}")
            with load.lock:
                before = len(load.acks)
            check(before > 0, f"round {rnd + 1}: no deal acknowledged before the kill")
            # The machine is gone: its keeper, the postmaster and every backend (each backend is
            # in a process group of its own, so killing the groups alone left them running).
            t0 = time.monotonic()
            lose_machine(primary)
            down = load.first_ack_after(t0, 60)
            if down is None:
                for tail in tails:
                    print("fairdeckd stderr (tail):\n" + "".join(list(tail)[-8:]))
                st = cluster.status()
                for node in [st["primary"]] + st["standbys"]:
                    if node:
                        q = subprocess.run((["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []) +
                                           ["/usr/lib/postgresql/15/bin/psql", "-X", "-qAt", "-h", "127.0.0.1", "-p",
                                            str(node["port"]), "-U", "postgres", "-d", "fairdeck", "-c",
                                            "SELECT pg_is_in_recovery(), current_setting('default_transaction_read_only'), "
                                            "current_setting('synchronous_standby_names')"],
                                           capture_output=True, text=True, timeout=10)
                        print(f"node {node['name']}: {q.stdout.strip()} {q.stderr.strip()}")
                print(f"status: {st}\nmonitor log: {cluster.log('monitor')[-1000:]}")
                e2e.fail(f"round {rnd + 1}: no deal acknowledged within 60 s of killing {primary['name']}")
            downtimes.append(down)
            new = None
            for _ in range(40):
                new = cluster.status()["primary"]
                if new:
                    break
                time.sleep(0.25)
            check(new and new["port"] != primary["port"], f"round {rnd + 1}: the standby was not promoted")
            print(f"round {rnd + 1}: killed {primary['name']} (postmaster {primary['pid']}); {new['name']} promoted; "
                  f"first acknowledged deal {down:.2f} s after the kill", flush=True)
            cluster.up()  # the old primary rejoins as the synchronous standby
        time.sleep(1.5)
        load.finish()
        check(not load.unexpected, f"unexpected answers: {load.unexpected[:5]}")
        for key_, answers in load.answers.items():
            check(all(a == answers[0] for a in answers), f"key {key_}: two different answers")
        acked = [j for _, _, j, _ in load.acks]
        for t in tables:
            mine = [j for j in acked if j["table"] == t]
            nonces = [j["nonce"] for j in mine]
            check(len(nonces) == len(set(nonces)), f"{t}: a nonce was answered twice")
            status, rot = call(servers[0].conn(), "POST", f"/v1/tables/{t}/rotate", None, token)
            check(status == 200, f"rotate {t}: {status} {rot}")
            records = log_of(servers[1], t)
            verified, unrevealed = verify_log(records)
            check(unrevealed == 0 and verified == sum(r["type"] == "deal" for r in records), f"{t}: not all verified")
            stored = {r["nonce"]: r for r in records if r["type"] == "deal"}
            for j in mine:
                check(stored.get(j["nonce"], {}).get("cards") == j["cards"] and stored[j["nonce"]]["hash"] == j["hash"],
                      f"{t}: acknowledged nonce {j['nonce']} missing or different after the failovers")
            status, audit = call(servers[1].conn(), "GET", f"/v1/tables/{t}/audit")
            check(status == 200 and audit["chain"]["verified"], f"{t}: /audit {status} {audit.get('chain')}")
        for s in servers:
            s.proc.terminate()
            check(s.proc.wait(timeout=60) == 0, "clean stop of fairdeckd")
        servers = []
        print(f"failover: ok ({len(acked)} deals acknowledged by 2 instances over {rounds} failover{'s' if rounds > 1 else ''}, all stored with the same "
              f"cards, logs verified; kill to first acknowledged deal: "
              f"{', '.join(f'{d:.2f}' for d in downtimes)} s, median {statistics.median(downtimes):.2f} s; "
              f"total {time.monotonic() - started:.0f} s)")
    finally:
        if load:
            load.finish()
        for s in servers:
            s.proc.kill()
            s.proc.wait(timeout=60)
        cluster.down()


if __name__ == "__main__":
    e2e.run_scenario({f.__name__: f for f in (idempotency, failover)}, "fairdeckd-ha-")
