#!/usr/bin/env python3
"""Compile entries of a compile_commands.json with -fsyntax-only, N at a time (CI, .ci/run).

    scripts/syntax-check.py COMPILE_COMMANDS [--only REGEX] [-j N]

Each command runs as CMake wrote it (same compiler, flags and -Werror), without its output
file and with -fsyntax-only: the front end's diagnostics (parsing, templates instantiated,
-Wall -Wextra -Wpedantic) without code generation, about half the time of an -O0 compile.
--only selects entries by a regular expression on the source path. Prints the
compiler's output of every failing entry; exits 1 if any fails or none is selected.
"""
import argparse
import concurrent.futures
import json
import re
import shlex
import subprocess
import sys


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("compile_commands")
    ap.add_argument("--only", default="", help="check only sources whose path matches")
    ap.add_argument("-j", type=int, default=2, help="commands at a time (default 2)")
    a = ap.parse_args()
    try:
        with open(a.compile_commands, encoding="utf-8") as f:
            entries = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"syntax-check: {a.compile_commands}: {e}")
    chosen = [e for e in entries if re.search(a.only, e["file"])]
    if not chosen:
        sys.exit(f"syntax-check: no entry of {a.compile_commands} selected")

    def check(e):
        args = shlex.split(e["command"]) if "command" in e else list(e["arguments"])
        if "-o" in args:
            i = args.index("-o")
            del args[i:i + 2]
        r = subprocess.run(args + ["-fsyntax-only"], cwd=e["directory"], capture_output=True, text=True)
        return e["file"], r.returncode, r.stdout + r.stderr

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, a.j)) as pool:
        for path, rc, out in pool.map(check, chosen):
            if rc or out.strip():
                print(f"{path}: exit {rc}\n{out}", end="" if out.endswith("\n") else "\n")
            failed += rc != 0
    if failed:
        sys.exit(f"syntax-check: {failed} of {len(chosen)} file(s) failed")
    print(f"syntax-check: {len(chosen)} file(s), no error and no warning")


if __name__ == "__main__":
    main()
