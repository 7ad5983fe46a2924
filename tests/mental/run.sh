#!/bin/sh
# CTest MentalReferenceVerifier: a 3-player hand played with the CLI, verified by the C++
# (fairdeck mental verify --json) and by the independent @noble/curves reference
# (reference.mjs); both must agree on the transcript hash and the board, the reference must
# reproduce the pinned card encoding, and must reject a transcript with one proof digit changed.
#   run.sh FAIRDECK_BINARY OUT_DIR
# Without node or npm: exit 77 (CTest: skipped) with a message, except in CI (CI set).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
fairdeck=$1
out=$2
missing=""
for tool in node npm python3; do command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"; done
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then echo "mental reference: missing$missing" >&2; exit 1; fi
  echo "mental reference test SKIPPED: missing$missing (apt-get install nodejs npm)"
  exit 77
fi
stamp="$here/node_modules/.fairdeck-package-lock.json"
if ! cmp -s "$here/package-lock.json" "$stamp"; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || { echo "mental reference: npm ci failed" >&2; exit 1; }
  cp "$here/package-lock.json" "$stamp"
fi
node "$here/reference.mjs" --kat
rm -rf "$out" && mkdir -p "$out" && cd "$out"
for p in A B C; do "$fairdeck" mental keygen -o $p.key > $p.pub; done
"$fairdeck" mental new --players A.pub,B.pub,C.pub --table reference -o hand.json > /dev/null
for p in A B C; do "$fairdeck" mental shuffle --key $p.key hand.json > /dev/null; done
"$fairdeck" mental reveal --key B.key hand.json --positions 0,1 --to 1 > /dev/null
"$fairdeck" mental reveal --key C.key hand.json --positions 0,1 --to 1 > /dev/null
for p in A B C; do "$fairdeck" mental reveal --key $p.key hand.json --positions 6,7,8 --to all > /dev/null; done
"$fairdeck" mental verify --json hand.json > cpp.json
node "$here/reference.mjs" hand.json > ref.json
python3 - <<'PY'
import json, sys
cpp = json.load(open('cpp.json')); ref = json.load(open('ref.json'))
assert cpp['verified'] and ref['verified'], (cpp, ref)
assert cpp['transcript_hash'] == ref['transcript_hash'], ('transcript hash differs', cpp, ref)
assert cpp['public_cards'] == ref['public_cards'] and len(ref['public_cards']) == 3, (cpp, ref)
t = json.load(open('hand.json'))
p = t['steps'][1]['proof']
i = len(p) - 60  # a low-order digit of the last response s'_N: well-formed, only the algebra can tell
t['steps'][1]['proof'] = p[:i] + ('0' if p[i] != '0' else '1') + p[i + 1:]
json.dump(t, open('tampered.json', 'w'), indent=1, sort_keys=True)
print('C++ and reference agree:', ref['transcript_hash'][:16], ref['public_cards'])
PY
if node "$here/reference.mjs" tampered.json > tampered.out; then
  echo "the reference verifier accepted a tampered shuffle proof" >&2
  exit 1
fi
grep -q '"problem":"step 1: shuffle proof"' tampered.out || { echo "tampered: wrong reason: $(cat tampered.out)" >&2; exit 1; }
echo "tampered: $(cat tampered.out)"
