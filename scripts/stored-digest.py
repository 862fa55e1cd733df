#!/usr/bin/env python3
"""A digest of what a SQLite store holds, table by table, to tell whether two builds stored the
same rows from the same feed.

Prints, for each of the event keys, containers, shipments, the account counts, the transport
events, the event ids (both runs of migration 35), the terminal checks, the line deadlines and
the AIS positions, its row count and the MD5 of its rows
read in key order. Ids are scoped by account (`teu_domain::ids`), so compare databases that
hold the same account: create it once, copy the file, and ingest into each copy with one build:

  DATABASE_URL=sqlite:A.db teu accounts create --name scale --routing-data
  sqlite3 A.db 'PRAGMA wal_checkpoint(TRUNCATE)'; cp A.db B.db
  DATABASE_URL=sqlite:A.db teu-before ingest --account scale FILES...
  DATABASE_URL=sqlite:B.db teu-after ingest --account scale FILES...
  diff <(scripts/stored-digest.py A.db) <(scripts/stored-digest.py B.db)

Usage: scripts/stored-digest.py DB. Exits 2 on bad arguments or a database it cannot read.
"""
import hashlib
import sqlite3
import sys

QUERIES = {
    "event_keys": "SELECT kind, value, hex(event_ids) FROM event_keys ORDER BY kind, value",
    # `pickup_lfd` as milliseconds whether stored as RFC 3339 text (before migration 44) or as
    # milliseconds (after), so that databases of builds on either side compare (`julianday`:
    # Python's own SQLite may predate `unixepoch(…, 'subsec')`).
    "containers": "SELECT number, current_status, content_hash, hex(event_links), "
    "CASE typeof(pickup_lfd) WHEN 'text' THEN CAST(round((julianday(pickup_lfd) - 2440587.5) "
    "* 86400000) AS INTEGER) ELSE pickup_lfd END, has_holds FROM containers ORDER BY number, id",
    "shipments": "SELECT bill_of_lading_number, content_hash, hex(member_ids) FROM shipments "
    "ORDER BY bill_of_lading_number",
    "account_counts": "SELECT containers, shipments FROM account_counts ORDER BY account_id",
    "transport_events": "SELECT hex(id), seq, issued_at, hex(body) FROM transport_events ORDER BY seq",
    "event_ids": "SELECT hex(id), seq FROM (SELECT id, seq FROM event_ids "
    "UNION ALL SELECT id, seq FROM event_ids_recent) ORDER BY id",
    "terminal_checks": "SELECT container_number, hex(terminal_id), checked_at, hex(id), "
    "source_file, source_index, hex(raw), hex(body) FROM terminal_checks "
    "ORDER BY container_number, terminal_id, checked_at",
    "line_deadlines": "SELECT deadline_key, hex(id), issued_at, source_file, source_index, "
    "hex(raw), hex(body) FROM line_deadlines ORDER BY deadline_key, id",
    "vessel_positions": "SELECT vessel_key, observed_at, imo, latitude, longitude "
    "FROM vessel_positions ORDER BY vessel_key, observed_at",
}


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    try:
        db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
        for name, sql in QUERIES.items():
            digest, rows = hashlib.md5(), 0
            for row in db.execute(sql):
                digest.update(repr(row).encode())
                rows += 1
            print(name, rows, digest.hexdigest())
    except sqlite3.Error as e:
        print(f"{sys.argv[1]}: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
