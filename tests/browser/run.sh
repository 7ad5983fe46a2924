#!/bin/sh
# CTest entry of the browser tests (docs/verify-page.md): installs playwright-core from
# package-lock.json when it changed, then runs verify_page_test.mjs in Debian's Chromium.
#   run.sh FAIRDECK_BINARY SOURCE_DIR OUT_DIR
# Without node, npm or chromium it exits 77 (CTest: skipped) with a message, except in CI
# (CI set), where they must be there: scripts/setup.sh --with-ci-tools installs them.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
chromium=${CHROMIUM:-$(command -v chromium || true)}
missing=""
for tool in node npm python3; do command -v "$tool" >/dev/null 2>&1 || missing="$missing $tool"; done
[ -n "$chromium" ] && [ -x "$chromium" ] || missing="$missing chromium"
if [ -n "$missing" ]; then
  if [ -n "${CI:-}" ]; then
    echo "browser tests: missing$missing (scripts/setup.sh --with-ci-tools installs them)" >&2
    exit 1
  fi
  echo "browser tests SKIPPED: missing$missing (apt-get install chromium nodejs npm)"
  exit 77
fi
stamp="$here/node_modules/.fairdeck-package-lock.json"
if ! cmp -s "$here/package-lock.json" "$stamp"; then
  (cd "$here" && npm ci --no-audit --no-fund --loglevel=error) || { echo "browser tests: npm ci failed" >&2; exit 1; }
  cp "$here/package-lock.json" "$stamp"
fi
CHROMIUM=$chromium exec node "$here/verify_page_test.mjs" --fairdeck "$1" --source "$2" --out "$3"
