"""Builds nsc._core for `pip install .` (pyproject.toml) by driving the CMake project: configure
with NSC_BUILD_PYTHON=ON (tests, benchmarks and install rules off), build the target nsc_python,
copy the extension into the wheel. Environment: CMAKE_BUILD_PARALLEL_LEVEL (default: every
core), NSC_CMAKE_ARGS (extra configure arguments, e.g. "-DNSC_USE_BLAS=OFF"), NSC_PIP_BUILD_DIR
(the CMake build directory; default build-python/ in the source tree, kept between installs so
that a reinstall only recompiles what changed)."""
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        try:
            import pybind11
        except ImportError:
            sys.exit("nsc: building needs pybind11 (pip install pybind11, or Debian's python3-pybind11)")
        if shutil.which("cmake") is None:
            sys.exit("nsc: building needs CMake >= 3.21 (Debian: apt-get install cmake)")
        target = Path(self.get_ext_fullpath(ext.name)).resolve()
        build = Path(os.environ.get("NSC_PIP_BUILD_DIR") or ROOT / "build-python").resolve()
        pkg = build / "package"
        args = [
            "-DCMAKE_BUILD_TYPE=Release",
            "-DNSC_BUILD_PYTHON=ON", "-DNSC_BUILD_EXAMPLES=ON", "-DNSC_BUILD_TESTS=OFF",
            "-DNSC_BUILD_BENCHMARKS=OFF", "-DNSC_INSTALL=OFF",
            f"-DPython3_EXECUTABLE={sys.executable}",
            f"-Dpybind11_DIR={pybind11.get_cmake_dir()}",
            f"-DNSC_PYTHON_DIR={pkg}",
        ]
        if shutil.which("ninja"):
            args += ["-G", "Ninja"]
        if shutil.which("ccache"):
            args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
        args += shlex.split(os.environ.get("NSC_CMAKE_ARGS", ""))
        jobs = os.environ.get("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 2))
        subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build)] + args)
        subprocess.check_call(["cmake", "--build", str(build), "--target", "nsc_python", "-j", jobs])
        built = [p for p in (pkg / "nsc").iterdir() if p.name.startswith("_core") and p.suffix in (".so", ".pyd")]
        if len(built) != 1:
            sys.exit(f"nsc: expected one built extension in {pkg / 'nsc'}, found {built}")
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(built[0], target)


setup(ext_modules=[CMakeExtension("nsc._core")], cmdclass={"build_ext": CMakeBuild})
