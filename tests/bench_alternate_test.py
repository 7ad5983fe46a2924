#!/usr/bin/env python3
"""bench/peers/alternate.py (the side-by-side harness of bench/peers/ompeval_eval.sh):
the commands take turns and never run at the same time, outputs come back per command,
a failing command fails the run, bad options are usage errors, and an interrupted run
leaves no command behind, stopped or running.
    alternate_test.py PATH/TO/alternate.py"""
import os
import signal
import subprocess
import sys
import tempfile
import time

ALTERNATE = sys.argv[1]

# Spins for 0.2 s of CPU time, noting the monotonic clock about every 0.2 ms while it runs;
# prints the notes. Two of them running at once on two cores would interleave their notes
# hundreds of times; taking 10 ms turns, about 20 times each.
SPINNER = """
import time
notes, last = [], 0.0
while time.process_time() < 0.2:
    t = time.monotonic()
    if t - last > 0.0002:
        notes.append(t)
        last = t
print(" ".join(f"{t:.6f}" for t in notes))
"""


def run(*args, **kw):
    return subprocess.run([sys.executable, ALTERNATE, *args], capture_output=True, text=True, timeout=60, **kw)


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_turns():
    with tempfile.TemporaryDirectory() as d:
        spinner = os.path.join(d, "spin.py")
        with open(spinner, "w") as f:
            f.write(SPINNER)
        r = run("--slice-ms", "20", f"{sys.executable} {spinner}", f"{sys.executable} {spinner}")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split("\t")[0] for ln in lines] == ["0", "1"], r.stdout
    notes = sorted([(float(t), 0) for t in lines[0].split("\t")[1].split()] +
                   [(float(t), 1) for t in lines[1].split("\t")[1].split()])
    switches = sum(1 for a, b in zip(notes, notes[1:]) if a[1] != b[1])
    n = len(notes)
    # 0.2 s of CPU each in 20 ms turns: ~20 switches, ~50 notes a turn (more turns with fewer
    # notes where other work takes CPU from a turn); run at the same time, the commands'
    # notes interleave: a switch every note or two.
    assert n > 500, f"too few notes ({n}) to tell"
    assert switches >= 5, f"{switches} switches in {n} notes: one command ran through"
    assert n / (switches + 1) >= 5, f"{switches} switches in {n} notes: the commands ran at the same time"
    print(f"turns: {switches} switches in {n} notes")


def test_failure_and_output():
    r = run("sh -c 'echo one; echo two; exit 3'", "echo other")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert r.stdout == "0\tone\n0\ttwo\n1\tother\n", r.stdout
    assert "exited with 3" in r.stderr and "echo one" in r.stderr, r.stderr


def test_usage():
    for bad in (["--slice-ms", "0", "true"], ["--slice-ms", "x", "true"], []):
        r = run(*bad)
        assert r.returncode == 2, (bad, r.returncode)
        assert len(r.stderr.strip().splitlines()) <= 3 and "error" in r.stderr, r.stderr


def test_interrupted_leaves_nothing():
    with tempfile.TemporaryDirectory() as d:
        pids = os.path.join(d, "pids")
        cmd = f"sh -c 'echo $$ >> {pids}; exec sleep 60'"
        p = subprocess.Popen([sys.executable, ALTERNATE, cmd, cmd], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if os.path.exists(pids) and len(open(pids).read().split()) == 2:
                break
            time.sleep(0.05)
        children = [int(x) for x in open(pids).read().split()]
        assert len(children) == 2 and all(alive(c) for c in children), children
        p.send_signal(signal.SIGTERM)
        assert p.wait(timeout=20) != 0
        gone = time.monotonic() + 5
        while any(alive(c) for c in children) and time.monotonic() < gone:
            time.sleep(0.05)
        assert not any(alive(c) for c in children), f"left behind: {[c for c in children if alive(c)]}"


if __name__ == "__main__":
    for name, fn in list(globals().items()):
        if name.startswith("test_"):
            fn()
            print(f"{name}: ok")
