#!/bin/sh
# Prints the golden vectors of one runtime from the real runtime (tests/runtimes/golden/NAME.txt):
#   sh tests/runtimes/generate_b.sh NAME > tests/runtimes/golden/NAME.txt
# NAME: java, dotnet-framework, dotnet-framework-orderby, go, node, node-sort.
# Exit 77 when the runtime is not installed. The seeds are the edge cases of each seeding call.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
need() { command -v "$1" >/dev/null 2>&1 || { echo "skipped: $1 is not installed" >&2; exit 77; }; }
case "$1" in
  java)
    need java
    # 0, 1, 42, 2^31-1, 2^32, a millisecond clock, 2^48-1, 2^48, -1, -42, 2^63 (Long.MIN_VALUE), 2^63-1
    java "$here/ShuffleJava.java" 0 1 42 2147483647 4294967296 1700000000000 281474976710655 281474976710656 \
      18446744073709551615 18446744073709551574 9223372036854775808 9223372036854775807 ;;
  dotnet-framework|dotnet-framework-orderby)
    need mcs; need mono
    mcs -nologo -out:"$tmp/s.exe" "$here/shuffle_dotnet.cs" >&2
    mode=fy; [ "$1" = dotnet-framework-orderby ] && mode=orderby
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
    mode=fy; [ "$1" = node-sort ] && mode=sort
    # 1, 2, 42, 123456789, 2^31-1, 2^31 (int -2^31), 3000000000, 2^32-1 (int -1)
    for s in 1 2 42 123456789 2147483647 2147483648 3000000000 4294967295; do
      signed=$s; [ "$s" -ge 2147483648 ] && signed=$((s - 4294967296))
      node --random_seed="$signed" "$here/shuffle_node.js" $mode "$s"
    done ;;
  *) echo "unknown runtime '$1'" >&2; exit 2 ;;
esac
