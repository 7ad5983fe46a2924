#!/bin/sh
# Prints the golden vectors of one runtime, from the real runtime, in the format of cases.txt:
#   sh tests/runtimes/generate.sh NAME > tests/runtimes/golden/NAME.txt
# NAME: a runtime of the catalogue (src/runtimes/catalog.cpp). Exit 77 (CTest: skipped), with
# the reason on stderr, when the runtime is not installed; 2 for an unknown NAME.
# A new runtime adds its case here: its generator program next to this script.
set -eu
name=$1
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
skip() { echo "skipped: $*" >&2; exit 77; }
need() { command -v "$1" >/dev/null 2>&1 || skip "$1 is not installed"; }
cxx_gen() {  # compiler, extra flags: builds gen_cxx.cpp as $tmp/gen
  "$1" -std=c++20 -O2 $2 -o "$tmp/gen" "$here/gen_cxx.cpp" >&2
}
case $name in
  php)
    need php
    php -r 'exit(PHP_MAJOR_VERSION == 8 && PHP_MINOR_VERSION == 2 ? 0 : 1);' ||
      skip "php is $(php -r 'echo PHP_VERSION;'), the vectors are PHP 8.2's (Debian: php8.2-cli)"
    php "$here/gen_php.php" "$here/cases.txt" ;;
  python)
    [ -x /usr/bin/python3 ] || skip "/usr/bin/python3 not installed (Debian: python3)"
    /usr/bin/python3 -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' || skip "/usr/bin/python3 is not CPython 3.11"
    /usr/bin/python3 "$here/gen_python.py" "$here/cases.txt" ;;
  libstdc++|libstdc++-default)
    need g++
    cxx_gen g++ ""
    engine=mt19937; [ "$name" = libstdc++-default ] && engine=default
    "$tmp/gen" $engine "$here/cases.txt" ;;
  libc++|libc++-default)
    need clang++-14
    [ -d /usr/lib/llvm-14/include/c++/v1 ] || skip "libc++ 14 not installed (Debian: libc++-14-dev libc++abi-14-dev)"
    cxx_gen clang++-14 "-stdlib=libc++"
    engine=mt19937; [ "$name" = libc++-default ] && engine=default
    "$tmp/gen" $engine "$here/cases.txt" ;;
  java)
    need java
    # 0, 1, 42, 2^31-1, 2^32, a millisecond clock, 2^48-1, 2^48, -1, -42, 2^63 (Long.MIN_VALUE), 2^63-1
    java "$here/ShuffleJava.java" 0 1 42 2147483647 4294967296 1700000000000 281474976710655 281474976710656 \
      18446744073709551615 18446744073709551574 9223372036854775808 9223372036854775807 ;;
  dotnet-framework|dotnet-framework-orderby)
    need mcs; need mono
    mcs -nologo -out:"$tmp/s.exe" "$here/shuffle_dotnet.cs" >&2
    mode=fy; [ "$name" = dotnet-framework-orderby ] && mode=orderby
    # 0, 1, 42, 1000, 65535, 86400000, 123456789, 2^31-2, 2^31-1
    mono "$tmp/s.exe" $mode 0 1 42 1000 65535 86400000 123456789 2147483646 2147483647 ;;
  go)
    need go
    export GOCACHE="$tmp/gocache" GOPATH="$tmp/gopath" GO111MODULE=off GOFLAGS=
    # 0, 1, 42, 89482311, 2^31-2, 2^31-1 (reduces to 0), 2^31, 2^32+5, a UnixNano, 2^63-1, 2^63 (MinInt64), -1, -42
    go run "$here/shuffle_go.go" 0 1 42 89482311 2147483646 2147483647 2147483648 4294967301 1700000000123456789 \
      9223372036854775807 9223372036854775808 18446744073709551615 18446744073709551574 ;;
  node|node-sort)
    need node
    mode=fy; [ "$name" = node-sort ] && mode=sort
    # 1, 2, 42, 123456789, 2^31-1, 2^31 (int -2^31), 3000000000, 2^32-1 (int -1)
    for s in 1 2 42 123456789 2147483647 2147483648 3000000000 4294967295; do
      signed=$s; [ "$s" -ge 2147483648 ] && signed=$((s - 4294967296))
      node --random_seed="$signed" "$here/shuffle_node.js" $mode "$s"
    done ;;
  *) echo "generate.sh: unknown runtime '$name'" >&2; exit 2 ;;
esac
