"""Ctrl-C stops long calls: SIGINT to a Python process in the middle of one."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

CASES = {
    "odds": "fairdeck.odds(cards=7, trials=10**12, engine=fairdeck.Engine('pcg64', seed=1))",
    "permutation": "fairdeck.permutation(3 * 10**8, fairdeck.Engine('pcg64', seed=1), threads=1)",
    "audit_shuffle": "fairdeck.audit_shuffle('fisher-yates', fairdeck.Engine('chacha20', seed=1), trials=10**11)",
    "audit_iterator": "fairdeck.audit(([0, 1, 2, 3] for _ in iter(int, 1)))",
    "equity": "fairdeck.equity(['AhKh', 'random'], trials=10**11, engine=fairdeck.Engine('pcg64', seed=1))",
}


@pytest.mark.parametrize("call", CASES.values(), ids=CASES.keys())
def test_sigint_raises_keyboard_interrupt_promptly(call):
    code = textwrap.dedent(f"""
        import sys, fairdeck
        print("ready", flush=True)
        try:
            {call}
        except KeyboardInterrupt:
            print("interrupted", flush=True)
            sys.exit(42)
        sys.exit(1)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, env=os.environ.copy())
    assert proc.stdout.readline().strip() == "ready"
    time.sleep(1.0)
    start = time.monotonic()
    proc.send_signal(signal.SIGINT)
    try:
        out, _ = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 42 and "interrupted" in out
    assert time.monotonic() - start < 10
