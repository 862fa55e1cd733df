#!/usr/bin/env bash
# Ingest at scale: `teu ingest` of a `teu simulate` feed into a fresh database, with one or
# several workers on disjoint files, and the figures of each worker.
#
#   scripts/scale.sh sqlite|postgres FEED_DIR [WORKERS]        (WORKERS default 1)
#
# FEED_DIR is made first when it has no MANIFEST:
#   teu simulate --containers $TEU_SCALE_CONTAINERS --seed 1 --zstd FEED_DIR   (default 100,000)
# The DCSA, terminal, line-deadline, rail and email files are ingested (the AIS positions are
# public data shared by every account and are left out). Worker k of W takes the chunks whose
# number is k modulo W (chunk NNNNN of dcsa/events-NNNNN.json.zst, terminal/*-NNNNN.*,
# rail/rail-events-NNNNN.*, email/NNNNN-*.eml), in chunk order, so the workers' files are
# disjoint and a container's files all go to one worker. SQLite takes one worker (one writer).
# TEU_SCALE_CHUNKS=N ingests only chunks 1 to N (of about 2,000 containers each). The kind
# directories may be symbolic links (a variant of a feed sharing the unchanged files).
# TEU_SCALE_INGEST_ARGS is added to each worker's `teu ingest` (say `--derive-every 200000`).
# TEU_SCALE_WRAP runs each worker under a command, split into words at spaces (no quoting),
# say a worker's instruction count (README, "Sixty-third session"): TEU_SCALE_CHUNKS=3
# TEU_SCALE_WRAP='valgrind --tool=callgrind --callgrind-out-file=OUT' scripts/scale.sh
# postgres FEED_100K 1.
# TEU_SCALE_AIS=1 ingests FEED_DIR/ais/ after the workers have finished (one `teu ingest` of the
# whole directory, timed on its own and reported as AIS positions/s), so that `scripts/page.sh`
# can measure `map_geojson` on the database; the account is created with the Routing Data
# feature for the same reason (it gates only the map and vessel endpoints, not the ingest).
# TEU_SCALE_PAGE_SIZE=N creates the SQLite database with pages of N bytes (512 to 65536, a
# power of two) instead of teu's `SQLITE_PAGE_SIZE`: a database keeps the page size it was
# created with (SQLite manual, "PRAGMA page_size").
#
# The database is SQLite at $TEU_SCALE_DIR/scale.db (default: FEED_DIR/..) or database
# `teu_scale` on the PostgreSQL at TEU_SCALE_PG (default postgres://postgres@127.0.0.1:5432),
# dropped and created afresh. Each worker's output goes to $TEU_SCALE_DIR/worker-K.log; at the
# end the script prints the wall time and the feed rows per second over it (every worker's
# accepted feed rows together: issue 16's figure), each worker's report (rows, per-stage
# rows/s, peak RSS), the machine's busy CPU time over the workers' run beside the workers' own
# (the rest is the database server's and anything else running), the table counts and the
# database size. Each worker's exit line ends with what it wrote to the file system (GNU time's
# %O, in 512-byte blocks: on Linux the bytes the process caused to be written to disk, its
# `write_bytes` in /proc/PID/io; for SQLite the log and the checkpoints' copies back into the
# database). The binary is TEU_BIN when set, else a release build.
# On PostgreSQL it prints the WAL the server wrote over the run, its checkpoints (timed, and
# requested by WAL volume), the two settings that space them and `shared_buffers` (at the
# million the default 128MB made the events' index a round trip through the kernel: README,
# "Fifty-ninth session"). TEU_SCALE_STATEMENTS=1
# (PostgreSQL) also prints the server's time by statement over the
# workers' run, from pg_stat_statements, which the server must load (as superuser:
# `ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'`, then a restart; reset
# both afterwards): calls, execution and planning seconds, blocks read and written, WAL.
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:?sqlite or postgres}
feed=${2:?feed directory}
workers=${3:-1}
pg=${TEU_SCALE_PG:-postgres://postgres@127.0.0.1:5432}
export PGOPTIONS=--client-min-messages=warning
dir=${TEU_SCALE_DIR:-$(dirname "$feed")}
if [ -z "${TEU_BIN:-}" ]; then
  cargo build --release --bin teu --quiet
  TEU_BIN=$PWD/target/release/teu
fi
if [ ! -f "$feed/MANIFEST" ]; then
  /usr/bin/time -f 'simulate: %e s, peak RSS %M KB' \
    "$TEU_BIN" simulate --containers "${TEU_SCALE_CONTAINERS:-100000}" --seed 1 --zstd "$feed"
fi

case $backend in
  sqlite)
    [ "$workers" = 1 ] || { echo "SQLite has one writer: use 1 worker" >&2; exit 2; }
    rm -f "$dir/scale.db" "$dir/scale.db-wal" "$dir/scale.db-shm"
    url="sqlite:$dir/scale.db"
    if [ -n "${TEU_SCALE_PAGE_SIZE:-}" ]; then
      # Fixed once the file is in WAL mode, before teu creates its first table.
      sqlite3 "$dir/scale.db" "PRAGMA page_size = $TEU_SCALE_PAGE_SIZE; PRAGMA journal_mode = WAL;" >/dev/null
      # SQLite ignores a size it does not support instead of refusing it.
      made=$(sqlite3 "$dir/scale.db" 'PRAGMA page_size')
      [ "$made" = "$TEU_SCALE_PAGE_SIZE" ] || {
        echo "TEU_SCALE_PAGE_SIZE=$TEU_SCALE_PAGE_SIZE: not a page size SQLite takes (512 to 65536, a power of two); the database got $made" >&2
        exit 2
      }
    fi ;;
  postgres)
    psql "$pg/postgres" -qc 'DROP DATABASE IF EXISTS teu_scale WITH (FORCE)' -c 'CREATE DATABASE teu_scale' >/dev/null
    url="$pg/teu_scale" ;;
  *) echo "unknown backend $backend" >&2; exit 2 ;;
