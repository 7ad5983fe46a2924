#!/usr/bin/env bash
# The README's `pip install .` line, run as written (PYTHON in place of /usr/bin/python3) in a
# copy of the checkout: a fresh venv with the system's site packages (numpy), offline
# (--no-index), no build isolation; then import the installed package from outside the
# source tree. Usage: pip_install.sh PYTHON SOURCE_DIR
# FAIRDECK_CMAKE_BUILD_DIR (set by CTest): that build is linked as the copy's build/release,
# as scripts/setup.sh leaves it, and setup.py must find and reuse it (no build of its own).
set -euo pipefail
python=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# pip builds in a copy of the tracked sources, so the checkout stays clean.
mkdir -p "$work/src" && (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
# The README's line, run as it is (with PYTHON for /usr/bin/python3) in the copy.
line=$(grep -E '^/usr/bin/python3 -m venv .*pip install' "$src/README.md")
[[ -n $line ]] || { echo "pip_install.sh: no '/usr/bin/python3 -m venv ... pip install' line in README.md" >&2; exit 1; }
echo "README: $line"
reuse=${FAIRDECK_CMAKE_BUILD_DIR:-}
if [[ -n $reuse ]]; then mkdir -p "$work/src/build" && ln -s "$reuse" "$work/src/build/release"; fi
(cd "$work/src" && env -u FAIRDECK_CMAKE_BUILD_DIR PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_QUIET=1 \
   bash -euo pipefail -c "${line//\/usr\/bin\/python3/$python}")
if [[ -n $reuse ]] && compgen -G "$work/src/build/temp*/cmake" >/dev/null; then
  echo "pip_install.sh: setup.py configured a build of its own instead of reusing build/release" >&2
  exit 1
fi
cd "$work"
"$work/src/venv/bin/python" - <<'PY'
import fairdeck, numpy, os
assert "site-packages" in fairdeck.__file__, fairdeck.__file__
a = numpy.arange(1000)
fairdeck.shuffle(a, fairdeck.Engine("xoshiro256pp", seed=1))
assert sorted(a.tolist()) == list(range(1000))
assert os.path.exists(os.path.join(os.path.dirname(fairdeck.__file__), "__init__.pyi"))
assert os.path.exists(os.path.join(os.path.dirname(fairdeck.__file__), "py.typed"))
print("pip install: ok,", fairdeck.__file__)
PY
# cmake --install of the python component puts the same package under the prefix.
if [[ -n ${FAIRDECK_CMAKE_BUILD_DIR:-} ]]; then
  cmake --install "$FAIRDECK_CMAKE_BUILD_DIR" --component python --prefix "$work/prefix" >/dev/null
  site=$(echo "$work"/prefix/lib/python3*/site-packages)
  PYTHONPATH=$site "$python" -c 'import fairdeck, sys; assert fairdeck.__file__.startswith(sys.argv[1]); print("cmake --install: ok,", fairdeck.__file__)' "$site"
fi
