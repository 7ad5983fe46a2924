#!/bin/sh
# CTest RuntimesGoldenLive.NAME: the real runtime prints its decks again and they must equal
# the checked-in golden file (which RuntimesGolden.* compares with fairdeck deck for deck).
# Exit 77 (skipped, with the reason on stderr) when the runtime is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
sh "$here/generate_b.sh" "$1" >"$out"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && { echo "generate_b.sh $1 failed (exit $rc)" >&2; exit 1; }
if ! cmp -s "$out" "$here/golden/$1.txt"; then
  echo "$1: the runtime's decks differ from tests/runtimes/golden/$1.txt:" >&2
  diff "$here/golden/$1.txt" "$out" | head -5 >&2
  exit 1
fi
echo "$1: $(wc -l <"$out") decks from the runtime equal the golden file"
