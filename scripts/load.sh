#!/usr/bin/env bash
# Load test over loopback with wrk (Debian package `wrk`), checking every response body.
#
#   scripts/load.sh [sqlite|postgres|both]      (default: both)
#
# For each backend: `teu simulate` writes TEU_LOAD_CONTAINERS containers (default 2,000) with
# their AIS, terminal files and emails; `teu ingest` loads them into a fresh database (SQLite in
# a temp dir, or database `teu_load` on the PostgreSQL at TEU_LOAD_PG, default
# postgres://postgres@127.0.0.1:5432); `teu serve` starts on a free port; then wrk runs
# TEU_LOAD_SECONDS (default 10) per endpoint with TEU_LOAD_CONNECTIONS (default 16) keep-alive
# connections on 2 threads:
#
#   /v2/containers?page[size]=30            200 with 30 container resources
#   /v2/containers/{id}/map_geojson         200 FeatureCollection with features (a container at sea)
#   POST /v2/tracking_requests/infer_number 200 with a shipping_line, or 429 JSON:API error with
#                                           Retry-After once the 200/minute allowance is spent
#   POST /graphql                           200 with 30 container numbers and no "errors"
#   /map/assets/map.js                      the static endpoint, 200 with the map script
#
# and prints a Markdown table: requests/s, p50 and p99 latency, good answers, errors (any other
# status, a body that failed its check, or a socket error). The binary is TEU_BIN when set, else
# a release build (`cargo build --release --workspace`).
set -euo pipefail
cd "$(dirname "$0")/.."
which wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }
backends=${1:-both}
[ "$backends" = both ] && backends="sqlite postgres"
containers=${TEU_LOAD_CONTAINERS:-2000}
seconds=${TEU_LOAD_SECONDS:-10}
conns=${TEU_LOAD_CONNECTIONS:-16}
pg=${TEU_LOAD_PG:-postgres://postgres@127.0.0.1:5432}
if [ -z "${TEU_BIN:-}" ]; then
  cargo build --release --workspace --quiet
  TEU_BIN=$PWD/target/release/teu
fi
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT

"$TEU_BIN" simulate --containers "$containers" --seed 8 "$work/feed" >/dev/null
lua=$PWD/scripts/load/check.lua
rows=()

run() { # name url args...
  local name=$1 url=$2; shift 2
  local out
  out=$(wrk -t2 -c"$conns" -d"${seconds}s" --latency -s "$lua" "$url" -- "$@" | grep '^RESULT')
  rows+=("$backend|$name|$out")
}

for backend in $backends; do
  case $backend in
    sqlite) url="sqlite:$work/load.db" ;;
    postgres)
      psql "$pg/postgres" -qc 'DROP DATABASE IF EXISTS teu_load WITH (FORCE)' -c 'CREATE DATABASE teu_load' >/dev/null
      url="$pg/teu_load" ;;
    *) echo "unknown backend $backend" >&2; exit 2 ;;
  esac
  export DATABASE_URL=$url RUST_LOG=warn
  key=$("$TEU_BIN" accounts create --name load --routing-data 2>/dev/null)
  echo "== $backend: ingesting $containers containers" >&2
  "$TEU_BIN" ingest --account load "$work/feed" >/dev/null
  "$TEU_BIN" serve --bind 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
  server=$!
  for _ in $(seq 1 100); do grep -q 'Listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
  base=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -n1)
  export TEU_KEY=$key
  # A container on a vessel at sea (current vessel and partial leg), else any container.
  cid=""
  for page in $(seq 1 20); do
    cid=$(curl -sfg -H "Authorization: Token $key" "$base/v2/containers?page[size]=100&page[number]=$page" \
          | jq -r '[.data[] | select(.attributes.current_status == "on_ship")][0].id // empty')
    [ -n "$cid" ] && break
  done
  [ -n "$cid" ] || { echo "no container at sea in the simulated feed" >&2; exit 1; }

  TEU_BODY= run "GET /v2/containers?page[size]=30" "$base/v2/containers?page%5Bsize%5D=30" \
    GET '"type":"container"' 30 '"errors"'
  TEU_BODY= run "GET /v2/containers/{id}/map_geojson" "$base/v2/containers/$cid/map_geojson" \
    GET '"type":"Feature"' 1 '"errors"'
  TEU_BODY='{"number":"MSCU1234566"}' run "POST /v2/tracking_requests/infer_number" \
    "$base/v2/tracking_requests/infer_number" POST '"shipping_line"' 1 '"errors"' 429 '"rate_limited"'
  TEU_BODY='{"query":"{ containers(first: 30) { totalCount edges { node { number currentStatus shipment { billOfLadingNumber podEtaAt } } } } }"}' \
    run "POST /graphql containers(first: 30)" "$base/graphql" POST '"number"' 30 '"errors"'
  TEU_BODY= run "GET /map/assets/map.js (static)" "$base/map/assets/map.js" GET 'L.map(' 1 -
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
done

echo "| backend | request | requests/s | p50 | p99 | good 200 | 429 (rate limited) | errors |"
echo "|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r b n res <<<"$r"
  eval "$(echo "$res" | sed 's/^RESULT //; s/ /; /g')"
  echo "| $b | \`$n\` | $rps | $p50_ms ms | $p99_ms ms | $ok | $alt | $errors |"
done
