#!/usr/bin/env python3
"""What fairdeckd answers about a PostgreSQL commit (a cluster of its own: e2e_test.pg_cluster).

unknown: the connection is lost after the writer's COMMIT reached the server (a relay forwards
  it and drops the answer): the deal is stored, and the 503 says it may have been, never that
  nothing was; a retry with the same Idempotency-Key is answered from the stored deal.
pipeline: the writer's pipeline on a live server (tests/service/pg_live_test.cpp, run from the
  service test binary named by FAIRDECK_SERVICE_TESTS): a statement failing after a COMMIT that
  succeeded is neither a refusal nor a reason to rerun the batch.
synchronous: a database (or role) whose synchronous_commit is off or local: an acknowledged
  deal still waited for its commit to reach the synchronous standby (one named that never
  comes: the deal waits until the name is removed).
Usage: pg_commit_test.py --bin build/release/fairdeckd SCENARIO (exit 77: skipped)."""
import os, socket, subprocess, sys, threading, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import e2e_test as e2e  # noqa: E402
from e2e_test import Server, check, init, log_of, open_table, pg_cluster, verify_log  # noqa: E402
from e2e_postgres_test import deal  # noqa: E402


class CommitDropper:
    """A TCP relay to the cluster's unix socket. Once armed, it forwards the next client
    message holding a COMMIT, holds back the server's answers until the server is ready for
    the next query (the COMMIT ran), then closes that connection without passing them on."""

    def __init__(self, socket_path):
        self.path = socket_path
        self.armed, self.dropped = threading.Event(), threading.Event()
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.socket(socket.AF_UNIX)
            server.connect(self.path)
            doomed = threading.Event()
            threading.Thread(target=self._pump, args=(client, server, doomed, True), daemon=True).start()
            threading.Thread(target=self._pump, args=(server, client, doomed, False), daemon=True).start()

    def _pump(self, src, dst, doomed, upstream):
        held = b""
        try:
            while data := src.recv(65536):
                if upstream and b"COMMIT\x00" in data and self.armed.is_set():
                    self.armed.clear()
                    doomed.set()
                elif not upstream and doomed.is_set():
                    held += data
                    if b"Z\x00\x00\x00\x05" in held:  # ReadyForQuery: every statement sent ran
                        self.dropped.set()
                        break
                    continue
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()


def unknown(tmp):
    with pg_cluster(tmp) as (uri, _, _, _):
        q = urllib.parse.parse_qs(urllib.parse.urlparse(uri).query)
        relay = CommitDropper(os.path.join(q["host"][0], f".s.PGSQL.{q['port'][0]}"))
        relayed = (f"postgresql://postgres@127.0.0.1:{relay.port}/fairdeck?sslmode=disable&gssencmode=disable")
        key = os.path.join(tmp, "pg.key")
        token = init(uri, "--key-file", key)
        srv = Server(relayed, "--key-file", key, "--writers", "1")
        open_table(srv.conn(), token, "t", ["p1"])
        status, first = deal(srv, token, "t", "key-0")
        check(status == 200 and first["nonce"] == 0, f"first deal: {status} {first}")
        relay.armed.set()
        status, lost = deal(srv, token, "t", "key-1")
        check(relay.dropped.is_set(), "the relay dropped no COMMIT's answer")
        check(status == 503, f"a deal whose COMMIT's answer was lost: {status} {lost}")
        message = lost.get("error", "")
        check("nothing was stored" not in message and "may have been stored" in message,
              f"the 503 for a commit of unknown outcome: {message!r}")
        records = log_of(srv, "t")
        verify_log(records)
        stored = [r for r in records if r["type"] == "deal" and r["nonce"] == 1]
        check(len(stored) == 1, "the deal whose COMMIT's answer was lost is not in the log (the test lost its point)")
        status, again = deal(srv, token, "t", "key-1")
        check(status == 200 and again["nonce"] == 1 and again["cards"] == stored[0]["cards"],
              f"the retry with the same key: {status} {again}")
        status, nxt = deal(srv, token, "t")
        check(status == 200 and nxt["nonce"] == 2, f"the next deal: {status} {nxt}")
        check(srv.stop() == 0, "clean stop")
        check("connection lost during COMMIT" in srv.err, f"fairdeckd's log: {srv.err[-2000:]}")
        print("unknown: ok (503 'may have been stored', the deal stored once, the keyed retry answered from it)")


def pipeline(tmp):
    tests = os.environ.get("FAIRDECK_SERVICE_TESTS", "")
    check(os.path.exists(tests), f"FAIRDECK_SERVICE_TESTS names no test binary: {tests!r}")
    with pg_cluster(tmp) as (uri, _, _, _):
        out = subprocess.run([tests, "--gtest_filter=PgLive.*"], env={**os.environ, "FAIRDECK_TEST_PG_URI": uri},
                             capture_output=True, text=True, timeout=120)
        print(out.stdout[-4000:], out.stderr[-2000:])
        check(out.returncode == 0, "PgLive failed")
        check("SKIPPED" not in out.stdout and "[  PASSED  ]" in out.stdout, "PgLive did not run")


def synchronous(tmp):
    with pg_cluster(tmp) as (uri, _, _, psql):
        key = os.path.join(tmp, "pg.key")
        token = init(uri, "--key-file", key)
        for weak, where in (("off", "DATABASE fairdeck"), ("local", "ROLE postgres")):
            psql(f"ALTER {where} SET synchronous_commit = {weak}")  # role's beats the database's
            srv = Server(uri, "--key-file", key, "--writers", "1")
            table = f"sync-{weak}"
            open_table(srv.conn(), token, table, ["p1"])
            psql("ALTER SYSTEM SET synchronous_standby_names = 'fd_test_absent'")
            psql("SELECT pg_reload_conf()")
            time.sleep(1)  # the server's processes read the file
            answer = []
            waiter = threading.Thread(target=lambda: answer.append(deal(srv, token, table)))
            waiter.start()
            waiter.join(3)
            early = waiter.is_alive()
            psql("ALTER SYSTEM RESET synchronous_standby_names")
            psql("SELECT pg_reload_conf()")
            waiter.join(60)
            check(early, f"synchronous_commit = {weak} ({where}): a deal acknowledged before its commit reached "
                         f"the synchronous standby: {[a[0] for a in answer]}")
            check(answer and answer[0][0] == 200, f"the deal once no standby is required: {answer}")
            check(srv.stop() == 0, "clean stop")
        print("synchronous: ok (off and local raised to on: acknowledged deals waited for the standby)")


if __name__ == "__main__":
    e2e.run_scenario({f.__name__: f for f in (unknown, pipeline, synchronous)}, "fairdeckd-pgcommit-")
