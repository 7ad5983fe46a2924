"""pip install . -- the Python package fairdeck (python/fairdeck), its module built by CMake.

Offline and from the checkout, e.g. in a venv that sees Debian's numpy:
    python3 -m venv --system-site-packages venv
    venv/bin/python -m pip install --no-build-isolation --no-index .
The extension fairdeck._fairdeck is configured and built by the project's CMake (Release,
only the library and the module) for the interpreter running pip. With
FAIRDECK_CMAKE_BUILD_DIR=<an existing build dir> it builds the module target there instead
(reusing that build; the module must be built for the same Python). Docs: docs/python.md.
"""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = pathlib.Path(__file__).parent.resolve()
VERSION = re.search(r"project\(fairdeck VERSION ([0-9.]+)", (ROOT / "CMakeLists.txt").read_text()).group(1)


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        target = pathlib.Path(self.get_ext_fullpath(ext.name)).resolve()
        suffix = sysconfig.get_config_var("EXT_SUFFIX")
        reuse = os.environ.get("FAIRDECK_CMAKE_BUILD_DIR")
        if reuse:
            build_dir = pathlib.Path(reuse).resolve()
        else:
            build_dir = pathlib.Path(self.build_temp).resolve() / "cmake"
            generator = ["-G", "Ninja"] if shutil.which("ninja") else []
            subprocess.run(["cmake", "-S", str(ROOT), "-B", str(build_dir), *generator, "-DCMAKE_BUILD_TYPE=Release",
                            "-DFAIRDECK_BUILD_APPS=OFF", "-DFAIRDECK_BUILD_TESTS=OFF", "-DFAIRDECK_BUILD_BENCH=OFF",
                            "-DFAIRDECK_BUILD_SERVICE=OFF", "-DFAIRDECK_PYTHON=ON",
                            f"-DPython3_EXECUTABLE={sys.executable}"], check=True)
        subprocess.run(["cmake", "--build", str(build_dir), "--target", "_fairdeck"], check=True)
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