esac
export DATABASE_URL=$url RUST_LOG=warn
"$TEU_BIN" accounts create --name scale --routing-data >/dev/null

# Worker k's files, chunk by chunk: the chunk number is the first 5-digit run of the file name.
files_of() { # k
  find -L "$feed"/dcsa "$feed"/terminal "$feed"/rail "$feed"/email -type f 2>/dev/null |
    awk -v k="$1" -v w="$workers" -v last="${TEU_SCALE_CHUNKS:-0}" '
      { name = $0; sub(/.*\//, "", name)
        if (match(name, /[0-9][0-9][0-9][0-9][0-9]/)) {
          chunk = substr(name, RSTART, 5) + 0
          kind = $0 ~ /\/dcsa\// ? 0 : $0 ~ /\/terminal\// ? 1 : $0 ~ /\/rail\// ? 2 : 3
          if (chunk % w == k && (last == 0 || chunk <= last)) printf "%06d %d %s\n", chunk, kind, $0 } }' |
    sort | cut -d' ' -f3-
}

# The machine's busy and idle CPU time so far, in clock ticks (/proc/stat, first line: user
# nice system idle iowait irq softirq).
cpu_ticks() { awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6 }' /proc/stat; }
statements=0
if [ "${TEU_SCALE_STATEMENTS:-0}" = 1 ] && [ "$backend" = postgres ]; then
  statements=1
  psql "$url" -qc 'CREATE EXTENSION IF NOT EXISTS pg_stat_statements' -c 'SELECT pg_stat_statements_reset()' >/dev/null 2>&1 || {
    echo "TEU_SCALE_STATEMENTS=1: the server at $pg does not load pg_stat_statements (see the head of this script)" >&2
    exit 2
  }
fi
# PostgreSQL: its checkpoints so far (pg_stat_checkpointer from version 17, pg_stat_bgwriter
# before) and where its WAL is, to report the run's checkpoints and WAL volume.
checkpoints() {
  if [ "$(psql "$url" -tAc "SELECT to_regclass('pg_catalog.pg_stat_checkpointer') IS NOT NULL")" = t ]; then
    psql "$url" -tAc "SELECT num_timed || ' ' || num_requested FROM pg_stat_checkpointer"
  else
    psql "$url" -tAc "SELECT checkpoints_timed || ' ' || checkpoints_req FROM pg_stat_bgwriter"
  fi
}
if [ "$backend" = postgres ]; then
  read -r timed_start requested_start < <(checkpoints)
  lsn_start=$(psql "$url" -tAc 'SELECT pg_current_wal_lsn()')
fi
read -r busy_start idle_start < <(cpu_ticks)
start=$(date +%s.%N)
pids=()
for ((k = 0; k < workers; k++)); do
  mapfile -t files < <(files_of "$k")
  /usr/bin/time -f 'worker exit: %x, %e s (user %U s, sys %S s), peak RSS %M KB, minor faults %R, written %O blocks of 512 bytes' \
    ${TEU_SCALE_WRAP:-} "$TEU_BIN" ingest --account scale ${TEU_SCALE_INGEST_ARGS:-} "${files[@]}" >"$dir/worker-$k.log" 2>&1 &
  pids+=($!)
done
status=0
for p in "${pids[@]}"; do wait "$p" || status=1; done
end=$(date +%s.%N)
read -r busy_end idle_end < <(cpu_ticks)
# The feed rows every worker accepted, over the wall time of all of them: issue 16's figure.
# A worker of several files prints them in its `ingested` summary; one of a single file prints
# only that file's line (`FILE: FORMAT: N rows read, M accepted, …`), whose M is then its rows.
rows=$(for ((k = 0; k < workers; k++)); do
  awk '/^ingested .*\([0-9]+ feed rows/ { match($0, /\([0-9]+ feed rows/); total = substr($0, RSTART + 1) + 0 }
       / rows read, [0-9]+ accepted,/ { match($0, / [0-9]+ accepted,/); one += substr($0, RSTART + 1) + 0 }
       END { print (total != "" ? total : one + 0) }' "$dir/worker-$k.log"
done | awk '{ n += $1 } END { print n + 0 }')
awk -v b="$backend" -v w="$workers" -v s="$start" -v e="$end" -v n="$rows" \
  'BEGIN { printf "backend %s, %d worker(s), wall time %.1f s, %d feed rows, %.0f rows/s\n", b, w, e - s, n, n / (e - s) }'
for ((k = 0; k < workers; k++)); do
  echo "--- worker $k"
  grep -A6 '^ingested' "$dir/worker-$k.log" || tail -5 "$dir/worker-$k.log"
  grep '^worker exit' "$dir/worker-$k.log"
done
# The whole machine's CPU over the workers' run against the workers' own: what is left is
# the database server's (PostgreSQL) and anything else running.
for ((k = 0; k < workers; k++)); do cat "$dir/worker-$k.log"; done |
  awk -v hz="$(getconf CLK_TCK)" -v busy=$((busy_end - busy_start)) -v idle=$((idle_end - idle_start)) '
  /^worker exit/ { for (i = 1; i <= NF; i++) { if ($i == "(user") own += $(i + 1); if ($i == "sys") own += $(i + 1) } }
  END { printf "machine CPU: busy %.1f CPU-s, idle %.1f CPU-s; the workers %.1f CPU-s, the rest %.1f CPU-s\n",
          busy / hz, idle / hz, own, busy / hz - own }'
if [ "$backend" = postgres ]; then
  # A checkpoint is requested when the WAL since the last one nears max_wal_size; after any
  # checkpoint the first change to each page writes the whole page to the WAL (PostgreSQL
  # manual, "WAL Configuration"): at the million with the default 1GB those were most of
  # the run's WAL (README, "Fifty-seventh session").
  read -r timed_end requested_end < <(checkpoints)
  psql "$url" -tAc "SELECT 'server WAL ' || pg_size_pretty(pg_wal_lsn_diff(pg_current_wal_lsn(), '$lsn_start'))
      || ', checkpoints: $((timed_end - timed_start)) timed, $((requested_end - requested_start)) requested'
      || ' (max_wal_size ' || current_setting('max_wal_size')
      || ', checkpoint_timeout ' || current_setting('checkpoint_timeout')
      || ', shared_buffers ' || current_setting('shared_buffers') || ')'"
fi
if [ "$statements" = 1 ]; then
  echo "--- the server's time by statement (pg_stat_statements, the workers' run)"
  psql "$url" -c "SELECT calls, round(total_exec_time::numeric / 1000, 1) AS exec_s,
      round(total_plan_time::numeric / 1000, 1) AS plan_s, rows, shared_blks_read AS read,
      shared_blks_written AS written, pg_size_pretty(wal_bytes) AS wal,
      left(regexp_replace(query, '\s+', ' ', 'g'), 70) AS statement
    FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
    ORDER BY total_exec_time DESC LIMIT 12"
fi
if [ "${TEU_SCALE_AIS:-0}" = 1 ]; then
  ais_start=$(date +%s.%N)
  /usr/bin/time -f 'ais exit: %x, %e s (user %U s, sys %S s), peak RSS %M KB' \
    "$TEU_BIN" ingest --account scale "$feed/ais" >"$dir/ais.log" 2>&1 || status=1
  ais_end=$(date +%s.%N)
  echo "--- AIS positions"
  # One file prints only its own line; several add the `ingested` summary and its stages.
  grep -E '^ingested|^  store' "$dir/ais.log" || grep -v '^ais exit' "$dir/ais.log" | tail -3
  grep '^ais exit' "$dir/ais.log"
  case $backend in
    sqlite) positions=$(sqlite3 "$dir/scale.db" 'SELECT count(*) FROM vessel_positions') ;;
    postgres) positions=$(psql "$url" -tAc 'SELECT count(*) FROM vessel_positions') ;;
  esac
  awk -v s="$ais_start" -v e="$ais_end" -v n="$positions" \
    'BEGIN { printf "AIS: %d positions in %.1f s wall (%.0f positions/s)\n", n, e - s, n / (e - s) }'
fi
count='SELECT (SELECT count(*) FROM containers) AS containers, (SELECT count(*) FROM shipments) AS shipments, (SELECT count(*) FROM transport_events) AS events, (SELECT count(*) FROM terminal_checks) AS terminal_checks, (SELECT count(*) FROM vessel_positions) AS positions'
case $backend in
  sqlite)
    sqlite3 "$dir/scale.db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
    sqlite3 -header "$dir/scale.db" "$count"
    du -h "$dir/scale.db" ;;
  postgres)
    psql "$url" -c "$count"
    psql "$url" -tAc "SELECT 'database size ' || pg_size_pretty(pg_database_size('teu_scale'))" ;;
esac
exit $status
