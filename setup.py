"""pip install . -- the Python package fairdeck (python/fairdeck), its module built by CMake.

Offline and from the checkout, in a venv that sees Debian's numpy (after scripts/setup.sh):
    /usr/bin/python3 -m venv --system-site-packages venv
    venv/bin/python -m pip install --no-build-isolation --no-index .
The extension fairdeck._fairdeck is configured and built by the project's CMake (Release,
only the library and the module) for the interpreter running pip. When scripts/setup.sh has
built build/release for the same Python, that build is reused (only the module target is
brought up to date); FAIRDECK_CMAKE_BUILD_DIR=<an existing build dir> picks another (it must
be configured for the same Python) and FAIRDECK_CMAKE_BUILD_DIR=none forces a fresh build.
Docs: docs/python.md.

Before building it checks the interpreter running it and names, in one line, what is missing
(numpy, wheel, setuptools, Python.h, pybind11, cmake, a C++ compiler) and which Python to use:
a pyenv/other `python3` first on PATH usually lacks numpy and wheel, Debian's /usr/bin/python3
has them after scripts/setup.sh. The C++ sources compile in parallel (CMAKE_BUILD_PARALLEL_LEVEL
jobs, default one per core), through ccache when it is installed.
"""

import importlib.util
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

ROOT = pathlib.Path(__file__).parent.resolve()
# The commands that build (pip runs dist_info, then bdist_wheel); `--version`, sdist... need nothing.
BUILD_COMMANDS = {"bdist_wheel", "dist_info", "build", "build_ext", "install", "develop", "editable_wheel", "bdist_egg"}


def _has_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _pybind11_cmake_dir():
    """pybind11's CMake package: pybind11_DIR, the pybind11 Python package, or a prefix's lib/share cmake dir."""
    if os.environ.get("pybind11_DIR"):
        return os.environ["pybind11_DIR"]
    if _has_module("pybind11"):
        import pybind11

        return pybind11.get_cmake_dir()
    prefixes = [sys.prefix, sys.base_prefix, "/usr/local", "/usr", *os.environ.get("CMAKE_PREFIX_PATH", "").split(os.pathsep)]
    for prefix in filter(None, prefixes):
        for sub in ("lib/cmake/pybind11", "share/cmake/pybind11", f"lib/{sysconfig.get_config_var('MULTIARCH') or ''}/cmake/pybind11"):
            if (pathlib.Path(prefix) / sub / "pybind11Config.cmake").exists():
                return str(pathlib.Path(prefix) / sub)
    return None


def missing_for_build():
    """(what, Debian package) pairs this interpreter and machine lack to build and use fairdeck."""
    missing = []
    if not _has_module("setuptools"):
        missing.append(("setuptools", "python3-setuptools"))
    if not _has_module("wheel") and not _has_module("setuptools.command.bdist_wheel"):
        missing.append(("wheel", "python3-wheel"))  # pip's bdist_wheel: "invalid command 'bdist_wheel'"
    if not _has_module("numpy"):
        missing.append(("numpy", "python3-numpy"))
    if not (pathlib.Path(sysconfig.get_paths()["include"]) / "Python.h").exists():
        missing.append(("Python.h", "python3-dev"))
    if _pybind11_cmake_dir() is None:
        missing.append(("pybind11", "pybind11-dev"))
    if not shutil.which("cmake"):
        missing.append(("cmake", "cmake"))
    if not (os.environ.get("CXX") or shutil.which("c++") or shutil.which("g++")):
        missing.append(("a C++ compiler", "g++"))
    return missing


def check_interpreter():
    """Exits with one line naming what is missing and what to do, if anything is."""
    missing = missing_for_build()
    if not missing:
        return
    names = ", ".join(what for what, _ in missing)
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    in_venv = sys.prefix != sys.base_prefix
    venv = sys.prefix if in_venv else "venv"
    cfg = pathlib.Path(sys.prefix) / "pyvenv.cfg"
    sees_system = not in_venv or (cfg.exists() and re.search(r"include-system-site-packages\s*=\s*true", cfg.read_text()))
    readme = (f"/usr/bin/python3 -m venv --clear --system-site-packages {venv} && "
              f"{venv}/bin/python -m pip install --no-build-isolation --no-index .")
    if not base.startswith("/usr/bin/"):
        hint = f"use Debian's /usr/bin/python3 (scripts/setup.sh installs what it needs): {readme} -- or install {names} for this Python"
    elif not sees_system and not [pkg for _, pkg in missing if not pkg.startswith("python3-")]:
        hint = f"the venv does not see Debian's packages; recreate it: {readme}"
    else:
        hint = f"run scripts/setup.sh (or apt-get install {' '.join(pkg for _, pkg in missing)})"
    who = f"{sys.executable} (a venv of {base})" if in_venv else sys.executable
    sys.exit(f"fairdeck: {who} has no {names}; {hint}")


