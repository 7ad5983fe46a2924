#!/usr/bin/env python3
"""Run commands side by side in alternating time slices: one runs, the others are stopped.

    bench/peers/alternate.py [--slice-ms 10] 'CMD1 ARGS' 'CMD2 ARGS' [...]

Every command starts at once and is stopped (SIGSTOP) at once; then each in turn is continued
(SIGCONT) for one slice and stopped again, until all have exited. Prints each command's output
lines prefixed by its index and a tab ("0\t...", "1\t..."), in command order; exits non-zero if
any command did.

Why: on a shared machine (a VM whose neighbours come and go) a process's speed drifts by up to 2x
within a second, so two sides timed one after the other — even back to back — differ by the
drift (identical runs measured 0.53-1.17x of each other that way). Alternated every 10 ms, both
sides meet the same moments, and a ratio of their CPU times keeps only what the code does
(identical runs: 0.99-1.01x). Only for programs that time themselves by CPU time (a stopped
process uses none): wall-clock timers would count the other side's slices.

One command runs at a time, so each is measured on one core as if alone, apart from the caches
the other side's slice left (a few microseconds of refill in a 10 ms slice). Outputs are read
when the commands end: meant for programs that print a few lines of results.
"""
import argparse
import os
import shlex
import signal
import subprocess
import sys
import time


def state(pid):
    """The process's state letter from /proc (T when stopped); None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return None


def stop(p):
    """Stops p and waits until it is stopped (or has exited), so no two slices overlap."""
    try:
        os.kill(p.pid, signal.SIGSTOP)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + 1.0
    while p.poll() is None and state(p.pid) not in ("T", "t", "Z", None):
        if time.monotonic() > deadline:
            raise RuntimeError(f"alternate.py: process {p.pid} did not stop")
        time.sleep(0.0001)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--slice-ms", type=float, default=10.0, help="length of one slice (default 10 ms)")
    ap.add_argument("commands", nargs="+", help="each command with its arguments, as one string")
    args = ap.parse_args()
    if args.slice_ms <= 0:
        ap.error(f"--slice-ms must be positive, not {args.slice_ms}")
    procs = []
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        for c in args.commands:
            p = subprocess.Popen(shlex.split(c), stdout=subprocess.PIPE, text=True)
            stop(p)
            procs.append(p)
        live = list(procs)
        while live:
            for p in list(live):
                if p.poll() is None:  # not yet reaped: a signal reaches it (or its zombie)
                    os.kill(p.pid, signal.SIGCONT)
                    time.sleep(args.slice_ms / 1000)
                    stop(p)
                if p.poll() is not None:  # exited: in its turn, or before its first
                    live.remove(p)
        failed = 0
        for k, p in enumerate(procs):
            for line in p.stdout.read().splitlines():
                print(f"{k}\t{line}")
            if p.returncode != 0:
                print(f"alternate.py: '{args.commands[k]}' exited with {p.returncode}", file=sys.stderr)
                failed = 1
        return failed
    finally:  # interrupted: no command is left stopped behind us
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()


if __name__ == "__main__":
    sys.exit(main())
