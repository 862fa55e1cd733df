#!/usr/bin/env bash
# Instructions per request of the issue-16 pages, counted by valgrind's callgrind: a figure
# that does not move with the machine's load (wrk's rate on the 2-core machine varies by a
# third between runs of one build), for comparing builds on one database.
#
#   DATABASE_URL=sqlite:/tmp/s5k/scale.db TEU_KEY=teu_… scripts/page-instructions.sh BIN...
#
# DATABASE_URL and TEU_KEY as for scripts/page-ab.sh. Each BIN is served under callgrind with
# instrumentation off; after 10 requests of each page not counted, instrumentation is turned on
# for 100 requests of one page (one at a time, curl), the counters dumped, and off again. One
# line per binary and page: user-space instructions (Ir) per request, all threads of the
# server. Not counted: the kernel (system calls, futex hand-offs between the async runtime and
# the SQLite worker thread), so a change that saves statements but not instructions shows here
# as nothing; measure it with scripts/page-ab.sh.
#
#   GET /v2/containers?include=shipment&page[size]=30
#   POST /graphql, the same page as scripts/page.sh asks
#   GET /v2/containers?include=shipment&page[size]=30&page[number]=N, N = 2 to 101: pages read
#     once each, so no record of them was read before (the store's decoded-body memo misses;
#     the database needs 3,030 containers or more)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || { echo "usage: $0 BIN..." >&2; exit 2; }
. scripts/page-common.sh
page_setup valgrind curl bc jq

for bin in "$@"; do
  name=$(basename "$bin")
  RUST_LOG=warn valgrind --tool=callgrind --instr-atstart=no \
    --callgrind-out-file="$work/$name.%p.cg" "$bin" serve --bind 127.0.0.1:0 \
    >"$work/serve.out" 2>"$work/serve.err" &
  server=$!
  for _ in $(seq 1 300); do grep -q 'Listening on' "$work/serve.out" 2>/dev/null && break; sleep 1; done
  base=$(grep -o 'http://[0-9.:]*' "$work/serve.out" | head -n1)
  [ -n "$base" ] || { echo "$bin did not start:" >&2; cat "$work/serve.err" >&2; exit 1; }
  v2=(-H "Authorization: Token $TEU_KEY" "$base/v2/containers?include=shipment&page%5Bsize%5D=30")
  gql=(-H "Authorization: Token $TEU_KEY" -H 'Content-Type: application/json'
       --data "@$work/graphql.json" "$base/graphql")
  for _ in $(seq 10); do curl -s -o /dev/null "${v2[@]}"; curl -s -o /dev/null "${gql[@]}"; done
  for page in v2 gql distinct; do
    case $page in
      v2) args=("${v2[@]}"); label="/v2 page" ;;
      gql) args=("${gql[@]}"); label="GraphQL page" ;;
      distinct)
        label="/v2 pages 2-101, each once"
        # The 3,030th container (one record warmed of 3,000 counted): without it the last pages
        # would be empty and the figure meaningless.
        last=$(curl -s "${v2[@]/%page%5Bsize%5D=30/page%5Bsize%5D=1}&page%5Bnumber%5D=3030" | jq '.data | length')
        if [ "$last" != 1 ]; then
          printf '%s | %s | skipped: the database has fewer than 3,030 containers\n' "$name" "$label"
          continue
        fi ;;
    esac
    callgrind_control -i on "$server" >/dev/null 2>&1
    callgrind_control -z "$server" >/dev/null 2>&1
    for n in $(seq 2 101); do
      [ "$page" = distinct ] && args=("${v2[@]}&page%5Bnumber%5D=$n")
      curl -s -o /dev/null "${args[@]}"
    done
    callgrind_control -d "$page" "$server" >/dev/null 2>&1
    callgrind_control -i off "$server" >/dev/null 2>&1
    file=""
    for _ in $(seq 1 30); do
      file=$(grep -l "^desc: Trigger: dump $page\$" "$work/$name".*.cg* 2>/dev/null | head -n1 || true)
      [ -n "$file" ] && grep -q '^totals:' "$file" && break
      sleep 1
    done
    ir=$(grep '^summary:' "$file" | awk '{ print $2 }')
    printf '%s | %s | %.2f M instructions/request\n' "$name" "$label" "$(echo "$ir / 100 / 1000000" | bc -l)"
  done
  kill "$server"; wait "$server" 2>/dev/null || true; server=""
done