if BUILD_COMMANDS.intersection(sys.argv[1:]):
    check_interpreter()

from setuptools import Extension, setup  # noqa: E402 (after the check: it may be what is missing)
from setuptools.command.build_ext import build_ext  # noqa: E402


def build_jobs():
    """Parallel compile jobs: CMAKE_BUILD_PARALLEL_LEVEL, else one per core."""
    level = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", "")
    return int(level) if level.isdigit() and int(level) > 0 else (os.cpu_count() or 1)


def reusable_build_dir():
    """The build dir to reuse: FAIRDECK_CMAKE_BUILD_DIR (\"none\": never), else the checkout's
    build/release when it is configured for this interpreter (scripts/setup.sh builds it for
    /usr/bin/python3, whose venvs share its ABI): then only what changed is compiled."""
    chosen = os.environ.get("FAIRDECK_CMAKE_BUILD_DIR")
    if chosen:
        return None if chosen == "none" else pathlib.Path(chosen).resolve()
    cache = ROOT / "build" / "release" / "CMakeCache.txt"
    if not cache.exists():
        return None
    m = re.search(r"^Python3_EXECUTABLE:[A-Z]+=(.*)$", cache.read_text(errors="replace"), flags=re.M)
    base = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    if m and os.path.realpath(m.group(1)) in (base, os.path.realpath(sys.executable)):
        return cache.parent
    return None


VERSION = re.search(r"project\(fairdeck VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        reuse = reusable_build_dir()
        if reuse:
            build_dir = reuse
            print(f"fairdeck: building the module in the existing CMake build {build_dir} "
                  "(FAIRDECK_CMAKE_BUILD_DIR=none for a fresh one)", file=sys.stderr, flush=True)
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            extra = []
            if shutil.which("ccache") and not os.environ.get("CMAKE_CXX_COMPILER_LAUNCHER"):
                extra.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")  # a re-install recompiles nothing
            if _pybind11_cmake_dir():
                extra.append(f"-Dpybind11_DIR={_pybind11_cmake_dir()}")
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DFAIRDECK_BUILD_APPS=OFF", "-DFAIRDECK_BUILD_TESTS=OFF", "-DFAIRDECK_BUILD_BENCH=OFF",
                            "-DFAIRDECK_BUILD_SERVICE=OFF", "-DFAIRDECK_PYTHON=ON",
                            f"-DPython3_EXECUTABLE={sys.executable}", *extra], check=True)
        jobs = build_jobs()
        print(f"fairdeck: building the C++ library and module with {jobs} parallel compile jobs "
              "(CMAKE_BUILD_PARALLEL_LEVEL changes it)", file=sys.stderr, flush=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_fairdeck", "--parallel", str(jobs)], check=True)
        built = build_dir / "python" / "fairdeck" / f"_fairdeck{suffix}"
        if not built.exists():
            raise RuntimeError(f"{built} was not built: is {build_dir} configured for this Python ({sys.executable})?")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built, target)


setup(
    name="fairdeck",
    version=VERSION,
    description="Provably fair, unpredictable, fast and auditable card shuffling (C++20 core)",
    long_description=(ROOT / "docs" / "python.md").read_text(encoding="utf-8"),
    long_description_content_type="text/markdown",
    license="see the repository",
    packages=["fairdeck"],
    package_dir={"": "python"},
    package_data={"fairdeck": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("fairdeck._fairdeck", sources=[])],
    cmdclass={"build_ext": CMakeBuild},
    python_requires=">=3.9",
    install_requires=["numpy"],
    zip_safe=False,
)
