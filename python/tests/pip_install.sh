#!/usr/bin/env bash
# `pip install .` from the checkout into a fresh venv with the system's site packages (numpy),
# offline (--no-index) and without build isolation, then import the installed package from
# outside the source tree. Usage: pip_install.sh PYTHON SOURCE_DIR
# FAIRDECK_CMAKE_BUILD_DIR (set by CTest) lets setup.py reuse an existing CMake build.
set -euo pipefail
python=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m venv --system-site-packages "$work/venv"
# pip builds in a copy of the tracked sources, so the checkout stays clean.
mkdir -p "$work/src" && (cd "$src" && git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$work/src")
"$work/venv/bin/python" -m pip install --no-build-isolation --no-index --disable-pip-version-check -q "$work/src"
cd "$work"
"$work/venv/bin/python" - <<'PY'
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
