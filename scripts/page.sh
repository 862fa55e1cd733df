#!/usr/bin/env bash
# The store's read targets (issue 16), on one backend: a page of containers with their shipments
# over `/v2` and over GraphQL, and the map of a container at sea.
#
#   scripts/page.sh sqlite|postgres
#
# `teu simulate` writes TEU_PAGE_CONTAINERS containers (default 5,000; seed 8) with their AIS into
# TEU_PAGE_FEED (default: a temp dir; an existing feed there is reused), `teu ingest` loads them
# into a fresh database (SQLite in a temp dir, or database `teu_page` on the PostgreSQL at
# TEU_PAGE_PG, default postgres://postgres@127.0.0.1:5432) and `teu serve` starts on a free port.
# Then, for each request below, one request at a time (TEU_PAGE_REQUESTS, default 200, after 20
# not counted) with curl's own timing (`time_total`, the client's process start not included),
# and under wrk (16 keep-alive connections on 2 threads, TEU_PAGE_SECONDS per request, default
# 10; every body checked by scripts/load/check.lua), then under wrk again without the body check
# (check.lua's plain mode: the rate and the answers not 2xx or 3xx; the check shares the server's
# cores, README "Sixty-seventh session"; the checked rate is the one held against issue 16's
# 1,500 req/s, whose baseline was taken with the same check, README "Sixty-eighth session"):
#
#   GET /v2/containers?include=shipment&page[size]=30    30 containers and their shipments
#   POST /graphql containers(first: 30) { … shipment { … } events { id } }   the same page
#   GET /v2/containers/{id}/map_geojson                  a container on a vessel at sea
#
# Prints the ingest's wall time and rows/s, the database size per container, and a Markdown
# table: median and p90 one at a time, requests/s, p50 and p99 under wrk, good answers, errors,
# and the plain wrk's requests/s and its errors (answers not 2xx or 3xx, socket errors).
# The binary is TEU_BIN when set, else a release build.
# On PostgreSQL the server writes its dirty buffers first (`CHECKPOINT`, `page_checkpoint` of
# scripts/page-common.sh): a checkpoint still spreading an ingest's writes slows the pages.
#
# TEU_PAGE_DATABASE_URL=URL TEU_PAGE_ACCOUNT=NAME measures an existing database instead (say the
# million of `scripts/scale.sh`, account `scale`): nothing is simulated or ingested, a key is
# issued for the account (`teu accounts key`), and the backend argument only labels the rows.
# The map needs the account's Routing Data feature and AIS positions; TEU_PAGE_MAP=0 leaves it
# out.
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:?sqlite or postgres}
for tool in wrk jq curl; do
  which "$tool" >/dev/null || { echo "$tool is missing: apt-get install $tool" >&2; exit 1; }
done
containers=${TEU_PAGE_CONTAINERS:-5000}
requests=${TEU_PAGE_REQUESTS:-200}
seconds=${TEU_PAGE_SECONDS:-10}
pg=${TEU_PAGE_PG:-postgres://postgres@127.0.0.1:5432}
export PGOPTIONS=--client-min-messages=warning
if [ -z "${TEU_BIN:-}" ]; then
  cargo build --release --bin teu --quiet
  TEU_BIN=$PWD/target/release/teu
fi
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
feed=${TEU_PAGE_FEED:-$work/feed}
if [ -n "${TEU_PAGE_DATABASE_URL:-}" ]; then
  export DATABASE_URL=$TEU_PAGE_DATABASE_URL RUST_LOG=warn
  key=$("$TEU_BIN" accounts key --name "${TEU_PAGE_ACCOUNT:?the account to read as}")
elif [ ! -f "$feed/MANIFEST" ]; then
  "$TEU_BIN" simulate --containers "$containers" --seed 8 "$feed" >/dev/null
fi

if [ -z "${TEU_PAGE_DATABASE_URL:-}" ]; then
case $backend in
  sqlite) url="sqlite:$work/page.db" ;;
  postgres)
    psql "$pg/postgres" -qc 'DROP DATABASE IF EXISTS teu_page WITH (FORCE)' -c 'CREATE DATABASE teu_page' >/dev/null
    url="$pg/teu_page" ;;
  *) echo "unknown backend $backend" >&2; exit 2 ;;
esac
export DATABASE_URL=$url RUST_LOG=warn
key=$("$TEU_BIN" accounts create --name page --routing-data 2>/dev/null)
start=$(date +%s.%N)
"$TEU_BIN" ingest --account page "$feed" >"$work/ingest.out" 2>&1
end=$(date +%s.%N)
grep -A5 '^ingested' "$work/ingest.out" || tail -5 "$work/ingest.out"
case $backend in
  sqlite)
    sqlite3 "$work/page.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
    n=$(sqlite3 "$work/page.db" 'SELECT count(*) FROM containers')
    bytes=$(stat -c %s "$work/page.db") ;;
  postgres)
    n=$(psql "$url" -tAc 'SELECT count(*) FROM containers')
    bytes=$(psql "$url" -tAc "SELECT pg_database_size('teu_page')") ;;
esac
awk -v s="$start" -v e="$end" -v n="$n" -v b="$bytes" 'BEGIN {
  printf "ingest: %.1f s wall; %d containers; database %.1f MB, %.1f KB per container\n",
    e - s, n, b / 1e6, b / 1e3 / n }'
fi

. scripts/page-common.sh
page_checkpoint

