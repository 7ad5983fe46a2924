"""Shared fixtures: the fairdeck CLI built next to the module (CTest passes FAIRDECK_CLI)."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _cli_path():
    path = os.environ.get("FAIRDECK_CLI")
    if path:
        return path
    for preset in ("release", "clang", "debug"):
        candidate = ROOT / "build" / preset / "fairdeck"
        if candidate.exists():
            return str(candidate)
    return None


class Cli:
    def __init__(self, path):
        self.path = path

    def run(self, *args, check=True, input=None):
        proc = subprocess.run([self.path, *map(str, args)], capture_output=True, text=True, input=input, timeout=600)
        if check and proc.returncode != 0:
            raise AssertionError(f"fairdeck {' '.join(map(str, args))} exited {proc.returncode}: {proc.stderr}")
        return proc

    def json(self, *args, ok_codes=(0,)):
        proc = self.run(*args, "--json", check=False)
        assert proc.returncode in ok_codes, proc.stderr
        return json.loads(proc.stdout)


@pytest.fixture(scope="session")
def cli():
    path = _cli_path()
    if path is None:
        pytest.skip("the fairdeck CLI is not built (set FAIRDECK_CLI)")
    return Cli(path)
