#!/bin/sh
# Renders `fairdeck audit --html` in headless Chromium (Debian package `chromium`) and fails
# unless the page loads, its DOM holds the heat maps and verdicts, and the screenshot shows
# the report's red and blue marks (a blank or broken page fails).
#
# Usage: scripts/check-audit-html.sh [FAIRDECK_BINARY] [SCREENSHOT.png]
#   defaults: build/release/fairdeck, build/audit-report.png (look at it after a change)
set -eu

fairdeck=${1:-build/release/fairdeck}
shot=${2:-build/audit-report.png}
chromium=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}
[ -x "$fairdeck" ] || { echo "check-audit-html: no fairdeck binary at $fairdeck" >&2; exit 1; }
[ -n "$chromium" ] || { echo "check-audit-html: chromium not found (apt-get install -y chromium)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
report="$work/report.html"

# Small but telling: one fair algorithm, two broken ones (expected biased: exit 0).
"$fairdeck" audit --seed 1 --trials 20000 --algorithm fisher-yates --algorithm naive --algorithm asf1999 \
  --html "$report" > "$work/table.txt"

# Offline, sandbox-free (containers), fresh profile: nothing but the local file is loaded.
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
--disable-component-update --disable-sync --user-data-dir=$work/profile"

# shellcheck disable=SC2086
timeout 120 "$chromium" $flags --dump-dom "file://$report" > "$work/dom.html" 2> "$work/chromium-dom.log" || {
  echo "check-audit-html: chromium failed to load the report" >&2; tail -5 "$work/chromium-dom.log" >&2; exit 1; }
for needle in '<svg' 'naive with chacha20 is BIASED' 'fisher-yates with chacha20 looks fair' 'position-card' \
    'every broken one was caught' '<nav>' '&lt;1e-300'; do
  grep -q -- "$needle" "$work/dom.html" || { echo "check-audit-html: rendered DOM lacks '$needle'" >&2; exit 1; }
done

mkdir -p "$(dirname "$shot")"
rm -f "$shot"
# shellcheck disable=SC2086
timeout 120 "$chromium" $flags --window-size=1100,2600 --screenshot="$shot" "file://$report" \
  2> "$work/chromium-shot.log" > /dev/null || true
[ -s "$shot" ] || { echo "check-audit-html: no screenshot written" >&2; tail -5 "$work/chromium-shot.log" >&2; exit 1; }

# Decode the PNG (stdlib only) and count strongly red and blue pixels: the heat map and bars.
python3 - "$shot" <<'PY'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
if data[:8] != b'\x89PNG\r\n\x1a\n':
    sys.exit('check-audit-html: screenshot is not a PNG')
pos, idat, width = 8, b'', 0
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + length]
    if kind == b'IHDR':
        width, height, depth, colour = struct.unpack('>IIBB', body[:10])
        if depth != 8 or colour not in (2, 6):
            sys.exit('check-audit-html: unexpected PNG format')
        bpp = 3 if colour == 2 else 4
    elif kind == b'IDAT':
        idat += body
    pos += 12 + length
raw = zlib.decompress(idat)
stride = width * bpp
prev = bytearray(stride)
red = blue = 0
i = 0
for _ in range(height):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):  # PNG filters (RFC 2083, 6.)
        a = line[x - bpp] if x >= bpp else 0
        b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
        if f == 1: line[x] = (line[x] + a) & 255
        elif f == 2: line[x] = (line[x] + b) & 255
        elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
    for x in range(0, stride, bpp):
        r, g, bl = line[x], line[x + 1], line[x + 2]
        red += r > 150 and g < 90 and bl < 90
        blue += bl > 140 and r < 90
    prev = line
print(f'check-audit-html: {width}x{height} screenshot, {red} red and {blue} blue pixels')
if red < 2000 or blue < 2000:
    sys.exit('check-audit-html: the screenshot lacks the report colours (blank or broken render)')
PY
echo "check-audit-html: OK, screenshot at $shot"
