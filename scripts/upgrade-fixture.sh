#!/usr/bin/env bash
# Writes the databases `tests/upgrade.rs` upgrades: what a released teu wrote, as SQL text.
#
#   TEU_BIN=/path/to/released/teu scripts/upgrade-fixture.sh NAME
#
# With the released binary TEU_BIN (build it from the release's commit), generates the feed of
# `tests/upgrade/feed/` (`teu generate --shipments 40 --seed 41 --awkward`, zstd-compressed; kept
# so that later generators cannot change what the test ingests), creates account `acme` and
# ingests the feed into a fresh SQLite file and a fresh PostgreSQL database (TEU_UPGRADE_PG,
# default postgres://postgres@127.0.0.1:5432), then dumps both as SQL (`sqlite3 .dump`,
# `pg_dump --inserts`) into tests/upgrade/NAME-sqlite.sql.zst and NAME-postgres.sql.zst, and the
# account's API key into tests/upgrade/NAME.key (a key of this test database only).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:?fixture name, e.g. the release commit}
bin=${TEU_BIN:?the released teu binary}
pg=${TEU_UPGRADE_PG:-postgres://postgres@127.0.0.1:5432}
export PGOPTIONS=--client-min-messages=warning RUST_LOG=warn
out=tests/upgrade
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$out"
if [ ! -d "$out/feed" ]; then
  "$bin" generate --shipments 40 --seed 41 --awkward "$work/feed" >/dev/null
  rm -f "$work/feed/truth.jsonl"
  mkdir -p "$out/feed"
  (cd "$work/feed" && find . -type f) | while read -r f; do
    mkdir -p "$out/feed/$(dirname "$f")"
    zstd -q -19 "$work/feed/$f" -o "$out/feed/$f.zst"
  done
fi
mkdir -p "$work/plain"
(cd "$out/feed" && find . -name '*.zst') | while read -r f; do
  mkdir -p "$work/plain/$(dirname "$f")"
  zstd -q -d "$out/feed/$f" -o "$work/plain/${f%.zst}"
done

# SQLite
db="$work/upgrade.db"
key=$("$bin" --database-url "sqlite:$db" accounts create --name acme --routing-data 2>/dev/null)
"$bin" --database-url "sqlite:$db" ingest --account acme "$work/plain" >/dev/null
sqlite3 "$db" 'PRAGMA wal_checkpoint(TRUNCATE)' >/dev/null
sqlite3 "$db" .dump | zstd -q -19 -o "$out/$name-sqlite.sql.zst" -f

# PostgreSQL: keys are random, so the new account's key hash is replaced by that of the SQLite
# account's key: one key file serves both dumps.
psql "$pg/postgres" -qc 'DROP DATABASE IF EXISTS teu_upgrade WITH (FORCE)' -c 'CREATE DATABASE teu_upgrade' >/dev/null
pgkey=$("$bin" --database-url "$pg/teu_upgrade" accounts create --name acme --routing-data 2>/dev/null)
"$bin" --database-url "$pg/teu_upgrade" ingest --account acme "$work/plain" >/dev/null
hash=$(printf %s "$key" | sha256sum | cut -d' ' -f1)
pghash=$(printf %s "$pgkey" | sha256sum | cut -d' ' -f1)
psql "$pg/teu_upgrade" -qc "UPDATE api_keys SET key_hash = '$hash' WHERE key_hash = '$pghash'"
# psql meta-commands (`\restrict KEY`, pg_dump 15.14 and later) are not SQL: dropped.
pg_dump --inserts --no-owner --no-privileges "$pg/teu_upgrade" | grep -v "^\\\\" | zstd -q -19 -o "$out/$name-postgres.sql.zst" -f
psql "$pg/postgres" -qc 'DROP DATABASE teu_upgrade WITH (FORCE)'
echo "$key" >"$out/$name.key"
ls -l "$out" "$out/feed"