"$TEU_BIN" serve --bind 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
server=$!
for _ in $(seq 1 100); do grep -q 'Listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
base=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -n1)
export TEU_KEY=$key
map=${TEU_PAGE_MAP:-1}
cid=""
for page in $(seq 1 50); do
  [ "$map" = 0 ] && break
  cid=$(curl -sfg -H "Authorization: Token $key" "$base/v2/containers?page[size]=100&page[number]=$page" \
        | jq -r '[.data[] | select(.attributes.current_status == "on_ship")][0].id // empty')
  [ -n "$cid" ] && break
done
[ "$map" = 0 ] || [ -n "$cid" ] || { echo "no container at sea in the simulated feed" >&2; exit 1; }

container_fields='id number refNumbers sealNumber createdAt equipmentType equipmentLength equipmentHeight
  weightInLbs pickupLfd pickupAppointmentAt availabilityKnown availableForPickup podArrivedAt podDischargedAt
  podFullOutAt terminalCheckedAt podFullOutChassisNumber locationAtPodTerminal finalDestinationFullOutAt
  emptyTerminatedAt holdsAtPodTerminal { name status description } feesAtPodTerminal { type amount currencyCode }
  podTimezone finalDestinationTimezone emptyTerminatedTimezone podRailCarrierScac indRailCarrierScac
  podLastTrackingRequestAt shipmentLastTrackingRequestAt podRailLoadedAt podRailDepartedAt indEtaAt indAtaAt
  indRailUnloadedAt indFacilityLfdOn importDeadlines { pickupLfdTerminal pickupLfdRail pickupLfdLine }
  currentStatus events { id }'
shipment_fields='id billOfLadingNumber normalizedNumber refNumbers createdAt tags portOfLadingLocode
  portOfLadingName portOfDischargeLocode portOfDischargeName destinationLocode destinationName shippingLineScac
  shippingLineName shippingLineShortName customerName podVesselName podVesselImo podVoyageNumber polEtdAt
  polAtdAt podEtaAt podOriginalEtaAt podAtaAt destinationEtaAt destinationAtaAt polTimezone podTimezone
  destinationTimezone lineTrackingLastAttemptedAt lineTrackingLastSucceededAt lineTrackingStoppedAt
  lineTrackingStoppedReason containers { id }'
query="{ containers(first: 30) { totalCount edges { node { $container_fields shipment { $shipment_fields } } } } }"
graphql_body=$(jq -cn --arg q "$(echo "$query" | tr -s ' \n' ' ')" '{query: $q}')

rows=()
measure() { # name method url expect count [body]
  local name=$1 method=$2 url=$3 expect=$4 count=$5 body=${6:-}
  local args=(-s -o "$work/body" -w '%{http_code} %{time_total}\n' -H "Authorization: Token $key" -X "$method")
  [ -n "$body" ] && args+=(-H 'Content-Type: application/json' --data "$body")
  : >"$work/times"
  for i in $(seq 1 $((requests + 20))); do
    read -r code t < <(curl "${args[@]}" "$url")
    if [ "$code" != 200 ] || [ "$(grep -o "$expect" "$work/body" | wc -l)" -lt "$count" ]; then
      echo "$name: a bad answer ($code):" >&2; head -c 300 "$work/body" >&2; exit 1
    fi
    [ "$i" -gt 20 ] && echo "$t" >>"$work/times"
  done
  local serial
  serial=$(sort -n "$work/times" | awk '{ v[NR] = $1 } END {
    printf "%.2f ms|%.2f ms", v[int((NR + 1) / 2)] * 1000, v[int(NR * 0.9)] * 1000 }')
  local out
  out=$(TEU_BODY=$body wrk -t2 -c16 -d"${seconds}s" --latency -s scripts/load/check.lua "$url" -- \
        "$method" "$expect" "$count" '"errors"' | grep '^RESULT')
  # The same without the body check (every body above was checked: the one-at-a-time answers
  # by grep, wrk's by check.lua): wrk's rate and its count of answers not 2xx or 3xx.
  local plain
  plain=$(TEU_BODY=$body wrk -t2 -c16 -d"${seconds}s" -s scripts/load/check.lua "$url" -- "$method" - |
    grep '^RESULT' | sed 's/.* rps=\([0-9.]*\) .* errors=\([0-9]*\)$/\1|\2/')
  rows+=("$name|$serial|$plain|$out")
}

measure "GET /v2/containers?include=shipment&page[size]=30" GET \
  "$base/v2/containers?include=shipment&page%5Bsize%5D=30" '"type":"container"' 30
measure "POST /graphql containers(first: 30) with shipments" POST "$base/graphql" '"billOfLadingNumber"' 30 \
  "$graphql_body"
if [ "$map" != 0 ]; then
  measure "GET /v2/containers/{id}/map_geojson (at sea)" GET "$base/v2/containers/$cid/map_geojson" \
    '"type":"Feature"' 1
fi
kill "$server"; wait "$server" 2>/dev/null || true; server=""

echo "| backend | request | median, one at a time | p90 | requests/s (wrk) | p50 | p99 | good 200 | errors | requests/s, plain wrk | errors, plain wrk |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r name median p90 plain_rps plain_bad res <<<"$r"
  eval "$(echo "$res" | sed 's/^RESULT //; s/ /; /g')"
  echo "| $backend | \`$name\` | $median | $p90 | $rps | $p50_ms ms | $p99_ms ms | $ok | $errors | $plain_rps | $plain_bad |"
done
