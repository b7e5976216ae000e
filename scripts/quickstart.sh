#!/bin/sh
# nsc quick start (README.md): installs what is missing on Debian, builds, and runs a job.
#
#   sh scripts/quickstart.sh demo       the main job: score LLaMA-7B, prune it to 5.7B, print the
#                                       Pareto front and plot it
#   sh scripts/quickstart.sh test       the whole test suite (what CI runs, via .ci/run)
#   sh scripts/quickstart.sh sanitize   the test suite under AddressSanitizer + UBSan (clang -O0)
#                                       plus the libFuzzer harnesses (CI runs it after the test job)
#   sh scripts/quickstart.sh bench      build and run every benchmark binary
#   sh scripts/quickstart.sh python     install the Python package nsc into .venv (docs/python.md "Python")
set -eu
job=${1:-demo}
cd "$(dirname "$0")/.."

common="g++ cmake ninja-build libboost-dev libeigen3-dev nlohmann-json3-dev libcli11-dev libopenblas-dev python3"
# The Python package (python/, docs/python.md "Python"): built and tested by the test job.
python_pkgs="python3-dev pybind11-dev python3-numpy python3-pandas python3-pytest"
case "$job" in
  demo) pkgs="$common python3-matplotlib" ;;
  # python3-matplotlib: the README's --plot examples run in the test job (ctest -L docs)
  test) pkgs="$common clang catch2 libbenchmark-dev $python_pkgs python3-matplotlib" ;;
  sanitize|bench) pkgs="$common clang catch2 libbenchmark-dev" ;;
  python) pkgs="$common $python_pkgs python3-pybind11 python3-setuptools python3-venv" ;;
  *) echo "usage: sh scripts/quickstart.sh demo|test|sanitize|bench|python" >&2; exit 2 ;;
esac

missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
  echo "nsc: installing:$missing"
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi

jobs=$(nproc 2>/dev/null || echo 2)
case "$job" in
  demo)
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNSC_BUILD_TESTS=OFF -DNSC_BUILD_BENCHMARKS=OFF
    cmake --build build --target demo -j "$jobs" ;;
  test)
    # NSC_BUILD_PYTHON: the module nsc._core and the pytest suite (ctest python:pytest), on
    # Debian's interpreter (where python3-numpy / -pandas / -pytest install).
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNSC_BUILD_TESTS=ON -DNSC_BUILD_EXAMPLES=ON -DNSC_BUILD_BENCHMARKS=OFF \
      -DNSC_BUILD_PYTHON=ON -DPython3_EXECUTABLE=/usr/bin/python3
    cmake --build build -j "$jobs"
    # -LE docs_long: the documentation's long examples (minutes on 70B / 8B models; README
    # "Development") run with ctest -L docs_long, not here; ctest -L docs runs the others.
    ctest --test-dir build -j "$jobs" --output-on-failure -LE docs_long ;;
  sanitize)
    # clang, so that the libFuzzer harnesses (tests/fuzz) build and run too; -O0 (assertions stay
    # on) without debug info: UBSan's reports carry file:line from the instrumentation itself and
    # ASan's stacks name the functions; line tables (-g1) cost 13-15% more compile time (measured
    # on test_prune_space: 29.6 against 25.4 CPU-s); rebuild with -g1 to get lines in a stack.
    # -O0 builds in about a third of -O1's CPU (docs/development.md "Development"); the Eigen backend's tests
    # keep -O1 (NSC_EIGEN_TEST_OPT), where -O0 would make them slow. Left out: the packaging and
    # header self-containment tests
    # (they only configure / compile, which the test job already does), and the float / long
    # double / complex instantiations of the Eigen backend (test_eigen_backend_scalars: the
    # costliest translation unit of this build, 210 CPU-s; the same code paths run sanitized in
    # double, and the test job runs it).
    cmake -S . -B build-sanitize -G Ninja -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=Debug \
      -DCMAKE_CXX_FLAGS_DEBUG="-O0 -g0" -DNSC_SANITIZE=address,undefined \
      -DNSC_BUILD_TESTS=ON -DNSC_BUILD_EXAMPLES=ON -DNSC_BUILD_BENCHMARKS=OFF -DNSC_BUILD_FUZZERS=ON \
      -DNSC_TESTS_EXCLUDE='^test_eigen_backend_scalars$'
    cmake --build build-sanitize -j "$jobs"
    # Also left out here (they run in the test job): the three costliest CLI round trips at -O0
    # (measured on the merged tree: 152 + 61 + 21 CPU-s of the sanitized ctest's 855).
    ctest --test-dir build-sanitize -j "$jobs" --output-on-failure \
      -E "packaging|headers|cli:prune:llama8b_per_layer_three|cli:search_budgets_brute_force|cli:prune:llama8b_engine_llama_cpp" ;;
  python)
    # Offline: Debian's pybind11 / setuptools / numpy through --system-site-packages.
    /usr/bin/python3 -m venv --system-site-packages .venv
    CMAKE_BUILD_PARALLEL_LEVEL="$jobs" .venv/bin/pip install --no-build-isolation --no-index .
    echo "nsc: installed into .venv; try: .venv/bin/python examples/python/quickstart.py" ;;
  bench)
    cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DNSC_BUILD_BENCHMARKS=ON
    cmake --build build -j "$jobs"
    for b in build/benchmarks/bench_*; do echo "== $b"; "$b"; done ;;
esac
