#!/usr/bin/env bash
# One-step set-up on a fresh Debian 12: install what is missing (Debian packages only),
# configure and build a CMake preset (default: release). Safe to re-run.
#   scripts/setup.sh [preset] [--with-ci-tools] [--configure-only]
set -euo pipefail
cd "$(dirname "$0")/.."

preset=release
ci_tools=0
build=1
for arg in "$@"; do
  case "$arg" in
    --with-ci-tools) ci_tools=1 ;;
    --configure-only) build=0 ;;  # install and configure; CI's aarch64 check compiles from compile_commands.json
    -h|--help) sed -n '2,4p' "$0"; exit 0 ;;
    *) preset=$arg ;;
  esac
done

packages=(g++ cmake ninja-build pkg-config libsodium-dev nettle-dev libcli11-dev libfmt-dev libboost-dev
          nlohmann-json3-dev libpcg-cpp-dev libgtest-dev libgmock-dev libbenchmark-dev
          libsqlite3-dev libpqxx-dev libjemalloc-dev  # fairdeckd: its stores, its malloc
          zlib1g-dev  # shuffle-file's .gz inputs and outputs
          python3-dev pybind11-dev python3-numpy python3-pytest python3-pip python3-venv python3-setuptools)  # python/
# clang 14 + its sanitizer/libFuzzer runtime for the clang and asan presets; Chromium to
# check that the audit's HTML report renders; dieharder reads `fairdeck random --raw`.
if [[ $preset == clang || $preset == asan || $preset == tsan || $ci_tools == 1 ]]; then
  packages+=(clang-14 libclang-rt-14-dev clang-format-14)  # clang-format: scripts/check-format.sh
fi
# aarch64 preset: the cross compiler and the arm64 (multiarch) packages the library links.
if [[ $preset == aarch64* ]]; then
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    if [[ $(id -u) -ne 0 ]]; then sudo dpkg --add-architecture arm64; else dpkg --add-architecture arm64; fi
  fi
  packages+=(g++-aarch64-linux-gnu libsodium-dev:arm64 nettle-dev:arm64 libfmt-dev:arm64 libboost-dev:arm64 zlib1g-dev:arm64)
fi
if [[ $ci_tools == 1 ]]; then
  packages+=(chromium python3 dieharder)
  # node + npm for the browser verifier's tests (tests/browser, playwright-core from npm). A
  # node that already brings npm (e.g. NodeSource's) is kept: Debian's npm would conflict.
  command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
  # fairdeckd's tests: a real PostgreSQL 15 (started by the test) and wrk for its benchmark
  packages+=(postgresql-15 wrk curl)
  # scripts/ha-cluster.sh: a primary + synchronous standby under pg_auto_failover (docs/ha.md)
  packages+=(postgresql-15-auto-failover pg-auto-failover-cli)
  # the runtimes whose shuffles fairdeck reproduces regenerate their golden vectors live
  # (tests/runtimes): PHP 8.2 (php8.2-cli provides `php`), CPython (python3 above), libc++ 14
  packages+=(php8.2-cli libc++-14-dev libc++abi-14-dev)
  # the real runtimes behind the golden vectors of tests/runtimes (RuntimeGoldenLive.*)
  packages+=(default-jdk-headless mono-runtime mono-mcs golang-go)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  sudo=""
  [[ $(id -u) -ne 0 ]] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

cmake --preset "$preset" >/dev/null
((build)) || exit 0
cmake --build --preset "$preset"

# ctest starts the costliest tests first once it has timed them (its CTestCostData.txt). A new
# build folder starts from tests/ctest-costs.txt, the seconds of a release and an ASan run on
# a 2-core machine (tests not listed run last), so its longest tests do not start at the end.
costs=build/$preset/Testing/Temporary/CTestCostData.txt
if [[ ! -s $costs && -f tests/ctest-costs.txt ]]; then
  mkdir -p "${costs%/*}" && cp tests/ctest-costs.txt "$costs"
fi
