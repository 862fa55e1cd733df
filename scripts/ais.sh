#!/usr/bin/env bash
# AIS positions into the store (issue 16: "AIS positions ≥ 200,000 rows/s"): `teu ingest` of the
# AIS files of a `teu simulate` feed, alone, into a fresh database, and the figures.
#
#   scripts/ais.sh sqlite|postgres FEED_DIR
#
# FEED_DIR is made first when it has no MANIFEST: `teu simulate --containers
# $TEU_AIS_CONTAINERS --seed 8 FEED_DIR` (default 5,000 containers: 3,076,946 positions of 697
# vessels in 13 MarineCadastre files). Only FEED_DIR/ais/ is ingested. The database is SQLite
# at $TEU_AIS_DIR/ais.db (default: a temp dir) or database `teu_ais` on the PostgreSQL at
# TEU_AIS_PG (default postgres://postgres@127.0.0.1:5432), dropped and created afresh. Prints
# the ingest's summary (positions, the store stage's rows/s, peak RSS) and the size of
# `vessel_positions` with its index. The binary is TEU_BIN when set, else a release build.
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:?sqlite or postgres}
feed=${2:?feed directory}
pg=${TEU_AIS_PG:-postgres://postgres@127.0.0.1:5432}
export PGOPTIONS=--client-min-messages=warning RUST_LOG=warn
if [ -z "${TEU_BIN:-}" ]; then
  cargo build --release --bin teu --quiet
  TEU_BIN=$PWD/target/release/teu
fi
if [ ! -f "$feed/MANIFEST" ]; then
  "$TEU_BIN" simulate --containers "${TEU_AIS_CONTAINERS:-5000}" --seed 8 "$feed" >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir=${TEU_AIS_DIR:-$work}
case $backend in
  sqlite)
    rm -f "$dir/ais.db" "$dir/ais.db-wal" "$dir/ais.db-shm"
    export DATABASE_URL="sqlite:$dir/ais.db" ;;
  postgres)
    psql "$pg/postgres" -qc 'DROP DATABASE IF EXISTS teu_ais WITH (FORCE)' -c 'CREATE DATABASE teu_ais' >/dev/null
    export DATABASE_URL="$pg/teu_ais" ;;
  *) echo "unknown backend $backend" >&2; exit 2 ;;
esac
"$TEU_BIN" accounts create --name ais >/dev/null 2>&1
"$TEU_BIN" ingest --account ais "$feed/ais" >"$work/ingest.out" 2>&1
grep -E '^ingested|^  store' "$work/ingest.out"
case $backend in
  sqlite)
    sqlite3 "$dir/ais.db" "SELECT 'vessel_positions: ' || (SELECT COUNT(*) FROM vessel_positions) || ' rows, ' \
      || ROUND(SUM(pgsize) / 1e6, 1) || ' MB with its index' FROM dbstat \
      WHERE name IN ('vessel_positions', 'vessel_positions_imo')" ;;
  postgres)
    psql "$DATABASE_URL" -tAc "SELECT 'vessel_positions: ' || (SELECT COUNT(*) FROM vessel_positions) || ' rows, ' \
      || ROUND(pg_total_relation_size('vessel_positions') / 1e6, 1) || ' MB with its indexes'" ;;
esac
