#!/usr/bin/env bash
# Checks the map page in headless Chromium: starts `teu serve --demo` on a random port with a
# throw-away SQLite database, finds a demo container whose map has a vessel track, loads
# /map/{id}#key=... and checks from the DOM that the route was drawn (body[data-drawn=true],
# data-features > 0). Writes a screenshot to ${SCREENSHOT:-docs/map-demo.png}.
#
# Needs: a built `teu` (TEU=path, default target/debug/teu or $CARGO_TARGET_DIR/debug/teu),
# chromium (`apt-get install -y chromium`), curl, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
TEU=${TEU:-${CARGO_TARGET_DIR:-target}/debug/teu}
SCREENSHOT=${SCREENSHOT:-docs/map-demo.png}
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
[ -n "$CHROMIUM" ] || { echo "chromium not found: apt-get install -y chromium" >&2; exit 2; }
work=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null || true; rm -rf "$work"' EXIT
RUST_LOG=warn "$TEU" --database-url "sqlite:$work/teu.db" serve --demo --bind 127.0.0.1:0 >"$work/out" 2>"$work/err" &
pid=$!
for _ in $(seq 1 600); do
  grep -q '^Listening on ' "$work/out" 2>/dev/null && break
  kill -0 "$pid" 2>/dev/null || { cat "$work/err" >&2; exit 1; }
  sleep 0.5
done
base=$(sed -n 's/^Listening on \(http[^ ]*\).*/\1/p' "$work/out")
key=$(sed -n 's/^API key: //p' "$work/out")
[ -n "$base" ] && [ -n "$key" ] || { echo "server did not start" >&2; cat "$work/err" >&2; exit 1; }
# A container whose map has a track and, when there is one, a vessel at sea.
id=$(python3 - "$base" "$key" <<'PY'
import json, sys, urllib.request
base, key = sys.argv[1], sys.argv[2]
def get(path):
    req = urllib.request.Request(base + path, headers={"Authorization": "Token " + key})
    return json.load(urllib.request.urlopen(req))
best = None
for c in get("/v2/containers?page[size]=100")["data"]:
    types = {f["properties"]["feature_type"] for f in get(f"/v2/containers/{c['id']}/map_geojson")["features"]}
    score = ("past_vessel_locations" in types) * 2 + ("current_vessel" in types) + ("estimated_full_legs" in types)
    if best is None or score > best[0]:
        best = (score, c["id"])
print(best[1])
PY
)
url="$base/map/$id#key=$key"
echo "map page: $base/map/$id"
dom=$("$CHROMIUM" --headless --no-sandbox --disable-gpu --virtual-time-budget=15000 --dump-dom "$url" 2>/dev/null)
features=$(printf '%s' "$dom" | sed -n 's/.*data-features="\([0-9]*\)".*/\1/p' | head -n1)
types=$(printf '%s' "$dom" | sed -n 's/.*data-feature-types="\([^"]*\)".*/\1/p' | head -n1)
if ! printf '%s' "$dom" | grep -q 'data-drawn="true"' || [ "${features:-0}" -eq 0 ]; then
  echo "FAIL: the route was not drawn" >&2
  printf '%s' "$dom" | grep -o 'data-error="[^"]*"' >&2 || true
  exit 1
fi
mkdir -p "$(dirname "$SCREENSHOT")"
"$CHROMIUM" --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=15000 \
  --window-size=1200,800 --screenshot="$SCREENSHOT" "$url" >/dev/null 2>&1
echo "OK: $features features drawn ($types); screenshot $SCREENSHOT"
