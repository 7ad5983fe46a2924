#!/bin/sh
# CTest RuntimeGoldenLive.NAME: the real runtime prints its golden vectors again
# (generate.sh NAME) and they must equal the checked-in tests/runtimes/golden/NAME.txt, which
# RuntimeGolden.* compares with fairdeck's emulation deck for deck. Exit 77 (CTest: skipped),
# with the reason, when the runtime is not installed.
# Usage: live.sh NAME
set -u
name=$1
here=$(cd "$(dirname "$0")" && pwd)
golden=$here/golden/$name.txt
out=$(mktemp)
trap 'rm -f "$out"' EXIT
sh "$here/generate.sh" "$name" >"$out"
rc=$?
[ $rc -eq 77 ] && exit 77
[ $rc -ne 0 ] && { echo "generate.sh $name failed (exit $rc)"; exit 1; }
if cmp -s "$out" "$golden"; then
  echo "$name: $(wc -l <"$out") lines from the live runtime match $golden"
  exit 0
fi
echo "$name: the live runtime disagrees with $golden (first difference below; regenerate with the command in docs/engines.md if the runtime changed on purpose)"
diff "$golden" "$out" | head -4 | cut -c1-300
exit 1
