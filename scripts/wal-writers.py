#!/usr/bin/env python3
"""Which B-trees of a SQLite store an ingest writes, and how many bytes each.

Ingests FILES into the existing SQLite database DB with `teu ingest` and reads the write-ahead
log it leaves: every frame of the log is one page written by a commit (SQLite manual,
"Write-Ahead Logging", file format: a 32-byte header, then per frame a 24-byte header whose
first 4 bytes are the page number, followed by the page). Each page number is mapped to the
table or index owning it with the `dbstat` virtual table, and the script prints, per B-tree,
the frames, their bytes (frames times the page size), the share of all frames and the distinct
pages. A page written by several commits counts once per commit: that is what reaches the disk
before the next checkpoint.

To keep the whole log, the script checkpoints DB first (`PRAGMA wal_checkpoint(TRUNCATE)`) and
holds a connection of its own open while `teu ingest` runs, so that the ingest's last close does
not checkpoint and delete the log (SQLite removes it only when the last connection closes). The
writer's own checkpoints start when the log reaches `SQLITE_WRITER_AUTOCHECKPOINT_PAGES`
(store/src/lib.rs, 2 GiB): keep FILES under that (one chunk of a `teu simulate` feed at the
million writes about 0.8 GB). The database keeps what the ingest wrote.

Usage: scripts/wal-writers.py DB ACCOUNT FILES...    (TEU_BIN: the teu binary, default `teu`)

Example, the cost of one more chunk at the million (docs/NOTES.md, "Thirty-fifth session"):
  teu simulate --containers 2000 --seed 2 --zstd /tmp/s2/feed
  scripts/wal-writers.py /work/runA/scale.db scale /tmp/s2/feed/{dcsa,terminal,rail,email}/*

Needs Python's sqlite3 module built with dbstat (Debian's python3 is). Exits 1 when DB has no
log after the ingest or `teu ingest` failed (what it wrote is still reported), 2 on bad
arguments, a database that cannot be opened or a teu that cannot be run.
"""
import collections
import os
import signal
import sqlite3
import struct
import subprocess
import sys

WAL_HEADER = struct.Struct(">IIIIIIII")  # magic, version, page size, checkpoint, salts, checksums
FRAME_HEADER = struct.Struct(">IIII")  # page number, database size after commit (0: none), salts


def frames(wal):
    """The page numbers of the log's valid frames, in order, the page size and the commits."""
    if len(wal) < WAL_HEADER.size:
        return [], 0, 0
    _, _, page_size, _, salt1, salt2, _, _ = WAL_HEADER.unpack_from(wal)
    size = 24 + page_size
    pages, commits, offset = [], 0, WAL_HEADER.size
    while offset + size <= len(wal):
        page, commit, s1, s2 = FRAME_HEADER.unpack_from(wal, offset)
        if (s1, s2) != (salt1, salt2):  # a frame left over from before the last reset
            break
        pages.append(page)
        commits += commit != 0
        offset += size
    return pages, page_size, commits


def main(argv):
    if len(argv) < 4:
        print(__doc__.split("Usage: ")[1].split("\n")[0], file=sys.stderr)
        return 2
    db, account, files = argv[1], argv[2], argv[3:]
    teu = os.environ.get("TEU_BIN", "teu")
    try:
        # `mode=rw`: an existing database only (a plain connect would create an empty one).
        holder = sqlite3.connect(f"file:{db}?mode=rw", uri=True)
        holder.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchall()
    except sqlite3.Error as e:
        print(f"{db}: cannot open the database: {e}", file=sys.stderr)
        return 2
    env = dict(os.environ, DATABASE_URL=f"sqlite:{db}", RUST_LOG="warn")
    try:
        ingest = subprocess.run(
            [teu, "ingest", "--account", account, *files],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
    except OSError as e:
        print(f"{teu}: cannot run teu (set TEU_BIN): {e}", file=sys.stderr)
        return 2
    if ingest.returncode != 0:
        # What it stored before failing is still in the log: reported below, exit status 1.
        print(f"teu ingest exited with {ingest.returncode}:\n{ingest.stderr}", file=sys.stderr)
    try:
        with open(db + "-wal", "rb") as f:
            wal = f.read()
    except FileNotFoundError:
        print(f"{db}-wal: no write-ahead log after the ingest", file=sys.stderr)
        return 1
    pages, page_size, commits = frames(wal)
    wanted = set(pages)
    owner = {}
    for name, page in holder.execute("SELECT name, pageno FROM dbstat"):
        if page in wanted:
            owner[page] = name
    holder.close()
    written = collections.Counter(owner.get(p, "(free or new)") for p in pages)
    distinct = collections.Counter(owner.get(p, "(free or new)") for p in wanted)
    total = max(len(pages), 1)
    print(
        f"{len(pages)} frames of {page_size} bytes ({len(pages) * page_size / 1e6:.1f} MB) "
        f"in {commits} commits, {len(wanted)} distinct pages"
    )
    print(f"{'b-tree':40} {'frames':>8} {'MB':>8} {'share':>6} {'distinct':>9}")
    for name, n in written.most_common():
        print(
            f"{name:40} {n:8d} {n * page_size / 1e6:8.1f} {100 * n / total:5.1f}% "
            f"{distinct[name]:9d}"
        )
    return 0 if ingest.returncode == 0 else 1


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped into `head`
    sys.exit(main(sys.argv))
