"""`pip install .` with an interpreter that cannot build fairdeck says so in one line (issue #27,
item 18): before, a pyenv python3 without wheel/numpy failed with "invalid command 'bdist_wheel'"."""

import os
import pathlib
import re
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def readme_python_line():
    lines = [line for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
             if "pip install" in line and "venv" in line]
    assert len(lines) == 1, lines
    return lines[0].strip()


def test_readme_and_docs_use_debians_python():
    line = readme_python_line()
    assert line.startswith("/usr/bin/python3 -m venv --system-site-packages venv && "), line
    assert line in (ROOT / "docs" / "python.md").read_text(encoding="utf-8")


def test_a_bare_interpreter_is_told_what_is_missing(tmp_path):
    # A venv of this Python without pip and without the system's packages: no setuptools,
    # no wheel, no numpy, which is what a pyenv python3 first on PATH looks like to setup.py.
    venv = tmp_path / "bare"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "python"), "setup.py", "bdist_wheel"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    line = lines[0]
    assert line.startswith(f"fairdeck: {venv}/bin/python (a venv of "), line
    assert re.search(r"has no setuptools, wheel, numpy;", line), line
    assert f"/usr/bin/python3 -m venv --clear --system-site-packages {venv} && {venv}/bin/python -m pip install" in line
    assert proc.stdout == ""


def other_python3():
    """`python3` on PATH when it is not Debian's and has no numpy (e.g. pyenv's), else None."""
    path = shutil.which("python3")
    if path is None or os.path.realpath(path).startswith("/usr/bin/"):
        return None
    real = subprocess.run([path, "-c", "import sys; print(sys.executable)"], capture_output=True, text=True)
    if real.returncode != 0 or real.stdout.strip().startswith("/usr/bin/"):
        return None
    if subprocess.run([path, "-c", "import numpy"], capture_output=True).returncode == 0:
        return None
    return real.stdout.strip()


@pytest.mark.skipif(other_python3() is None, reason="python3 on PATH is Debian's or has numpy")
def test_the_old_readme_line_with_another_python3_names_what_is_missing(tmp_path):
    # The old README line, run with `python3` as found on PATH (pyenv's on the project machine).
    python = other_python3()
    subprocess.run([python, "-m", "venv", "--system-site-packages", str(tmp_path / "venv")], check=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    src = tmp_path / "src"  # pip stops at the check in setup.py: these two files are all it reads
    src.mkdir()
    for name in ("setup.py", "pyproject.toml"):
        shutil.copy(ROOT / name, src / name)
    proc = subprocess.run([str(tmp_path / "venv" / "bin" / "python"), "-m", "pip", "install", "--no-build-isolation",
                           "--no-index", "--disable-pip-version-check", str(src)], capture_output=True, text=True,
                          timeout=300, env=env, cwd=tmp_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert "invalid command 'bdist_wheel'" not in out
    ours = [line.strip() for line in out.splitlines() if line.strip().startswith("fairdeck: ")]
    assert len(ours) == 1 and "has no" in ours[0] and "numpy" in ours[0], out
    assert "use Debian's /usr/bin/python3" in ours[0], out
