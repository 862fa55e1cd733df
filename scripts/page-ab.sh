#!/usr/bin/env bash
# Builds side by side on one database: the page reads of issue 16 served by each binary in
# turn, for comparing two builds without the run-to-run drift of separate `scripts/page.sh`
# runs (which ingest afresh each time).
#
#   DATABASE_URL=sqlite:/tmp/s5k/scale.db TEU_KEY=teu_… scripts/page-ab.sh ROUNDS BIN...
#
# DATABASE_URL is an ingested database (e.g. `scripts/scale.sh`'s, whose account `scale` gets
# a key with `teu accounts create` on another name and its `api_keys` row moved to `scale`);
# every BIN must open it (a build older than the database's migrations will not). For each
# round, each BIN in turn is started with `teu serve` on a free port, and for each request
# below: 30 requests not counted, 200 one at a time (the server's user+system CPU time per
# request from /proc, and curl's wall time including its own start), then wrk (16 keep-alive
# connections, 2 threads, TEU_PAGE_SECONDS, default 8; every body checked by
# scripts/load/check.lua). One line per binary, round and request. On PostgreSQL (a
# `postgres://` DATABASE_URL, the server on this machine) the line also gives the database
# server's CPU time per request over the same 200 requests: every `postgres` process's
# user+system time, with the postmaster's reaped children, from /proc (run as root or as the
# server's user).
#
#   GET /v2/containers?include=shipment&page[size]=30
#   POST /graphql, the same page as scripts/page.sh asks
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:?rounds}
shift
[ $# -gt 0 ] || { echo "usage: $0 ROUNDS BIN..." >&2; exit 2; }
seconds=${TEU_PAGE_SECONDS:-8}
. scripts/page-common.sh
page_setup wrk curl bc jq

# CPU ticks of the PostgreSQL server's processes (0 on SQLite): each process's own, and the
# postmaster's children that have exited (fields 14-17 of /proc/PID/stat).
database_ticks() {
  case $DATABASE_URL in
    postgres*) ;;
    *) echo 0; return ;;
  esac
  local total=0 pid postmaster
  postmaster=$(pgrep -o -x -u postgres postgres) # the oldest: the one that started the others
  for pid in $(pgrep -x -u postgres postgres); do
    total=$((total + $(awk -v all=$((pid == postmaster)) '{ print all ? $14 + $15 + $16 + $17 : $14 + $15 }' \
      "/proc/$pid/stat" 2>/dev/null || echo 0)))
  done
  echo "$total"
}

measure() { # bin base name method path expect
  local bin=$1 base=$2 name=$3 method=$4 path=$5 expect=$6
  local args=(-s -o /dev/null -H "Authorization: Token $TEU_KEY" -X "$method")
  local body=""
  if [ "$method" = POST ]; then
    args+=(-H 'Content-Type: application/json' --data "@$work/graphql.json")
    body=$(cat "$work/graphql.json")
  fi
  for _ in $(seq 30); do curl "${args[@]}" "$base$path"; done
  local cpu0 cpu1 db0 db1 t0 t1
  cpu0=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
  db0=$(database_ticks)
  t0=$(date +%s.%N)
  for _ in $(seq 200); do curl "${args[@]}" "$base$path"; done
  t1=$(date +%s.%N)
  cpu1=$(awk '{ print $14 + $15 }' "/proc/$server/stat")
  db1=$(database_ticks)
  local tick res
  tick=$(getconf CLK_TCK)
  res=$(TEU_BODY=$body wrk -t2 -c16 -d"${seconds}s" -s scripts/load/check.lua "$base$path" -- \
        "$method" "$expect" 30 '"errors"' | grep '^RESULT')
  printf '%s | %s | server CPU %.2f ms/request | database CPU %.2f ms/request | wall %.2f ms/request | %s\n' \
    "$(basename "$bin")" "$name" "$(echo "($cpu1 - $cpu0) * 1000 / $tick / 200" | bc -l)" \
    "$(echo "($db1 - $db0) * 1000 / $tick / 200" | bc -l)" \
    "$(echo "($t1 - $t0) * 1000 / 200" | bc -l)" "${res#RESULT }"
}

for round in $(seq 1 "$rounds"); do
  for bin in "$@"; do
    RUST_LOG=warn "$bin" serve --bind 127.0.0.1:0 >"$work/serve.out" 2>"$work/serve.err" &
    server=$!
    for _ in $(seq 1 100); do grep -q 'Listening on' "$work/serve.out" 2>/dev/null && break; sleep 0.2; done
    base=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -n1)
    [ -n "$base" ] || { echo "$bin did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }
    echo "round $round"
    measure "$bin" "$base" "/v2 page" GET '/v2/containers?include=shipment&page%5Bsize%5D=30' \
      '"type":"container"'
    measure "$bin" "$base" "GraphQL page" POST /graphql '"billOfLadingNumber"'
    kill "$server"; wait "$server" 2>/dev/null || true; server=""
  done
done
